// Markets against the real worker in workerd: opening a token's Uniswap v3 pool (0.3 % tier),
// buying and selling in it with quotes and slippage bounds, the exact v3 amounts (recomputed
// here with BigInt, ./v3.mjs), history, conservation with the pool's reserves, the pools a
// memecoin deployment and a presale launch open, and simultaneous trades on one pool.
//
// It runs on both chains. On the embedded one the ledger's pool is the pool. With
// TOKENPAD_TEST_CHAIN=anvil the pool is the real Uniswap v3 contract: every figure is also
// compared with the chain's QuoterV2, each trade is waited for until mined (the ledger books
// the worst the holder accepted, then tops up to the mined amounts), the pool contract's
// balances must move by exactly what the holder paid and received, an outside trader swaps
// through Uniswap's SwapRouter, and the suite ends with ledger and chain reconciled, pools
// included. Every response is checked against openapi.json and must never be a 5xx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TEST_CHAIN, startWorker } from './harness.mjs';
import { checkedClient, launched, until } from './check.mjs';
import * as v3 from './v3.mjs';
import { E30, exact, priceOf, text, units, usdc, valueAt } from './amounts.mjs';
import { DEV_ACCOUNTS, artifact, balanceOf, clients, latestTimestamp, mintUsdc, read, rpc, send, uniswapArtifact } from '../chain/anvil.mjs';

let w;
const c = checkedClient(() => w);
const { call, fails, newMerchant, advance, newToken, evm, assertMovement, settled } = c;

/** Circle's USDC on Base: the ledger's USDC on the embedded chain. */
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
let USDC; // the USDC the worker reports balances under (the chain's on an EVM chain)
const IMAGE = 'https://example.com/market.png';
const MISSING_TOKEN = `0x${'0'.repeat(39)}7`;
const BPS = 10_000n;
const FEE = 3000; // Uniswap's 0.3 % tier, in hundredths of a basis point

const abs = (x) => (x < 0n ? -x : x);
const max = (...xs) => xs.reduce((a, b) => (b > a ? b : a));
const min = (...xs) => xs.reduce((a, b) => (b < a ? b : a));

// ---- prices ------------------------------------------------------------------------------------

/**
 * A pool's price, USD per whole token, from its sqrtPriceX96 (token1 per token0 in base units,
 * squared, over 2^192), to the nearest unit of 10^-18.
 */
function priceOfSqrt(sqrt, tokenIs0) {
  const sq = sqrt * sqrt;
  const Q192 = 1n << 192n;
  const [num, den] = tokenIs0 ? [sq * E30, Q192] : [E30 * Q192, sq];
  return (num + den / 2n) / den;
}
/** The sqrtPriceX96 of a price (USD per whole token, 18 decimals), floored: the target a pool opens nearest to. */
const sqrtOfPrice = (price, tokenIs0) => (tokenIs0 ? v3.isqrt((price << 192n) / E30) : v3.isqrt((E30 << 192n) / price));

// ---- pools, as the wire shows them and as the test models them --------------------------------

/** Each pool's position (the one the service opened), as this test computed it: address -> { lower, upper, L }. */
const positions = new Map();

