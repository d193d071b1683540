// Uniswap v3's pool arithmetic in BigInt, ported for the tests from Uniswap's own Solidity
// (v3-core 1.0.1: TickMath, FullMath, SqrtPriceMath, SwapMath, TickBitmap and
// UniswapV3Pool.swap's loop; v3-periphery: LiquidityAmounts), independently of the service's
// Rust: the markets suites check the service's figures against it to the unit, and on anvil
// check it against the chain's QuoterV2 as well.
//
//   import * as v3 from './v3.mjs';
//   const pool = { sqrtPriceX96, tick, liquidity, ticks: new Map([[lower, L], [upper, -L]]) };
//   const s = v3.swap(pool, zeroForOne, amountSpecified);   // > 0 exact in, < 0 exact out
//   // s: { amount0, amount1, fee, remaining, state: { sqrtPriceX96, tick, liquidity } }
//
// No floats anywhere: every value is a BigInt but ticks (Numbers, |tick| <= 887272).

export const Q96 = 1n << 96n;
const MAX_UINT256 = (1n << 256n) - 1n;
const MOD256 = 1n << 256n;
export const MIN_TICK = -887272;
export const MAX_TICK = 887272;
export const TICK_SPACING = 60;
/** The widest range a position of the 0.3 % tier can have (multiples of 60). */
export const MIN_USABLE_TICK = -887220;
export const MAX_USABLE_TICK = 887220;
export const MIN_SQRT_RATIO = 4295128739n;
export const MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342n;
/** The 0.3 % tier's fee, in hundredths of a basis point. */
export const FEE_PIPS = 3000n;

function need(cond, what) {
  if (!cond) throw new Error(`v3: ${what}`);
}

// ---- FullMath / UnsafeMath -----------------------------------------------------------------

/** floor(a x b / d); throws where Solidity reverts (d = 0, result past 256 bits). */
export function mulDiv(a, b, d) {
  need(d > 0n, 'mulDiv by zero');
  const r = (a * b) / d;
  need(r <= MAX_UINT256, 'mulDiv overflow');
  return r;
}
/** ceil(a x b / d). */
export function mulDivRoundingUp(a, b, d) {
  const r = mulDiv(a, b, d);
  if ((a * b) % d > 0n) {
    need(r < MAX_UINT256, 'mulDivRoundingUp overflow');
    return r + 1n;
  }
  return r;
}
/** UnsafeMath.divRoundingUp: ceil(x / y). */
export const divRoundingUp = (x, y) => x / y + (x % y > 0n ? 1n : 0n);

// ---- TickMath --------------------------------------------------------------------------------

const TICK_FACTORS = [
  [0x2n, 0xfff97272373d413259a46990580e213an],
  [0x4n, 0xfff2e50f5f656932ef12357cf3c7fdccn],
  [0x8n, 0xffe5caca7e10e4e61c3624eaa0941cd0n],
  [0x10n, 0xffcb9843d60f6159c9db58835c926644n],
  [0x20n, 0xff973b41fa98c081472e6896dfb254c0n],
  [0x40n, 0xff2ea16466c96a3843ec78b326b52861n],
  [0x80n, 0xfe5dee046a99a2a811c461f1969c3053n],
  [0x100n, 0xfcbe86c7900a88aedcffc83b479aa3a4n],
  [0x200n, 0xf987a7253ac413176f2b074cf7815e54n],
  [0x400n, 0xf3392b0822b70005940c7a398e4b70f3n],
  [0x800n, 0xe7159475a2c29b7443b29c7fa6e889d9n],
  [0x1000n, 0xd097f3bdfd2022b8845ad8f792aa5825n],
  [0x2000n, 0xa9f746462d870fdf8a65dc1f90e061e5n],
  [0x4000n, 0x70d869a156d2a1b890bb3df62baf32f7n],
  [0x8000n, 0x31be135f97d08fd981231505542fcfa6n],
  [0x10000n, 0x9aa508b5b7a84e1c677de54f3e99bc9n],
  [0x20000n, 0x5d6af8dedb81196699c329225ee604n],
  [0x40000n, 0x2216e584f5fa1ea926041bedfe98n],
  [0x80000n, 0x48a170391f7dc42444e8fa2n],
];
const sqrtCache = new Map();

