// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {MarketBase} from "./MarketBase.sol";
import {TokenpadMarket} from "../TokenpadMarket.sol";
import {IUniswapV3Pool, IUniswapV3SwapCallback} from "../interfaces/IUniswapV3.sol";

/// openPool against an outsider who creates the token's pool first (its address is known before
/// the token exists): at any price, an empty pool is moved to the launch price and the launch
/// opens there, its position the market's; liquidity in the way fails the launch openly.
contract MarketOpenTest is MarketBase {
    function setUp() public {
        deployMarket();
    }

    // ------------------------------------------------------------ empty pools

    function test_aFreshPoolOpensAtTheLaunchPrice() public {
        for (uint256 side; side < 2; ++side) {
            Launch memory l = newLaunch(side == 0);
            (address pool,, uint128 liquidity) = openAndCheck(l);
            assertEq(tickOf(pool), l.tick, "the pool starts on the launch tick");
            // a token0 launch starts in range; a token1 launch's range ends at the pool's tick
            assertEq(IUniswapV3Pool(pool).liquidity(), l.tokenIs0 ? liquidity : 0, "liquidity in range");
        }
    }

    /// Whatever price the outsider initialized an empty pool at (the launch's included), the
    /// launch opens at its own price and the position is the market's.
    function testFuzz_anEmptyPoolInitializedFirstAtAnyPriceOpensAtTheLaunchPrice(uint256 priceSeed, bool token0Side) public {
        Launch memory l = newLaunch(token0Side);
        uint160 start = uint160(bound(priceSeed, MIN_SQRT_RATIO, MAX_SQRT_RATIO - 1));
        if (priceSeed % 8 == 0) start = l.price; // the launch price itself, often
        address pool = outsiderInitializes(l, start);
        (address opened,, uint128 liquidity) = openAndCheck(l);
        assertEq(opened, pool, "the outsider's pool");
        assertEq(tickOf(pool), l.tick, "the pool's tick is the launch tick");
        assertEq(IUniswapV3Pool(pool).liquidity(), l.tokenIs0 ? liquidity : 0, "only the launch's liquidity is in range");
    }

    function test_fromTheExtremePrices() public {
        uint160[2] memory starts = [MIN_SQRT_RATIO, MAX_SQRT_RATIO - 1];
        for (uint256 side; side < 2; ++side) {
            for (uint256 s; s < 2; ++s) {
                Launch memory l = newLaunch(side == 0);
                outsiderInitializes(l, starts[s]);
                openAndCheck(l);
            }
        }
    }

    /// Moving down to a price exactly on a tick that ends a word of the pool's tick bitmap
    /// (a multiple of 60 * 256), Uniswap crosses that tick and leaves the pool's tick one below
    /// it (its convention at a boundary reached from above): the launch still opens at its exact
    /// price, its range starting on that tick is just not counted in range until the first buy
    /// crosses back, which costs the buyer nothing.
    function test_movedDownOntoAWordBoundary() public {
        int24 boundary = -353280; // -23 * 256 * 60
        uint160 price = 1689994918294628533148; // getSqrtRatioAtTick(-353280)
        Launch memory l = newLaunch(true);
        (l.price, l.tickLower, l.tick) = (price, boundary, boundary);
        address pool = outsiderInitializes(l, MAX_SQRT_RATIO - 1);
        bytes memory call_ = openCall(l, l.price);
        vm.prank(treasury);
        (bool ok,) = address(market).call(call_);
        assertTrue(ok, "openPool");
        (uint160 now_, int24 tick,,,,,) = IUniswapV3Pool(pool).slot0();
        assertEq(now_, price, "at the launch price exactly");
        assertEq(tick, boundary - 1, "the pool's tick is one below the boundary");
        assertEq(IUniswapV3Pool(pool).liquidity(), 0, "the launch's range is not counted in range yet");
        // the price really is getSqrtRatioAtTick(boundary): a pool initialized there sits on it,
        // and one unit lower does not
        assertEq(tickOf(outsiderInitializes(newLaunch(true), price)), boundary, "the boundary's price");
        assertEq(tickOf(outsiderInitializes(newLaunch(true), price - 1)), boundary - 1, "just below it");
    }

    // ------------------------------------------------------------ occupied pools

    /// The outsider's USDC lies between its price and the launch's: moving the price would trade
    /// against it, so openPool reverts TokenpadMarketPoolOccupied and nothing moves.
    function testFuzz_usdcInTheWayFailsOpenly(uint256 startSeed, uint256 loSeed, uint256 widthSeed, uint256 amount, bool token0Side)
        public
    {
        Launch memory l = newLaunch(token0Side);
        // the outsider's price on USDC's side of the launch (above it for a token0 launch), by a
        // factor of 2 to 2^60 in sqrtPriceX96 (about 13,900 to 830,000 ticks away; much further,
        // Uniswap's position manager cannot compute a USDC-only position's liquidity)
        uint256 m = bound(startSeed, 2, 2 ** 60);
        uint160 start = uint160(token0Side ? uint256(l.price) * m : uint256(l.price) / m);
        address pool = outsiderInitializes(l, start);
        int24 startTick = tickOf(pool);
        // a USDC-only range strictly between the two prices
        int24 lo;
        int24 hi;
        if (token0Side) {
            lo = tickIn(loSeed, l.tick, _floor60(startTick) - 120);
            hi = tickIn(widthSeed, lo + 60, _floor60(startTick));
        } else {
            lo = tickIn(loSeed, _ceil60(startTick) + 60, l.tick - 60);
            hi = tickIn(widthSeed, lo + 60, l.tick);
        }
        // (far from the launch price a unit of liquidity takes up to 2^55 units of USDC)
        outsiderAddsUsdc(l, lo, hi, bound(amount, 1e17, 1e24));
        _expectOccupied(l, pool);
        (uint160 after_,,,,,,) = IUniswapV3Pool(pool).slot0();
        assertEq(after_, start, "the price did not move");
    }

    /// USDC ending exactly at the launch price is crossed into when the price comes down to it:
    /// the move pays nothing, but the outsider's liquidity would be in range beside the launch's.
    function test_usdcEndingAtTheLaunchPriceFailsOpenly() public {
        Launch memory l = newLaunch(true);
        address pool = outsiderInitializes(l, l.price * 4);
        outsiderAddsUsdc(l, l.tick - 600, l.tick, 1e6);
        _expectOccupied(l, pool);
    }

    /// USDC beyond the launch price (out of range there) is not in the way: the launch opens,
    /// and that liquidity stays out of range and untouched.
    function testFuzz_usdcBeyondTheLaunchPriceDoesNotBlock(uint256 loSeed, uint256 widthSeed) public {
        Launch memory l = newLaunch(true);
        address pool = outsiderInitializes(l, l.price * 4);
        int24 hi = tickIn(widthSeed, l.tick - 60000, l.tick - 60);
        int24 lo = tickIn(loSeed, hi - 60000, hi - 60);
        outsiderAddsUsdc(l, lo, hi, 50e6);
        uint256 held = usdc.balanceOf(pool);
        (,, uint128 liquidity) = openAndCheck(l);
        assertEq(IUniswapV3Pool(pool).liquidity(), liquidity, "only the launch's liquidity is in range");
        assertEq(usdc.balanceOf(pool), held, "the outsider's USDC is untouched");
    }

    /// A pool the market opened already has its liquidity in range: another openPool at its
    /// price (or at another) is refused the same way.
    function test_anOpenPoolIsNotOpenedAgain() public {
        Launch memory l = newLaunch(true);
        (address pool,,) = openAndCheck(l);
        _expectOccupied(l, pool);
    }

    function _expectOccupied(Launch memory l, address pool) private {
        bytes memory call_ = openCall(l, l.price);
        uint256 before = l.token.balanceOf(treasury);
        vm.prank(treasury);
        (bool ok, bytes memory ret) = address(market).call(call_);
        assertTrue(!ok, "openPool must fail");
        assertEq(keccak256(ret), keccak256(abi.encodeWithSelector(TokenpadMarket.TokenpadMarketPoolOccupied.selector, pool)), "TokenpadMarketPoolOccupied(pool)");
        assertEq(l.token.balanceOf(treasury), before, "the treasury keeps its tokens");
    }

    // ------------------------------------------------------------ gas of the move

    /// The gas of moving an empty pool's price from one extreme to the other, both ways: the
    /// pool's swap alone (what openPool adds to an opening when an outsider initialized the pool
    /// at the far end), printed by `forge test -vv`.
    function test_gasOfMovingAcrossAnEmptyPool() public {
        Launch memory l = newLaunch(true);
        address pool = outsiderInitializes(l, MIN_SQRT_RATIO);
        Mover mover = new Mover();
        uint256 g = gasleft();
        mover.move(pool, false, MAX_SQRT_RATIO - 1);
        uint256 up = g - gasleft();
        g = gasleft();
        mover.move(pool, true, MIN_SQRT_RATIO + 1);
        uint256 down = g - gasleft();
        emit log_named_uint("gas, moving up from the lowest price to the highest (empty pool)", up);
        emit log_named_uint("gas, moving down from the highest price to the lowest (empty pool)", down);
        assertTrue(up < 1_500_000 && down < 1_500_000, "a move fits well within a block");
        (uint160 p,,,,,,) = IUniswapV3Pool(pool).slot0();
        assertEq(p, MIN_SQRT_RATIO + 1, "moved");
    }

    // ------------------------------------------------------------ helpers

    function _floor60(int24 t) private pure returns (int24) {
        int24 r = (t / 60) * 60;
        return r > t ? r - 60 : r;
    }

    function _ceil60(int24 t) private pure returns (int24) {
        int24 r = (t / 60) * 60;
        return r < t ? r + 60 : r;
    }
}

/// Moves a pool's price with a swap that may trade nothing (as the market's openPool does),
/// refusing to pay anything.
contract Mover is IUniswapV3SwapCallback {
    function move(address pool, bool zeroForOne, uint160 limit) external {
        IUniswapV3Pool(pool).swap(address(this), zeroForOne, 1, limit, "");
    }

    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata) external pure {
        require(amount0Delta <= 0 && amount1Delta <= 0, "the move was asked to pay");
    }
}