/** The pool of a token read (exact body), in base units. */
function poolOf(t) {
  assert.ok(t.pool, `the token has no pool: ${JSON.stringify(t)}`);
  const p = t.pool;
  return {
    token: t.address,
    address: p.address,
    status: p.status,
    tokenIs0: BigInt(t.address) < BigInt(USDC),
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

// ---- the chain (TOKENPAD_TEST_CHAIN=anvil) -------------------------------------------------------

const QUOTER_ABI = uniswapArtifact('QuoterV2').abi;
const POOL_ABI = uniswapArtifact('UniswapV3Pool').abi;
const NPM_ABI = uniswapArtifact('NonfungiblePositionManager').abi;
const UNI_FACTORY_ABI = uniswapArtifact('UniswapV3Factory').abi;
const ROUTER_ABI = uniswapArtifact('SwapRouter').abi;
const ERC20_ABI = artifact('TestUSDC').abi;

/** What QuoterV2 says: the amount out of an exact input, or the amount in of an exact output. */
async function quoterSays(token, buy, exactIn, amount) {
  const [tokenIn, tokenOut] = buy ? [w.chain.usdc, token] : [token, w.chain.usdc];
  const params = exactIn
    ? { tokenIn, tokenOut, amountIn: amount, fee: FEE, sqrtPriceLimitX96: 0n }
    : { tokenIn, tokenOut, amount, fee: FEE, sqrtPriceLimitX96: 0n };
  const { publicClient } = await clients(w.chain.rpcUrl);
  const { result } = await publicClient.simulateContract({
    address: w.chain.quoter, abi: QUOTER_ABI, functionName: exactIn ? 'quoteExactInputSingle' : 'quoteExactOutputSingle', args: [params],
  });
  return result[0];
}
/** On anvil: QuoterV2 gives what the test's math gives for trade `e`. */
async function assertQuoterAgrees(token, buy, exactIn, amount, e) {
  if (!evm()) return;
  const expected = exactIn ? (buy ? e.tokens : e.usdc) : e.usdc;
  assert.equal(await quoterSays(token, buy, exactIn, amount), expected, 'QuoterV2 on the chain says what the test\'s v3 math says');
}
/** The pool contract's balances of its token and of USDC. */
async function poolBalances(pool, token) {
  return { tokens: await balanceOf(w.chain.rpcUrl, token, pool.address ?? pool), usdc: await balanceOf(w.chain.rpcUrl, w.chain.usdc, pool.address ?? pool) };
}
/** The pool contract's slot0 price and tick and its active liquidity. */
async function poolState(address) {
  const slot0 = await read(w.chain.rpcUrl, { address, abi: POOL_ABI, functionName: 'slot0' });
  const liquidity = await read(w.chain.rpcUrl, { address, abi: POOL_ABI, functionName: 'liquidity' });
  return [slot0[0], Number(slot0[1]), liquidity];
}
/** On anvil: the ledger's pool `p` is the pool contract: its reserves are its balances, its state slot0's. */
async function assertPoolOnChain(p) {
  if (!evm()) return;
  assert.deepEqual(await poolBalances(p.address, p.token), { tokens: p.tokens, usdc: p.usdc }, 'the pool contract holds the ledger\'s reserves');
  assert.deepEqual(await poolState(p.address), [p.sqrtPriceX96, p.tick, p.liquidity], 'the pool contract\'s slot0 and liquidity');
}

// ---- service helpers ---------------------------------------------------------------------------

// The edge keeps a public-key read up to a second (docs/decisions.md), and what a chain settles
// changes the ledger inside the merchant's object, which no edge hears of: each read here says
// `Cache-Control: no-cache`, as a client that must see a settlement at once does, so it shows
// the ledger as it is now. tests/http/public_cache.test.mjs covers the keeping.
async function req(method, path, opts, status = 200) {
  const headers = method === 'GET' ? { 'cache-control': 'no-cache', ...opts?.headers } : opts?.headers;
  const r = await call(method, path, { ...opts, headers });
  assert.equal(r.status, status, `${method} ${path}: expected ${status}, got ${r.status}: ${r.text}`);
  return exact(r);
}
const tokenRead = (m, address) => req('GET', `/token/${address}?holdersLimit=1000`, { key: m.secretKey });
const addresses = new Map(); // `${merchant id}/${userId}` -> wallet address
async function holder(m, userId, usdcAmount = 0) {
  const r = await call('PUT', `/holder/${userId}`, { key: m.secretKey });
  assert.ok([200, 201].includes(r.status), r.text);
  addresses.set(`${m.id}/${userId}`, r.json.address);
  if (usdcAmount) {
    await req('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: r.json.address, usdcAmount, merchantId: m.id } });
  }
  return r.json;
}
/** A holder's active and locked balance of `tokenAddress` and its USDC, in base units. */
async function balances(m, userId, tokenAddress) {
  const t = await req('GET', `/holder/${userId}/token/${tokenAddress}`, { key: m.publicKey });
  const u = await req('GET', `/holder/${userId}/token/${USDC}`, { key: m.publicKey });
  return { tokens: units(t.balance), locked: units(t.lockedBalance ?? 0), usdc: usdc(u.balance) };
}
const buy = (m, userId, body) => call('POST', `/holder/${userId}/buy`, { key: m.secretKey, body });
const sell = (m, userId, body) => call('POST', `/holder/${userId}/sell`, { key: m.secretKey, body });
const quote = (m, userId, side, query) =>
  call('GET', `/holder/${userId}/${side}/quote?${new URLSearchParams(query)}`, { key: m.secretKey });
const openPool = (m, address, body) => call('POST', `/token/${address}/liquidity`, { key: m.secretKey, body });

/** The pool of `address` once it trades: on an EVM chain its opening must be mined first. */
async function openedPool(m, address) {
  let t;
  await until(`${address}'s pool open`, async () => {
    t = await tokenRead(m, address);
    assert.ok(['pending', 'open'].includes(t.pool.status), JSON.stringify(t.pool));
    return t.pool.status === 'open';
  }, { timeoutMs: 60_000, every: 100 });
  assert.match(t.pool.lpInfo.nftId, /^[0-9]+$/);
  assert.deepEqual(t.pool.lpInfo, { nftId: t.pool.lpInfo.nftId, liquidityPoolAddress: t.pool.address });
  return t;
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

/** On anvil: the pool contract, the position NFT locked in the market contract, and the reserves. */
async function checkPoolOnChain(t) {
  if (!evm()) return;
  const p = poolOf(t);
  const { lower, upper, L } = positions.get(t.address);
  assert.equal(await read(w.chain.rpcUrl, { address: w.chain.uniswapFactory, abi: UNI_FACTORY_ABI, functionName: 'getPool', args: [t.address, w.chain.usdc, FEE] }), p.address,
    'the Uniswap v3 pool of the token and USDC, 0.3 % tier');
  const nft = BigInt(t.pool.lpInfo.nftId);
  const pos = await read(w.chain.rpcUrl, { address: w.chain.positionManager, abi: NPM_ABI, functionName: 'positions', args: [nft] });
  const [token0, token1] = p.tokenIs0 ? [t.address, w.chain.usdc] : [w.chain.usdc, t.address];
  assert.deepEqual([pos[2], pos[3], pos[4], pos[5], pos[6], pos[7]], [token0, token1, FEE, lower, upper, L], 'the position NFT');
  assert.equal(await read(w.chain.rpcUrl, { address: w.chain.positionManager, abi: NPM_ABI, functionName: 'ownerOf', args: [nft] }), w.chain.market,
    'the market contract holds the position: the liquidity is locked');
  await assertPoolOnChain(p);
}

/**
 * totalSupply == remainingAppSupply + merchantSupply + liquiditySupply + pool.tokenReserve
 * + Σ holder balances; the holders listed are exactly `users` (when given) with the balances
 * (active + locked) their own reads show.
 */
async function assertConserved(m, address, users) {
  const t = await tokenRead(m, address);
  assert.equal(t.holders.length, Number(t.holdersCount), 'the holder list is complete');
  const held = t.holders.reduce((s, h) => s + units(h.balance), 0n);
  const pooled = t.pool ? units(t.pool.tokenReserve) : 0n;
  assert.equal(units(t.totalSupply),
    units(t.remainingAppSupply) + units(t.merchantSupply) + units(t.liquiditySupply) + pooled + held,
    `conservation broken: ${JSON.stringify(t)}`);
  if (users) {
    assert.deepEqual(t.holders.map((h) => h.id).sort(), [...users].sort());
    for (const u of users) {
      const b = await balances(m, u, address);
      assert.equal(units(t.holders.find((h) => h.id === u).balance), b.tokens + b.locked, `${u}'s balance`);
    }
  }
  return t;
}

/** Everything a refused trade must leave alone: the token (pool, supplies, holders) and balances. */
async function snapshot(m, address, users) {
  const t = await tokenRead(m, address);
  const b = {};
  for (const u of users) b[u] = await balances(m, u, address);
  return JSON.stringify({ t, b }, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
}

/** A holder's latest trade: its two history records (the token leg and the USDC leg). */
async function lastTrade(m, userId) {
  const h = await req('GET', `/holder/${userId}/transactions?limit=10`, { key: m.secretKey });
  const [first, second] = h.data.filter((r) => r.type === 'buy' || r.type === 'sell');
  assert.ok(first && second, JSON.stringify(h.data));
  const legs = [first, second];
  const tokenLeg = legs.find((r) => r.tokenAddress !== USDC);
  const usdcLeg = legs.find((r) => r.tokenAddress === USDC);
  assert.ok(tokenLeg && usdcLeg, `the two legs of one trade: ${JSON.stringify(legs)}`);
  return { tokenLeg, usdcLeg };
}

/**
 * What the ledger books at once for trade `e` on pool `p`: the trade itself on the embedded
 * chain; on an EVM chain the worst the holder accepted (exact-in buy: the fewest tokens, from
 * minAmountOut or slippageBps or the quote less 1 %; exact-out buy: the most USDC, from
 * maxAmountIn or slippageBps or the quote plus 1 %, at most what the holder has and at least
 * the quote; sell: the least USDC).
 */
function bookedOf(p, e, side, exactIn, body, haveUsdc) {
  if (!evm()) return { tokens: e.tokens, usdc: e.usdc };
  const bps = body.slippageBps === undefined ? undefined : BigInt(body.slippageBps);
  const spot = valueAt(e.tokens, p.price);
  if (side === 'buy' && exactIn) {
    const bounds = [];
    if (body.minAmountOut !== undefined) bounds.push(units(body.minAmountOut));
    if (bps !== undefined) bounds.push(fewestTokens(p, e.usdc, bps));
    return { tokens: bounds.length ? max(...bounds) : (e.tokens * 9_900n) / BPS, usdc: e.usdc };
  }
  if (side === 'buy') {
    const bounds = [];
    if (body.maxAmountIn !== undefined) bounds.push(usdc(body.maxAmountIn));
    if (bps !== undefined) bounds.push((spot * (BPS + bps)) / BPS);
    const most = bounds.length ? min(...bounds) : (e.usdc * 10_100n + BPS - 1n) / BPS;
    return { tokens: e.tokens, usdc: max(min(most, haveUsdc), e.usdc) };
  }
  const bounds = [];
  if (body.minAmountOut !== undefined) bounds.push(usdc(body.minAmountOut));
  if (bps !== undefined) bounds.push((spot * (BPS - bps) + BPS - 1n) / BPS);
  return { tokens: e.tokens, usdc: bounds.length ? max(...bounds) : (e.usdc * 9_900n) / BPS };
}
/** The fewest tokens `u` USDC may buy under `bps`: the least n whose value at the pool's price passes the bound. */
function fewestTokens(p, u, bps) {
  const passes = (n) => u * BPS <= valueAt(n, p.price) * (BPS + bps);
  const value = (u * BPS + BPS + bps - 1n) / (BPS + bps);
  const n = (value * E30 + p.price - 1n) / p.price;
  assert.ok(passes(n) && !passes(n - 1n), 'the least such n');
  return n;
}

let trades = 0; // trades made by trade()
let seenPending = 0; // of them, seen before they were mined (on an EVM chain)

/**
 * Makes a trade and checks all of it: the figures are the test's v3 math at the pool's state
 * (and QuoterV2's on anvil), a quote just before says the same, the ledger books what it must,
 * and once it is final (at once on the embedded chain; mined on anvil, the holder's records
 * confirmed) the holder's balances, its two history records and the pool moved by exactly
 * those amounts (on anvil: the pool contract's and the holder's balances on chain too).
 * `body`: the request without tokenAddress. Returns { a (the answer, exact), e, p (the pool before) }.
 */
async function trade(m, address, userId, side, body) {
  trades++;
  const p = poolOf(await tokenRead(m, address));
  const isBuy = side === 'buy';
  const exactIn = !isBuy || body.usdcAmount !== undefined;
  const amount = isBuy && exactIn ? usdc(body.usdcAmount) : units(body.tokenAmount);
  const e = expectTrade(p, isBuy, exactIn, amount);
  assert.ok(!e.error, `${side} ${JSON.stringify(body)}: the test's math says ${e.error}`);
  await assertQuoterAgrees(address, isBuy, exactIn, amount, e);
  const query = { tokenAddress: address, ...(isBuy && exactIn ? { usdcAmount: body.usdcAmount } : { tokenAmount: body.tokenAmount }) };
  const q = exact(await quote(m, userId, side, query));
  assertFigures(q, side, address, p, e);
  const start = await balances(m, userId, address);
  const who = addresses.get(`${m.id}/${userId}`);
  const onChain = evm() ? await poolBalances(p.address, address) : null;

  const r = await call('POST', `/holder/${userId}/${side}`, { key: m.secretKey, body: { tokenAddress: address, ...body } });
  assert.equal(r.status, 200, `${side} ${JSON.stringify(body)}: ${r.text}`);
  const a = exact(r);
  assert.equal(a.success, true);
  assertMovement(r.json);
  assertFigures(a, side, address, p, e);
  const { success: _s, transactionHash: _h, chainStatus: _c, blockNumber: _b, booked: _k, ...figures } = a;
  assert.deepEqual(figures, q, 'the trade is what the quote said');
  const booked = bookedOf(p, e, side, exactIn, body, start.usdc);
  assert.deepEqual({ tokens: units(a.booked.tokenAmount), usdc: usdc(a.booked.usdcAmount) }, booked, 'booked');
  const sign = isBuy ? 1n : -1n;

  if (evm()) {
    // Until mined the ledger holds the booked amounts (balances read first: if the records are
    // still not confirmed after, the balances were read before the top-up).
    const pendingBalances = await balances(m, userId, address);
    const pending = await lastTrade(m, userId);
    if (pending.tokenLeg.chainStatus !== 'confirmed') {
      seenPending++;
      assert.equal(pendingBalances.tokens, start.tokens + sign * booked.tokens, 'booked tokens, until mined');
      assert.equal(pendingBalances.usdc, start.usdc - sign * booked.usdc, 'booked USDC, until mined');
      assert.deepEqual([units(pending.tokenLeg.amount), usdc(pending.usdcLeg.amount)], [booked.tokens, booked.usdc], 'the records show the booked amounts, until mined');
    }
    await until(`${userId}'s ${side} mined`, async () => {
      const { tokenLeg, usdcLeg } = await lastTrade(m, userId);
      for (const rec of [tokenLeg, usdcLeg]) assert.notEqual(rec.chainStatus, 'failed', JSON.stringify(rec));
      return tokenLeg.chainStatus === 'confirmed' && usdcLeg.chainStatus === 'confirmed';
    }, { timeoutMs: 60_000, every: 100 });
  }
  // Final: the records and balances show the mined amounts, which are the quote's.
  const { tokenLeg, usdcLeg } = await lastTrade(m, userId);
  for (const rec of [tokenLeg, usdcLeg]) {
    assert.deepEqual([rec.type, rec.context, rec.chainStatus], [side, isBuy ? 'Buy' : 'Sell', 'confirmed']);
    assert.match(rec.transactionHash, /^0x[0-9a-f]{64}$/);
  }
  assert.equal(tokenLeg.transactionHash, usdcLeg.transactionHash, 'one transaction, two legs');
  if (!evm()) assert.equal(tokenLeg.transactionHash, a.transactionHash);
  assert.equal(tokenLeg.tokenAddress, address);
  assert.equal(units(tokenLeg.amount), e.tokens, 'the tokens mined are the quote\'s');
  assert.equal(usdc(usdcLeg.amount), e.usdc, 'the USDC mined is the quote\'s');
  const [pool, holderAddress] = [p.address, who];
  assert.deepEqual([tokenLeg.from, tokenLeg.to], isBuy ? [pool, holderAddress] : [holderAddress, pool]);
  assert.deepEqual([usdcLeg.from, usdcLeg.to], isBuy ? [holderAddress, pool] : [pool, holderAddress]);
  const end = await balances(m, userId, address);
  assert.equal(end.tokens, start.tokens + sign * e.tokens, `${userId}'s tokens`);
  assert.equal(end.usdc, start.usdc - sign * e.usdc, `${userId}'s USDC`);
  const t = await tokenRead(m, address);
  const afterPool = poolOf(t);
  assertPoolAfter(afterPool, p, e, isBuy);
  assert.equal(units(t.price), afterPool.price, 'the token\'s price is the pool\'s');
  if (evm()) {
    const moved = await poolBalances(p.address, address);
    assert.equal(moved.tokens, onChain.tokens - sign * e.tokens, 'the pool contract\'s token balance moved by what the holder got');
    assert.equal(moved.usdc, onChain.usdc + sign * e.usdc, 'the pool contract\'s USDC moved by what the holder paid');
    // Locked tokens are in the lock contract when there is one (a presale's buyers'), not the holder's.
    const inVault = w.chain.locker ? end.locked : 0n;
    assert.equal(await balanceOf(w.chain.rpcUrl, address, who), end.tokens + end.locked - inVault, `${userId}'s tokens on chain`);
    assert.equal(await balanceOf(w.chain.rpcUrl, w.chain.usdc, who), end.usdc, `${userId}'s USDC on chain`);
    await assertPoolOnChain(afterPool);
  }
  return { a, e, p };
}

/** A token of `m` with canLP on: 1,000,000 (app 150,000, merchant 50,000, liquidity 800,000). */
const lpToken = (m, symbol, over = {}) => newToken(m, { name: `${symbol} token`, symbol, totalSupply: 1000000, canLP: true, ...over });

/** Opens `tok`'s pool from `amount` tokens at `price` (decimal texts) and waits until it trades; its pool. */
async function opened(m, tok, price, amount) {
  const body = amount === undefined ? { initialStartingPrice: price } : { initialStartingPrice: price, amount };
  await req('POST', `/token/${tok.address}/liquidity`, { key: m.secretKey, body }, 201);
  const t = await openedPool(m, tok.address);
  const offered = amount === undefined ? units(800000) : units(amount);
  const p = checkTokenOnlyPool(t, offered, units(price));
  await checkPoolOnChain(t);
  return p;
}

/** Waits for a template deployment to leave `pending` (moving the embedded chain); its status data. */
async function deployed(m, kind, id) {
  let d;
  await until(`${kind} ${id} deployed`, async () => {
    d = (await req('GET', `/template/${kind}/status/${id}`, { key: m.secretKey })).data;
    return d.status !== 'pending';
  }, { timeoutMs: 60_000, every: 100, between: evm() ? null : () => advance(2) });
  return d;
}

let M; // the merchant of the main market
let T; // its token, whose pool opens with 100,000 tokens at $0.01
before(async () => {
  w = await startWorker();
  USDC = evm() ? w.chain.usdc : BASE_USDC;
  M = await newMerchant('Market');
  T = await lpToken(M, 'MKT');
  await holder(M, 'ann', 1000);
  await holder(M, 'ben', 1000);
});
after(async () => {
  await w?.stop();
});

// ---- opening a pool ------------------------------------------------------------------------

test('liquidity: secret key only; unknown token 404; canLP off 403; bad amounts 400; more than the reserve 422', async () => {
  const m = await newMerchant('LP rules');
  const off = await newToken(m, { name: 'No LP', symbol: 'NOLP', totalSupply: 1000, canLP: false });
  const on = await lpToken(m, 'LPR');
  const other = await newMerchant('Someone else');

  fails(await call('POST', `/token/${on.address}/liquidity`, { body: { initialStartingPrice: 1 } }), 401, 'missing_api_key');
  fails(await call('POST', `/token/${on.address}/liquidity`, { key: m.publicKey, body: { initialStartingPrice: 1 } }), 403, 'secret_key_required');
  fails(await call('POST', `/token/${on.address}/liquidity?k=${m.secretKey}`, { key: m.secretKey, body: { initialStartingPrice: 1 } }), 400, 'secret_key_in_url');
  fails(await openPool(m, MISSING_TOKEN, { initialStartingPrice: 1 }), 404, 'token_not_found');
  fails(await openPool(other, on.address, { initialStartingPrice: 1 }), 404, 'token_not_found');
  fails(await openPool(m, USDC, { initialStartingPrice: 1 }), 403, 'liquidity_disabled');
  fails(await openPool(m, off.address, { initialStartingPrice: 1 }), 403, 'liquidity_disabled');

  // Without a price the pool opens at the default starting valuation: metal_compat.test.mjs.
  for (const [body, field] of [
    [{ initialStartingPrice: 0 }, 'initialStartingPrice'],
    [{ initialStartingPrice: '-1' }, 'initialStartingPrice'],
    [{ initialStartingPrice: '0.0000000000000000001' }, 'initialStartingPrice'],
    [{ initialStartingPrice: 'abc' }, 'initialStartingPrice'],
    [{ initialStartingPrice: 1, amount: 0 }, 'amount'],
    [{ initialStartingPrice: 1, amount: -5 }, 'amount'],
    [{ initialStartingPrice: 1, amount: '1.0000000000000000001' }, 'amount'],
  ]) {
    const e = fails(await openPool(m, on.address, body), 400, 'invalid_amount');
    assert.equal(e.details?.field, field, JSON.stringify(body));
  }
  fails(await call('POST', `/token/${on.address}/liquidity`, { key: m.secretKey, rawBody: '{"amount":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
  const e = fails(await openPool(m, on.address, { initialStartingPrice: 1, amount: '800000.000000000000000001' }), 422, 'insufficient_liquidity');
  assert.equal(e.details.liquiditySupply, 800000);

  // Nothing happened.
  for (const t of [await tokenRead(m, on.address), await tokenRead(m, off.address)]) {
    assert.equal(t.pool, undefined); // no pool yet: the field is absent
    assert.equal(t.price, null);
  }
  assert.equal((await tokenRead(m, on.address)).liquiditySupply, '800000');
  fails(await buy(m, 'nobody', { tokenAddress: on.address, usdcAmount: 1 }), 404, 'holder_not_found');
});

test('liquidity: amount and initialStartingPrice open a v3 pool (201) at the usable tick nearest the price; the token read shows it; a second call is 409 pool_exists', async () => {
  // On anvil the node holds its blocks for a moment: the pool is pending until its opening is
  // mined, and trades and quotes wait for it (409 pool_pending).
  if (evm()) await rpc(w.chain.rpcUrl, 'evm_setAutomine', [false]);
  let r;
  try {
    r = await openPool(M, T.address, { initialStartingPrice: '0.01', amount: 100000 });
    assert.equal(r.status, 201, r.text);
    if (evm()) {
      for (const x of [
        await quote(M, 'ann', 'buy', { tokenAddress: T.address, usdcAmount: 1 }),
        await buy(M, 'ann', { tokenAddress: T.address, usdcAmount: 1 }),
        await buy(M, 'ann', { tokenAddress: T.address, tokenAmount: 1 }),
        await sell(M, 'ann', { tokenAddress: T.address, tokenAmount: 1 }),
        await quote(M, 'ann', 'sell', { tokenAddress: T.address, tokenAmount: 1 }),
      ]) {
        const err = fails(x, 409, 'pool_pending');
        assert.equal(err.details.poolAddress, r.json.pool.address);
      }
      const pendingRead = await tokenRead(M, T.address);
      assert.equal(pendingRead.pool.status, 'pending');
      assert.equal(pendingRead.pool.lpInfo.nftId, null);
    }
  } finally {
    if (evm()) {
      await rpc(w.chain.rpcUrl, 'evm_setAutomine', [true]);
      await rpc(w.chain.rpcUrl, 'evm_mine', []);
    }
  }
  const b = exact(r);
  assert.equal(b.success, true);
  assert.equal(b.status, evm() ? 'pending' : 'success');
  assert.equal(b.tokenAddress, T.address);
  assert.deepEqual(Object.keys(b.pool).sort(), ['address', 'fee', 'liquidity', 'lpInfo', 'price', 'sqrtPriceX96', 'status', 'tick', 'tokenReserve', 'usdcReserve', 'virtualUsdcReserve']);
  assert.equal(b.pool.status, evm() ? 'pending' : 'open');
  assert.equal(b.pool.fee, '0.3');
  assert.match(b.pool.address, /^0x[0-9a-fA-F]{40}$/);
  assert.notEqual(b.pool.address.toLowerCase(), T.address.toLowerCase());
  assert.deepEqual(b.lpInfo, { nftId: b.lpInfo.nftId, liquidityPoolAddress: b.pool.address });
  if (evm()) assert.equal(b.lpInfo.nftId, null, 'no position NFT until the opening is mined');
  else assert.match(b.lpInfo.nftId, /^[0-9]+$/);
  assert.deepEqual(b.pool.lpInfo, b.lpInfo);
  assert.deepEqual(b.data.pool, b.pool);
  const p = checkTokenOnlyPool(b.data, units(100000), units('0.01'));
  // What the position did not take stays in the liquidity reserve.
  assert.equal(units(b.data.liquiditySupply), units(800000) - p.tokens);
  assert.equal(units(b.data.price), p.price);

  const t = await openedPool(M, T.address);
  assert.deepEqual({ ...t.pool, status: undefined, lpInfo: undefined }, { ...b.pool, status: undefined, lpInfo: undefined }, 'mined as the ledger opened it');
  await checkPoolOnChain(t);
  await assertConserved(M, T.address, []);
  assert.equal(units(t.price), p.price, 'the token\'s price is the pool\'s');
  // The public read shows it too.
  const pub = await req('GET', `/token/${T.address}?publicKey=${M.publicKey}`, {});
  assert.deepEqual(pub.pool, t.pool);

  const again = fails(await openPool(M, T.address, { initialStartingPrice: '0.02', amount: 1 }), 409, 'pool_exists');
  assert.match(again.message, /already has a liquidity pool/);
  fails(await openPool(M, T.address, {}), 409, 'pool_exists');
  assert.deepEqual(await tokenRead(M, T.address), t);
});

test('liquidity: without amount the pool takes the whole reserve but a few units (a number price works too)', async () => {
  const m = await newMerchant('Whole reserve');
  const tok = await lpToken(m, 'WHL');
  const r = await req('POST', `/token/${tok.address}/liquidity`, { key: m.secretKey, body: { initialStartingPrice: 0.002 } }, 201);
  const p = checkTokenOnlyPool(r.data, units(800000), units('0.002'));
  await checkPoolOnChain(await openedPool(m, tok.address));
  const t = await assertConserved(m, tok.address, []);
  assert.equal(units(t.liquiditySupply), units(800000) - p.tokens, 'the units the position could not take');
  assert.equal(units(t.price), p.price);
  // A pool exists: a second one is refused either way.
  fails(await openPool(m, tok.address, { initialStartingPrice: 1 }), 409, 'pool_exists');
});

// ---- trading -------------------------------------------------------------------------------

test('quotes by GET with query parameters give v3\'s figures (the chain\'s QuoterV2\'s on anvil) and change nothing', async () => {
  const before_ = await snapshot(M, T.address, ['ann', 'ben']);
  const p = poolOf(await tokenRead(M, T.address));
  const cases = [
    ['ann', 'buy', { usdcAmount: '20' }, expectBuyWith(p, usdc(20)), [true, usdc(20)]],
    ['ann', 'buy', { tokenAmount: '1234.5' }, expectBuyExact(p, units('1234.5')), [false, units('1234.5')]],
    // Asking does not need the money: ben's quote for more than he holds is fine.
    ['ben', 'buy', { usdcAmount: '5000' }, expectBuyWith(p, usdc(5000)), [true, usdc(5000)]],
  ];
  for (const [u, side, amount, e, [exactIn, n]] of cases) {
    const address = u === 'ann' && amount.tokenAmount ? T.address.toLowerCase() : T.address;
    const q = await req('GET', `/holder/${u}/${side}/quote?${new URLSearchParams({ tokenAddress: address, ...amount })}`, { key: M.secretKey });
    assertFigures(q, side, T.address, p, e);
    assert.equal(q.success, undefined, 'a quote is not a trade');
    assert.equal(q.transactionHash, undefined);
    assert.equal(q.booked, undefined);
    await assertQuoterAgrees(T.address, side === 'buy', exactIn, n, e);
  }
  // No USDC paid in yet: a sell quote cannot be paid (only buyers' USDC is paid out).
  assert.equal(expectSell(p, units(1)).error, 'drains');
  fails(await quote(M, 'ann', 'sell', { tokenAddress: T.address, tokenAmount: 1 }), 422, 'insufficient_liquidity');
  assert.equal(await snapshot(M, T.address, ['ann', 'ben']), before_);
});

test('buy by usdcAmount, buy an exact tokenAmount, sell: exact amounts, balances, reserves, conservation', async () => {
  // 1. ann spends 20 USDC.
  const b1 = await trade(M, T.address, 'ann', 'buy', { usdcAmount: 20 });
  await assertConserved(M, T.address, ['ann']);
  // 2. ben buys exactly 1,500.25 tokens (a decimal string), paying the least USDC that does it.
  const b2 = await trade(M, T.address, 'ben', 'buy', { tokenAmount: '1500.25' });
  const p2 = b2.p;
  assert.equal(b2.e.tokens, units('1500.25'));
  // The least: one USDC unit less, as an exact input, buys fewer.
  assert.ok(expectBuyWith(p2, b2.e.usdc - 1n).tokens < units('1500.25'), 'one unit less buys fewer');
  await assertConserved(M, T.address, ['ann', 'ben']);
  // 3. ann sells 300 tokens: the USDC out is floored; the fee is v3's, in tokens.
  const s1 = await trade(M, T.address, 'ann', 'sell', { tokenAmount: 300 });
  // 0.3 % of the 300 tokens that came in, the rounding (a few base units) in the pool's favour.
  const fee = units(s1.a.fee);
  assert.ok(fee >= units('0.9') && fee - units('0.9') < 1000n, `fee ${s1.a.fee}`);
  await assertConserved(M, T.address, ['ann', 'ben']);
  const after_ = poolOf(await tokenRead(M, T.address));
  assert.equal(after_.usdc, usdc(20) + b2.e.usdc - s1.e.usdc, 'the pool holds what buyers paid in minus what the seller got');
  assert.equal(b1.e.usdc, usdc(20));
});

test('the token price is the pool price, and every USD value uses it', async () => {
  const t = await tokenRead(M, T.address);
  const p = poolOf(t);
  assert.equal(p.price, priceOfSqrt(p.sqrtPriceX96, p.tokenIs0));
  assert.equal(units(t.price), p.price);
  assert.ok(p.price > units('0.01'), 'the trades moved it up');
  for (const h of t.holders) assert.equal(usdc(h.value), valueAt(units(h.balance), p.price), `${h.id}'s value on the token`);
  for (const u of ['ann', 'ben']) {
    const one = await req('GET', `/holder/${u}/token/${T.address}`, { key: M.publicKey });
    assert.equal(usdc(one.value), valueAt(units(one.balance), p.price));
    const full = await req('GET', `/holder/${u}?publicKey=${M.publicKey}`, {});
    const item = full.tokens.find((x) => x.address === T.address);
    assert.equal(usdc(item.value), valueAt(units(item.balance), p.price));
    const cash = full.tokens.find((x) => x.symbol === 'USDC');
    assert.equal(cash.address, USDC, 'USDC under the chain\'s USDC contract');
    assert.equal(usdc(full.totalValue), usdc(item.value) + usdc(cash.value), `${u}'s totalValue`);
  }
});

test('history: each trade is two records (the token and USDC legs) with type buy/sell and context Buy/Sell', async () => {
  const h = await req('GET', '/holder/ann/transactions', { key: M.secretKey });
  const pool = (await tokenRead(M, T.address)).pool.address;
  const ann = (await req('GET', '/holder/ann', { key: M.secretKey })).address;
  const trades = h.data.filter((r) => r.type === 'buy' || r.type === 'sell');
  assert.equal(trades.length, 4, JSON.stringify(h.data));
  const [sellUsdc, sellTok, buyUsdc, buyTok] = trades; // newest first
  for (const r of [sellUsdc, sellTok]) assert.deepEqual([r.type, r.context], ['sell', 'Sell']);
  for (const r of [buyUsdc, buyTok]) assert.deepEqual([r.type, r.context], ['buy', 'Buy']);
  assert.equal(sellUsdc.transactionHash, sellTok.transactionHash);
  assert.equal(buyUsdc.transactionHash, buyTok.transactionHash);
  assert.notEqual(buyTok.transactionHash, sellTok.transactionHash);
  assert.notEqual(buyTok.id, buyUsdc.id);
  for (const r of trades) assert.equal(r.chainStatus, 'confirmed');
  // Buy: tokens from the pool to ann, USDC from ann to the pool.
  assert.deepEqual([buyTok.tokenAddress, buyTok.symbol, buyTok.from, buyTok.to], [T.address, 'MKT', pool, ann]);
  assert.deepEqual([buyUsdc.tokenAddress, buyUsdc.symbol, buyUsdc.from, buyUsdc.to, buyUsdc.amount], [USDC, 'USDC', ann, pool, '20']);
  // Sell: the other way round.
  assert.deepEqual([sellTok.from, sellTok.to, sellTok.amount], [ann, pool, '300']);
  assert.deepEqual([sellUsdc.tokenAddress, sellUsdc.from, sellUsdc.to], [USDC, pool, ann]);
  assert.ok(usdc(sellUsdc.amount) > 0n);
});

test('slippage: minAmountOut, maxAmountIn and slippageBps refuse with 422 slippage_exceeded and change nothing; the bound itself passes (and is what the ledger books on a chain)', async () => {
  const users = ['ann', 'ben'];
  const refused = async (r) => {
    const e = fails(r, 422, 'slippage_exceeded');
    assert.equal(e.error, e.message);
    return e;
  };

  // Buy by usdcAmount with minAmountOut: one base unit more than it gets is refused.
  let p = poolOf(await tokenRead(M, T.address));
  let e = expectBuyWith(p, usdc(5));
  let snap = await snapshot(M, T.address, users);
  await refused(await buy(M, 'ann', { tokenAddress: T.address, usdcAmount: 5, minAmountOut: text(e.tokens + 1n) }));
  assert.equal(await snapshot(M, T.address, users), snap);
  // The bound itself passes; on a chain the swap is sent with it and must fill exactly.
  await trade(M, T.address, 'ann', 'buy', { usdcAmount: 5, minAmountOut: text(e.tokens) });

  // Buy an exact tokenAmount with maxAmountIn: one USDC unit less than it costs is refused.
  p = poolOf(await tokenRead(M, T.address));
  e = expectBuyExact(p, units(100));
  snap = await snapshot(M, T.address, users);
  const tooCheap = await refused(await buy(M, 'ann', { tokenAddress: T.address, tokenAmount: 100, maxAmountIn: text(e.usdc - 1n, 6) }));
  assert.equal(usdc(tooCheap.details.usdcAmount), e.usdc);
  assert.equal(await snapshot(M, T.address, users), snap);
  await trade(M, T.address, 'ann', 'buy', { tokenAmount: 100, maxAmountIn: text(e.usdc, 6) });
  // Without a bound, an exact-output buy books at most 1 % over the quote on a chain.
  await trade(M, T.address, 'ann', 'buy', { tokenAmount: '77.7' });

  // Sell with minAmountOut.
  p = poolOf(await tokenRead(M, T.address));
  e = expectSell(p, units(50));
  snap = await snapshot(M, T.address, users);
  await refused(await sell(M, 'ann', { tokenAddress: T.address, tokenAmount: 50, minAmountOut: text(e.usdc + 1n, 6) }));
  assert.equal(await snapshot(M, T.address, users), snap);
  await trade(M, T.address, 'ann', 'sell', { tokenAmount: 50, minAmountOut: text(e.usdc, 6) });

  // slippageBps bounds the average price against the pool's price before the trade: the
  // smallest bps that admits it passes, one less is refused. With the 0.3 % fee, 0 never passes.
  const bpsBuy = (p_, e_) => { // paid x 10^4 <= valueAtSpot x (10^4 + bps)
    const atSpot = valueAt(e_.tokens, p_.price);
    return (e_.usdc * BPS + atSpot - 1n) / atSpot - BPS;
  };
  const bpsSell = (p_, e_) => BPS - (e_.usdc * BPS) / valueAt(e_.tokens, p_.price); // paid x 10^4 >= valueAtSpot x (10^4 - bps)
  p = poolOf(await tokenRead(M, T.address));
  e = expectBuyWith(p, usdc(30));
  const need = bpsBuy(p, e);
  assert.ok(need > 30n && need < 1000n, `bps ${need}`);
  snap = await snapshot(M, T.address, users);
  for (const bps of [0, Number(need) - 1]) {
    const x = await refused(await buy(M, 'ben', { tokenAddress: T.address, usdcAmount: 30, slippageBps: bps }));
    assert.equal(x.details.slippageBps, bps);
  }
  await refused(await buy(M, 'ben', { tokenAddress: T.address, tokenAmount: text(e.tokens), slippageBps: 0 }));
  assert.equal(await snapshot(M, T.address, users), snap);
  await trade(M, T.address, 'ben', 'buy', { usdcAmount: 30, slippageBps: Number(need) });

  // An exact-output buy bounded by slippageBps: the bound is the most USDC at that price.
  p = poolOf(await tokenRead(M, T.address));
  e = expectBuyExact(p, units(400));
  const needOut = bpsBuy(p, e);
  snap = await snapshot(M, T.address, users);
  await refused(await buy(M, 'ben', { tokenAddress: T.address, tokenAmount: 400, slippageBps: Number(needOut) - 1 }));
  assert.equal(await snapshot(M, T.address, users), snap);
  await trade(M, T.address, 'ben', 'buy', { tokenAmount: 400, slippageBps: Number(needOut) + 5 });

  p = poolOf(await tokenRead(M, T.address));
  e = expectSell(p, units(1000));
  const needSell = bpsSell(p, e);
  assert.ok(needSell > 30n && needSell < 1000n, `bps ${needSell}`);
  snap = await snapshot(M, T.address, users);
  for (const bps of [0, Number(needSell) - 1]) await refused(await sell(M, 'ben', { tokenAddress: T.address, tokenAmount: 1000, slippageBps: bps }));
  assert.equal(await snapshot(M, T.address, users), snap);
  await trade(M, T.address, 'ben', 'sell', { tokenAmount: 1000, slippageBps: Number(needSell) });
  await assertConserved(M, T.address, users);
});

test('bad input: zero, negative, too precise, both or neither amount, bad slippageBps are 400; unknown token or holder 404; a public key 403', async () => {
  const users = ['ann', 'ben'];
  const snap = await snapshot(M, T.address, users);
  const tokenAddress = T.address;
  const badBuys = [
    [{ tokenAddress, usdcAmount: 0 }, 'invalid_amount', 'usdcAmount'],
    [{ tokenAddress, usdcAmount: '0' }, 'invalid_amount', 'usdcAmount'],
    [{ tokenAddress, usdcAmount: -1 }, 'invalid_amount', 'usdcAmount'],
    [{ tokenAddress, usdcAmount: '1.0000001' }, 'invalid_amount', 'usdcAmount'],
    [{ tokenAddress, usdcAmount: 'ten' }, 'invalid_amount', 'usdcAmount'],
    [{ tokenAddress, tokenAmount: 0 }, 'invalid_amount', 'tokenAmount'],
    [{ tokenAddress, tokenAmount: '-0.5' }, 'invalid_amount', 'tokenAmount'],
    [{ tokenAddress, tokenAmount: '1.0000000000000000001' }, 'invalid_amount', 'tokenAmount'],
    [{ tokenAddress, usdcAmount: 1, minAmountOut: 0 }, 'invalid_amount', 'minAmountOut'],
    [{ tokenAddress, tokenAmount: 1, maxAmountIn: '0.0000001' }, 'invalid_amount', 'maxAmountIn'],
    [{ tokenAddress, usdcAmount: 1, tokenAmount: 1 }, 'invalid_request'],
    [{ tokenAddress }, 'invalid_request'],
    [{ tokenAddress, usdcAmount: 1, maxAmountIn: 2 }, 'invalid_request'],
    [{ tokenAddress, tokenAmount: 1, minAmountOut: 2 }, 'invalid_request'],
    [{ tokenAddress, usdcAmount: 1, slippageBps: 10001 }, 'invalid_request', 'slippageBps'],
    [{ tokenAddress, usdcAmount: 1, slippageBps: -1 }, 'invalid_request', 'slippageBps'],
    [{ tokenAddress, usdcAmount: 1, slippageBps: 1.5 }, 'invalid_request', 'slippageBps'],
    [{ usdcAmount: 1 }, 'invalid_request', 'tokenAddress'],
    [{ tokenAddress: '0x12', usdcAmount: 1 }, 'invalid_address', 'tokenAddress'],
  ];
  for (const [body, code, field] of badBuys) {
    const e = fails(await buy(M, 'ann', body), 400, code);
    if (field) assert.equal(e.details?.field, field, JSON.stringify(body));
  }
  const badSells = [
    [{ tokenAddress, tokenAmount: 0 }, 'invalid_amount'],
    [{ tokenAddress, tokenAmount: -3 }, 'invalid_amount'],
    [{ tokenAddress, tokenAmount: '0.0000000000000000001' }, 'invalid_amount'],
    [{ tokenAddress, tokenAmount: 1, minAmountOut: '0.0000001' }, 'invalid_amount'],
    [{ tokenAddress }, 'invalid_request'],
    [{ tokenAddress, usdcAmount: 1 }, 'invalid_request'],
    [{ tokenAddress, tokenAmount: 1, slippageBps: 20000 }, 'invalid_request'],
  ];
  for (const [body, code] of badSells) fails(await sell(M, 'ann', body), 400, code);
  const badQuotes = [
    ['buy', { tokenAddress, usdcAmount: '0' }, 'invalid_amount'],
    ['buy', { tokenAddress, usdcAmount: '-2' }, 'invalid_amount'],
    ['buy', { tokenAddress, usdcAmount: '0.0000001' }, 'invalid_amount'],
    ['buy', { tokenAddress, tokenAmount: '1.0000000000000000001' }, 'invalid_amount'],
    ['buy', { tokenAddress, usdcAmount: '1', tokenAmount: '1' }, 'invalid_request'],
    ['buy', { tokenAddress }, 'invalid_request'],
    ['buy', { usdcAmount: '1' }, 'invalid_request'],
    ['sell', { tokenAddress, tokenAmount: '0' }, 'invalid_amount'],
    ['sell', { tokenAddress, tokenAmount: 'x' }, 'invalid_amount'],
    ['sell', { tokenAddress }, 'invalid_request'],
  ];
  for (const [side, query, code] of badQuotes) fails(await quote(M, 'ann', side, query), 400, code);

  // Unknown token, another merchant's token, unknown holder.
  const other = await newMerchant('Other market');
  const foreign = await lpToken(other, 'FRN');
  for (const address of [MISSING_TOKEN, foreign.address]) {
    fails(await buy(M, 'ann', { tokenAddress: address, usdcAmount: 1 }), 404, 'token_not_found');
    fails(await sell(M, 'ann', { tokenAddress: address, tokenAmount: 1 }), 404, 'token_not_found');
    fails(await quote(M, 'ann', 'buy', { tokenAddress: address, usdcAmount: 1 }), 404, 'token_not_found');
    fails(await quote(M, 'ann', 'sell', { tokenAddress: address, tokenAmount: 1 }), 404, 'token_not_found');
  }
  fails(await buy(M, 'nobody', { tokenAddress, usdcAmount: 1 }), 404, 'holder_not_found');
  fails(await sell(M, 'nobody', { tokenAddress, tokenAmount: 1 }), 404, 'holder_not_found');
  fails(await quote(M, 'nobody', 'buy', { tokenAddress, usdcAmount: 1 }), 404, 'holder_not_found');
  // Keys: every market route needs the secret key.
  fails(await call('POST', '/holder/ann/buy', { key: M.publicKey, body: { tokenAddress, usdcAmount: 1 } }), 403, 'secret_key_required');
  fails(await call('POST', '/holder/ann/sell', { body: { tokenAddress, tokenAmount: 1 } }), 401, 'missing_api_key');
  fails(await call('GET', `/holder/ann/buy/quote?tokenAddress=${tokenAddress}&usdcAmount=1&publicKey=${M.publicKey}`), 403, 'secret_key_required');
  fails(await call('GET', `/holder/ann/sell/quote?tokenAddress=${tokenAddress}&tokenAmount=1`, { key: M.publicKey }), 403, 'secret_key_required');
  fails(await call('DELETE', '/holder/ann/buy', { key: M.secretKey }), 405, 'method_not_allowed');
  fails(await call('POST', '/holder/ann/buy/quote', { key: M.secretKey, body: { tokenAddress, usdcAmount: 1 } }), 405, 'method_not_allowed');
  assert.equal(await snapshot(M, T.address, users), snap);
});

test('no pool yet: buy, sell and both quotes are 409 no_liquidity', async () => {
  const m = await newMerchant('No pool');
  const tok = await lpToken(m, 'NOP');
  await holder(m, 'cy', 10);
  await req('POST', `/token/${tok.address}/distribute`, { key: m.secretKey, body: { amount: 10, sendToId: 'cy' } });
  const snap = await snapshot(m, tok.address, ['cy']);
  for (const r of [
    await buy(m, 'cy', { tokenAddress: tok.address, usdcAmount: 1 }),
    await buy(m, 'cy', { tokenAddress: tok.address, tokenAmount: 1 }),
    await sell(m, 'cy', { tokenAddress: tok.address, tokenAmount: 1 }),
    await quote(m, 'cy', 'buy', { tokenAddress: tok.address, usdcAmount: 1 }),
    await quote(m, 'cy', 'sell', { tokenAddress: tok.address, tokenAmount: 1 }),
  ]) {
    const e = fails(r, 409, 'no_liquidity');
    assert.equal(e.error, e.message);
  }
  // USDC itself has no pool of its own.
  fails(await buy(m, 'cy', { tokenAddress: USDC, usdcAmount: 1 }), 409, 'no_liquidity');
  assert.equal(await snapshot(m, tok.address, ['cy']), snap);
});

test('a pool pays out only the USDC buyers paid in (422 insufficient_liquidity); more than held is 422 insufficient_balance', async () => {
  const m = await newMerchant('Drain');
  const tok = await lpToken(m, 'DRN');
  let p = await opened(m, tok, '1', '1000');
  await holder(m, 'dee', 100);
  await holder(m, 'eve', 5000);
  await req('POST', `/token/${tok.address}/distribute`, { key: m.secretKey, body: { amount: 500, sendToId: 'dee' } });
  if (evm()) await settled(m);
  const users = ['dee', 'eve'];
  let snap = await snapshot(m, tok.address, users);
  // No USDC in the pool: nothing can be sold to it, though dee holds the tokens.
  assert.equal(expectSell(p, units(1)).error, 'drains');
  fails(await sell(m, 'dee', { tokenAddress: tok.address, tokenAmount: 1 }), 422, 'insufficient_liquidity');
  // Every token of the pool, or more: refused.
  assert.equal(expectBuyExact(p, units(1000)).error, 'drains');
  fails(await buy(m, 'eve', { tokenAddress: tok.address, tokenAmount: 1000 }), 422, 'insufficient_liquidity');
  fails(await buy(m, 'eve', { tokenAddress: tok.address, tokenAmount: 1001 }), 422, 'insufficient_liquidity');
  fails(await quote(m, 'eve', 'buy', { tokenAddress: tok.address, tokenAmount: '1000' }), 422, 'insufficient_liquidity');
  // More USDC or tokens than the holder has.
  fails(await buy(m, 'dee', { tokenAddress: tok.address, usdcAmount: '100.000001' }), 422, 'insufficient_balance');
  fails(await sell(m, 'eve', { tokenAddress: tok.address, tokenAmount: 1 }), 422, 'insufficient_balance');
  assert.equal(await snapshot(m, tok.address, users), snap);

  // dee buys with 10 USDC; the pool holds 10 USDC, so selling tokens worth more than that is refused.
  const bought = (await trade(m, tok.address, 'dee', 'buy', { usdcAmount: 10 })).e;
  p = poolOf(await tokenRead(m, tok.address));
  assert.equal(p.usdc, usdc(10));
  snap = await snapshot(m, tok.address, users);
  assert.equal(expectSell(p, units(20)).error, 'drains', '20 tokens are worth more than 10 USDC here');
  const e = fails(await sell(m, 'dee', { tokenAddress: tok.address, tokenAmount: 20 }), 422, 'insufficient_liquidity');
  assert.match(e.message, /cannot pay/);
  fails(await quote(m, 'dee', 'sell', { tokenAddress: tok.address, tokenAmount: 20 }), 422, 'insufficient_liquidity');
  assert.equal(await snapshot(m, tok.address, users), snap);
  // What a buyer got back sells for less than it cost (the fee stays in the pool).
  const back = (await trade(m, tok.address, 'dee', 'sell', { tokenAmount: text(bought.tokens) })).e;
  assert.ok(back.usdc < usdc(10));
  const dee = await balances(m, 'dee', tok.address);
  assert.equal(dee.usdc, usdc(100) - usdc(10) + back.usdc);
  assert.equal(dee.tokens, units(500));
  const after_ = poolOf(await assertConserved(m, tok.address, ['dee']));
  assert.equal(after_.usdc, usdc(10) - back.usdc);
  assertSolvent(after_);
});

test('a buy followed by a sell of the same tokens never ends with more USDC (round trips of varied sizes)', async () => {
  const m = await newMerchant('Round trips');
  const tok = await lpToken(m, 'RND');
  await opened(m, tok, '0.05', '200000');
  await holder(m, 'seed', 1000);
  await holder(m, 'fox', 1000);
  await trade(m, tok.address, 'seed', 'buy', { usdcAmount: 500 });
  let surplus = assertSolvent(poolOf(await tokenRead(m, tok.address)));
  for (const amount of ['0.5', '7.123457', '99.99', '250']) {
    const before_ = await balances(m, 'fox', tok.address);
    const b = await trade(m, tok.address, 'fox', 'buy', { usdcAmount: amount });
    const s = await trade(m, tok.address, 'fox', 'sell', { tokenAmount: text(b.e.tokens) });
    const after_ = await balances(m, 'fox', tok.address);
    assert.equal(after_.tokens, before_.tokens);
    assert.ok(after_.usdc < before_.usdc, `round trip of ${amount} USDC: ${before_.usdc} -> ${after_.usdc}`);
    assert.equal(after_.usdc, before_.usdc - usdc(amount) + s.e.usdc);
    // What the pool holds beyond what its curve needs (the fees) grows with every round trip.
    const next = assertSolvent(poolOf(await tokenRead(m, tok.address)));
    assert.ok(next.usdc > surplus.usdc && next.tokens > surplus.tokens, `the pool's surplus ${JSON.stringify(surplus, (_, v) => String(v))} -> ${JSON.stringify(next, (_, v) => String(v))}`);
    surplus = next;
  }
  // The smallest buy pays 1 USDC unit: the fee takes it all and nothing would come out: 400
  // invalid_amount (too small). Two units get tokens, but selling them back would pay nothing:
  // refused too, never rounded up in the seller's favour; the tokens stay.
  let p = poolOf(await tokenRead(m, tok.address));
  assert.equal(expectBuyWith(p, 1n).error, 'small');
  let snap = await snapshot(m, tok.address, ['fox']);
  assert.match(fails(await buy(m, 'fox', { tokenAddress: tok.address, usdcAmount: '0.000001' }), 400, 'invalid_amount').message, /too small/);
  fails(await quote(m, 'fox', 'buy', { tokenAddress: tok.address, usdcAmount: '0.000001' }), 400, 'invalid_amount');
  assert.equal(await snapshot(m, tok.address, ['fox']), snap);
  const tiny = await trade(m, tok.address, 'fox', 'buy', { usdcAmount: '0.000002' });
  assert.ok(tiny.e.tokens > 0n);
  p = poolOf(await tokenRead(m, tok.address));
  assert.equal(expectSell(p, tiny.e.tokens).error, 'small');
  snap = await snapshot(m, tok.address, ['fox']);
  const e = fails(await sell(m, 'fox', { tokenAddress: tok.address, tokenAmount: text(tiny.e.tokens) }), 400, 'invalid_amount');
  assert.match(e.message, /too small/);
  fails(await quote(m, 'fox', 'sell', { tokenAddress: tok.address, tokenAmount: '0.000000000000000001' }), 400, 'invalid_amount');
  assert.equal(await snapshot(m, tok.address, ['fox']), snap);
  await assertConserved(m, tok.address, ['seed', 'fox']);
});

// ---- pools opened at launch ----------------------------------------------------------------

test('a memecoin deployment opens its pool at initialPrice (its deployment succeeds once the pool is open); with noLp there is none', async () => {
  const m = await newMerchant('Memecoins');
  const recipient = '0x' + 'ab'.repeat(20);
  const deploy = async (body) => {
    const d = await req('POST', '/template/memecoin', { key: m.secretKey, body: {
      name: 'Meme', symbol: 'MEME', totalSupply: 1000000, initialPrice: 0.0001, network: 'base', marketplace: false,
      recipient: { address: recipient, supply: 100000 }, ...body,
    } }, 201);
    const s = await deployed(m, 'memecoin', d.id);
    assert.equal(s.status, 'success', JSON.stringify(s));
    return s.tokenAddress;
  };
  const meme = await deploy({});
  const t = await tokenRead(m, meme);
  assert.equal(t.pool.status, 'open', 'a memecoin is deployed with its pool open');
  assert.match(t.pool.lpInfo.nftId, /^[0-9]+$/);
  const p = checkTokenOnlyPool(t, units(900000), units('0.0001'));
  await checkPoolOnChain(t);
  assert.equal(units(t.liquiditySupply), units(900000) - p.tokens);
  assert.equal(units(t.price), p.price);
  assert.equal(t.network, evm() ? 'local' : 'base');
  await assertConserved(m, meme);
  // Tradable at once.
  await holder(m, 'gus', 10);
  await trade(m, meme, 'gus', 'buy', { usdcAmount: 1 });
  await assertConserved(m, meme);
  // Its pool is open: a second one is 409.
  assert.equal(t.canLP, true);
  fails(await openPool(m, meme, { initialStartingPrice: 1 }), 409, 'pool_exists');

  const noLp = await deploy({ symbol: 'NOLP', noLp: true, recipient: { address: recipient, amount: '1000000' } });
  const n = await tokenRead(m, noLp);
  assert.equal(n.pool, undefined); // noLp: no pool
  assert.equal(n.price, '0.0001');
  fails(await buy(m, 'gus', { tokenAddress: noLp, usdcAmount: 1 }), 409, 'no_liquidity');
  // noLp leaves no reserve and canLP off: no pool can be opened later either.
  assert.equal(n.canLP, false);
  fails(await openPool(m, noLp, { initialStartingPrice: 1 }), 403, 'liquidity_disabled');
});

test('a presale launch opens a full-range pool with the raised USDC at the presale price; locked tokens cannot be sold', async () => {
  const m = await newMerchant('Presale market');
  for (const u of ['pa', 'pb', 'pc']) await holder(m, u, 100);
  await holder(m, 'late', 100);
  const clock = await req('GET', '/admin/time', { adminKey: w.adminKey });
  const now = Number(clock.nowUnix);
  const ps = await req('POST', '/merchant/presale', { key: m.secretKey, body: {
    name: 'Market launch', description: 'A presale that launches into a pool', startTimestamp: now - 10,
    endTimestamp: now + 3600, targetUsdcAmount: 90, lockDuration: 7,
    tokenInfo: { name: 'Launch', symbol: 'LNCH', imageUrl: IMAGE },
  } }, 201);
  for (const u of ['pa', 'pb', 'pc']) await req('POST', `/holder/${u}/buy-presale`, { key: m.secretKey, body: { presaleId: ps.id, usdcAmount: 30 } });
  const usdcBefore = await tokenRead(m, USDC);
  await advance(30);
  const s = await launched(w, m, ps.id);
  assert.equal(s.completionState.step, 'completed');
  const address = s.tokenDeploymentInfo.tokenAddress;
  const bought = BigInt(s.tokenDeploymentInfo.amountTokensBought);

  const t = await openedPool(m, address);
  const pool = poolOf(t);
  // The raise over the whole price range at raise / tokens, recomputed here.
  const raise = usdc(90);
  const [amount0, amount1] = pool.tokenIs0 ? [bought, raise] : [raise, bought];
  const sqrt = v3.isqrt((amount1 << 192n) / amount0);
  const [lower, upper] = [v3.MIN_USABLE_TICK, v3.MAX_USABLE_TICK];
  const L = v3.liquidityForAmounts(sqrt, v3.sqrtAt(lower), v3.sqrtAt(upper), amount0, amount1);
  const [m0, m1] = v3.mintAmounts(sqrt, v3.tickAt(sqrt), lower, upper, L);
  const [tokensIn, usdcIn] = pool.tokenIs0 ? [m0, m1] : [m1, m0];
  assert.deepEqual([pool.sqrtPriceX96, pool.tick, pool.liquidity], [sqrt, v3.tickAt(sqrt), L], 'the pool\'s state');
  assert.equal(pool.tokens, tokensIn, 'the pool holds the tokens the position takes');
  assert.equal(pool.usdc, usdcIn, 'and the raised USDC it takes');
  assert.ok((bought - tokensIn) * 10n ** 12n < bought && raise - usdcIn < 10n, `all but a few units: ${bought - tokensIn} tokens, ${raise - usdcIn} USDC units left`);
  assert.equal(pool.virt, 0n, 'no virtual reserve: the raise itself backs the price');
  assert.equal(pool.price, priceOfSqrt(sqrt, pool.tokenIs0));
  assert.ok(abs(pool.price - priceOf(raise, bought)) * 10n ** 9n <= pool.price, 'at the presale price, raise / tokens');
  assert.equal(units(t.price), pool.price);
  positions.set(address, { lower, upper, L });
  await checkPoolOnChain(t);
  // The USDC the position could not take is the merchant's.
  const usdcAfter = await tokenRead(m, USDC);
  assert.equal(usdc(usdcAfter.merchantSupply) - usdc(usdcBefore.merchantSupply), raise - usdcIn, 'USDC\'s merchantSupply');
  await assertConserved(m, address, ['pa', 'pb', 'pc']);
  const pub = await req('GET', `/token/${address}?publicKey=${m.publicKey}`, {});
  assert.deepEqual(pub.pool, t.pool);

  // pa's tokens are all locked: selling any is 422 tokens_locked, and nothing moves.
  if (evm()) await settled(m);
  const pa = await balances(m, 'pa', address);
  assert.equal(pa.tokens, 0n);
  assert.ok(pa.locked > 0n);
  const snap = await snapshot(m, address, ['pa', 'late']);
  fails(await sell(m, 'pa', { tokenAddress: address, tokenAmount: 1 }), 422, 'tokens_locked');
  fails(await sell(m, 'pa', { tokenAddress: address, tokenAmount: text(pa.locked) }), 422, 'tokens_locked');
  assert.equal(await snapshot(m, address, ['pa', 'late']), snap);

  // Someone who buys from the pool can sell those (active) tokens, and only those.
  await trade(m, address, 'late', 'buy', { usdcAmount: 9 });
  // pa buys too: now pa can sell the bought ones but not one unit more (the rest is locked).
  await trade(m, address, 'pa', 'buy', { usdcAmount: 3 });
  const pa2 = await balances(m, 'pa', address);
  fails(await sell(m, 'pa', { tokenAddress: address, tokenAmount: text(pa2.tokens + 1n) }), 422, 'tokens_locked');
  await trade(m, address, 'pa', 'sell', { tokenAmount: text(pa2.tokens) });
  const pa3 = await balances(m, 'pa', address);
  assert.deepEqual([pa3.tokens, pa3.locked], [0n, pa.locked]);
  const late = await balances(m, 'late', address);
  await trade(m, address, 'late', 'sell', { tokenAmount: text(late.tokens / 2n) });
  await assertConserved(m, address, ['pa', 'pb', 'pc', 'late']);
  const hist = await req('GET', '/holder/late/transactions', { key: m.secretKey });
  assert.deepEqual(hist.data.filter((r) => r.symbol === 'LNCH').map((r) => `${r.type}/${r.context}`), ['sell/Sell', 'buy/Buy']);
});

// ---- concurrency ---------------------------------------------------------------------------

test('concurrency: 28 simultaneous buys and sells on one pool: no overdraw, no lost units, each answer the pool\'s math in turn', async () => {
  const m = await newMerchant('Busy market');
  const tok = await lpToken(m, 'BSY');
  await opened(m, tok, '0.01', '200000');
  const users = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'];
  for (const u of users) {
    await holder(m, u, 100);
    await trade(m, tok.address, u, 'buy', { usdcAmount: 20 });
  }
  const start = {};
  for (const u of users) start[u] = await balances(m, u, tok.address);
  const p0 = poolOf(await tokenRead(m, tok.address));

  // c0..c3 trade freely; c4 races four buys of 30 USDC with 80 USDC (two must fail); c5 races
  // four sells of 40 % of its tokens (two must fail).
  const ops = [];
  for (let i = 0; i < 20; i++) {
    const u = users[i % 4];
    const kind = (i + Math.floor(i / 4)) % 4; // each of c0..c3 does all four kinds
    if (kind === 0) ops.push([u, 'buy', { usdcAmount: '3.5' }]);
    else if (kind === 1) ops.push([u, 'sell', { tokenAmount: 100 }]);
    else if (kind === 2) ops.push([u, 'buy', { tokenAmount: 150 }]);
    else ops.push([u, 'sell', { tokenAmount: '120.5' }]);
  }
  for (let i = 0; i < 4; i++) ops.push(['c4', 'buy', { usdcAmount: 30 }]);
  const share = text((start.c5.tokens * 2n) / 5n);
  for (let i = 0; i < 4; i++) ops.push(['c5', 'sell', { tokenAmount: share }]);
  // While they run, an observer reads the token again and again: every read is a whole state
  // (conserved), and the pool always holds what its curve needs.
  let running = true;
  let reads = 0;
  const observer = (async () => {
    while (running) {
      assertSolvent(poolOf(await assertConserved(m, tok.address)), `read ${reads}:`);
      reads++;
    }
  })();
  const results = await Promise.all(ops.map(([u, side, body]) =>
    call('POST', `/holder/${u}/${side}`, { key: m.secretKey, body: { tokenAddress: tok.address, ...body } })));
  running = false;
  await observer;
  assert.ok(reads >= 1);

  const answers = []; // [user, side, body, answer]
  results.forEach((r, i) => {
    const [u, side, body] = ops[i];
    if (u === 'c4' || u === 'c5') {
      assert.ok(r.status === 200 || r.status === 422, r.text);
      if (r.status === 422) {
        assert.equal(r.json.code, 'insufficient_balance', r.text);
        return;
      }
    } else {
      assert.equal(r.status, 200, `${u} ${side}: ${r.text}`);
    }
    assertMovement(r.json);
    answers.push([u, side, body, exact(r)]);
  });
  assert.equal(results.slice(20, 24).filter((r) => r.status === 200).length, 2, '80 USDC pays for two buys of 30, not more');
  assert.equal(results.slice(24).filter((r) => r.status === 200).length, 2, 'two sells of 40 % of the tokens, not more');
  assert.equal(answers.length, 24);

  // The trades were made one after another: each answer is the test's v3 math on the pool the
  // one before left (found in turn: the one whose figures are the math at the current state),
  // and the last leaves the pool as it is now.
  const expected = (p_, side, body) => (side === 'sell' ? expectSell(p_, units(body.tokenAmount))
    : body.usdcAmount !== undefined ? expectBuyWith(p_, usdc(body.usdcAmount)) : expectBuyExact(p_, units(body.tokenAmount)));
  let p = p0;
  const left = [...answers];
  while (left.length) {
    const at = left.findIndex(([, side, body, a]) => {
      const e = expected(p, side, body);
      return !e.error && units(a.poolPrice) === p.price && units(a.tokenAmount) === e.tokens && usdc(a.usdcAmount) === e.usdc;
    });
    assert.ok(at >= 0, `no answer left is the pool's math at price ${p.price}: ${JSON.stringify(left.map(([u, s, , a]) => [u, s, a.poolPrice, a.tokenAmount, a.usdcAmount]))}`);
    const [, side, body, a] = left.splice(at, 1)[0];
    const e = expected(p, side, body);
    assertFigures(a, side, tok.address, p, e);
    const sign = side === 'buy' ? 1n : -1n;
    p = { ...p, ...e.after, tokens: p.tokens - sign * e.tokens, usdc: p.usdc + sign * e.usdc, price: priceOfSqrt(e.after.sqrtPriceX96, p.tokenIs0) };
  }

  if (evm()) await settled(m);
  const p1 = poolOf(await assertConserved(m, tok.address, users));
  assert.deepEqual([p1.sqrtPriceX96, p1.tick, p1.liquidity, p1.tokens, p1.usdc], [p.sqrtPriceX96, p.tick, p.liquidity, p.tokens, p.usdc], 'the pool is where the trades, in turn, left it');
  await assertPoolOnChain(p1);

  // Every holder's balances moved by exactly what its own answers said, and its history has
  // each trade once, as two confirmed records of those amounts (on anvil: the mined ones).
  let heldTokens0 = 0n; let heldUsdc0 = 0n; let heldTokens1 = 0n; let heldUsdc1 = 0n;
  for (const u of users) {
    const mine = answers.filter(([au]) => au === u);
    const delta = { tokens: 0n, usdc: 0n };
    for (const [, side, , a] of mine) {
      const sign = side === 'buy' ? 1n : -1n;
      delta.tokens += sign * units(a.tokenAmount);
      delta.usdc -= sign * usdc(a.usdcAmount);
    }
    const end = await balances(m, u, tok.address);
    assert.equal(end.tokens, start[u].tokens + delta.tokens, `${u}'s tokens`);
    assert.equal(end.usdc, start[u].usdc + delta.usdc, `${u}'s USDC`);
    assert.ok(end.tokens >= 0n && end.usdc >= 0n);
    if (evm()) {
      assert.equal(await balanceOf(w.chain.rpcUrl, tok.address, addresses.get(`${m.id}/${u}`)), end.tokens, `${u}'s tokens on chain`);
      assert.equal(await balanceOf(w.chain.rpcUrl, w.chain.usdc, addresses.get(`${m.id}/${u}`)), end.usdc, `${u}'s USDC on chain`);
    }
    heldTokens0 += start[u].tokens; heldUsdc0 += start[u].usdc;
    heldTokens1 += end.tokens; heldUsdc1 += end.usdc;
    const h = await req('GET', `/holder/${u}/transactions?limit=100`, { key: m.secretKey });
    const recs = h.data.filter((r) => r.type === 'buy' || r.type === 'sell').slice(0, 2 * mine.length);
    const byTrade = new Map();
    for (const r of recs) {
      assert.equal(r.chainStatus, 'confirmed', JSON.stringify(r));
      const key = r.transactionHash;
      if (!byTrade.has(key)) byTrade.set(key, { side: r.type, context: r.context });
      const x = byTrade.get(key);
      if (r.tokenAddress === USDC) x.usdc = usdc(r.amount);
      else x.tokens = units(r.amount);
    }
    const got = [...byTrade.values()].map((x) => `${x.side}/${x.context}/${x.tokens}/${x.usdc}`).sort();
    const want = mine.map(([, side, , a]) => `${side}/${side === 'buy' ? 'Buy' : 'Sell'}/${units(a.tokenAmount)}/${usdc(a.usdcAmount)}`).sort();
    assert.deepEqual(got, want, `${u}: each trade once, two records, the answer's amounts`);
  }
  // No unit lost or made: holders + pool hold what they held before, in tokens and in USDC.
  assert.equal(heldTokens1 + p1.tokens, heldTokens0 + p0.tokens, 'tokens');
  assert.equal(heldUsdc1 + p1.usdc, heldUsdc0 + p0.usdc, 'USDC');
  assert.equal(p1.virt, p0.virt);
  const s0 = assertSolvent(p0);
  const s1 = assertSolvent(p1);
  assert.ok(s1.tokens > s0.tokens && s1.usdc > s0.usdc, 'the fees stayed in the pool');
  assert.equal(p1.price, priceOfSqrt(p1.sqrtPriceX96, p1.tokenIs0));
});

// ---- the real chain ------------------------------------------------------------------------

test('an outside trader swaps through Uniswap\'s SwapRouter: the API\'s price follows, the ledger\'s reserves still reconcile, and holders trade on from there',
  { skip: TEST_CHAIN !== 'anvil' && 'needs a real chain (TOKENPAD_TEST_CHAIN=anvil)' }, async () => {
    const m = await newMerchant('Outside');
    const tok = await lpToken(m, 'OUT');
    await opened(m, tok, '0.01', '100000');
    await holder(m, 'ivy', 200);
    await trade(m, tok.address, 'ivy', 'buy', { usdcAmount: 50 });
    await settled(m);

    const trader = DEV_ACCOUNTS[3]; // an anvil dev account with ETH, outside the custody
    const rpcUrl = w.chain.rpcUrl;
    await mintUsdc(rpcUrl, w.chain.usdc, trader.address, 100n * 10n ** 6n);
    await send(rpcUrl, { address: w.chain.usdc, abi: ERC20_ABI, functionName: 'approve', args: [w.chain.swapRouter, 100n * 10n ** 6n], account: trader, gas: 1_000_000n });
    const swapOutside = async (tokenIn, tokenOut, amountIn, amountOutMinimum) => {
      const deadline = (await latestTimestamp(rpcUrl)) + 600n;
      return send(rpcUrl, {
        address: w.chain.swapRouter, abi: ROUTER_ABI, functionName: 'exactInputSingle', account: trader, gas: 1_000_000n,
        args: [{ tokenIn, tokenOut, fee: FEE, recipient: trader.address, deadline, amountIn, amountOutMinimum, sqrtPriceLimitX96: 0n }],
      });
    };
    /**
     * Waits until the API's pool shows an outside swap `e` from pool `p` (its Swap log moves the
     * state, its Transfer logs the reserves); the token read. Times out naming what it saw.
     */
    const followed = async (p, e, isBuy) => {
      const sign = isBuy ? 1n : -1n;
      const want = [e.after.sqrtPriceX96, p.tokens - sign * e.tokens, p.usdc + sign * e.usdc];
      const deadline = Date.now() + 30_000;
      for (;;) {
        const t = await tokenRead(m, tok.address);
        const seen = poolOf(t);
        if (seen.sqrtPriceX96 === want[0] && seen.tokens === want[1] && seen.usdc === want[2]) return t;
        if (Date.now() > deadline) {
          assert.fail(`the ledger did not follow the outside swap in 30 s: it shows ${[seen.sqrtPriceX96, seen.tokens, seen.usdc]}, the chain did ${want}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    // 1. The trader buys with 40 USDC: exactly what the test's math and QuoterV2 say.
    let p = poolOf(await tokenRead(m, tok.address));
    const e1 = expectBuyWith(p, 40n * 10n ** 6n);
    await assertQuoterAgrees(tok.address, true, true, 40n * 10n ** 6n, e1);
    await swapOutside(w.chain.usdc, tok.address, 40n * 10n ** 6n, e1.tokens);
    assert.equal(await balanceOf(rpcUrl, tok.address, trader.address), e1.tokens);
    let t = await followed(p, e1, true);
    let after_ = poolOf(t);
    assertPoolAfter(after_, p, e1, true);
    assert.equal(units(t.price), priceOfSqrt(e1.after.sqrtPriceX96, p.tokenIs0), 'the API\'s price is the pool\'s after the outside swap');
    assert.ok(units(t.price) > p.price);
    // The trader is now a holder of record (an outside address); supply is conserved.
    const row = t.holders.find((h) => h.address === trader.address);
    assert.ok(row, JSON.stringify(t.holders));
    assert.equal(units(row.balance), e1.tokens);
    await assertConserved(m, tok.address);
    await assertPoolOnChain(after_);

    // 2. The trader sells half back for USDC: the pool pays out of its reserve.
    await send(rpcUrl, { address: tok.address, abi: ERC20_ABI, functionName: 'approve', args: [w.chain.swapRouter, e1.tokens], account: trader, gas: 1_000_000n });
    p = after_;
    const e2 = expectSell(p, e1.tokens / 2n);
    await assertQuoterAgrees(tok.address, false, true, e1.tokens / 2n, e2);
    const usdcBefore = await balanceOf(rpcUrl, w.chain.usdc, trader.address);
    await swapOutside(tok.address, w.chain.usdc, e1.tokens / 2n, e2.usdc);
    assert.equal(await balanceOf(rpcUrl, w.chain.usdc, trader.address), usdcBefore + e2.usdc);
    t = await followed(p, e2, false);
    after_ = poolOf(t);
    assertPoolAfter(after_, p, e2, false);
    assert.equal(units(t.price), after_.price);
    assert.ok(after_.price < p.price);
    assert.equal(units(t.holders.find((h) => h.address === trader.address).balance), e1.tokens - e1.tokens / 2n);
    await assertConserved(m, tok.address);
    await assertPoolOnChain(after_);

    // 3. Holders trade on from the pool as the outside trader left it: quoted and mined alike.
    await trade(m, tok.address, 'ivy', 'buy', { tokenAmount: 321 });
    await trade(m, tok.address, 'ivy', 'sell', { tokenAmount: 1000 });

    // 4. Ledger and chain agree, reserves and pool state included.
    const r = await c.reconciled(m);
    const mine = r.pools.find((x) => x.tokenAddress === tok.address);
    assert.ok(mine, JSON.stringify(r.pools));
    assert.equal(mine.matches, true, JSON.stringify(mine));
    assert.deepEqual(mine.ledger, mine.chain);
  });

test('the ledger reconciles with the chain: zero differences, every pool\'s state matching (the embedded chain is the ledger itself)', async (t) => {
  // On a chain, trades were seen booked and pending before they were mined (so trade()'s
  // checks of that state ran), then final.
  t.diagnostic(`${trades} trades checked one by one, ${seenPending} of them seen pending`);
  if (evm()) assert.ok(seenPending > 0, 'no trade was seen before it was mined');
  const reports = await c.reconcileAll();
  let pools = 0;
  for (const r of reports) {
    assert.deepEqual(r.differences, []);
    for (const x of r.pools) {
      assert.equal(x.matches, true, `${x.symbol}'s pool: ${JSON.stringify(x)}`);
      assert.deepEqual(x.ledger, x.chain);
      pools++;
    }
  }
  if (evm()) assert.ok(pools >= 7, `${pools} pools compared`);
  else assert.equal(pools, 0);
});
