// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {EIP3009} from "./EIP3009.sol";

/// @title A merchant's token: ERC-20 (18 decimals) with EIP-3009 and tokenpad's batch calls.
/// @notice Deployed only through TokenpadFactory, which creates and initializes it in one
/// transaction.
/// @dev The creation code takes no constructor arguments and does not depend on the token's
/// name, symbol or supply, so every token's CREATE2 address follows from the factory, the
/// deployer and the salt alone (see TokenpadFactory.predict). The name and symbol live in
/// storage, set once by initialize; the EIP-712 domain (EIP3009) reads name() on every use.
contract TokenpadToken is EIP3009 {
    /// The address that created this contract (the factory); the only one allowed to initialize.
    address private immutable _creator;

    string private _tokenName;
    string private _tokenSymbol;
    bool private _initialized;

    /// initialize was called a second time.
    error TokenpadTokenAlreadyInitialized();
    /// initialize was called by someone other than the creator.
    error TokenpadTokenUnauthorizedInitializer(address caller);

    /// @dev msg.sender is read at run time and kept in the runtime code (an immutable): the
    /// creation code stays the same for every deployer.
    constructor() ERC20("", "") {
        _creator = msg.sender;
    }

    /// Sets the name and symbol and mints `supply` (in 18-decimal base units) to `treasury`.
    /// Callable once, by the creator only.
    function initialize(string calldata name_, string calldata symbol_, uint256 supply, address treasury) external {
        if (msg.sender != _creator) revert TokenpadTokenUnauthorizedInitializer(msg.sender);
        if (_initialized) revert TokenpadTokenAlreadyInitialized();
        _initialized = true;
        _tokenName = name_;
        _tokenSymbol = symbol_;
        _mint(treasury, supply);
    }

    function name() public view override returns (string memory) {
        return _tokenName;
    }

    function symbol() public view override returns (string memory) {
        return _tokenSymbol;
    }
}
