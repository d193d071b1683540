// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "./TestBase.sol";
import {TokenpadFactory} from "../TokenpadFactory.sol";
import {TokenpadToken} from "../TokenpadToken.sol";
import {TokenpadMarket} from "../TokenpadMarket.sol";
import {TestUSDC} from "../TestUSDC.sol";
import {INonfungiblePositionManager, IUniswapV3Factory, IUniswapV3Pool} from "../interfaces/IUniswapV3.sol";

/// The position manager's reads the tests check (not called by the market, so not in its interface).
interface IPositions {
    function ownerOf(uint256 tokenId) external view returns (address);
    function positions(uint256 tokenId)
        external
        view
        returns (
            uint96 nonce,
            address operator,
            address token0,
            address token1,
            uint24 fee,
            int24 tickLower,
            int24 tickUpper,
            uint128 liquidity,
            uint256 feeGrowthInside0LastX128,
            uint256 feeGrowthInside1LastX128,
            uint128 tokensOwed0,
            uint128 tokensOwed1
        );
}

/// Uniswap v3 from Uniswap's own npm artifacts (as tests/chain/anvil.mjs deploys them),
/// TokenpadMarket and the token contracts from contracts/build, and the moves of a launch: the
/// treasury's openPool, an outsider who creates the pool first, holders' signed trades.
abstract contract MarketBase is TestBase {
    string internal constant V3_CORE = "node_modules/@uniswap/v3-core/artifacts/contracts/";
    string internal constant V3_PERIPHERY = "node_modules/@uniswap/v3-periphery/artifacts/contracts/";
    uint24 internal constant FEE = 3000;
    int24 internal constant MAX_TICK = 887220; // the largest multiple of 60 within Uniswap's ticks
    int24 internal constant MIN_TICK = -887220;
    uint160 internal constant MIN_SQRT_RATIO = 4295128739;
    uint160 internal constant MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342;

    // A token0 launch (the token below USDC) at 1 token = 0.001 USDC: the range [T0_TICK, MAX),
    // the price exactly Uniswap's getSqrtRatioAtTick(T0_TICK) (tests/chain/market-kit.mjs's
    // sqrtPriceAtTick; the pool lands on that very tick, which the tests check).
    int24 internal constant T0_TICK = -345420;
    uint160 internal constant T0_PRICE = 2503540358062750934686;
    // A token1 launch (above USDC) at the same price: [MIN, T1_TICK), a hair above the edge.
    int24 internal constant T1_TICK = 345360;
    uint160 internal constant T1_PRICE = 2499779788828244999873072608749125055;

    uint256 internal constant TREASURY_KEY = 0x7EA5;
    uint256 internal constant RESERVE = 100_000_000e18;

    TestUSDC internal usdc;
    TokenpadFactory internal factory;
    IUniswapV3Factory internal uniswap;
    address internal positions;
    TokenpadMarket internal market;
    address internal treasury;
    address internal outsider = address(0x0B5);
    address internal relayer = address(0x4E1);

    /// One launch: its token, the pool's two tokens in order, and the position's range and price.
    struct Launch {
        TokenpadToken token;
        address token0;
        address token1;
        bool tokenIs0;
        uint160 price;
        int24 tickLower;
        int24 tickUpper;
        int24 tick; // the pool's tick at that price
    }

    function deployMarket() internal {
        treasury = vm.addr(TREASURY_KEY);
        usdc = deployUsdc();
        factory = deployFactory();
        uniswap = IUniswapV3Factory(deployArtifact(string.concat(V3_CORE, "UniswapV3Factory.sol/UniswapV3Factory.json"), ""));
        // WETH9 and the token descriptor are only used for ETH and tokenURI: placeholders here
        positions = deployArtifact(
            string.concat(V3_PERIPHERY, "NonfungiblePositionManager.sol/NonfungiblePositionManager.json"),
            abi.encode(address(uniswap), address(0xE7E9), address(0xDE5C))
        );
        market = TokenpadMarket(
            deployArtifact("contracts/build/TokenpadMarket.json", abi.encode(address(uniswap), positions))
        );
        vm.label(address(market), "market");
        vm.label(address(usdc), "usdc");
    }

    /// A fresh token of the treasury on `token0`'s side of USDC (or token1's), and its launch.
    function newLaunch(bool token0Side) internal returns (Launch memory l) {
        for (uint256 i;; ++i) {
            bytes32 salt = keccak256(abi.encode("launch", token0Side, i));
            address predicted = factory.predict(address(this), salt);
            if ((predicted < address(usdc)) != token0Side || predicted.code.length != 0) continue;
            l.token = deployToken(factory, salt, 1e9 * 1e18, treasury);
            break;
        }
        l.tokenIs0 = token0Side;
        if (token0Side) {
            (l.token0, l.token1, l.price, l.tickLower, l.tickUpper, l.tick) =
                (address(l.token), address(usdc), T0_PRICE, T0_TICK, MAX_TICK, T0_TICK);
        } else {
            (l.token0, l.token1, l.price, l.tickLower, l.tickUpper, l.tick) =
                (address(usdc), address(l.token), T1_PRICE, MIN_TICK, T1_TICK, T1_TICK);
        }
    }

    // ------------------------------------------------------------ the treasury's openPool

    function pullOf(uint256 key, address token, address to, uint256 value, bytes32 nonce)
        internal
        view
        returns (TokenpadMarket.Pull memory p)
    {
        Sig memory s = signAuth(key, token, RECEIVE_TYPEHASH, to, value, block.timestamp + 1 hours, nonce);
        p = TokenpadMarket.Pull(vm.addr(key), value, 0, block.timestamp + 1 hours, nonce, s.v, s.r, s.s);
    }

    function emptyPull() internal pure returns (TokenpadMarket.Pull memory p) {}

    /// openPool's arguments for launch `l`: the whole reserve, no USDC.
    function openCall(Launch memory l, uint160 price) internal view returns (bytes memory) {
        TokenpadMarket.Pull memory p = pullOf(TREASURY_KEY, address(l.token), address(market), RESERVE, keccak256(abi.encode("open", l.token)));
        return abi.encodeCall(
            TokenpadMarket.openPool,
            (l.token0, l.token1, price, l.tickLower, l.tickUpper, l.tokenIs0 ? p : emptyPull(), l.tokenIs0 ? emptyPull() : p)
        );
    }

    /// The treasury opens launch `l`; checks the position is the market's for good and the
    /// treasury's fees, at the launch price, with nothing left in the market.
    function openAndCheck(Launch memory l) internal returns (address pool, uint256 positionId, uint128 liquidity) {
        bytes memory call_ = openCall(l, l.price); // (before the prank: it reads the token's domain)
        vm.prank(treasury);
        (bool ok, bytes memory ret) = address(market).call(call_);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 0x20), mload(ret))
            }
        }
        (pool, positionId, liquidity,,) = abi.decode(ret, (address, uint256, uint128, uint256, uint256));
        assertEq(pool, uniswap.getPool(l.token0, l.token1, FEE), "the pool");
        (uint160 price,,,,,,) = IUniswapV3Pool(pool).slot0();
        assertEq(price, l.price, "the pool's price is the launch's");
        assertEq(IPositions(positions).ownerOf(positionId), address(market), "the position NFT is the market's");
        assertEq(market.positionOwner(positionId), treasury, "its fees are the treasury's");
        (,,,,, int24 lo, int24 hi, uint128 posLiquidity,,,,) = IPositions(positions).positions(positionId);
        assertTrue(lo == l.tickLower && hi == l.tickUpper && posLiquidity == liquidity && liquidity > 0, "the position");
        assertEq(l.token.balanceOf(address(market)), 0, "the market keeps no tokens");
        assertEq(usdc.balanceOf(address(market)), 0, "the market keeps no USDC");
    }

    // ------------------------------------------------------------ the outsider's moves

    /// The outsider creates launch `l`'s pool and initializes it at `price` before the launch.
    function outsiderInitializes(Launch memory l, uint160 price) internal returns (address pool) {
        vm.startPrank(outsider);
        pool = uniswap.createPool(l.token0, l.token1, FEE);
        IUniswapV3Pool(pool).initialize(price);
        vm.stopPrank();
    }

    /// The outsider puts `amount` of USDC alone into [lo, hi) of launch `l`'s pool (a range on
    /// USDC's side of the pool's price), through Uniswap's position manager.
    function outsiderAddsUsdc(Launch memory l, int24 lo, int24 hi, uint256 amount) internal returns (uint128 liquidity) {
        usdc.mint(outsider, amount);
        vm.startPrank(outsider);
        usdc.approve(positions, amount);
        (, liquidity,,) = INonfungiblePositionManager(positions).mint(
            INonfungiblePositionManager.MintParams({
                token0: l.token0,
                token1: l.token1,
                fee: FEE,
                tickLower: lo,
                tickUpper: hi,
                amount0Desired: l.tokenIs0 ? 0 : amount,
                amount1Desired: l.tokenIs0 ? amount : 0,
                amount0Min: 0,
                amount1Min: 0,
                recipient: outsider,
                deadline: block.timestamp
            })
        );
        vm.stopPrank();
    }

    function tickOf(address pool) internal view returns (int24 tick) {
        (, tick,,,,,) = IUniswapV3Pool(pool).slot0();
    }

    /// A multiple of 60 in [lo, hi] (both multiples of 60) chosen by `seed`.
    function tickIn(uint256 seed, int24 lo, int24 hi) internal pure returns (int24) {
        return lo + int24(int256(bound(seed, 0, uint256(int256((hi - lo) / 60))))) * 60;
    }

    // ------------------------------------------------------------ holders' trades

    /// A holder's signed trade: the pull that swapExactIn/swapExactOut takes for these parameters.
    function tradePull(uint256 key, address tokenIn, address tokenOut, bool exactIn, uint256 amount, uint256 limit, bytes32 salt)
        internal
        view
        returns (TokenpadMarket.Pull memory)
    {
        bytes32 nonce = market.swapNonce(vm.addr(key), tokenIn, tokenOut, exactIn, amount, limit, salt);
        return pullOf(key, tokenIn, address(market), exactIn ? amount : limit, nonce);
    }
}
