// The pool model markets.test.mjs and markets_traders.test.mjs check the service against: a
// pool's figures as the wire shows them, read in base units, and what a trade must do to it by
// Uniswap v3's arithmetic (./v3.mjs), recomputed here with BigInt. No worker and no chain here:
// market_kit.mjs adds those.
import assert from 'node:assert/strict';
import * as v3 from './v3.mjs';
import { E30, priceOf, units, usdc, valueAt } from './amounts.mjs';

export const BPS = 10_000n;
export const FEE = 3000; // Uniswap's 0.3 % tier, in hundredths of a basis point

export const abs = (x) => (x < 0n ? -x : x);
export const max = (...xs) => xs.reduce((a, b) => (b > a ? b : a));
export const min = (...xs) => xs.reduce((a, b) => (b < a ? b : a));

// ---- prices ------------------------------------------------------------------------------------

/**
 * A pool's price, USD per whole token, from its sqrtPriceX96 (token1 per token0 in base units,
 * squared, over 2^192), to the nearest unit of 10^-18.
 */
export function priceOfSqrt(sqrt, tokenIs0) {
  const sq = sqrt * sqrt;
  const Q192 = 1n << 192n;
  const [num, den] = tokenIs0 ? [sq * E30, Q192] : [E30 * Q192, sq];
  return (num + den / 2n) / den;
}
/** The sqrtPriceX96 of a price (USD per whole token, 18 decimals), floored: the target a pool opens nearest to. */
const sqrtOfPrice = (price, tokenIs0) => (tokenIs0 ? v3.isqrt((price << 192n) / E30) : v3.isqrt((E30 << 192n) / price));

// ---- pools, as the wire shows them and as the test models them --------------------------------

/**
 * The model of one suite's pools: `usdcAddress()` is the USDC its worker trades against (which
 * of a pool's two tokens is token0 depends on it).
 */
