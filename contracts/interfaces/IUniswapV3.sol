// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title The few calls of Uniswap v3 that TokenpadMarket makes, declared by hand.
/// @dev Written from the ABIs of Uniswap's published artifacts (the npm packages
/// "@uniswap/v3-core" 1.0.1 and "@uniswap/v3-periphery" 1.4.4), which are what Base's canonical
/// deployments run. Only the
/// functions TokenpadMarket calls are here, with Uniswap's selectors and argument layouts;
/// tests/chain/market.test.mjs makes every one of these calls against Uniswap deployed from
/// those artifacts.

/// UniswapV3Factory.
interface IUniswapV3Factory {
    /// The pool of (tokenA, tokenB, fee), in either token order; address(0) if there is none.
    function getPool(address tokenA, address tokenB, uint24 fee) external view returns (address pool);

    /// Deploys the pool of (tokenA, tokenB, fee) (uninitialized); reverts if it exists.
    function createPool(address tokenA, address tokenB, uint24 fee) external returns (address pool);
}

/// UniswapV3Pool.
interface IUniswapV3Pool {
    /// Sets the first price; reverts if the pool is already initialized.
    function initialize(uint160 sqrtPriceX96) external;

    /// The pool's current state; sqrtPriceX96 is 0 until initialize.
    function slot0()
        external
        view
        returns (
            uint160 sqrtPriceX96,
            int24 tick,
            uint16 observationIndex,
            uint16 observationCardinality,
            uint16 observationCardinalityNext,
            uint8 feeProtocol,
            bool unlocked
        );

    /// The liquidity in range at the current price (of every position, anyone's).
    function liquidity() external view returns (uint128);

    /// Swaps: amountSpecified > 0 is an exact input, < 0 an exact output. Sends the output to
    /// `recipient`, then calls uniswapV3SwapCallback on msg.sender for the input. The returned
    /// deltas are the pool's balance changes (positive: the pool received).
    function swap(
        address recipient,
        bool zeroForOne,
        int256 amountSpecified,
        uint160 sqrtPriceLimitX96,
        bytes calldata data
    ) external returns (int256 amount0, int256 amount1);
}

/// NonfungiblePositionManager (the ERC-721 of Uniswap v3 liquidity positions).
interface INonfungiblePositionManager {
    struct MintParams {
        address token0;
        address token1;
        uint24 fee;
        int24 tickLower;
        int24 tickUpper;
        uint256 amount0Desired;
        uint256 amount1Desired;
        uint256 amount0Min;
        uint256 amount1Min;
        address recipient;
        uint256 deadline;
    }

    struct CollectParams {
        uint256 tokenId;
        address recipient;
        uint128 amount0Max;
        uint128 amount1Max;
    }

    /// Adds the most liquidity the desired amounts allow to a new position of the (initialized)
    /// pool, pulling the amounts it uses from msg.sender with transferFrom, and mints the position
    /// NFT to `recipient`.
    function mint(MintParams calldata params)
        external
        payable
        returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1);

    /// Sends the position's owed tokens (its fees, once liquidity is never removed) to `recipient`.
    /// Only the NFT's owner or an approved operator may call it.
    function collect(CollectParams calldata params) external payable returns (uint256 amount0, uint256 amount1);
}

/// The Uniswap v3 swap callback, which a pool calls on whoever called swap.
interface IUniswapV3SwapCallback {
    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data) external;
}
