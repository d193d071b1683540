// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {LockerBase} from "./LockerBase.sol";
import {TokenpadLocker} from "../TokenpadLocker.sol";
import {TokenpadToken} from "../TokenpadToken.sol";

/// TokenpadLocker, fuzzed: ids are the caller's own (a squatter changes nothing), no lock is
/// paid before its unlock time or twice, and nobody but its beneficiary is ever paid.
contract LockerTest is LockerBase {
    uint256 internal constant TREASURY_KEY = 0x7EA5;
    uint256 internal constant SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141;
    address internal treasury;
    TokenpadToken internal token;

    function setUp() public {
        deployLocker();
        treasury = vm.addr(TREASURY_KEY);
        token = tokenOf(treasury, 1e30, "locked");
    }

    function _lock(bytes32 id, address beneficiary, uint256 amount, uint64 unlockAt) internal returns (bytes32 key) {
        (bool ok, bytes memory ret) = send(treasury, oneLock(TREASURY_KEY, address(token), id, beneficiary, amount, unlockAt, keccak256(abi.encode(id, "pull"))));
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 0x20), mload(ret))
            }
        }
        key = locker.lockKey(treasury, id);
    }

    /// Whether the lock under `key` is this one, unreleased.
    function _is(bytes32 key, address token_, uint256 amount, address beneficiary, uint64 unlockAt) internal view returns (bool) {
        (address t, uint96 a, address b, uint64 u, bool released) = lockAt(key);
        return t == token_ && a == amount && b == beneficiary && u == unlockAt && !released;
    }

    function testFuzz_lockKeyIsKeccakOfOwnerAndId(address owner, bytes32 id) public view {
        assertEq(locker.lockKey(owner, id), keccak256(abi.encode(owner, id)), "lockKey");
    }

    /// Anyone who sees the treasury's id (a pending or reverted transaction) and locks under it
    /// first, from its own account with a token of its own, changes nothing for the treasury.
    function testFuzz_aSquattedIdDoesNotBlockTheTreasury(bytes32 id, uint256 squatterSeed, uint256 amount, uint64 unlockAt) public {
        uint256 squatterKey = bound(squatterSeed, 1, SECP256K1_N - 1);
        if (squatterKey == TREASURY_KEY) squatterKey = TREASURY_KEY + 1;
        address squatter = vm.addr(squatterKey);
        usdc.mint(squatter, 1);
        (bool ok,) = send(squatter, oneLock(squatterKey, address(usdc), id, squatter, 1, 0, "squat"));
        assertTrue(ok, "the squatter locks under the id first");

        amount = bound(amount, 1, type(uint96).max);
        address beneficiary = address(0xB0B);
        bytes32 key = _lock(id, beneficiary, amount, unlockAt);
        assertEq(key, keccak256(abi.encode(treasury, id)), "the treasury's lock is under its own key");
        assertTrue(_is(key, address(token), amount, beneficiary, unlockAt), "the treasury's lock as locked");
        assertTrue(_is(locker.lockKey(squatter, id), address(usdc), 1, squatter, 0), "the squatter's lock is its own");

        // each namespace refuses its own id again, and only its own
        bytes memory again = oneLock(TREASURY_KEY, address(token), id, beneficiary, 1, 0, "again");
        (ok, again) = send(treasury, again);
        assertEq(keccak256(again), keccak256(abi.encodeWithSelector(TokenpadLocker.TokenpadLockerLockExists.selector, id)), "LockExists(id) for the treasury");
        usdc.mint(squatter, 1);
        (ok, again) = send(squatter, oneLock(squatterKey, address(usdc), id, squatter, 1, 0, "squat again"));
        assertEq(keccak256(again), keccak256(abi.encodeWithSelector(TokenpadLocker.TokenpadLockerLockExists.selector, id)), "LockExists(id) for the squatter");
    }

    /// Before its unlock time a release (by anyone) pays nothing and skips the lock; at or after
    /// it, the beneficiary is paid its amount, and the caller nothing.
    function testFuzz_noEarlyRelease(uint64 unlockAt, uint256 early, uint256 late, address caller) public {
        unlockAt = uint64(bound(unlockAt, 2, type(uint64).max - 1));
        address beneficiary = address(0xB0B);
        if (caller == beneficiary || caller == address(locker)) caller = address(0xCA11);
        bytes32 key = _lock("early", beneficiary, 7e18, unlockAt);
        vm.warp(bound(early, block.timestamp, unlockAt - 1));
        vm.prank(caller);
        assertEq(locker.release(keys1(key)), 0, "nothing released early");
        assertEq(token.balanceOf(beneficiary), 0, "the beneficiary has nothing yet");
        (,,,, bool released) = lockAt(key);
        assertTrue(!released, "still locked");

        vm.warp(bound(late, unlockAt, type(uint64).max));
        uint256 callerBefore = token.balanceOf(caller);
        vm.prank(caller);
        assertEq(locker.release(keys1(key)), 1, "released when due");
        assertEq(token.balanceOf(beneficiary), 7e18, "to the beneficiary");
        assertEq(token.balanceOf(caller), callerBefore, "the caller gets nothing");
        assertEq(token.balanceOf(address(locker)), 0, "the locker holds none of it");
    }

    /// A key given many times in one call, and calls again after, release the lock once.
    function testFuzz_noDoubleRelease(uint8 times, uint8 calls) public {
        times = uint8(bound(times, 1, 20));
        calls = uint8(bound(calls, 1, 5));
        bytes32 key = _lock("twice", address(0xB0B), 5e18, 0);
        bytes32[] memory keys = new bytes32[](times);
        for (uint256 i; i < times; ++i) keys[i] = key;
        uint256 total;
        for (uint256 c; c < calls; ++c) total += locker.release(keys);
        assertEq(total, 1, "released once");
        assertEq(token.balanceOf(address(0xB0B)), 5e18, "paid once");
    }

    /// A key never locked reverts the whole batch (a caller's bug); so does a treasury's id
    /// given where its key belongs.
    function testFuzz_anUnknownKeyRevertsTheBatch(bytes32 unknown) public {
        bytes32 key = _lock("known", address(0xB0B), 1e18, 0);
        if (unknown == key) unknown = bytes32(uint256(key) + 1);
        bytes32[] memory keys = new bytes32[](2);
        (keys[0], keys[1]) = (key, unknown);
        (bool ok, bytes memory ret) = address(locker).call(abi.encodeCall(TokenpadLocker.release, (keys)));
        assertTrue(!ok, "reverts");
        assertEq(keccak256(ret), keccak256(abi.encodeWithSelector(TokenpadLocker.TokenpadLockerUnknownLock.selector, unknown)), "UnknownLock(key)");
        assertEq(token.balanceOf(address(0xB0B)), 0, "nothing released");
        (ok, ret) = address(locker).call(abi.encodeCall(TokenpadLocker.release, (keys1("known"))));
        assertTrue(!ok, "an id is not a key");
    }

    /// Nobody but the treasury can use the treasury's signed pull.
    function testFuzz_aPullIsItsSignersOnly(address caller) public {
        if (caller == treasury) caller = address(0xCA11);
        bytes memory call_ = oneLock(TREASURY_KEY, address(token), "theirs", caller, 1e18, 0, "pull");
        (bool ok, bytes memory ret) = send(caller, call_);
        assertTrue(!ok, "refused");
        assertEq(keccak256(ret), keccak256(abi.encodeWithSelector(TokenpadLocker.TokenpadLockerPullNotFromCaller.selector, treasury, caller)), "PullNotFromCaller");
    }

    /// A batch takes exactly the sum of its amounts: any other pull value is refused, and a
    /// refused batch records nothing and moves nothing.
    function testFuzz_aBatchTakesExactlyItsTotal(uint256[4] memory amounts, uint256 off) public {
        (bytes memory call_, uint256 total, uint256 value) = _batch(amounts, off);
        uint256 before = token.balanceOf(treasury);
        (bool ok,) = send(treasury, call_);
        assertTrue(ok == (value == total), "only the exact total");
        assertEq(token.balanceOf(address(locker)), ok ? total : 0, "the locker holds the total, or nothing");
        assertEq(token.balanceOf(treasury), before - (ok ? total : 0), "the treasury paid the total, or nothing");
        (,, address b,,) = lockAt(locker.lockKey(treasury, bytes32(uint256(4))));
        assertEq(b, ok ? address(0xB003) : address(0), "recorded, or not at all");
    }

    /// Four locks (ids 1 to 4, beneficiaries 0xB000 to 0xB003) of the fuzzed amounts, with a pull
    /// of their total (a third of the time) or of another value around it.
    function _batch(uint256[4] memory amounts, uint256 off) internal view returns (bytes memory call_, uint256 total, uint256 value) {
        bytes32[] memory ids = new bytes32[](4);
        address[] memory beneficiaries = new address[](4);
        uint256[] memory a = new uint256[](4);
        uint64[] memory unlockAts = new uint64[](4);
        for (uint256 i; i < 4; ++i) {
            (ids[i], beneficiaries[i], a[i]) = (bytes32(i + 1), address(uint160(0xB000 + i)), bound(amounts[i], 1, 1e27));
            total += a[i];
        }
        value = off % 3 == 0 ? total : bound(off, 0, 2 * total);
        call_ = abi.encodeCall(TokenpadLocker.lock, (address(token), pullOf(TREASURY_KEY, address(token), value, "batch"), ids, beneficiaries, a, unlockAts));
    }
}