/** TickMath.getSqrtRatioAtTick: sqrt(1.0001^tick) x 2^96, as the pool computes it. */
export function sqrtAt(tick) {
  need(Number.isInteger(tick) && Math.abs(tick) <= MAX_TICK, `tick ${tick} out of range`);
  let cached = sqrtCache.get(tick);
  if (cached !== undefined) return cached;
  const abs = BigInt(Math.abs(tick));
  let ratio = abs & 1n ? 0xfffcb933bd6fad37aa2d162d1a594001n : 0x100000000000000000000000000000000n;
  for (const [bit, factor] of TICK_FACTORS) if (abs & bit) ratio = (ratio * factor) >> 128n;
  if (tick > 0) ratio = MAX_UINT256 / ratio;
  cached = (ratio >> 32n) + (ratio % (1n << 32n) === 0n ? 0n : 1n);
  sqrtCache.set(tick, cached);
  return cached;
}

/**
 * TickMath.getTickAtSqrtRatio: the greatest tick whose sqrtAt is at or below `sqrtPriceX96`
 * (found by bisection over sqrtAt, which is what the pool's bit twiddling computes).
 */
export function tickAt(sqrtPriceX96) {
  need(sqrtPriceX96 >= MIN_SQRT_RATIO && sqrtPriceX96 < MAX_SQRT_RATIO, 'sqrt price out of range');
  let lo = MIN_TICK;
  let hi = MAX_TICK - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (sqrtAt(mid) <= sqrtPriceX96) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// ---- SqrtPriceMath ---------------------------------------------------------------------------

function nextFromAmount0RoundingUp(sqrtP, liquidity, amount, add) {
  if (amount === 0n) return sqrtP;
  const numerator1 = liquidity << 96n;
  // Solidity 0.7 arithmetic wraps: the pool checks for overflow by dividing back.
  const product = (amount * sqrtP) % MOD256;
  const fits = product / amount === sqrtP;
  if (add) {
    if (fits) {
      const denominator = (numerator1 + product) % MOD256;
      if (denominator >= numerator1) return mulDivRoundingUp(numerator1, sqrtP, denominator);
    }
    return divRoundingUp(numerator1, numerator1 / sqrtP + amount);
  }
  need(fits && numerator1 > product, 'not enough liquidity for the output');
  const r = mulDivRoundingUp(numerator1, sqrtP, numerator1 - product);
  need(r < 1n << 160n, 'sqrt price past uint160');
  return r;
}

function nextFromAmount1RoundingDown(sqrtP, liquidity, amount, add) {
  if (add) {
    const quotient = amount < 1n << 160n ? (amount << 96n) / liquidity : mulDiv(amount, Q96, liquidity);
    const r = sqrtP + quotient;
    need(r < 1n << 160n, 'sqrt price past uint160');
    return r;
  }
  const quotient = amount < 1n << 160n ? divRoundingUp(amount << 96n, liquidity) : mulDivRoundingUp(amount, Q96, liquidity);
  need(sqrtP > quotient, 'not enough liquidity for the output');
  return sqrtP - quotient;
}

function nextFromInput(sqrtP, liquidity, amountIn, zeroForOne) {
  need(sqrtP > 0n && liquidity > 0n, 'no price or liquidity');
  return zeroForOne
    ? nextFromAmount0RoundingUp(sqrtP, liquidity, amountIn, true)
    : nextFromAmount1RoundingDown(sqrtP, liquidity, amountIn, true);
}

function nextFromOutput(sqrtP, liquidity, amountOut, zeroForOne) {
  need(sqrtP > 0n && liquidity > 0n, 'no price or liquidity');
  return zeroForOne
    ? nextFromAmount1RoundingDown(sqrtP, liquidity, amountOut, false)
    : nextFromAmount0RoundingUp(sqrtP, liquidity, amountOut, false);
}

/** SqrtPriceMath.getAmount0Delta (unsigned): token0 between two prices for `liquidity`. */
export function amount0Delta(a, b, liquidity, roundUp) {
  if (a > b) [a, b] = [b, a];
  need(a > 0n, 'zero price');
  const numerator1 = liquidity << 96n;
  const numerator2 = b - a;
  return roundUp
    ? divRoundingUp(mulDivRoundingUp(numerator1, numerator2, b), a)
    : mulDiv(numerator1, numerator2, b) / a;
}

/** SqrtPriceMath.getAmount1Delta (unsigned): token1 between two prices for `liquidity`. */
export function amount1Delta(a, b, liquidity, roundUp) {
  if (a > b) [a, b] = [b, a];
  return roundUp ? mulDivRoundingUp(liquidity, b - a, Q96) : mulDiv(liquidity, b - a, Q96);
}

// ---- SwapMath --------------------------------------------------------------------------------

/** SwapMath.computeSwapStep: [sqrtNext, amountIn, amountOut, feeAmount]. */
export function computeSwapStep(current, target, liquidity, remaining, feePips = FEE_PIPS) {
  const zeroForOne = current >= target;
  const exactIn = remaining >= 0n;
  let next;
  let amountIn = 0n;
  let amountOut = 0n;
  if (exactIn) {
    const lessFee = mulDiv(remaining, 1_000_000n - feePips, 1_000_000n);
    amountIn = zeroForOne ? amount0Delta(target, current, liquidity, true) : amount1Delta(current, target, liquidity, true);
    next = lessFee >= amountIn ? target : nextFromInput(current, liquidity, lessFee, zeroForOne);
  } else {
    amountOut = zeroForOne ? amount1Delta(target, current, liquidity, false) : amount0Delta(current, target, liquidity, false);
    next = -remaining >= amountOut ? target : nextFromOutput(current, liquidity, -remaining, zeroForOne);
  }
  const max = target === next;
  if (zeroForOne) {
    amountIn = max && exactIn ? amountIn : amount0Delta(next, current, liquidity, true);
    amountOut = max && !exactIn ? amountOut : amount1Delta(next, current, liquidity, false);
  } else {
    amountIn = max && exactIn ? amountIn : amount1Delta(current, next, liquidity, true);
    amountOut = max && !exactIn ? amountOut : amount0Delta(current, next, liquidity, false);
  }
  if (!exactIn && amountOut > -remaining) amountOut = -remaining;
  const feeAmount = exactIn && next !== target ? remaining - amountIn : mulDivRoundingUp(amountIn, feePips, 1_000_000n - feePips);
  return [next, amountIn, amountOut, feeAmount];
}

// ---- TickBitmap ------------------------------------------------------------------------------

/**
 * TickBitmap.nextInitializedTickWithinOneWord over the initialized ticks `ticks` (a Map of
 * tick -> liquidityNet): the next one at or below (`lte`) or above `tick` within its 256-tick
 * bitmap word, or the word's edge; [next, initialized].
 */
export function nextTick(ticks, tick, lte, spacing = TICK_SPACING) {
  const compressed = Math.floor(tick / spacing);
  const initialized = [...ticks.keys()].map((t) => t / spacing);
  if (lte) {
    const wordStart = Math.floor(compressed / 256) * 256;
    const found = initialized.filter((c) => c <= compressed && c >= wordStart);
    return found.length ? [Math.max(...found) * spacing, true] : [wordStart * spacing, false];
  }
  const from = compressed + 1;
  const wordEnd = Math.floor(from / 256) * 256 + 255;
  const found = initialized.filter((c) => c >= from && c <= wordEnd);
  return found.length ? [Math.min(...found) * spacing, true] : [wordEnd * spacing, false];
}

// ---- UniswapV3Pool.swap ----------------------------------------------------------------------

/**
 * The pool's swap without its transfers, with the price limit tokenpad's market contract and
 * QuoterV2 (limit 0) use: as far as the pool's extreme. `pool`: { sqrtPriceX96, tick, liquidity,
 * ticks: Map(tick -> liquidityNet) }; `amountSpecified` > 0 exact in, < 0 exact out.
 * Returns { amount0, amount1 (the pool's deltas: > 0 paid in), fee (in the input token),
 * remaining (unfilled: 0 for a complete fill), steps, state: { sqrtPriceX96, tick, liquidity } }.
 */
export function swap(pool, zeroForOne, amountSpecified, feePips = FEE_PIPS) {
  need(amountSpecified !== 0n, 'a swap of nothing');
  const limit = zeroForOne ? MIN_SQRT_RATIO + 1n : MAX_SQRT_RATIO - 1n;
  need(zeroForOne ? limit < pool.sqrtPriceX96 : limit > pool.sqrtPriceX96, 'SPL');
  const exactIn = amountSpecified > 0n;
  let remaining = amountSpecified;
  let calculated = 0n;
  let fee = 0n;
  let steps = 0;
  const s = { sqrtPriceX96: pool.sqrtPriceX96, tick: pool.tick, liquidity: pool.liquidity };
  while (remaining !== 0n && s.sqrtPriceX96 !== limit) {
    steps++;
    const start = s.sqrtPriceX96;
    let [next, initialized] = nextTick(pool.ticks, s.tick, zeroForOne);
    next = Math.min(Math.max(next, MIN_TICK), MAX_TICK);
    const sqrtNext = sqrtAt(next);
    const target = (zeroForOne ? sqrtNext < limit : sqrtNext > limit) ? limit : sqrtNext;
    const [price, amountIn, amountOut, feeAmount] = computeSwapStep(s.sqrtPriceX96, target, s.liquidity, remaining, feePips);
    s.sqrtPriceX96 = price;
    if (exactIn) {
      remaining -= amountIn + feeAmount;
      calculated -= amountOut;
    } else {
      remaining += amountOut;
      calculated += amountIn + feeAmount;
    }
    fee += feeAmount;
    if (s.sqrtPriceX96 === sqrtNext) {
      if (initialized) {
        const net = pool.ticks.get(next);
        s.liquidity += zeroForOne ? -net : net;
        need(s.liquidity >= 0n, 'liquidity below zero');
      }
      s.tick = zeroForOne ? next - 1 : next;
    } else if (s.sqrtPriceX96 !== start) {
      s.tick = tickAt(s.sqrtPriceX96);
    }
  }
  const specified = amountSpecified - remaining;
  const [amount0, amount1] = zeroForOne === exactIn ? [specified, calculated] : [calculated, specified];
  return { amount0, amount1, fee, remaining, steps, state: s };
}

// ---- LiquidityAmounts (periphery) ------------------------------------------------------------

/** LiquidityAmounts.getLiquidityForAmounts: the most liquidity the two amounts back in [a, b]. */
export function liquidityForAmounts(sqrtP, a, b, amount0, amount1) {
  if (a > b) [a, b] = [b, a];
  const for0 = (lo, hi) => mulDiv(amount0, mulDiv(lo, hi, Q96), hi - lo);
  const for1 = (lo, hi) => mulDiv(amount1, Q96, hi - lo);
  let l;
  if (sqrtP <= a) l = for0(a, b);
  else if (sqrtP < b) {
    const l0 = for0(sqrtP, b);
    const l1 = for1(a, sqrtP);
    l = l0 < l1 ? l0 : l1;
  } else l = for1(a, b);
  need(l < 1n << 128n, 'liquidity past uint128');
  return l;
}

/** What minting `liquidity` in [lower, upper] takes at `sqrtP` / `tick` (the pool's own, rounded up): [amount0, amount1]. */
export function mintAmounts(sqrtP, tick, lower, upper, liquidity) {
  const a = sqrtAt(lower);
  const b = sqrtAt(upper);
  if (tick < lower) return [amount0Delta(a, b, liquidity, true), 0n];
  if (tick < upper) return [amount0Delta(sqrtP, b, liquidity, true), amount1Delta(a, sqrtP, liquidity, true)];
  return [0n, amount1Delta(a, b, liquidity, true)];
}

/** floor(sqrt(n)) of a BigInt. */
export function isqrt(n) {
  need(n >= 0n, 'sqrt of a negative');
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}
