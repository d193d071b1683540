// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IEIP3009Receive} from "./interfaces/IEIP3009.sol";

/// @title tokenpad's token locks: a presale's allocations, held on chain until each unlock time.
/// @notice A merchant's treasury locks tokens for its buyers: each lock is an amount of one token,
/// a beneficiary and an unlock time, under a 32-byte id the treasury picks in its own namespace:
/// the lock is stored under key = keccak256(abi.encode(treasury, id)) (lockKey), so nobody else
/// can take, or block, a treasury's ids. At or after its unlock time anyone may release a lock
/// by its key (tokenpad's relayer does it in batches); its tokens go to its beneficiary, and to
/// nobody else, ever.
/// - lock: the treasury brings the total in with one EIP-3009 ReceiveWithAuthorization signed
///   by itself, and records many locks in one transaction.
/// - release: anyone, any time: due locks are paid out, locks not yet due or already released
///   are skipped, so a batch never fails because of timing or another releaser.
/// - locks(key): the lock as stored, for anyone to check on a block explorer.
/// The contract has no owner, no admin, no pause and no other way for tokens to leave: what a
/// lock records is what its beneficiary gets, at its unlock time, and not before.
/// @dev Each lock takes two storage slots: (token, uint96 amount) and (beneficiary, uint64
/// unlockAt, bool released). A lock is never deleted, so a key (an owner's id) is used once for
/// good. The owner is not stored (it would be a third slot): it is in the Locked event. Tokens
/// whose transfers deliver less than asked (fees on transfer, rebasing) are not supported: the
/// locker trusts receiveWithAuthorization to bring exactly `value` in. Tokens sent here by a
/// plain transfer belong to no lock and stay here for good.
contract TokenpadLocker {
    using SafeERC20 for IERC20;

    /// An EIP-3009 receiveWithAuthorization(from, to = this locker, value, validAfter,
    /// validBefore, nonce, v, r, s), signed by `from`, that brings `value` of a token in.
    /// (The same shape as TokenpadMarket's.)
    struct Pull {
        address from;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    /// One lock, in two slots.
    struct Lock {
        address token;
        uint96 amount;
        address beneficiary;
        uint64 unlockAt;
        bool released;
    }

    /// Every lock ever made, by key = lockKey(owner, id) (beneficiary == address(0): no such lock).
    mapping(bytes32 key => Lock) public locks;

    /// `amount` of `token` is locked for `beneficiary` until `unlockAt` (unix seconds), as lock
    /// `key` = lockKey(owner, id): `owner` (who called lock) named it `id`.
    event Locked(
        bytes32 indexed key,
        address indexed token,
        address indexed beneficiary,
        address owner,
        bytes32 id,
        uint256 amount,
        uint64 unlockAt
    );
    /// Lock `key` was released: its `amount` of `token` went to `beneficiary`.
    event Released(bytes32 indexed key, address indexed token, address indexed beneficiary, uint256 amount);

    /// lock: the pull is signed by someone other than the caller (a treasury locks its own tokens).
    error TokenpadLockerPullNotFromCaller(address from, address caller);
    /// lock: ids, beneficiaries, amounts and unlockAts are not all of one length.
    error TokenpadLockerLengthMismatch();
    /// lock: no locks given.
    error TokenpadLockerNoLocks();
    /// lock: the pull's value is not the sum of the amounts.
    error TokenpadLockerValueMismatch(uint256 value, uint256 total);
    /// lock: the caller already has a lock with this id (it may be released: an id is used once
    /// for good), or gave it twice in the call. Other accounts' ids never collide with the caller's.
    error TokenpadLockerLockExists(bytes32 id);
    /// lock: this lock's amount is 0 or does not fit in 96 bits.
    error TokenpadLockerBadAmount(bytes32 id);
    /// lock: this lock's beneficiary is the zero address.
    error TokenpadLockerBadBeneficiary(bytes32 id);
    /// release: no lock has this key.
    error TokenpadLockerUnknownLock(bytes32 key);

    /// Locks amounts[i] of `token` for beneficiaries[i] until unlockAts[i] (unix seconds), as the
    /// caller's lock ids[i] (stored under lockKey(msg.sender, ids[i])), for every i, and takes the
    /// total in from the caller with `pull`: its ReceiveWithAuthorization of `token` to this
    /// locker, of value = the sum of the amounts.
    /// @dev pull.from must be msg.sender, so nobody can replay a treasury's authorization with
    /// locks of their own. An unlock time in the past makes a lock releasable at once. An id the
    /// caller used before, or gives twice in one call, reverts (TokenpadLockerLockExists). Ids
    /// are the caller's own: another account locking under the same id gets another key.
    /// Locks are recorded before the tokens come in; the whole call reverts if they do not.
    function lock(
        address token,
        Pull calldata pull,
        bytes32[] calldata ids,
        address[] calldata beneficiaries,
        uint256[] calldata amounts,
        uint64[] calldata unlockAts
    ) external {
        if (pull.from != msg.sender) revert TokenpadLockerPullNotFromCaller(pull.from, msg.sender);
        uint256 n = ids.length;
        if (beneficiaries.length != n || amounts.length != n || unlockAts.length != n) {
            revert TokenpadLockerLengthMismatch();
        }
        if (n == 0) revert TokenpadLockerNoLocks();

        uint256 total;
        for (uint256 i; i < n; ++i) {
            total += _record(token, ids[i], beneficiaries[i], amounts[i], unlockAts[i]);
        }
        if (pull.value != total) revert TokenpadLockerValueMismatch(pull.value, total);
        _receive(token, pull);
    }

    /// Releases every lock of `keys` (lockKey(owner, id) each) that is due (block.timestamp >= its
    /// unlockAt) and not yet released: its tokens go to its beneficiary. Anyone may call it.
    /// @dev A lock not yet due, or already released (by an earlier call, or earlier in this one),
    /// is skipped without reverting, so a batch survives another releaser going first and a block
    /// time a little behind the caller's clock. A key that was never locked reverts
    /// (TokenpadLockerUnknownLock): a caller naming a lock that does not exist has a bug. A token
    /// that refuses the transfer (e.g. a beneficiary on USDC's blacklist) reverts the whole batch.
    /// @return released how many locks this call released.
    function release(bytes32[] calldata keys) external returns (uint256 released) {
        uint256 n = keys.length;
        for (uint256 i; i < n; ++i) {
            bytes32 key = keys[i];
            Lock storage l = locks[key];
            address beneficiary = l.beneficiary;
            if (beneficiary == address(0)) revert TokenpadLockerUnknownLock(key);
            if (l.released || block.timestamp < l.unlockAt) continue;
            l.released = true;
            address token = l.token;
            uint256 amount = l.amount;
            IERC20(token).safeTransfer(beneficiary, amount);
            emit Released(key, token, beneficiary, amount);
            ++released;
        }
    }

    /// The key `owner`'s lock `id` is stored under: keccak256(abi.encode(owner, id)).
    function lockKey(address owner, bytes32 id) external pure returns (bytes32) {
        return _lockKey(owner, id);
    }

    // ---------------------------------------------------------------- internals

    /// Records the caller's new lock `id` (both slots written at once) and returns its amount.
    function _record(address token, bytes32 id, address beneficiary, uint256 amount, uint64 unlockAt)
        private
        returns (uint256)
    {
        bytes32 key = _lockKey(msg.sender, id);
        if (locks[key].beneficiary != address(0)) revert TokenpadLockerLockExists(id);
        if (beneficiary == address(0)) revert TokenpadLockerBadBeneficiary(id);
        if (amount == 0 || amount > type(uint96).max) revert TokenpadLockerBadAmount(id);
        locks[key] = Lock({token: token, amount: uint96(amount), beneficiary: beneficiary, unlockAt: unlockAt, released: false});
        emit Locked(key, token, beneficiary, msg.sender, id, amount, unlockAt);
        return amount; // below 2^96: the caller's sum cannot overflow for any array that fits in calldata
    }

    function _lockKey(address owner, bytes32 id) private pure returns (bytes32) {
        return keccak256(abi.encode(owner, id));
    }

    function _receive(address token, Pull calldata pull) private {
        IEIP3009Receive(token).receiveWithAuthorization(
            pull.from, address(this), pull.value, pull.validAfter, pull.validBefore, pull.nonce, pull.v, pull.r, pull.s
        );
    }
}
