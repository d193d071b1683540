// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {EIP3009} from "./EIP3009.sol";

/// @title TEST TOKEN, NOT USDC. For local nodes (anvil) and test chains only.
/// @notice !!! ANYONE CAN MINT ANY AMOUNT (see mint). It has no value. Never deploy it to a
/// production chain and never configure it as CHAIN_USDC there: on Base and Base Sepolia use
/// Circle's USDC (contracts/README.md lists the addresses). !!!
/// @dev Mirrors what tokenpad uses of Circle's USDC: name "USD Coin", symbol "USDC", 6 decimals,
/// EIP-3009 with EIP-712 domain version "2" (real USDC on Base mainnet signs under
/// name "USD Coin", version "2"; on Base Sepolia under name "USDC", version "2"), and USDC's
/// storage of authorization states, a flag per (authorizer, nonce), so that every nonce costs a
/// fresh storage slot here as it does on USDC (tokenpad's own token keeps a bitmap instead).
contract TestUSDC is EIP3009 {
    /// authorizer => nonce => used or canceled
    mapping(address authorizer => mapping(bytes32 nonce => bool used)) private _authorizationStates;

    function name() public pure override returns (string memory) {
        return "USD Coin";
    }

    function symbol() public pure override returns (string memory) {
        return "USDC";
    }

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function version() public pure override returns (string memory) {
        return "2";
    }

    /// TEST ONLY: mints `amount` (6-decimal base units) to `to`, for anyone who asks.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function _authorizationState(address authorizer, bytes32 nonce) internal view override returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    function _useAuthorization(address authorizer, bytes32 nonce) internal override {
        if (_authorizationStates[authorizer][nonce]) revert EIP3009AuthorizationUsedOrCanceled(authorizer, nonce);
        _authorizationStates[authorizer][nonce] = true;
    }
}
