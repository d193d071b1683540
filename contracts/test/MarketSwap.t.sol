// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {MarketBase} from "./MarketBase.sol";
import {TokenpadMarket} from "../TokenpadMarket.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// The market's gasless trades on an opened launch: a holder's signature binds the trade, the
/// signed bound holds (exact in: at least minAmountOut; exact out: at most maxAmountIn, the rest
/// back), and the market never pays anything out of its own balance.
contract MarketSwapTest is MarketBase {
    uint256 internal constant HOLDER_KEY = 0xA11CE;
    address internal holder;
    Launch internal launch;
    uint256 internal constant DONATED = 1_000e6; // USDC (and 10^6 tokens) sent to the market by mistake

    function setUp() public {
        deployMarket();
        holder = vm.addr(HOLDER_KEY);
        launch = newLaunch(true);
        openAndCheck(launch);
        usdc.mint(holder, 1_000_000e6);
        vm.prank(treasury);
        launch.token.transfer(holder, 10_000_000e18);
        // buyers first, so that the pool holds USDC and sells can fill too
        (bool ok,) = _trade(true, true, 200_000e6, 1, "first buy", _signed(true, true, 200_000e6, 1, "first buy"));
        assertTrue(ok, "the first buy");
        // tokens sent to the market by mistake: no trade may ever pay them out
        usdc.mint(address(market), DONATED);
        vm.prank(treasury);
        launch.token.transfer(address(market), 1_000_000e18);
    }

    /// The probe the fuzz tests compare with sees what a trade does, and leaves no trace.
    function test_theProbeSeesATradeWithoutKeepingIt() public {
        uint256 before = usdc.balanceOf(holder);
        (bool buys, uint256 out) = _unbounded(true, true, 1_000e6);
        (bool sells, uint256 usdcOut) = _unbounded(false, true, 1_000_000e18);
        (bool buysOut, uint256 cost) = _unbounded(true, false, 1_000_000e18);
        assertTrue(buys && out > 0 && sells && usdcOut > 0 && buysOut && cost > 0, "the trades fill");
        assertEq(usdc.balanceOf(holder), before, "and are undone");
        (bool tooBig,) = _unbounded(false, false, 10_000_000e6);
        assertTrue(!tooBig, "more USDC than the pool holds does not fill");
    }

    /// Sends the holder's signed trade as the relayer; returns whether it succeeded and what it returned.
    function _trade(
        bool buy,
        bool exactIn,
        uint256 amount,
        uint256 limit,
        bytes32 salt,
        TokenpadMarket.Pull memory p
    ) internal returns (bool ok, bytes memory ret) {
        (address tokenIn, address tokenOut) = buy ? (address(usdc), address(launch.token)) : (address(launch.token), address(usdc));
        bytes memory call_ = exactIn
            ? abi.encodeCall(TokenpadMarket.swapExactIn, (tokenIn, tokenOut, amount, limit, salt, p))
            : abi.encodeCall(TokenpadMarket.swapExactOut, (tokenIn, tokenOut, amount, limit, salt, p));
        vm.prank(relayer);
        (ok, ret) = address(market).call(call_);
    }

    function _signed(bool buy, bool exactIn, uint256 amount, uint256 limit, bytes32 salt)
        internal
        view
        returns (TokenpadMarket.Pull memory)
    {
        (address tokenIn, address tokenOut) = buy ? (address(usdc), address(launch.token)) : (address(launch.token), address(usdc));
        return tradePull(HOLDER_KEY, tokenIn, tokenOut, exactIn, amount, limit, salt);
    }

    /// What the trade gives (exact in) or takes (exact out) at the pool's current state: the
    /// same trade with no bound, run and undone (a state snapshot reverted by the revert).
    function _unbounded(bool buy, bool exactIn, uint256 amount) internal returns (bool ok, uint256 result) {
        // no bound: exact in, any output; exact out, all the holder has of the input
        uint256 limit = exactIn ? 0 : (buy ? usdc.balanceOf(holder) : launch.token.balanceOf(holder));
        try this.runAndUndo(buy, exactIn, amount, limit) {} catch (bytes memory ret) {
            if (ret.length == 64) (ok, result) = abi.decode(ret, (bool, uint256));
        }
    }

    /// Runs a trade and reverts with (ok, result), so the caller learns it without keeping it.
    function runAndUndo(bool buy, bool exactIn, uint256 amount, uint256 limit) external {
        (bool ok, bytes memory ret) = _trade(buy, exactIn, amount, limit, "probe", _signed(buy, exactIn, amount, limit, "probe"));
        uint256 result = ok ? abi.decode(ret, (uint256)) : 0;
        bytes memory out = abi.encode(ok, result);
        assembly ("memory-safe") {
            revert(add(out, 0x20), 64)
        }
    }

    /// What a signed trade did: whether it went through, what it returned, and how much of the
    /// input the holder paid and of the output it got.
    struct Outcome {
        bool ok;
        uint256 result;
        uint256 paid;
        uint256 got;
    }

    function _measured(bool buy, bool exactIn, uint256 amount, uint256 limit) internal returns (Outcome memory o) {
        (IERC20 tokenIn, IERC20 tokenOut) = buy ? (IERC20(address(usdc)), IERC20(address(launch.token))) : (IERC20(address(launch.token)), IERC20(address(usdc)));
        TokenpadMarket.Pull memory p = _signed(buy, exactIn, amount, limit, "t");
        uint256 in0 = tokenIn.balanceOf(holder);
        uint256 out0 = tokenOut.balanceOf(holder);
        bytes memory ret;
        (o.ok, ret) = _trade(buy, exactIn, amount, limit, "t", p);
        if (o.ok) o.result = abi.decode(ret, (uint256));
        o.paid = in0 - tokenIn.balanceOf(holder);
        o.got = tokenOut.balanceOf(holder) - out0;
    }

    /// A bound around `x`, what the trade really gives or takes: exactly x, one unit either
    /// side, or anywhere in [x / 2, 2x], so that both outcomes come up often.
    function _around(uint256 seed, uint256 x) internal pure returns (uint256) {
        uint256 pick = seed % 8;
        if (pick == 0) return x;
        if (pick == 1) return x + 1;
        if (pick == 2) return x == 0 ? 0 : x - 1;
        return bound(seed >> 3, x / 2, 2 * x);
    }

    function _marketKeepsOnlyWhatWasDonated() internal view {
        assertEq(usdc.balanceOf(address(market)), DONATED, "the market's USDC is what was sent to it, untouched");
        assertEq(launch.token.balanceOf(address(market)), 1_000_000e18, "the market's tokens are what were sent to it, untouched");
    }

    /// Exact in: the trade goes through if and only if its output reaches the signed
    /// minAmountOut, and then the holder pays exactly amountIn and gets exactly that output.
    function testFuzz_exactInHonoursMinAmountOut(bool buy, uint256 amountSeed, uint256 minSeed) public {
        uint256 amountIn = buy ? bound(amountSeed, 1, 100_000e6) : bound(amountSeed, 1e9, 5_000_000e18);
        (bool fills, uint256 out) = _unbounded(buy, true, amountIn);
        uint256 minOut = _around(minSeed, out);
        Outcome memory o = _measured(buy, true, amountIn, minOut);
        assertTrue(o.ok == (fills && out >= minOut), "succeeds exactly when the output reaches the bound");
        assertEq(o.result, o.ok ? out : 0, "the output");
        assertEq(o.paid, o.ok ? amountIn : 0, "paid exactly amountIn (nothing if refused)");
        assertEq(o.got, o.ok ? out : 0, "received exactly the output (nothing if refused)");
        _marketKeepsOnlyWhatWasDonated();
    }

    /// Exact out: the trade goes through if and only if its input stays within the signed
    /// maxAmountIn; the holder gets exactly amountOut and pays exactly the input, the unspent
    /// part of maxAmountIn coming back in the same transaction.
    function testFuzz_exactOutHonoursMaxAmountIn(bool buy, uint256 amountSeed, uint256 maxSeed) public {
        uint256 amountOut = buy ? bound(amountSeed, 1, 50_000_000e18) : bound(amountSeed, 1, 50_000e6);
        (bool fills, uint256 cost) = _unbounded(buy, false, amountOut);
        uint256 maxIn = _around(maxSeed, cost);
        uint256 has = buy ? usdc.balanceOf(holder) : launch.token.balanceOf(holder);
        if (maxIn > has) maxIn = has; // (a pull of more than the holder has fails for that reason alone)
        Outcome memory o = _measured(buy, false, amountOut, maxIn);
        assertTrue(o.ok == (fills && cost <= maxIn), "succeeds exactly when the input stays within the bound");
        assertEq(o.result, o.ok ? cost : 0, "the input");
        assertEq(o.paid, o.ok ? cost : 0, "paid exactly the input, the rest of maxAmountIn back (nothing if refused)");
        assertEq(o.got, o.ok ? amountOut : 0, "received exactly amountOut (nothing if refused)");
        _marketKeepsOnlyWhatWasDonated();
    }

    /// A signature is for one trade: submitted with any other amount, bound, direction or salt,
    /// it is refused (TokenpadMarketNonceMismatch), and used once it is spent.
    function testFuzz_theSignatureIsBoundToItsTrade(uint256 amountSeed, uint256 otherSeed, uint8 change) public {
        uint256 amountIn = bound(amountSeed, 1e6, 10_000e6);
        uint256 minOut = 1;
        TokenpadMarket.Pull memory p = _signed(true, true, amountIn, minOut, "s");
        uint256 other = bound(otherSeed, 0, type(uint128).max);
        (uint256 a, uint256 lim, bytes32 salt, bool exactIn) = (amountIn, minOut, bytes32("s"), true);
        change %= 4;
        if (change == 0) lim = other == minOut ? 0 : other; // a lower (or any other) minAmountOut
        else if (change == 1) a = other == amountIn ? amountIn + 1 : other;
        else if (change == 2) salt = keccak256(abi.encode(other));
        else exactIn = false;
        (bool ok, bytes memory ret) = _trade(true, exactIn, a, lim, salt, p);
        assertTrue(!ok, "refused");
        assertEq(bytes4(ret), TokenpadMarket.TokenpadMarketNonceMismatch.selector, "TokenpadMarketNonceMismatch");
        (ok,) = _trade(true, true, amountIn, minOut, "s", p);
        assertTrue(ok, "the trade it was signed for goes through");
        (ok,) = _trade(true, true, amountIn, minOut, "s", p);
        assertTrue(!ok, "once");
        _marketKeepsOnlyWhatWasDonated();
    }

    /// The market holds tokens sent to it by mistake; an exact-out trade whose bound is too low
    /// fails rather than top up from them, and no trade ever changes them.
    function testFuzz_neverPaysFromItsOwnBalance(uint256 amountSeed) public {
        uint256 amountOut = bound(amountSeed, 1e18, 1_000_000e18);
        (, uint256 cost) = _unbounded(true, false, amountOut);
        (bool ok, bytes memory ret) = _trade(true, false, amountOut, cost - 1, "x", _signed(true, false, amountOut, cost - 1, "x"));
        assertTrue(!ok, "short by one unit: refused, though the market holds plenty");
        assertEq(bytes4(ret), TokenpadMarket.TokenpadMarketSlippage.selector, "TokenpadMarketSlippage");
        _marketKeepsOnlyWhatWasDonated();
    }

    /// Anyone calling the callback directly, a pool included, gets nothing.
    function testFuzz_theCallbackPaysNobodyOutsideASwap(address caller, int256 a0, int256 a1) public {
        // (no transaction comes from the zero address, which is what the guard holds outside a swap)
        if (caller == address(0)) caller = address(0xCA11);
        bytes memory data = abi.encode(address(usdc), uint256(type(uint128).max));
        uint256 before = usdc.balanceOf(caller);
        vm.prank(caller);
        (bool ok, bytes memory ret) = address(market).call(abi.encodeCall(TokenpadMarket.uniswapV3SwapCallback, (a0, a1, data)));
        assertTrue(!ok, "refused");
        assertEq(bytes4(ret), TokenpadMarket.TokenpadMarketUnauthorizedCallback.selector, "TokenpadMarketUnauthorizedCallback");
        vm.prank(caller);
        (ok, ret) = address(market).call(abi.encodeCall(TokenpadMarket.uniswapV3SwapCallback, (a0, a1, "")));
        assertTrue(!ok, "the price move's form too");
        _marketKeepsOnlyWhatWasDonated();
        assertEq(usdc.balanceOf(caller), before, "the caller got nothing");
    }
}
