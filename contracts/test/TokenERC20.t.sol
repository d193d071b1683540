// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "./TestBase.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {TokenpadToken} from "../TokenpadToken.sol";

/// OpenZeppelin's ERC20, the reference tokenpad's own ERC-20 core (BaseERC20) must answer like.
contract ReferenceERC20 is ERC20 {
    constructor(address treasury, uint256 supply) ERC20("Test", "TST") {
        _mint(treasury, supply);
    }
}

/// BaseERC20 against OpenZeppelin's ERC20, differentially: the same random sequences of
/// transfer, approve and transferFrom (among three accounts and the zero address, with values
/// around what they hold and are allowed, unlimited allowances included) give the same
/// successes, the same return data or errors, and the same balances, allowances and supply.
contract TokenERC20Test is TestBase {
    IERC20 internal ours;
    IERC20 internal reference_;

    function setUp() public {
        ours = IERC20(address(deployToken(deployFactory(), "erc20", 1_000e18, _actor(0))));
        reference_ = IERC20(address(new ReferenceERC20(_actor(0), 1_000e18)));
    }

    /// Accounts 0..2, and the zero address as 3.
    function _actor(uint256 i) internal pure returns (address) {
        i %= 4;
        return i == 3 ? address(0) : address(uint160(0xAC0 + i));
    }

    /// A value near what matters: 0, a little, a balance or allowance exactly, one more, the
    /// largest uint256, or anything.
    function _value(IERC20 t, address from, address spender, uint256 seed) internal view returns (uint256) {
        uint256 kind = seed % 7;
        if (kind == 0) return 0;
        if (kind == 1) return seed % 100e18;
        if (kind == 2) return t.balanceOf(from);
        if (kind == 3) return t.balanceOf(from) + 1;
        if (kind == 4) return t.allowance(from, spender);
        if (kind == 5) return type(uint256).max;
        return seed >> 3;
    }

    function _call(IERC20 t, uint256 op, address caller, address a, address b, uint256 value)
        internal
        returns (bool ok, bytes memory ret)
    {
        vm.prank(caller);
        if (op == 0) (ok, ret) = address(t).call(abi.encodeCall(IERC20.transfer, (a, value)));
        else if (op == 1) (ok, ret) = address(t).call(abi.encodeCall(IERC20.approve, (a, value)));
        else (ok, ret) = address(t).call(abi.encodeCall(IERC20.transferFrom, (a, b, value)));
    }

    function testFuzz_answersAsOpenZeppelinsERC20(uint256[8] memory ops) public {
        uint256 accepted;
        for (uint256 i; i < ops.length; ++i) {
            uint256 s = uint256(keccak256(abi.encode(ops[i], i)));
            uint256 op = s % 3;
            address caller = _actor(s >> 8);
            address a = _actor(s >> 16);
            address b = _actor(s >> 24);
            // the value is chosen on the reference (both hold the same state, checked below)
            uint256 value = _value(reference_, op == 2 ? a : caller, op == 2 ? caller : a, s >> 32);
            (bool ok1, bytes memory ret1) = _call(ours, op, caller, a, b, value);
            (bool ok2, bytes memory ret2) = _call(reference_, op, caller, a, b, value);
            assertTrue(ok1 == ok2, "the same success");
            assertEq(keccak256(ret1), keccak256(ret2), "the same return data or error");
            if (ok1) ++accepted;
            for (uint256 x; x < 4; ++x) {
                assertEq(ours.balanceOf(_actor(x)), reference_.balanceOf(_actor(x)), "the same balances");
                for (uint256 y; y < 4; ++y) {
                    assertEq(ours.allowance(_actor(x), _actor(y)), reference_.allowance(_actor(x), _actor(y)), "the same allowances");
                }
            }
            assertEq(ours.totalSupply(), reference_.totalSupply(), "the same supply");
        }
        assertEq(TokenpadToken(address(ours)).decimals(), 18, "18 decimals");
        // a run where nothing went through compares little; most runs do something
        if (accepted == 0) assertEq(ours.balanceOf(_actor(0)), 1_000e18, "nothing moved");
    }
}
