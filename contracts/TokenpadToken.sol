// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {EIP3009} from "./EIP3009.sol";

/// @title A merchant's token: ERC-20 (18 decimals) with EIP-3009 and tokenpad's batch calls.
/// @notice Deployed only through TokenpadFactory, which creates and initializes it in one
/// transaction.
/// @dev The creation code takes no constructor arguments and does not depend on the token's
/// name, symbol or supply, so every token's CREATE2 address follows from the factory, the
/// deployer and the salt alone (see TokenpadFactory.predict). The name and symbol live in
/// storage, set once by initialize; the EIP-712 domain (EIP3009) reads name() on every use.
///
/// Authorization states are a bitmap per authorizer (an unordered-nonce scheme, as Uniswap's
/// Permit2 keeps its nonces): a nonce's high 248 bits pick a 256-bit word of the authorizer's,
/// its low 8 bits a bit in it. Any bytes32 nonce works as EIP-3009 says, and a random one costs
/// what a flag per nonce costs (a fresh storage slot); nonces that share a word share a slot, so
/// a holder whose authorizations count up (0, 1, 2, ...: tokenpad's settler signs them so) pays
/// for a fresh slot once per 256 of them, and a warm or already-set slot for the others.
contract TokenpadToken is EIP3009 {
    /// The address that created this contract (the factory); the only one allowed to initialize.
    address private immutable _creator;

    string private _tokenName;
    string private _tokenSymbol;
    bool private _initialized;

    /// authorizer => nonce >> 8 => bit (nonce & 0xff) set when that nonce is used or canceled
    mapping(address authorizer => mapping(uint256 word => uint256 bits)) private _authorizationBits;

    /// initialize was called a second time.
    error TokenpadTokenAlreadyInitialized();
    /// initialize was called by someone other than the creator.
    error TokenpadTokenUnauthorizedInitializer(address caller);

    /// @dev msg.sender is read at run time and kept in the runtime code (an immutable): the
    /// creation code stays the same for every deployer.
    constructor() {
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

    function _authorizationState(address authorizer, bytes32 nonce) internal view override returns (bool) {
        uint256 n = uint256(nonce);
        return _authorizationBits[authorizer][n >> 8] & (1 << (n & 0xff)) != 0;
    }

    function _useAuthorization(address authorizer, bytes32 nonce) internal override {
        uint256 n = uint256(nonce);
        mapping(uint256 => uint256) storage words = _authorizationBits[authorizer];
        uint256 bits = words[n >> 8];
        uint256 bit = 1 << (n & 0xff);
        if (bits & bit != 0) revert EIP3009AuthorizationUsedOrCanceled(authorizer, nonce);
        words[n >> 8] = bits | bit;
    }
}
