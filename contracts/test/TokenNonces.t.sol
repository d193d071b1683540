// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "./TestBase.sol";
import {EIP3009} from "../EIP3009.sol";
import {TokenpadFactory} from "../TokenpadFactory.sol";
import {TokenpadToken} from "../TokenpadToken.sol";

/// The token's authorization states, a bitmap (a nonce's high 248 bits pick a word of the
/// authorizer's, its low 8 bits a bit), fuzzed over every bit of the nonce: a nonce is used
/// once whatever its bits, a use or a cancellation marks exactly its own bit, and states never
/// leak between authorizers or words. And the packed batch calls, against the plain ones.
contract TokenNoncesTest is TestBase {
    uint256 internal constant ALICE_KEY = 0xA11CE;
    uint256 internal constant BOB_KEY = 0xB0B;
    bytes32 internal constant CANCEL_TYPEHASH = keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");
    address internal alice;
    address internal bob;
    TokenpadToken internal token;

    function setUp() public {
        alice = vm.addr(ALICE_KEY);
        bob = vm.addr(BOB_KEY);
        TokenpadFactory factory = deployFactory();
        token = deployToken(factory, "nonces", 1_000_000e18, alice);
        vm.prank(alice);
        token.transfer(bob, 500_000e18);
        vm.warp(1_700_000_000);
    }

    function _transfer(uint256 key, address to, uint256 value, bytes32 nonce) internal returns (bool ok, bytes memory ret) {
        Sig memory s = signAuth(key, address(token), TRANSFER_TYPEHASH, to, value, block.timestamp + 1 hours, nonce);
        (ok, ret) = address(token).call(
            abi.encodeCall(EIP3009.transferWithAuthorization, (vm.addr(key), to, value, 0, block.timestamp + 1 hours, nonce, s.v, s.r, s.s))
        );
    }

    function _cancel(uint256 key, bytes32 nonce) internal returns (bool ok, bytes memory ret) {
        bytes32 digest = keccak256(
            abi.encodePacked(hex"1901", token.DOMAIN_SEPARATOR(), keccak256(abi.encode(CANCEL_TYPEHASH, vm.addr(key), nonce)))
        );
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        (ok, ret) = address(token).call(abi.encodeCall(EIP3009.cancelAuthorization, (vm.addr(key), nonce, v, r, s)));
    }

    function _usedError(address authorizer, bytes32 nonce) internal pure returns (bytes32) {
        return keccak256(abi.encodeWithSelector(EIP3009.EIP3009AuthorizationUsedOrCanceled.selector, authorizer, nonce));
    }

    /// `nonce` with its bit `bit` (0..255) flipped: the same word for bits 0..7, another word
    /// for bits 8..255.
    function _flip(bytes32 nonce, uint256 bit) internal pure returns (bytes32) {
        return nonce ^ bytes32(uint256(1) << (bit % 256));
    }

    /// Any nonce (any word, any bit) is used once: the transfer moves its value, the state says
    /// used, and a replay is refused with UsedOrCanceled; a nonce that differs in any one bit is
    /// still free for the same authorizer, and the same nonce is free for another.
    function testFuzz_aNonceIsUsedOnceWhateverItsBits(bytes32 nonce, uint256 bit, uint256 value) public {
        value = bound(value, 0, 1_000e18);
        bytes32 other = _flip(nonce, bit);
        assertTrue(!token.authorizationState(alice, nonce), "fresh");
        (bool ok,) = _transfer(ALICE_KEY, bob, value, nonce);
        assertTrue(ok, "the first use");
        assertTrue(token.authorizationState(alice, nonce), "used");
        assertTrue(!token.authorizationState(alice, other), "a nonce one bit away is not");
        assertTrue(!token.authorizationState(bob, nonce), "another authorizer's same nonce is not");
        (bool again, bytes memory ret) = _transfer(ALICE_KEY, bob, value, nonce);
        assertTrue(!again, "a replay is refused");
        assertEq(keccak256(ret), _usedError(alice, nonce), "UsedOrCanceled");
        (ok,) = _transfer(ALICE_KEY, bob, value, other);
        assertTrue(ok, "the nonce one bit away works");
        (ok,) = _transfer(BOB_KEY, alice, value, nonce);
        assertTrue(ok, "the same nonce works for another authorizer");
        assertTrue(token.authorizationState(bob, nonce) && token.authorizationState(alice, other), "both used now");
    }

    /// A cancellation marks exactly its nonce's bit: the nonce is then refused for a transfer
    /// and a second cancellation; every other bit of its word, and the same bit of the next
    /// and previous words, stay free.
    function testFuzz_cancelMarksExactlyItsBit(bytes32 nonce) public {
        (bool ok,) = _cancel(ALICE_KEY, nonce);
        assertTrue(ok, "canceled");
        assertTrue(token.authorizationState(alice, nonce), "marked");
        uint256 n = uint256(nonce);
        uint256 word = n >> 8;
        for (uint256 b; b < 256; ++b) {
            bytes32 sibling = bytes32(word << 8 | b);
            assertTrue(token.authorizationState(alice, sibling) == (sibling == nonce), "only its own bit in its word");
        }
        if (word > 0) assertTrue(!token.authorizationState(alice, bytes32(n - 256)), "the previous word's same bit is free");
        if (word < type(uint248).max) assertTrue(!token.authorizationState(alice, bytes32(n + 256)), "the next word's same bit is free");
        assertTrue(!token.authorizationState(bob, nonce), "not another authorizer's");
        (bool again, bytes memory ret) = _transfer(ALICE_KEY, bob, 1, nonce);
        assertTrue(!again, "a canceled nonce does not transfer");
        assertEq(keccak256(ret), _usedError(alice, nonce), "UsedOrCanceled");
        (again, ret) = _cancel(ALICE_KEY, nonce);
        assertTrue(!again, "nor cancels twice");
        assertEq(keccak256(ret), _usedError(alice, nonce), "UsedOrCanceled again");
    }

    /// Consecutive nonces (what tokenpad's settler signs) fill a word bit by bit: each is used
    /// once, in any order, and a word's 256 nonces never touch the next word's.
    function testFuzz_consecutiveNoncesInAnyOrder(uint256 start, uint8 count, uint256 shuffle) public {
        start = bound(start, 0, type(uint256).max - 300);
        count = uint8(bound(count, 1, 40));
        for (uint256 i; i < count; ++i) {
            uint256 j = (i + shuffle % count) % count; // a rotation of 0..count-1, reversed in half the runs
            bytes32 nonce = bytes32(start + (shuffle % 2 == 0 ? j : count - 1 - j));
            (bool ok,) = _transfer(ALICE_KEY, bob, 1, nonce);
            assertTrue(ok, "each consecutive nonce once");
        }
        for (uint256 i; i < count; ++i) assertTrue(token.authorizationState(alice, bytes32(start + i)), "all used");
        assertTrue(!token.authorizationState(alice, bytes32(start + count)), "the next one is free");
        if (start > 0) assertTrue(!token.authorizationState(alice, bytes32(start - 1)), "the one before is free");
        for (uint256 i; i < count; ++i) {
            (bool again,) = _transfer(ALICE_KEY, bob, 1, bytes32(start + i));
            assertTrue(!again, "none twice");
        }
    }

    // ------------------------------------------------------------ packed calls

    function _auths(uint8 n, uint256 seed) internal view returns (EIP3009.Authorization[] memory auths) {
        auths = new EIP3009.Authorization[](n);
        for (uint256 i; i < n; ++i) {
            uint256 key = i % 2 == 0 ? ALICE_KEY : BOB_KEY;
            address to = address(uint160(uint256(keccak256(abi.encode(seed, i)))));
            uint256 value = uint256(keccak256(abi.encode(seed, i, "v"))) % 1_000e18;
            bytes32 nonce = seed % 2 == 0 ? bytes32(i) : keccak256(abi.encode(seed, i, "n"));
            Sig memory s = signAuth(key, address(token), TRANSFER_TYPEHASH, to, value, block.timestamp + 1 hours, nonce);
            auths[i] = EIP3009.Authorization(vm.addr(key), to, value, 0, block.timestamp + 1 hours, nonce, s.v, s.r, s.s);
        }
    }

    function _packed(EIP3009.Authorization[] memory auths) internal pure returns (EIP3009.PackedAuthorization[] memory p) {
        p = new EIP3009.PackedAuthorization[](auths.length);
        for (uint256 i; i < auths.length; ++i) {
            EIP3009.Authorization memory a = auths[i];
            p[i] = EIP3009.PackedAuthorization(
                uint256(uint160(a.from)) << 96 | a.value, uint256(uint160(a.to)) << 96 | a.validBefore << 8 | a.v, a.nonce, a.r, a.s
            );
        }
    }

    /// The packed batch does what the plain one does: the same balances and nonce states, or
    /// the same error, for the same authorizations (one of them spoiled in some runs).
    function testFuzz_thePackedBatchIsThePlainOne(uint8 n, uint256 seed, uint256 badAt, uint8 badKind) public {
        n = uint8(bound(n, 1, 10));
        EIP3009.Authorization[] memory auths = _auths(n, seed);
        uint256 i = badAt % n;
        uint8 kind = badKind % 4;
        if (kind == 0) auths[i].value += 1; // the signature no longer covers it
        else if (kind == 1) auths[i].validBefore = block.timestamp; // expired
        else if (kind == 2 && n > 1) auths[i] = auths[(i + 1) % n]; // a nonce given twice
        // kind 3 (or 2 with one item): all good
        uint256 snapshot = _state(auths);
        (bool okPlain, bytes memory retPlain) = address(token).call(abi.encodeCall(EIP3009.batchTransferWithAuthorization, (auths)));
        uint256 afterPlain = _state(auths);
        // the packed call on a fresh token (a new setUp), from the same start
        setUp();
        auths = _resign(auths, seed, kind, i, n);
        assertEq(_state(auths), snapshot, "the same start");
        (bool okPacked, bytes memory retPacked) = address(token).call(abi.encodeCall(EIP3009.batchTransferWithAuthorizationPacked, (_packed(auths))));
        assertTrue(okPlain == okPacked, "both go through, or neither");
        assertEq(keccak256(retPlain), keccak256(retPacked), "the same error");
        assertEq(_state(auths), afterPlain, "the same balances and nonce states");
    }

    /// The same authorizations signed for the token of the second setUp (another address, so
    /// another domain), spoiled the same way.
    function _resign(EIP3009.Authorization[] memory old, uint256 seed, uint8 kind, uint256 i, uint8 n)
        internal
        view
        returns (EIP3009.Authorization[] memory auths)
    {
        auths = _auths(n, seed);
        if (kind == 0) auths[i].value += 1;
        else if (kind == 1) auths[i].validBefore = block.timestamp;
        else if (kind == 2 && n > 1) auths[i] = auths[(i + 1) % n];
        assertEq(auths.length, old.length, "as many");
    }

    /// A digest of the balances and nonce states the authorizations touch.
    function _state(EIP3009.Authorization[] memory auths) internal view returns (uint256) {
        bytes memory all = abi.encode(token.balanceOf(alice), token.balanceOf(bob));
        for (uint256 i; i < auths.length; ++i) {
            all = bytes.concat(all, abi.encode(token.balanceOf(auths[i].to), token.authorizationState(auths[i].from, auths[i].nonce)));
        }
        return uint256(keccak256(all));
    }

    /// The packed batchTransfer pays exactly what the plain one pays; an overdraft or a zero
    /// recipient reverts it all.
    function testFuzz_thePackedBatchTransferIsThePlainOne(uint8 n, uint256 seed, uint8 spoil) public {
        n = uint8(bound(n, 1, 12));
        address[] memory to = new address[](n);
        uint256[] memory values = new uint256[](n);
        uint256[] memory items = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            to[i] = address(uint160(uint256(keccak256(abi.encode(seed, i)))));
            values[i] = uint256(keccak256(abi.encode(seed, i, "v"))) % 10_000e18;
        }
        if (spoil % 4 == 1) values[seed % n] = 2_000_000e18; // more than alice has
        if (spoil % 4 == 2) to[seed % n] = address(0);
        for (uint256 i; i < n; ++i) items[i] = uint256(uint160(to[i])) << 96 | values[i];
        vm.prank(alice);
        (bool okPlain, bytes memory retPlain) = address(token).call(abi.encodeCall(EIP3009.batchTransfer, (to, values)));
        uint256[] memory got = new uint256[](n);
        for (uint256 i; i < n; ++i) got[i] = token.balanceOf(to[i]);
        uint256 alicePlain = token.balanceOf(alice);
        setUp();
        vm.prank(alice);
        (bool okPacked, bytes memory retPacked) = address(token).call(abi.encodeCall(EIP3009.batchTransferPacked, (items)));
        assertTrue(okPlain == okPacked && okPlain == (spoil % 4 == 0 || spoil % 4 == 3), "both, or neither, as spoiled");
        assertEq(keccak256(retPlain), keccak256(retPacked), "the same error");
        for (uint256 i; i < n; ++i) assertEq(token.balanceOf(to[i]), got[i], "each recipient alike");
        assertEq(token.balanceOf(alice), alicePlain, "the sender alike");
    }

    /// A batch's sender must hold the batch's total, itself among the recipients or not; paying
    /// itself gives its share back.
    function testFuzz_aBatchDebitsItsTotalOnce(uint256 toSelf, uint256 toBob) public {
        uint256 has = token.balanceOf(alice);
        toSelf = bound(toSelf, 0, has);
        toBob = bound(toBob, 0, has);
        address[] memory to = new address[](2);
        uint256[] memory values = new uint256[](2);
        (to[0], to[1], values[0], values[1]) = (alice, bob, toSelf, toBob);
        uint256 bobHad = token.balanceOf(bob);
        vm.prank(alice);
        (bool ok,) = address(token).call(abi.encodeCall(EIP3009.batchTransfer, (to, values)));
        assertTrue(ok == (toSelf + toBob <= has), "the total must be covered");
        assertEq(token.balanceOf(alice), ok ? has - toBob : has, "paying itself gives its share back");
        assertEq(token.balanceOf(bob), ok ? bobHad + toBob : bobHad, "bob is paid");
        assertEq(token.totalSupply(), 1_000_000e18, "supply unchanged");
    }

    /// At the edge: a batch of exactly the sender's balance goes, one unit more is refused with
    /// the balance and the total, plain or packed, and moves nothing.
    function test_aBatchOfOneUnitMoreThanTheBalanceIsRefused() public {
        uint256 has = token.balanceOf(bob);
        address[] memory to = new address[](2);
        uint256[] memory values = new uint256[](2);
        (to[0], to[1], values[0], values[1]) = (alice, address(0xCAFE), has / 2, has - has / 2 + 1);
        bytes memory refused = abi.encodeWithSignature("ERC20InsufficientBalance(address,uint256,uint256)", bob, has, has + 1);
        vm.prank(bob);
        (bool ok, bytes memory ret) = address(token).call(abi.encodeCall(EIP3009.batchTransfer, (to, values)));
        assertTrue(!ok && keccak256(ret) == keccak256(refused), "plain: refused with the balance and the total");
        uint256[] memory items = new uint256[](2);
        items[0] = uint256(uint160(alice)) << 96 | values[0];
        items[1] = uint256(uint160(address(0xCAFE))) << 96 | values[1];
        vm.prank(bob);
        (ok, ret) = address(token).call(abi.encodeCall(EIP3009.batchTransferPacked, (items)));
        assertTrue(!ok && keccak256(ret) == keccak256(refused), "packed: refused with the balance and the total");
        assertEq(token.balanceOf(bob), has, "nothing moved");
        items[1] -= 1;
        vm.prank(bob);
        (ok,) = address(token).call(abi.encodeCall(EIP3009.batchTransferPacked, (items)));
        assertTrue(ok, "exactly the balance goes");
        assertEq(token.balanceOf(bob), 0, "all of it");
        assertEq(token.balanceOf(address(0xCAFE)), has - has / 2, "paid");
    }
}
