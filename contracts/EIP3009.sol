// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BaseERC20} from "./BaseERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {IERC5267} from "@openzeppelin/contracts/interfaces/IERC5267.sol";

/// @title EIP-3009 "Transfer With Authorization" for an ERC-20, with tokenpad's batch calls.
/// @notice Holders move tokens without ETH: they sign an EIP-712 authorization with their own key
/// and anyone (tokenpad's relayer) submits it and pays the gas. Nonces are any 32-byte values,
/// unique per authorizer, so many authorizations of one holder can settle in any order and in
/// one batch. Where a nonce's state is kept is the token's choice (`_useAuthorization`):
/// TestUSDC keeps one flag per nonce as USDC does, TokenpadToken a bitmap.
/// @dev Behaves as Circle's USDC (FiatTokenV2) does for EOAs: the same function signatures,
/// typehashes, events, validity window (validAfter < block.timestamp < validBefore, both strict),
/// check order (time window and nonce, then signature), and one nonce space shared by transfers,
/// receives and cancellations. Signatures are (v, r, s) from EOAs only; OpenZeppelin's ECDSA
/// rejects malleable (high-s) signatures and v other than 27/28. Differences from USDC: custom
/// errors instead of revert strings, and the two batch calls (see them for what they save).
///
/// The EIP-712 domain is {name: name(), version: version(), chainId: block.chainid,
/// verifyingContract: address(this)}, computed on every use (never cached in a constructor), so a
/// token whose name is set after construction (TokenpadToken) signs under its real name, and a
/// chain fork gets a fresh chain id.
abstract contract EIP3009 is BaseERC20, IERC5267 {
    /// keccak256("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)")
    /// = 0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );

    /// keccak256("ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)")
    /// = 0xd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de8
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );

    /// keccak256("CancelAuthorization(address authorizer,bytes32 nonce)")
    /// = 0x158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a1597429
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH = keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");

    /// keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")
    bytes32 private constant _DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    /// One signed transfer authorization, as batchTransferWithAuthorization takes it.
    struct Authorization {
        address from;
        address to;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    /// The same authorization in five words instead of nine, as batchTransferWithAuthorizationPacked
    /// takes it (tokenpad's settler sends this form): validAfter is 0, and the rest is packed
    ///   fromAndValue      = uint256(uint160(from)) << 96 | value          (value < 2^96)
    ///   toValidBeforeAndV = uint256(uint160(to)) << 96 | validBefore << 8 | v   (validBefore < 2^88)
    /// Every bit has a meaning: one authorization has one packed form.
    struct PackedAuthorization {
        uint256 fromAndValue;
        uint256 toValidBeforeAndV;
        bytes32 nonce;
        bytes32 r;
        bytes32 s;
    }

    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    /// The signature does not recover to the authorizer (wrong signer, malformed or malleable).
    error EIP3009InvalidSignature();
    /// block.timestamp <= validAfter.
    error EIP3009AuthorizationNotYetValid(uint256 validAfter);
    /// block.timestamp >= validBefore.
    error EIP3009AuthorizationExpired(uint256 validBefore);
    /// The authorizer already used or canceled this nonce.
    error EIP3009AuthorizationUsedOrCanceled(address authorizer, bytes32 nonce);
    /// receiveWithAuthorization called by someone other than the payee.
    error EIP3009CallerMustBePayee(address caller, address payee);
    /// batchTransfer's two arrays differ in length.
    error EIP3009LengthMismatch(uint256 recipients, uint256 values);

    // ---------------------------------------------------------------- EIP-712 domain

    /// The EIP-712 domain version ("1" unless a token overrides it; USDC uses "2").
    function version() public view virtual returns (string memory) {
        return "1";
    }

    /// The EIP-712 domain separator, as USDC exposes it.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparator();
    }

    /// ERC-5267: the domain's fields (name, version, chainId, verifyingContract), for wallets.
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name_,
            string memory version_,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", name(), version(), block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    function _domainSeparator() internal view returns (bytes32) {
        return keccak256(
            abi.encode(
                _DOMAIN_TYPEHASH, keccak256(bytes(name())), keccak256(bytes(version())), block.chainid, address(this)
            )
        );
    }

    // ---------------------------------------------------------------- EIP-3009

    /// Whether `authorizer` has used or canceled `nonce`.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationState(authorizer, nonce);
    }

    /// Moves `value` from `from` to `to` on `from`'s signed TransferWithAuthorization. Anyone may submit it.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _transferWithAuthorization(
            _domainSeparator(),
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH,
            from,
            to,
            value,
            validAfter,
            validBefore,
            nonce,
            v,
            r,
            s
        );
    }

    /// As transferWithAuthorization, on a ReceiveWithAuthorization signature, and only the payee
    /// (`to`) may submit it (no front-running of a payee's contract call).
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
    ) external {
        if (to != msg.sender) revert EIP3009CallerMustBePayee(msg.sender, to);
        _transferWithAuthorization(
            _domainSeparator(),
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH,
            from,
            to,
            value,
            validAfter,
            validBefore,
            nonce,
            v,
            r,
            s
        );
    }

    /// Burns an unused nonce on `authorizer`'s signed CancelAuthorization.
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        _useAuthorization(authorizer, nonce);
        _requireSignedBy(
            authorizer,
            _domainSeparator(),
            keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)),
            v,
            r,
            s
        );
        emit AuthorizationCanceled(authorizer, nonce);
    }

    // ---------------------------------------------------------------- batches (tokenpad)

    /// Applies many TransferWithAuthorization signatures (any holders, any order) in one
    /// transaction. Atomic: if any one fails, the whole batch reverts with its error. Each one is
    /// exactly a transferWithAuthorization (the same checks in the same order, the same events);
    /// the batch computes the domain separator once.
    function batchTransferWithAuthorization(Authorization[] calldata auths) external {
        bytes32 domainSeparator = _domainSeparator();
        uint256 n = auths.length;
        for (uint256 i = 0; i < n; ++i) {
            Authorization calldata a = auths[i];
            _transferWithAuthorization(
                domainSeparator,
                TRANSFER_WITH_AUTHORIZATION_TYPEHASH,
                a.from,
                a.to,
                a.value,
                a.validAfter,
                a.validBefore,
                a.nonce,
                a.v,
                a.r,
                a.s
            );
        }
    }

    /// The packed form of batchTransferWithAuthorization (see PackedAuthorization): the same
    /// checks in the same order, the same errors, the same Transfer events, for about 1,000 gas
    /// less calldata and decoding per authorization; and no AuthorizationUsed event (1,560 gas
    /// each): authorizationState(from, nonce) answers for each one, and the transaction's
    /// calldata names them. contracts/TOKEN.md says why. validAfter is 0 for every one.
    function batchTransferWithAuthorizationPacked(PackedAuthorization[] calldata auths) external {
        bytes32 domainSeparator = _domainSeparator();
        uint256 n = auths.length;
        for (uint256 i = 0; i < n; ++i) {
            PackedAuthorization calldata a = auths[i];
            uint256 fromAndValue = a.fromAndValue;
            uint256 toValidBeforeAndV = a.toValidBeforeAndV;
            address from = address(uint160(fromAndValue >> 96));
            address to = address(uint160(toValidBeforeAndV >> 96));
            uint256 validBefore = uint88(toValidBeforeAndV >> 8);
            // validAfter = 0 < block.timestamp
            if (block.timestamp >= validBefore) revert EIP3009AuthorizationExpired(validBefore);
            bytes32 nonce = a.nonce;
            _useAuthorization(from, nonce);
            _requireSignedBy(
                from,
                domainSeparator,
                keccak256(
                    abi.encode(
                        TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, uint96(fromAndValue), 0, validBefore, nonce
                    )
                ),
                uint8(toValidBeforeAndV),
                a.r,
                a.s
            );
            _pay(from, to, uint96(fromAndValue));
        }
    }

    /// Transfers values[i] from the caller to to[i] for every i, in one transaction (atomic).
    /// The caller's balance must cover the batch's total (else `ERC20InsufficientBalance(caller,
    /// balance, total)`): it is debited once for the whole batch, then each recipient is
    /// credited, with its own Transfer event, in order (a recipient that is the caller gets its
    /// value back). A zero recipient reverts the batch (`ERC20InvalidReceiver`).
    function batchTransfer(address[] calldata to, uint256[] calldata values) external {
        uint256 n = to.length;
        if (n != values.length) revert EIP3009LengthMismatch(n, values.length);
        uint256 total;
        for (uint256 i = 0; i < n; ++i) {
            total += values[i];
        }
        address from = msg.sender;
        _debit(from, total);
        for (uint256 i = 0; i < n; ++i) {
            _credit(from, to[i], values[i]);
        }
    }

    /// The packed form of batchTransfer: items[i] = uint256(uint160(to)) << 96 | value (value <
    /// 2^96), one word per recipient instead of two (about 350 gas less each); otherwise the same.
    function batchTransferPacked(uint256[] calldata items) external {
        uint256 n = items.length;
        uint256 total;
        unchecked {
            // at most n * 2^96, far below 2^256
            for (uint256 i = 0; i < n; ++i) {
                total += uint96(items[i]);
            }
        }
        address from = msg.sender;
        _debit(from, total);
        for (uint256 i = 0; i < n; ++i) {
            uint256 item = items[i];
            _credit(from, address(uint160(item >> 96)), uint96(item));
        }
    }

    // ---------------------------------------------------------------- authorization states

    /// Whether `authorizer` used or canceled `nonce`.
    function _authorizationState(address authorizer, bytes32 nonce) internal view virtual returns (bool);

    /// Marks `authorizer`'s `nonce` used (or canceled); reverts
    /// `EIP3009AuthorizationUsedOrCanceled` if it already was.
    function _useAuthorization(address authorizer, bytes32 nonce) internal virtual;

    // ---------------------------------------------------------------- internals

    function _transferWithAuthorization(
        bytes32 domainSeparator,
        bytes32 typehash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) private {
        if (block.timestamp <= validAfter) revert EIP3009AuthorizationNotYetValid(validAfter);
        if (block.timestamp >= validBefore) revert EIP3009AuthorizationExpired(validBefore);
        _useAuthorization(from, nonce);
        _requireSignedBy(
            from,
            domainSeparator,
            keccak256(abi.encode(typehash, from, to, value, validAfter, validBefore, nonce)),
            v,
            r,
            s
        );
        emit AuthorizationUsed(from, nonce);
        _pay(from, to, value);
    }

    /// A signed transfer's movement: `from` signed it, so it is not the zero address.
    function _pay(address from, address to, uint256 value) private {
        if (to == address(0)) revert ERC20InvalidReceiver(address(0));
        _move(from, to, value);
    }

    /// A batch's one debit of its sender, for the batch's total.
    function _debit(address from, uint256 total) private {
        uint256 balance = _balances[from];
        if (balance < total) revert ERC20InsufficientBalance(from, balance, total);
        unchecked {
            _balances[from] = balance - total;
        }
    }

    /// One recipient of a batch its sender was debited for.
    function _credit(address from, address to, uint256 value) private {
        if (to == address(0)) revert ERC20InvalidReceiver(address(0));
        unchecked {
            _balances[to] += value; // at most totalSupply: the batch's total left `from`
        }
        emit Transfer(from, to, value);
    }

    function _requireSignedBy(
        address signer,
        bytes32 domainSeparator,
        bytes32 structHash,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) private pure {
        bytes32 digest = MessageHashUtils.toTypedDataHash(domainSeparator, structHash);
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecover(digest, v, r, s);
        if (err != ECDSA.RecoverError.NoError || recovered != signer) revert EIP3009InvalidSignature();
    }
}
