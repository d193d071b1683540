// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "./TestBase.sol";
import {EIP3009} from "../EIP3009.sol";
import {TokenpadToken} from "../TokenpadToken.sol";

/// Random sequences of single authorizations, cancellations and batches (plain and packed) by
/// three authorizers over a small pool of nonces that crowd a few words of the bitmap (the
/// first, second and last word; the first, middle and last bits), so that uses, repeats and
/// neighbours in one word happen all the time. The handler keeps its own book of every nonce
/// used and counts every call the token accepted or refused against it.
contract TokenHandler is TestBase {
    uint256 internal constant AUTHORIZERS = 3; // keys 0xA1, 0xA2, 0xA3
    bytes32 internal constant CANCEL_TYPEHASH = keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");

    TokenpadToken public token;
    mapping(address authorizer => mapping(bytes32 nonce => bool)) public booked;
    uint256 public wrongAcceptances;
    uint256 public wrongRefusals;
    uint256 public uses;
    address[] public recipients;

    constructor() {
        token = deployToken(deployFactory(), "invariant", 3_000_000e18, address(this));
        for (uint256 a; a < AUTHORIZERS; ++a) token.transfer(authorizer(a), 1_000_000e18);
        for (uint256 r; r < 3; ++r) recipients.push(address(uint160(0xCAFE0 + r)));
        vm.warp(1_700_000_000);
    }

    function authorizer(uint256 i) public pure returns (address) {
        return vm.addr(0xA1 + i % AUTHORIZERS);
    }

    /// One of the 3 x 6 nonces of the pool: word 0, 1 or 2^248 - 1; bit 0, 1, 2, 127, 254 or 255.
    function nonceAt(uint256 seed) public pure returns (bytes32) {
        uint256[3] memory words = [uint256(0), 1, type(uint248).max];
        uint8[6] memory bits = [0, 1, 2, 127, 254, 255];
        return bytes32(words[seed % 3] << 8 | bits[(seed / 3) % 6]);
    }

    function poolSize() external pure returns (uint256) {
        return 18;
    }

    function _auth(uint256 who, bytes32 nonce, uint256 toSeed, uint256 value)
        internal
        view
        returns (EIP3009.Authorization memory a)
    {
        address to = recipients[toSeed % recipients.length];
        value = bound(value, 0, 1e18);
        Sig memory s = signAuth(0xA1 + who % AUTHORIZERS, address(token), TRANSFER_TYPEHASH, to, value, block.timestamp + 1 hours, nonce);
        a = EIP3009.Authorization(authorizer(who), to, value, 0, block.timestamp + 1 hours, nonce, s.v, s.r, s.s);
    }

    function _judge(bool ok, bool expected) internal {
        if (ok && !expected) ++wrongAcceptances;
        if (!ok && expected) ++wrongRefusals;
    }

    /// One transferWithAuthorization: accepted exactly when its nonce is unused.
    function transfer(uint256 who, uint256 nonceSeed, uint256 toSeed, uint256 value) external {
        bytes32 nonce = nonceAt(nonceSeed);
        EIP3009.Authorization memory a = _auth(who, nonce, toSeed, value);
        (bool ok,) = address(token).call(
            abi.encodeCall(EIP3009.transferWithAuthorization, (a.from, a.to, a.value, 0, a.validBefore, a.nonce, a.v, a.r, a.s))
        );
        _judge(ok, !booked[a.from][nonce]);
        if (ok) {
            booked[a.from][nonce] = true;
            ++uses;
        }
    }

    /// One cancelAuthorization: accepted exactly when its nonce is unused.
    function cancel(uint256 who, uint256 nonceSeed) external {
        bytes32 nonce = nonceAt(nonceSeed);
        address from = authorizer(who);
        bytes32 digest =
            keccak256(abi.encodePacked(hex"1901", token.DOMAIN_SEPARATOR(), keccak256(abi.encode(CANCEL_TYPEHASH, from, nonce))));
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(0xA1 + who % AUTHORIZERS, digest);
        (bool ok,) = address(token).call(abi.encodeCall(EIP3009.cancelAuthorization, (from, nonce, v, r, s)));
        _judge(ok, !booked[from][nonce]);
        if (ok) booked[from][nonce] = true;
    }

    /// A batch of one to three authorizations of any authorizers, plain or packed: accepted
    /// exactly when every nonce is unused and no (authorizer, nonce) comes twice.
    function batch(uint256[3] memory who, uint256[3] memory nonceSeeds, uint256 toSeed, uint8 n, bool packed) external {
        n = uint8(bound(n, 1, 3));
        EIP3009.Authorization[] memory auths = new EIP3009.Authorization[](n);
        bool expected = true;
        for (uint256 i; i < n; ++i) {
            auths[i] = _auth(who[i], nonceAt(nonceSeeds[i]), toSeed >> i, uint256(keccak256(abi.encode(toSeed, i))));
            if (booked[auths[i].from][auths[i].nonce]) expected = false;
            for (uint256 j; j < i; ++j) {
                if (auths[j].from == auths[i].from && auths[j].nonce == auths[i].nonce) expected = false;
            }
        }
        bool ok;
        if (packed) {
            EIP3009.PackedAuthorization[] memory p = new EIP3009.PackedAuthorization[](n);
            for (uint256 i; i < n; ++i) {
                EIP3009.Authorization memory a = auths[i];
                p[i] = EIP3009.PackedAuthorization(
                    uint256(uint160(a.from)) << 96 | a.value, uint256(uint160(a.to)) << 96 | a.validBefore << 8 | a.v, a.nonce, a.r, a.s
                );
            }
            (ok,) = address(token).call(abi.encodeCall(EIP3009.batchTransferWithAuthorizationPacked, (p)));
        } else {
            (ok,) = address(token).call(abi.encodeCall(EIP3009.batchTransferWithAuthorization, (auths)));
        }
        _judge(ok, expected);
        if (ok) {
            for (uint256 i; i < n; ++i) booked[auths[i].from][auths[i].nonce] = true;
            uses += n;
        }
    }
}

