// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "./TestBase.sol";
import {TokenpadFactory} from "../TokenpadFactory.sol";
import {TokenpadLocker} from "../TokenpadLocker.sol";
import {TokenpadToken} from "../TokenpadToken.sol";
import {TestUSDC} from "../TestUSDC.sol";

/// TokenpadLocker from contracts/build with two tokens to lock (a tokenpad token and USDC), and
/// locks made the way a treasury makes them: its own EIP-3009 pull of the total, sent by itself.
abstract contract LockerBase is TestBase {
    TokenpadLocker internal locker;
    TokenpadFactory internal factory;
    TestUSDC internal usdc;

    function deployLocker() internal {
        locker = TokenpadLocker(deployArtifact("contracts/build/TokenpadLocker.json", ""));
        factory = deployFactory();
        usdc = deployUsdc();
        vm.label(address(locker), "locker");
    }

    /// A tokenpad token of `supply` whose whole supply is `owner`'s.
    function tokenOf(address owner, uint256 supply, bytes32 salt) internal returns (TokenpadToken) {
        return deployToken(factory, salt, supply, owner);
    }

    /// lock()'s arguments for one lock of `key`'s account, with its signed pull of `amount`.
    function oneLock(uint256 key, address token, bytes32 id, address beneficiary, uint256 amount, uint64 unlockAt, bytes32 nonce)
        internal
        view
        returns (bytes memory)
    {
        bytes32[] memory ids = new bytes32[](1);
        address[] memory beneficiaries = new address[](1);
        uint256[] memory amounts = new uint256[](1);
        uint64[] memory unlockAts = new uint64[](1);
        (ids[0], beneficiaries[0], amounts[0], unlockAts[0]) = (id, beneficiary, amount, unlockAt);
        return abi.encodeCall(TokenpadLocker.lock, (token, pullOf(key, token, amount, nonce), ids, beneficiaries, amounts, unlockAts));
    }

    function pullOf(uint256 key, address token, uint256 value, bytes32 nonce)
        internal
        view
        returns (TokenpadLocker.Pull memory p)
    {
        Sig memory s = signAuth(key, token, RECEIVE_TYPEHASH, address(locker), value, block.timestamp + 1 days, nonce);
        p = TokenpadLocker.Pull(vm.addr(key), value, 0, block.timestamp + 1 days, nonce, s.v, s.r, s.s);
    }

    /// Sends `call_` to the locker as `sender`; returns whether it went through and its return or revert data.
    function send(address sender, bytes memory call_) internal returns (bool ok, bytes memory ret) {
        vm.prank(sender);
        (ok, ret) = address(locker).call(call_);
    }

    function keys1(bytes32 k) internal pure returns (bytes32[] memory a) {
        a = new bytes32[](1);
        a[0] = k;
    }

    /// The lock stored under `key`.
    function lockAt(bytes32 key)
        internal
        view
        returns (address token, uint96 amount, address beneficiary, uint64 unlockAt, bool released)
    {
        return locker.locks(key);
    }
}
