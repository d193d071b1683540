// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Create2} from "@openzeppelin/contracts/utils/Create2.sol";
import {TokenpadToken} from "./TokenpadToken.sol";

/// @title Deploys merchants' tokens at addresses computable off chain.
/// @notice One factory per chain, deployed once by the operator. Anyone may deploy through it;
/// each deployer has its own salt space, so nobody can take another deployer's address.
/// @dev token address = CREATE2(this factory, keccak256(abi.encode(deployer, salt)), creation code
/// of TokenpadToken), i.e.
///   keccak256(0xff ++ factory ++ keccak256(abi.encode(deployer, salt)) ++ TOKEN_CREATION_CODE_HASH)[12:]
contract TokenpadFactory {
    /// keccak256 of TokenpadToken's creation code (equal to creationCodeHash in
    /// contracts/build/TokenpadToken.json).
    bytes32 public immutable TOKEN_CREATION_CODE_HASH;

    event TokenDeployed(address indexed deployer, bytes32 indexed salt, address token);

    /// (deployer, salt) was already used: the token exists at `token`.
    error TokenpadFactoryAlreadyDeployed(address token);

    constructor() {
        TOKEN_CREATION_CODE_HASH = keccak256(type(TokenpadToken).creationCode);
    }

    /// Creates a token at predict(msg.sender, salt), sets its name and symbol and mints `supply`
    /// (18-decimal base units) to `treasury`, all in this one transaction.
    function deploy(bytes32 salt, string calldata name, string calldata symbol, uint256 supply, address treasury)
        external
        returns (address token)
    {
        bytes32 create2Salt = keccak256(abi.encode(msg.sender, salt));
        address predicted = Create2.computeAddress(create2Salt, TOKEN_CREATION_CODE_HASH);
        if (predicted.code.length != 0) revert TokenpadFactoryAlreadyDeployed(predicted);
        TokenpadToken t = new TokenpadToken{salt: create2Salt}();
        t.initialize(name, symbol, supply, treasury);
        token = address(t);
        emit TokenDeployed(msg.sender, salt, token);
    }

    /// The address deploy(salt, ...) called by `deployer` creates (or created).
    function predict(address deployer, bytes32 salt) external view returns (address) {
        return Create2.computeAddress(keccak256(abi.encode(deployer, salt)), TOKEN_CREATION_CODE_HASH);
    }
}
