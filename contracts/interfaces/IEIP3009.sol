// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title The EIP-3009 call TokenpadMarket and TokenpadLocker use to take a signer's tokens.
/// @dev Circle's USDC and every tokenpad token (EIP3009.sol) have it, with this signature.
interface IEIP3009Receive {
    /// Moves `value` from `from` to `to` on `from`'s signed ReceiveWithAuthorization; only `to`
    /// may submit it.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;
}