export function marketModel(usdcAddress) {
  /** Each pool's position (the one the service opened), as the suite computed it: address -> { lower, upper, L }. */
  const positions = new Map();

  /** The pool of a token read (exact body), in base units. */
  function poolOf(t) {
    assert.ok(t.pool, `the token has no pool: ${JSON.stringify(t)}`);
    const p = t.pool;
    return {
      token: t.address,
      address: p.address,
      status: p.status,
      tokenIs0: BigInt(t.address) < BigInt(usdcAddress()),
      tokens: units(p.tokenReserve),
      usdc: usdc(p.usdcReserve),
      virt: usdc(p.virtualUsdcReserve),
      price: units(p.price),
      sqrtPriceX96: BigInt(p.sqrtPriceX96),
      tick: Number(p.tick),
      liquidity: BigInt(p.liquidity),
    };
  }

  /** The v3 pool the test's math swaps in: the pool's state and its one position's ticks. */
  function modelOf(p) {
    const pos = positions.get(p.token);
    assert.ok(pos, `no position known for ${p.token}`);
    const inRange = pos.lower <= p.tick && p.tick < pos.upper;
    assert.equal(p.liquidity, inRange ? pos.L : 0n, 'the active liquidity is the position\'s in its range, none outside');
    return { sqrtPriceX96: p.sqrtPriceX96, tick: p.tick, liquidity: p.liquidity, ticks: new Map([[pos.lower, pos.L], [pos.upper, -pos.L]]) };
  }

  /**
   * What a trade does to pool `p`, by the test's v3 math: { tokens, usdc, fee, after } (after:
   * the pool's state), or { error: 'drains' } (the pool cannot fill it) / { error: 'small' }
   * (nothing would come out).
   */
  function expectTrade(p, buy, exactIn, amount) {
    const zeroForOne = buy !== p.tokenIs0; // token0 goes in: USDC (a buy) when the token is token1, the token (a sell) when it is token0
    const s = v3.swap(modelOf(p), zeroForOne, exactIn ? amount : -amount);
    if (s.remaining !== 0n) return { error: 'drains' };
    const [tokenDelta, usdcDelta] = p.tokenIs0 ? [s.amount0, s.amount1] : [s.amount1, s.amount0];
    const e = { tokens: abs(tokenDelta), usdc: abs(usdcDelta), fee: s.fee, after: s.state };
    if (e.tokens === 0n || e.usdc === 0n) return { error: 'small' };
    return e;
  }
  const expectBuyWith = (p, u) => expectTrade(p, true, true, u);
  const expectBuyExact = (p, n) => expectTrade(p, true, false, n);
  const expectSell = (p, n) => expectTrade(p, false, true, n);

  /**
   * What the pool must hold for its position at its price (rounded down): tokens above the price,
   * USDC below it, as { tokens, usdc }.
   */
  function required(p) {
    const { lower, upper, L } = positions.get(p.token);
    const [a, b, s] = [v3.sqrtAt(lower), v3.sqrtAt(upper), p.sqrtPriceX96];
    const need0 = s < b ? v3.amount0Delta(max(s, a), b, L, false) : 0n;
    const need1 = s > a ? v3.amount1Delta(a, min(s, b), L, false) : 0n;
    return p.tokenIs0 ? { tokens: need0, usdc: need1 } : { tokens: need1, usdc: need0 };
  }
  /** The pool holds at least what its liquidity needs (the v3 form of "k never decreases"). */
  function assertSolvent(p, what = '') {
    const need = required(p);
    assert.ok(p.tokens >= need.tokens && p.usdc >= need.usdc,
      `${what} the pool holds ${p.tokens} tokens and ${p.usdc} USDC, its curve needs ${need.tokens} and ${need.usdc}`);
    return { tokens: p.tokens - need.tokens, usdc: p.usdc - need.usdc };
  }

  /** A trade's or quote's figures (exact body) equal the expected trade `e` on pool `p`. */
  function assertFigures(body, side, tokenAddress, p, e) {
    assert.ok(!e.error, `the test expected the trade to fail: ${e.error}`);
    assert.equal(body.side, side);
    assert.equal(body.tokenAddress, tokenAddress);
    assert.equal(units(body.tokenAmount), e.tokens, 'tokenAmount');
    assert.equal(usdc(body.usdcAmount), e.usdc, 'usdcAmount');
    assert.equal(side === 'buy' ? usdc(body.fee) : units(body.fee), e.fee, 'fee (v3\'s, per step, rounded up)');
    const avg = priceOf(e.usdc, e.tokens);
    assert.equal(units(body.price), avg, 'price (average, fee included)');
    assert.equal(units(body.poolPrice), p.price, 'poolPrice');
    assert.equal(units(body.poolPriceAfter), priceOfSqrt(e.after.sqrtPriceX96, p.tokenIs0), 'poolPriceAfter');
    assert.equal(units(body.priceImpact, 6), (abs(avg - p.price) * 100_000_000n) / p.price, 'priceImpact (percent)');
  }

  /** The pool after `e`: its state is e.after, its reserves moved by the trade. */
  function assertPoolAfter(after, p, e, buy) {
    const sign = buy ? 1n : -1n;
    assert.deepEqual([after.sqrtPriceX96, after.tick, after.liquidity], [e.after.sqrtPriceX96, e.after.tick, e.after.liquidity], 'the pool\'s state');
    assert.equal(after.tokens, p.tokens - sign * e.tokens, 'tokenReserve');
    assert.equal(after.usdc, p.usdc + sign * e.usdc, 'usdcReserve');
    assert.equal(after.price, priceOfSqrt(after.sqrtPriceX96, after.tokenIs0), 'the pool\'s price');
    assert.equal(after.virt, p.virt, 'the virtual reserve is the position\'s, not the trades\'');
    assertSolvent(after);
  }

  /**
   * The position of a pool opened from `offered` base units of the token alone at `asked` (USD
   * per token, 18 decimals), recomputed here: the usable tick (multiple of 60) nearest the asked
   * price, the range from it upwards in token price, the most liquidity the tokens back, what
   * the position takes (rounded up; the rest stays in the reserve). Checks the pool `t` shows
   * and records the position for the test's math.
   */
  function checkTokenOnlyPool(t, offered, asked) {
    const p = poolOf(t);
    const target = sqrtOfPrice(asked, p.tokenIs0);
    assert.ok(p.tick % 60 === 0, `tick ${p.tick}: a multiple of the 0.3 % tier's spacing`);
    const dist = (tick) => abs(v3.sqrtAt(tick) - target);
    assert.ok(dist(p.tick) <= dist(p.tick - 60) && dist(p.tick) <= dist(p.tick + 60), `tick ${p.tick} is the usable tick nearest the asked price`);
    assert.equal(p.sqrtPriceX96, v3.sqrtAt(p.tick), 'the pool opens exactly at that tick\'s price');
    assert.equal(p.price, priceOfSqrt(p.sqrtPriceX96, p.tokenIs0), 'price');
    assert.ok(abs(p.price - asked) * 1000n <= asked * 3n, `the opening price ${p.price} is within 0.3 % of the asked ${asked}`);
    const [lower, upper] = p.tokenIs0 ? [p.tick, v3.MAX_USABLE_TICK] : [v3.MIN_USABLE_TICK, p.tick];
    const [a, b] = [v3.sqrtAt(lower), v3.sqrtAt(upper)];
    const L = p.tokenIs0 ? v3.liquidityForAmounts(p.sqrtPriceX96, a, b, offered, 0n) : v3.liquidityForAmounts(p.sqrtPriceX96, a, b, 0n, offered);
    const [m0, m1] = v3.mintAmounts(p.sqrtPriceX96, v3.tickAt(p.sqrtPriceX96), lower, upper, L);
    const [taken, usdcTaken] = p.tokenIs0 ? [m0, m1] : [m1, m0];
    assert.equal(usdcTaken, 0n, 'the position needs no USDC');
    assert.equal(p.tokens, taken, 'tokenReserve: what the position takes');
    assert.ok(taken <= offered && (offered - taken) * 10n ** 9n < offered, `all but a few base units of the tokens offered (${offered - taken} left)`);
    assert.equal(p.usdc, 0n);
    assert.equal(p.virt, p.tokenIs0 ? (L * a) / v3.Q96 : (L * v3.Q96) / b, 'virtualUsdcReserve: the position\'s USDC below the opening price');
    assert.ok(abs(p.virt - valueAt(taken, p.price)) * 100n <= p.virt, 'about the tokens\' value at the price');
    positions.set(t.address, { lower, upper, L });
    modelOf(p); // the active liquidity is L in range, 0 at the range's outer edge
    return p;
  }

  return {
    positions, poolOf, expectTrade, expectBuyWith, expectBuyExact, expectSell, assertSolvent, assertFigures, assertPoolAfter,
    checkTokenOnlyPool,
  };
}
