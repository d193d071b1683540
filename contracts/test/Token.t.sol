// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "./TestBase.sol";
import {EIP3009} from "../EIP3009.sol";
import {TokenpadFactory} from "../TokenpadFactory.sol";
import {TokenpadToken} from "../TokenpadToken.sol";

/// The token and its factory, fuzzed: an EIP-3009 authorization works once, for any of its
/// uses; batches are all or nothing; the factory deploys exactly at predict().
contract TokenTest is TestBase {
    uint256 internal constant HOLDER_KEY = 0xA11CE;
    address internal holder;
    TokenpadFactory internal factory;
    TokenpadToken internal token;

    function setUp() public {
        holder = vm.addr(HOLDER_KEY);
        factory = deployFactory();
        token = deployToken(factory, "token", 1_000_000e18, holder);
        vm.warp(1_700_000_000);
    }

    function _transferCall(uint256 key, address to, uint256 value, bytes32 nonce) internal view returns (bytes memory) {
        Sig memory s = signAuth(key, address(token), TRANSFER_TYPEHASH, to, value, block.timestamp + 1 hours, nonce);
        return abi.encodeCall(EIP3009.transferWithAuthorization, (vm.addr(key), to, value, 0, block.timestamp + 1 hours, nonce, s.v, s.r, s.s));
    }

    function _auth(uint256 key, address to, uint256 value, bytes32 nonce) internal view returns (EIP3009.Authorization memory a) {
        Sig memory s = signAuth(key, address(token), TRANSFER_TYPEHASH, to, value, block.timestamp + 1 hours, nonce);
        a = EIP3009.Authorization(vm.addr(key), to, value, 0, block.timestamp + 1 hours, nonce, s.v, s.r, s.s);
    }

    /// An authorization moves its value once; replayed, by anyone, it is refused, and its nonce
    /// is spent for a receive or a cancellation too.
    function testFuzz_anAuthorizationWorksOnce(address relayer, address to, uint256 value, bytes32 nonce) public {
        if (to == address(0) || to == holder) to = address(0xB0B);
        value = bound(value, 0, 1_000_000e18);
        bytes memory call_ = _transferCall(HOLDER_KEY, to, value, nonce);
        uint256 before = token.balanceOf(to);
        vm.prank(relayer);
        (bool ok,) = address(token).call(call_);
        assertTrue(ok, "the first use");
        assertEq(token.balanceOf(to), before + value, "moved once");
        assertTrue(token.authorizationState(holder, nonce), "the nonce is spent");
        vm.prank(relayer);
        (bool again, bytes memory ret) = address(token).call(call_);
        assertTrue(!again, "a replay is refused");
        assertEq(keccak256(ret), keccak256(abi.encodeWithSelector(EIP3009.EIP3009AuthorizationUsedOrCanceled.selector, holder, nonce)), "UsedOrCanceled");
        assertEq(token.balanceOf(to), before + value, "still moved once");
        // the same nonce in a receive form, signed anew, is refused too
        Sig memory s = signAuth(HOLDER_KEY, address(token), RECEIVE_TYPEHASH, to, value, block.timestamp + 1 hours, nonce);
        vm.prank(to);
        (again,) = address(token).call(
            abi.encodeCall(EIP3009.receiveWithAuthorization, (holder, to, value, 0, block.timestamp + 1 hours, nonce, s.v, s.r, s.s))
        );
        assertTrue(!again, "nor as a receive");
    }

    /// A batch applies every authorization or none: one bad entry anywhere (replayed, signed by
    /// someone else, expired or overdrawn) reverts all, and nothing moves.
    function testFuzz_aBatchIsAllOrNothing(uint8 n, uint256 badAt, uint8 badKind) public {
        n = uint8(bound(n, 1, 12));
        EIP3009.Authorization[] memory auths = new EIP3009.Authorization[](n);
        for (uint256 i; i < n; ++i) auths[i] = _auth(HOLDER_KEY, address(uint160(0xB000 + i)), (i + 1) * 1e18, bytes32(i + 1));
        bool spoiled = badKind % 5 != 4; // one run in five: all good
        if (spoiled) {
            uint256 i = badAt % n;
            uint8 kind = badKind % 4;
            if (kind == 0 && n > 1) auths[i] = auths[(i + 1) % n]; // a nonce given twice
            else if (kind == 0) auths[i].value += 1; // the signature no longer covers it
            else if (kind == 1) auths[i] = _auth(0xB4D, auths[i].to, auths[i].value, auths[i].nonce); // someone else's
            else if (kind == 2) auths[i].validBefore = block.timestamp; // expired (and unsigned)
            else auths[i] = _auth(HOLDER_KEY, auths[i].to, 2_000_000e18, auths[i].nonce); // more than the holder has
        }
        uint256 before = token.balanceOf(holder);
        (bool ok,) = address(token).call(abi.encodeCall(EIP3009.batchTransferWithAuthorization, (auths)));
        assertTrue(ok == !spoiled, "the batch goes through exactly when every entry is good");
        uint256 moved;
        for (uint256 i; i < n; ++i) {
            uint256 got = token.balanceOf(address(uint160(0xB000 + i)));
            assertEq(got, ok ? (i + 1) * 1e18 : 0, "each recipient got its value, or nothing");
            moved += got;
            assertTrue(token.authorizationState(holder, bytes32(i + 1)) == ok, "nonces spent only with the batch");
        }
        assertEq(token.balanceOf(holder), before - moved, "the holder paid exactly what moved");
    }

    /// batchTransfer: all recipients are paid, or (one overdraft, or lengths that differ) none.
    function testFuzz_batchTransferIsAllOrNothing(uint8 n, uint256 overAt, bool over, bool mismatch) public {
        n = uint8(bound(n, 1, 12));
        address[] memory to = new address[](n);
        uint256[] memory values = new uint256[](mismatch ? n + 1 : n);
        for (uint256 i; i < n; ++i) (to[i], values[i]) = (address(uint160(0xC000 + i)), 1e18);
        if (over) values[overAt % n] = 2_000_000e18;
        vm.prank(holder);
        (bool ok,) = address(token).call(abi.encodeCall(EIP3009.batchTransfer, (to, values)));
        assertTrue(ok == (!over && !mismatch), "all or nothing");
        for (uint256 i; i < n; ++i) assertEq(token.balanceOf(to[i]), ok ? 1e18 : 0, "each recipient");
    }

    /// Any deployer's token lands at predict(deployer, salt), once; another deployer with the same
    /// salt gets another address.
    function testFuzz_theFactoryDeploysAtPredict(address deployer, address other, bytes32 salt) public {
        if (deployer == other) other = address(uint160(deployer) ^ 1);
        address predicted = factory.predict(deployer, salt);
        bytes32 hash = factory.TOKEN_CREATION_CODE_HASH();
        assertEq(predicted, address(uint160(uint256(keccak256(abi.encodePacked(hex"ff", address(factory), keccak256(abi.encode(deployer, salt)), hash))))), "the CREATE2 formula");
        vm.prank(deployer);
        address token_ = factory.deploy(salt, "Fuzz", "FZ", 1e18, address(0xB0B));
        assertEq(token_, predicted, "deployed at predict()");
        assertEq(TokenpadToken(token_).balanceOf(address(0xB0B)), 1e18, "minted to the treasury");
        vm.prank(deployer);
        (bool ok, bytes memory ret) = address(factory).call(abi.encodeCall(TokenpadFactory.deploy, (salt, "Again", "AG", 1, deployer)));
        assertTrue(!ok, "once");
        assertEq(keccak256(ret), keccak256(abi.encodeWithSelector(TokenpadFactory.TokenpadFactoryAlreadyDeployed.selector, predicted)), "AlreadyDeployed");
        assertTrue(factory.predict(other, salt) != predicted, "another deployer, another address");
    }

    function test_theCreationCodeHashIsTheBuilds() public view {
        assertEq(factory.TOKEN_CREATION_CODE_HASH(), keccak256(vm.getCode("contracts/build/TokenpadToken.json")), "creationCodeHash");
    }

    /// A token is initialized once, by its creator (the factory) only.
    function testFuzz_initializeOnceByTheFactoryOnly(address caller) public {
        vm.prank(caller);
        (bool ok,) = address(token).call(abi.encodeCall(TokenpadToken.initialize, ("X", "X", 1, caller)));
        assertTrue(!ok, "refused");
        assertEq(token.totalSupply(), 1_000_000e18, "no second mint");
    }
}
