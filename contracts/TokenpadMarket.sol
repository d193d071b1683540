// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";
import {IEIP3009Receive} from "./interfaces/IEIP3009.sol";
import {
    INonfungiblePositionManager,
    IUniswapV3Factory,
    IUniswapV3Pool,
    IUniswapV3SwapCallback
} from "./interfaces/IUniswapV3.sol";

/// @title tokenpad's markets on Uniswap v3: pools opened with locked liquidity, and gasless trades.
/// @notice Two things, each in one transaction:
/// - openPool: a merchant's treasury puts its own tokens (and USDC, if it wants) into a Uniswap
///   v3 pool of the 0.3 % tier, created and initialized if needed, or moved to the treasury's
///   price if someone else initialized it first and nobody's liquidity is in the way (else it
///   fails openly: TokenpadMarketPoolOccupied). The liquidity position (an NFT
///   of Uniswap's NonfungiblePositionManager) stays in this contract forever: nothing here
///   removes liquidity or moves the NFT, so the liquidity is locked, provably, by this code.
///   Its trading fees go to the treasury (collectFees, which anyone may call).
/// - swapExactIn / swapExactOut: a holder who has no ETH trades against the pool on an EIP-3009
///   signature; anyone (tokenpad's relayer) submits it and pays the gas. The signature's nonce
///   commits to the trade's exact parameters (swapNonce), so it cannot be replayed with a
///   worse limit. The output goes straight from the pool to the holder.
/// The contract has no owner and no admin, and holds no tokens between transactions.
/// @dev Talks to Uniswap v3's own contracts, unmodified (Base's canonical deployments, or
/// Uniswap's npm artifacts on a local node). Trades call the pool directly (no router): the pool
/// sends the output to the holder and calls uniswapV3SwapCallback here for the input, which this
/// contract pays from what it just received from the holder. The callback accepts only the pool
/// of the swap in progress, remembered in transient storage (EIP-1153) for the length of the
/// call. Every payment is computed from the call's own amounts, never from this contract's
/// balance, so tokens sent here by mistake are never paid out to anyone (and are lost).
contract TokenpadMarket is IERC721Receiver, IUniswapV3SwapCallback {
    using SafeERC20 for IERC20;

    /// An EIP-3009 receiveWithAuthorization(from, to = this market, value, validAfter,
    /// validBefore, nonce, v, r, s), signed by `from`, that brings `value` of a token in.
    struct Pull {
        address from;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    /// The pools' fee tier: 0.3 % (Uniswap's tick spacing 60).
    uint24 public constant FEE = 3000;

    /// Uniswap v3's price bounds (TickMath.MIN_SQRT_RATIO and MAX_SQRT_RATIO); a swap's price
    /// limit is one inside them, i.e. no limit: the amounts are what the checks bound.
    uint160 private constant MIN_SQRT_RATIO = 4295128739;
    uint160 private constant MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342;

    /// Transient slot holding the pool whose swap is in progress (address(0) outside swaps).
    /// keccak256("tokenpad.market.activePool") - 1
    bytes32 private constant _ACTIVE_POOL_SLOT = 0xcc0971c9001827017159fed810c0025f94e82b09067deb9fb386a39c96574404;

    /// Uniswap v3's UniswapV3Factory.
    address public immutable factory;
    /// Uniswap v3's NonfungiblePositionManager; it holds the positions' liquidity, this contract
    /// holds the position NFTs.
    address public immutable positionManager;

    /// The account that opened each position (the treasury), which receives its fees.
    mapping(uint256 positionId => address owner) public positionOwner;

    /// A position was opened in `pool` with `amount0` of token0 and `amount1` of token1, held
    /// here for good; `owner` (who called openPool) gets its fees.
    event PoolOpened(
        address indexed pool,
        uint256 indexed positionId,
        address indexed owner,
        uint128 liquidity,
        uint256 amount0,
        uint256 amount1
    );

    /// openPool: token0 must be the lower address (Uniswap's order).
    error TokenpadMarketTokensNotSorted(address token0, address token1);
    /// openPool: a pull is signed by someone other than the caller (a treasury opens its own
    /// pools with its own funds).
    error TokenpadMarketPullNotFromCaller(address from, address caller);
    /// openPool: both pulls are empty: there would be no position.
    error TokenpadMarketNothingToDeposit();
    /// openPool: someone initialized the pool before this call, and liquidity of theirs is in the
    /// way: between its price and the caller's (moving the price would trade against it), or in
    /// range at the caller's price (the position would not be the pool's only liquidity).
    error TokenpadMarketPoolOccupied(address pool);
    /// A swap's pull.nonce is not swapNonce(...) of the swap's own parameters.
    error TokenpadMarketNonceMismatch();
    /// A swap's pull.value is not amountIn (exact in) or maxAmountIn (exact out), or the amount
    /// is 0 or above 2^255 - 1.
    error TokenpadMarketBadValue();
    /// There is no pool (of the 0.3 % tier) for these tokens.
    error TokenpadMarketNoPool(address tokenIn, address tokenOut);
    /// uniswapV3SwapCallback called by something other than the pool of the swap in progress.
    error TokenpadMarketUnauthorizedCallback();
    /// The pool ran out of liquidity before taking all of amountIn (exact in) or delivering all
    /// of amountOut (exact out).
    error TokenpadMarketInsufficientLiquidity();
    /// Exact in: the output `amount` is below minAmountOut (`limit`). Exact out: the input
    /// `amount` is above maxAmountIn (`limit`).
    error TokenpadMarketSlippage(uint256 amount, uint256 limit);
    /// collectFees: the position was not opened through openPool.
    error TokenpadMarketUnknownPosition(uint256 positionId);
    /// onERC721Received from a contract other than the position manager.
    error TokenpadMarketUnexpectedNFT(address collection);

    constructor(address factory_, address positionManager_) {
        factory = factory_;
        positionManager = positionManager_;
    }

    // ---------------------------------------------------------------- pools

    /// Opens a position with locked liquidity in the (token0, token1, FEE) pool at the price
    /// `sqrtPriceX96`: creating the pool and setting its first price if needed, or, if someone
    /// initialized it before this call (at any price: a pool's address is known before its token
    /// exists), moving its price there through an empty path. Pulls pull0.value of token0
    /// and pull1.value of token1 from the caller by EIP-3009 (a pull of value 0 is skipped and
    /// needs no signature), puts as much as the range [tickLower, tickUpper) takes at the pool's
    /// price into a position held by this contract for good, and sends the rest back.
    /// @dev Each pull must be signed by msg.sender, so nobody can replay a treasury's
    /// authorization with other parameters. Ticks must be multiples of 60 (the pool reverts
    /// otherwise). A single-sided position (one token only) must lie entirely on that token's side
    /// of the price: for a token0-only range, sqrtPriceX96 <= the price at tickLower (equal:
    /// "starting at the initial tick"); for token1-only, >= the price at tickUpper.
    /// A pool initialized before this call (by anyone, this market included) must have no
    /// liquidity between its price and sqrtPriceX96, nor in range at sqrtPriceX96: else
    /// TokenpadMarketPoolOccupied. Liquidity out of range at sqrtPriceX96 (beyond it) is allowed.
    function openPool(
        address token0,
        address token1,
        uint160 sqrtPriceX96,
        int24 tickLower,
        int24 tickUpper,
        Pull calldata pull0,
        Pull calldata pull1
    ) external returns (address pool, uint256 positionId, uint128 liquidity, uint256 amount0, uint256 amount1) {
        if (token0 >= token1) revert TokenpadMarketTokensNotSorted(token0, token1);
        if (pull0.value == 0 && pull1.value == 0) revert TokenpadMarketNothingToDeposit();
        _requireFromCaller(pull0);
        _requireFromCaller(pull1);
        pool = _poolAt(token0, token1, sqrtPriceX96);
        if (pull0.value > 0) _receive(token0, pull0);
        if (pull1.value > 0) _receive(token1, pull1);

        (positionId, liquidity, amount0, amount1) = _mintPosition(
            token0, token1, tickLower, tickUpper, pull0.value, pull1.value
        );
        positionOwner[positionId] = msg.sender;

        if (pull0.value > amount0) IERC20(token0).safeTransfer(msg.sender, pull0.value - amount0);
        if (pull1.value > amount1) IERC20(token1).safeTransfer(msg.sender, pull1.value - amount1);
        emit PoolOpened(pool, positionId, msg.sender, liquidity, amount0, amount1);
    }

    /// Collects the trading fees of `positionId` to its owner (the treasury that opened it).
    /// Anyone may call it.
    function collectFees(uint256 positionId) external returns (uint256 amount0, uint256 amount1) {
        address owner = positionOwner[positionId];
        if (owner == address(0)) revert TokenpadMarketUnknownPosition(positionId);
        return INonfungiblePositionManager(positionManager).collect(
            INonfungiblePositionManager.CollectParams({
                tokenId: positionId,
                recipient: owner,
                amount0Max: type(uint128).max,
                amount1Max: type(uint128).max
            })
        );
    }

    /// Takes position NFTs from the position manager only. The market keeps every NFT it holds:
    /// there is no way out. (Positions minted by openPool do not come through here: the position
    /// manager mints without this call. One sent here by its owner is locked, and earns its
    /// sender nothing: collectFees refuses positions that openPool did not open.)
    function onERC721Received(address, address, uint256, bytes calldata) external view returns (bytes4) {
        if (msg.sender != positionManager) revert TokenpadMarketUnexpectedNFT(msg.sender);
        return IERC721Receiver.onERC721Received.selector;
    }

    // ---------------------------------------------------------------- trades

    /// Sells exactly `amountIn` of tokenIn for at least `minAmountOut` of tokenOut, for
    /// pull.from, on its EIP-3009 ReceiveWithAuthorization of tokenIn with value = amountIn and
    /// nonce = swapNonce(pull.from, tokenIn, tokenOut, true, amountIn, minAmountOut, salt).
    /// Anyone may submit it. The output goes from the pool to pull.from.
    /// @return amountOut what pull.from received.
    function swapExactIn(
        address tokenIn,
        address tokenOut,
        uint256 amountIn,
        uint256 minAmountOut,
        bytes32 salt,
        Pull calldata pull
    ) external returns (uint256 amountOut) {
        (, amountOut) = _swap(tokenIn, tokenOut, true, amountIn, minAmountOut, salt, pull);
    }

    /// Buys exactly `amountOut` of tokenOut for at most `maxAmountIn` of tokenIn, for pull.from,
    /// on its EIP-3009 ReceiveWithAuthorization of tokenIn with value = maxAmountIn and
    /// nonce = swapNonce(pull.from, tokenIn, tokenOut, false, amountOut, maxAmountIn, salt).
    /// Anyone may submit it. The output goes from the pool to pull.from, and the unspent
    /// maxAmountIn - amountIn back to pull.from, in the same transaction.
    /// @return amountIn what pull.from paid.
    function swapExactOut(
        address tokenIn,
        address tokenOut,
        uint256 amountOut,
        uint256 maxAmountIn,
        bytes32 salt,
        Pull calldata pull
    ) external returns (uint256 amountIn) {
        (amountIn,) = _swap(tokenIn, tokenOut, false, amountOut, maxAmountIn, salt, pull);
    }

    /// The EIP-3009 nonce a holder signs for a trade: keccak256(abi.encode(this market, from,
    /// tokenIn, tokenOut, exactIn, amount, limit, salt)), where (amount, limit) is
    /// (amountIn, minAmountOut) for an exact-in trade and (amountOut, maxAmountIn) for an
    /// exact-out one, and `salt` makes otherwise identical trades distinct.
    function swapNonce(
        address from,
        address tokenIn,
        address tokenOut,
        bool exactIn,
        uint256 amount,
        uint256 limit,
        bytes32 salt
    ) external view returns (bytes32) {
        return _swapNonce(from, tokenIn, tokenOut, exactIn, amount, limit, salt);
    }

    /// Pays the pool of the swap in progress the tokenIn it is owed, from what the holder's pull
    /// brought in; refuses more than the pull's value (TokenpadMarketSlippage) and any caller
    /// but that pool (TokenpadMarketUnauthorizedCallback). For openPool's price move (empty
    /// data) it pays nothing: a pool asking for anything has liquidity in the way
    /// (TokenpadMarketPoolOccupied).
    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data) external {
        if (msg.sender != _activePool()) revert TokenpadMarketUnauthorizedCallback();
        if (data.length == 0) {
            if (amount0Delta > 0 || amount1Delta > 0) revert TokenpadMarketPoolOccupied(msg.sender);
            return;
        }
        (address tokenIn, uint256 maxIn) = abi.decode(data, (address, uint256));
        uint256 owed;
        if (amount0Delta > 0) owed = uint256(amount0Delta);
        else if (amount1Delta > 0) owed = uint256(amount1Delta);
        if (owed > maxIn) revert TokenpadMarketSlippage(owed, maxIn);
        if (owed > 0) IERC20(tokenIn).safeTransfer(msg.sender, owed);
    }

    // ---------------------------------------------------------------- internals

    function _swap(
        address tokenIn,
        address tokenOut,
        bool exactIn,
        uint256 amount,
        uint256 limit,
        bytes32 salt,
        Pull calldata pull
    ) private returns (uint256 amountIn, uint256 amountOut) {
        if (pull.nonce != _swapNonce(pull.from, tokenIn, tokenOut, exactIn, amount, limit, salt)) {
            revert TokenpadMarketNonceMismatch();
        }
        uint256 maxIn = exactIn ? amount : limit;
        if (pull.value != maxIn || amount == 0 || amount > uint256(type(int256).max)) revert TokenpadMarketBadValue();
        address pool = IUniswapV3Factory(factory).getPool(tokenIn, tokenOut, FEE);
        if (pool == address(0)) revert TokenpadMarketNoPool(tokenIn, tokenOut);
        _receive(tokenIn, pull);

        (amountIn, amountOut) = _swapAt(
            pool, tokenIn, tokenIn < tokenOut, pull.from, exactIn ? int256(amount) : -int256(amount), maxIn
        );
        if (exactIn) {
            if (amountIn != amount) revert TokenpadMarketInsufficientLiquidity();
            if (amountOut < limit) revert TokenpadMarketSlippage(amountOut, limit);
        } else {
            if (amountOut != amount) revert TokenpadMarketInsufficientLiquidity();
            // amountIn <= maxIn: the callback refused to pay more.
            if (maxIn > amountIn) IERC20(tokenIn).safeTransfer(pull.from, maxIn - amountIn);
        }
    }

    /// One pool.swap with no price limit, output to `recipient`; the callback may pay at most
    /// `maxIn` of tokenIn. Returns what the pool took and what it paid out.
    function _swapAt(
        address pool,
        address tokenIn,
        bool zeroForOne,
        address recipient,
        int256 amountSpecified,
        uint256 maxIn
    ) private returns (uint256 amountIn, uint256 amountOut) {
        // Nested swaps (a token's transfer calling back into the market) each see their own pool.
        address outer = _activePool();
        _setActivePool(pool);
        (int256 delta0, int256 delta1) = IUniswapV3Pool(pool).swap(
            recipient,
            zeroForOne,
            amountSpecified,
            zeroForOne ? MIN_SQRT_RATIO + 1 : MAX_SQRT_RATIO - 1,
            abi.encode(tokenIn, maxIn)
        );
        _setActivePool(outer);
        (int256 deltaIn, int256 deltaOut) = zeroForOne ? (delta0, delta1) : (delta1, delta0);
        amountIn = uint256(deltaIn); // >= 0: the pool received tokenIn
        amountOut = uint256(-deltaOut); // deltaOut <= 0: the pool paid tokenOut
    }

    function _swapNonce(
        address from,
        address tokenIn,
        address tokenOut,
        bool exactIn,
        uint256 amount,
        uint256 limit,
        bytes32 salt
    ) private view returns (bytes32) {
        return keccak256(abi.encode(address(this), from, tokenIn, tokenOut, exactIn, amount, limit, salt));
    }

    /// openPool's pulls: empty ones are skipped, the others must be signed by the caller.
    function _requireFromCaller(Pull calldata pull) private view {
        if (pull.value > 0 && pull.from != msg.sender) revert TokenpadMarketPullNotFromCaller(pull.from, msg.sender);
    }

    function _receive(address token, Pull calldata pull) private {
        IEIP3009Receive(token).receiveWithAuthorization(
            pull.from, address(this), pull.value, pull.validAfter, pull.validBefore, pull.nonce, pull.v, pull.r, pull.s
        );
    }

    /// The (token0, token1, FEE) pool at sqrtPriceX96 with no liquidity in range: created and
    /// initialized here if needed; if it was initialized before (by anyone), its price moved
    /// to sqrtPriceX96 through an empty path, and its liquidity in range there 0. Anything else
    /// reverts TokenpadMarketPoolOccupied (the launch fails openly, rather than open a market
    /// whose price or liquidity is not the caller's).
    function _poolAt(address token0, address token1, uint160 sqrtPriceX96) private returns (address pool) {
        pool = IUniswapV3Factory(factory).getPool(token0, token1, FEE);
        if (pool == address(0)) pool = IUniswapV3Factory(factory).createPool(token0, token1, FEE);
        (uint160 current,,,,,,) = IUniswapV3Pool(pool).slot0();
        if (current == 0) {
            // uninitialized: nobody can have minted into it (the pool's mint needs a price)
            IUniswapV3Pool(pool).initialize(sqrtPriceX96);
            return pool;
        }
        if (current != sqrtPriceX96) _movePrice(pool, current > sqrtPriceX96, sqrtPriceX96);
        if (IUniswapV3Pool(pool).liquidity() != 0) revert TokenpadMarketPoolOccupied(pool);
    }

    /// Moves `pool`'s price to `target` with a swap that may trade nothing: an exact input of 1
    /// unit, price limit = target. Across ticks where no liquidity is in range the pool moves
    /// the price for free (every step's amounts are 0) until it reaches the limit, and the
    /// callback is asked for (0, 0). Any liquidity on the path takes the unit (as input or fee)
    /// and the callback is asked for it: uniswapV3SwapCallback then reverts
    /// TokenpadMarketPoolOccupied. The pool itself requires the limit strictly beyond its price
    /// in the swap's direction and strictly inside Uniswap's price bounds.
    function _movePrice(address pool, bool zeroForOne, uint160 target) private {
        address outer = _activePool();
        _setActivePool(pool);
        IUniswapV3Pool(pool).swap(address(this), zeroForOne, 1, target, "");
        _setActivePool(outer);
    }

    /// Mints the position to this contract through the position manager, which takes what it
    /// uses of the two amounts with transferFrom; the approvals are back to 0 afterwards.
    function _mintPosition(
        address token0,
        address token1,
        int24 tickLower,
        int24 tickUpper,
        uint256 amount0Desired,
        uint256 amount1Desired
    ) private returns (uint256 positionId, uint128 liquidity, uint256 amount0, uint256 amount1) {
        if (amount0Desired > 0) IERC20(token0).forceApprove(positionManager, amount0Desired);
        if (amount1Desired > 0) IERC20(token1).forceApprove(positionManager, amount1Desired);
        (positionId, liquidity, amount0, amount1) = INonfungiblePositionManager(positionManager).mint(
            INonfungiblePositionManager.MintParams({
                token0: token0,
                token1: token1,
                fee: FEE,
                tickLower: tickLower,
                tickUpper: tickUpper,
                amount0Desired: amount0Desired,
                amount1Desired: amount1Desired,
                amount0Min: 0,
                amount1Min: 0,
                recipient: address(this),
                deadline: block.timestamp
            })
        );
        if (amount0Desired > 0) IERC20(token0).forceApprove(positionManager, 0);
        if (amount1Desired > 0) IERC20(token1).forceApprove(positionManager, 0);
    }

    function _activePool() private view returns (address pool) {
        bytes32 slot = _ACTIVE_POOL_SLOT;
        assembly ("memory-safe") {
            pool := tload(slot)
        }
    }

    function _setActivePool(address pool) private {
        bytes32 slot = _ACTIVE_POOL_SLOT;
        assembly ("memory-safe") {
            tstore(slot, pool)
        }
    }
}