contract TokenInvariantTest is TestBase {
    TokenHandler internal handler;

    function setUp() public {
        handler = new TokenHandler();
    }

    /// forge calls only the handler (its transfer, cancel and batch, from random senders).
    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    /// The token's state of every nonce of the pool, for every authorizer, is the book's: set
    /// exactly by its own use or cancellation, never by a neighbour's, another word's or another
    /// authorizer's; nonces outside the pool (other bits and words) stay free.
    function invariant_statesAreExactlyTheUsedNonces() public view {
        TokenpadToken token = handler.token();
        for (uint256 a; a < 3; ++a) {
            address who = handler.authorizer(a);
            for (uint256 i; i < handler.poolSize(); ++i) {
                bytes32 nonce = handler.nonceAt(i);
                assertTrue(token.authorizationState(who, nonce) == handler.booked(who, nonce), "state = book");
            }
            uint256[4] memory outside = [uint256(3), 128, 2 << 8, (uint256(type(uint248).max) - 1) << 8 | 255];
            for (uint256 i; i < outside.length; ++i) {
                assertTrue(!token.authorizationState(who, bytes32(outside[i])), "a nonce outside the pool stays free");
            }
        }
    }

    function invariant_everyCallWasJudgedRight() public view {
        assertEq(handler.wrongAcceptances(), 0, "a used nonce accepted");
        assertEq(handler.wrongRefusals(), 0, "a fresh nonce refused");
    }

    /// Nothing is created or lost: the authorizers and recipients hold the whole supply.
    function invariant_balancesAddUpToTheSupply() public view {
        TokenpadToken token = handler.token();
        uint256 sum = token.balanceOf(address(handler));
        for (uint256 a; a < 3; ++a) sum += token.balanceOf(handler.authorizer(a));
        for (uint256 r; r < 3; ++r) sum += token.balanceOf(handler.recipients(r));
        assertEq(sum, token.totalSupply(), "balances = supply");
    }

    /// The sequences did something: a run whose handler never used a nonce would prove nothing.
    function afterInvariant() public view {
        assertTrue(handler.uses() > 0, "nonces were used");
    }
}
