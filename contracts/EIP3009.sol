// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {IERC5267} from "@openzeppelin/contracts/interfaces/IERC5267.sol";

/// @title EIP-3009 "Transfer With Authorization" for an ERC-20, with tokenpad's batch calls.
/// @notice Holders move tokens without ETH: they sign an EIP-712 authorization with their own key
/// and anyone (tokenpad's relayer) submits it and pays the gas. Nonces are random 32-byte values,
/// unique per authorizer, so many authorizations of one holder can settle in any order and in
/// one batch.
/// @dev Behaves as Circle's USDC (FiatTokenV2) does for EOAs: the same function signatures,
/// typehashes, events, validity window (validAfter < block.timestamp < validBefore, both strict),
/// check order (time window and nonce, then signature), and one nonce space shared by transfers,
/// receives and cancellations. Signatures are (v, r, s) from EOAs only; OpenZeppelin's ECDSA
/// rejects malleable (high-s) signatures and v other than 27/28. Differences from USDC: custom
/// errors instead of revert strings, and the two batch calls.
///
/// The EIP-712 domain is {name: name(), version: version(), chainId: block.chainid,
/// verifyingContract: address(this)}, computed on every use (never cached in a constructor), so a
/// token whose name is set after construction (TokenpadToken) signs under its real name, and a
/// chain fork gets a fresh chain id.
abstract contract EIP3009 is ERC20, IERC5267 {
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

    /// authorizer => nonce => used or canceled
    mapping(address authorizer => mapping(bytes32 nonce => bool used)) private _authorizationStates;

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
        return _authorizationStates[authorizer][nonce];
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
        _requireUnused(authorizer, nonce);
        _requireSignedBy(
            authorizer,
            _domainSeparator(),
            keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)),
            v,
            r,
            s
        );
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    // ---------------------------------------------------------------- batches (tokenpad)

    /// Applies many TransferWithAuthorization signatures (any holders, any order) in one
    /// transaction. Atomic: if any one fails, the whole batch reverts with its error.
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

    /// Transfers values[i] from the caller to to[i] for every i, in one transaction (atomic).
    function batchTransfer(address[] calldata to, uint256[] calldata values) external {
        if (to.length != values.length) revert EIP3009LengthMismatch(to.length, values.length);
        address from = _msgSender();
        uint256 n = to.length;
        for (uint256 i = 0; i < n; ++i) {
            _transfer(from, to[i], values[i]);
        }
    }

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
        _requireUnused(from, nonce);
        _requireSignedBy(
            from,
            domainSeparator,
            keccak256(abi.encode(typehash, from, to, value, validAfter, validBefore, nonce)),
            v,
            r,
            s
        );
        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        _transfer(from, to, value);
    }

    function _requireUnused(address authorizer, bytes32 nonce) private view {
        if (_authorizationStates[authorizer][nonce]) revert EIP3009AuthorizationUsedOrCanceled(authorizer, nonce);
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
