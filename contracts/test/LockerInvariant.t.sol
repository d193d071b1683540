// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {LockerBase} from "./LockerBase.sol";
import {TokenpadLocker} from "../TokenpadLocker.sol";
import {TokenpadToken} from "../TokenpadToken.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// Random sequences of locks (two owners sharing a small pool of ids, so squatting happens all
/// the time), releases by anyone of any known keys, and time passing. The handler keeps its own
/// books of every lock and counts whatever the locker does that the books do not allow.
contract LockerHandler is LockerBase {
    uint256 internal constant OWNERS = 2; // keys 0x0A1, 0x0A2: a treasury and a squatter alike
    uint256 internal constant IDS = 6;
    uint256 internal constant BENEFICIARIES = 3;

    IERC20[2] public tokens;

    struct Booked {
        bytes32 key;
        uint8 token;
        uint8 beneficiary;
        uint96 amount;
        uint64 unlockAt;
        bool released;
    }

    Booked[] public booked;
    mapping(bytes32 key => bool) public used;
    /// per token: the sum of unreleased amounts
    uint256[2] public unreleased;
    /// per beneficiary and token: what its released locks paid it
    mapping(uint256 beneficiary => mapping(uint256 token => uint256)) public paid;
    /// things the locker did that it must never do (each a counter the invariants require at 0)
    uint256 public earlyReleases;
    uint256 public doubleReleases;
    uint256 public missedReleases;
    uint256 public wrongReverts;
    uint256 public wrongRefusals;
    uint256 public wrongAcceptances;
    uint256 public calls;

    constructor() {
        deployLocker();
        for (uint256 o; o < OWNERS; ++o) {
            address owner = vm.addr(0x0A1 + o);
            usdc.mint(owner, type(uint128).max);
            if (o == 0) tokens[1] = IERC20(address(tokenOf(owner, type(uint128).max, "inv")));
        }
        tokens[0] = IERC20(address(usdc));
        // the squatter has some of the treasury's token too (bought it, say)
        vm.prank(vm.addr(0x0A1));
        tokens[1].transfer(vm.addr(0x0A2), type(uint128).max / 2);
    }

    function lockerAddress() external view returns (address) {
        return address(locker);
    }

    function beneficiary(uint256 i) public pure returns (address) {
        return address(uint160(0xBE0 + i));
    }

    function bookedCount() external view returns (uint256) {
        return booked.length;
    }

    /// An owner locks `amount` of a token under one of the shared ids, for a beneficiary, until
    /// `delay` seconds from now. Refused exactly when that owner used that id before.
    function lock(uint256 ownerSeed, uint256 idSeed, uint256 tokenSeed, uint256 benSeed, uint256 amount, uint32 delay) external {
        ++calls;
        uint256 key_ = 0x0A1 + ownerSeed % OWNERS;
        address owner = vm.addr(key_);
        bytes32 id = bytes32(idSeed % IDS);
        uint8 t = uint8(tokenSeed % 2);
        uint8 b = uint8(benSeed % BENEFICIARIES);
        amount = bound(amount, 1, 1e24);
        uint64 unlockAt = uint64(block.timestamp + delay);
        bytes32 key = locker.lockKey(owner, id);
        bytes memory call_ = oneLock(key_, address(tokens[t]), id, beneficiary(b), amount, unlockAt, keccak256(abi.encode(calls)));
        (bool ok,) = send(owner, call_);
        if (ok != !used[key]) {
            if (ok) ++wrongAcceptances;
            else ++wrongRefusals;
        }
        if (!ok) return;
        used[key] = true;
        booked.push(Booked(key, t, b, uint96(amount), unlockAt, false));
        unreleased[t] += amount;
    }

    /// Anyone releases up to four known keys (repeats allowed); what comes out must be exactly
    /// the due, unreleased ones, each once.
    function release(address caller, uint256[4] memory picks, uint8 n) external {
        ++calls;
        if (booked.length == 0) return;
        n = uint8(bound(n, 1, 4));
        bytes32[] memory keys = new bytes32[](n);
        uint256[] memory idx = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            idx[i] = picks[i] % booked.length;
            keys[i] = booked[idx[i]].key;
        }
        vm.prank(caller);
        uint256 released;
        try locker.release(keys) returns (uint256 r) {
            released = r;
        } catch {
            ++wrongReverts; // every key is known: a release never reverts
            return;
        }
        uint256 expected;
        for (uint256 i; i < n; ++i) {
            Booked storage l = booked[idx[i]];
            (,,,, bool nowReleased) = locker.locks(l.key);
            if (!nowReleased) {
                if (block.timestamp >= l.unlockAt) ++missedReleases;
                continue;
            }
            if (l.released) continue; // released before (or earlier in this batch): must not pay again
            if (block.timestamp < l.unlockAt) ++earlyReleases;
            l.released = true;
            ++expected;
            unreleased[l.token] -= l.amount;
            paid[l.beneficiary][l.token] += l.amount;
        }
        if (released != expected) ++doubleReleases;
    }

    /// Time passes.
    function warp(uint32 seconds_) external {
        ++calls;
        vm.warp(block.timestamp + seconds_ % 3 days);
    }
}

contract LockerInvariantTest is LockerBase {
    LockerHandler internal handler;

    function setUp() public {
        handler = new LockerHandler();
    }

    /// forge calls only the handler (its lock, release and warp, from random senders).
    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    /// The locker's balance of each token is exactly the sum of its unreleased locks.
    function invariant_theLockerHoldsExactlyTheUnreleasedLocks() public view {
        TokenpadLocker l = TokenpadLocker(handler.lockerAddress());
        for (uint256 t; t < 2; ++t) {
            assertEq(handler.tokens(t).balanceOf(address(l)), handler.unreleased(t), "locker balance = unreleased locks");
        }
    }

    /// Each beneficiary holds exactly what its released locks paid it: nobody else's tokens, and
    /// nobody but a beneficiary is paid (the beneficiaries hold nothing else).
    function invariant_onlyBeneficiariesArePaidTheirOwn() public view {
        for (uint256 b; b < 3; ++b) {
            for (uint256 t; t < 2; ++t) {
                assertEq(handler.tokens(t).balanceOf(handler.beneficiary(b)), handler.paid(b, t), "a beneficiary's balance");
            }
        }
    }

    function invariant_noEarlyOrDoubleReleaseAndIdsAreTheirOwnersOwn() public view {
        assertEq(handler.earlyReleases(), 0, "released before its unlock time");
        assertEq(handler.doubleReleases(), 0, "release paid other than the due, unreleased locks, once each");
        assertEq(handler.missedReleases(), 0, "a due lock skipped");
        assertEq(handler.wrongReverts(), 0, "a release of known keys reverted");
        assertEq(handler.wrongRefusals(), 0, "a lock refused though its owner never used the id");
        assertEq(handler.wrongAcceptances(), 0, "a lock accepted under an id its owner used");
    }

    /// The sequences did something: a run whose handler never locked would prove nothing.
    function afterInvariant() public view {
        assertTrue(handler.bookedCount() > 0, "locks were made");
    }
}
