// Markets against the real worker in workerd (issue 9): opening a token's liquidity pool,
// buying and selling from it with quotes and slippage bounds, the exact constant-product
// amounts (recomputed here with BigInt), history, conservation with the pool's reserves, the
// pools a memecoin deployment and a presale launch open, and simultaneous trades on one pool.
// Every response is checked against openapi.json and must never be a 5xx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';

let w;
const { call, fails, newMerchant, advance, newToken } = checkedClient(() => w);

const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const IMAGE = 'https://example.com/market.png';
const MISSING_TOKEN = `0x${'0'.repeat(39)}7`;
const E30 = 10n ** 30n;
const BPS = 10_000n;
const FEE_BPS = 30n; // Uniswap's 0.3 %

// ---- exact numbers ---------------------------------------------------------------------------

/** The JSON body with every number kept as its exact text (JSON.parse would round past 2^53). */
function exact(r) {
  return JSON.parse(r.text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g,
    (m) => (m[0] === '"' ? m : `"${m}"`)));
}

/** A wire amount (number text or decimal string) in base units of `decimals`, exactly. */
function units(n, decimals = 18) {
  const s = String(n).toLowerCase();
  const [mant, exp = '0'] = s.split('e');
  const neg = mant.startsWith('-');
  const [int, frac = ''] = mant.replace('-', '').split('.');
  const shift = decimals - frac.length + Number(exp);
  let digits = BigInt(int + frac);
  if (shift >= 0) digits *= 10n ** BigInt(shift);
  else {
    const div = 10n ** BigInt(-shift);
    assert.equal(digits % div, 0n, `${s} has more than ${decimals} decimals`);
    digits /= div;
  }
  return neg ? -digits : digits;
}
const usdc = (n) => units(n, 6);
/** Base units as the decimal text a request can carry. */
function text(u, decimals = 18) {
  const s = u.toString().padStart(decimals + 1, '0');
  const frac = s.slice(-decimals).replace(/0+$/, '');
  return s.slice(0, -decimals) + (frac ? `.${frac}` : '');
}

// ---- the constant product, as the service must compute it ----------------------------------

/** floor(in x (1 - fee) x reserveOut / (reserveIn + in x (1 - fee))). */
function outGivenIn(amountIn, reserveIn, reserveOut) {
  const withFee = amountIn * (BPS - FEE_BPS);
  return (withFee * reserveOut) / (reserveIn * BPS + withFee);
}
/** The least amount in that gets `amountOut` out: ceil(reserveIn x out / ((reserveOut - out) x (1 - fee))). */
function inGivenOut(amountOut, reserveIn, reserveOut) {
  const num = reserveIn * BPS * amountOut;
  const den = (reserveOut - amountOut) * (BPS - FEE_BPS);
  return (num + den - 1n) / den;
}
/** USD per whole token (18 decimals) at which `tokens` base units cost `u` USDC base units. */
const priceOf = (u, tokens) => (u * E30) / tokens;
/** The fee: what `in x (1 - fee)` floored leaves out. */
const feeOf = (amountIn) => amountIn - (amountIn * (BPS - FEE_BPS)) / BPS;
/** The value in micro-USD of `balance` base units at `price`. */
const valueAt = (balance, price) => (balance * price) / E30;

/** The pool of a token read (exact body), in base units. */
function poolOf(t) {
  assert.ok(t.pool, `the token has no pool: ${JSON.stringify(t)}`);
  const p = {
    tokens: units(t.pool.tokenReserve),
    usdc: usdc(t.pool.usdcReserve),
    virt: usdc(t.pool.virtualUsdcReserve),
    price: units(t.pool.price),
  };
  p.curve = p.usdc + p.virt;
  p.k = p.tokens * p.curve;
  return p;
}

/** What a trade must do to pool `p`: { tokens, usdc, fee, after } with after = { tokens, usdc, virt }. */
function expectBuyWith(p, u) {
  const tokens = outGivenIn(u, p.curve, p.tokens);
  return { tokens, usdc: u, fee: feeOf(u), after: { tokens: p.tokens - tokens, usdc: p.usdc + u, virt: p.virt } };
}
function expectBuyExact(p, n) {
  const u = inGivenOut(n, p.curve, p.tokens);
  // The least USDC that buys n: one unit less buys fewer.
  assert.ok(outGivenIn(u, p.curve, p.tokens) >= n && outGivenIn(u - 1n, p.curve, p.tokens) < n);
  return { tokens: n, usdc: u, fee: feeOf(u), after: { tokens: p.tokens - n, usdc: p.usdc + u, virt: p.virt } };
}
function expectSell(p, n) {
  const u = outGivenIn(n, p.tokens, p.curve);
  return { tokens: n, usdc: u, fee: feeOf(n), after: { tokens: p.tokens + n, usdc: p.usdc - u, virt: p.virt } };
}

/** A trade's or quote's figures (exact body) equal the expected trade on pool `p`. */
function assertFigures(body, side, tokenAddress, p, e) {
  assert.equal(body.side, side);
  assert.equal(body.tokenAddress, tokenAddress);
  assert.equal(units(body.tokenAmount), e.tokens, 'tokenAmount');
  assert.equal(usdc(body.usdcAmount), e.usdc, 'usdcAmount');
  assert.equal(side === 'buy' ? usdc(body.fee) : units(body.fee), e.fee, 'fee');
  const avg = priceOf(e.usdc, e.tokens);
  assert.equal(units(body.price), avg, 'price (average, fee included)');
  assert.equal(units(body.poolPrice), p.price, 'poolPrice');
  assert.equal(units(body.poolPriceAfter), priceOf(e.after.usdc + e.after.virt, e.after.tokens), 'poolPriceAfter');
  const diff = avg > p.price ? avg - p.price : p.price - avg;
  assert.equal(units(body.priceImpact, 6), (diff * 100_000_000n) / p.price, 'priceImpact (percent)');
}

// ---- service helpers -----------------------------------------------------------------------

async function req(method, path, opts, status = 200) {
  const r = await call(method, path, opts);
  assert.equal(r.status, status, `${method} ${path}: expected ${status}, got ${r.status}: ${r.text}`);
  return exact(r);
}
const tokenRead = (m, address) => req('GET', `/token/${address}?holdersLimit=1000`, { key: m.secretKey });
async function holder(m, userId, usdcAmount = 0) {
  const r = await call('PUT', `/holder/${userId}`, { key: m.secretKey });
  assert.ok([200, 201].includes(r.status), r.text);
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

/** A token of `m` with canLP on: 1,000,000 (app 150,000, merchant 50,000, liquidity 800,000). */
const lpToken = (m, symbol, over = {}) => newToken(m, { name: `${symbol} token`, symbol, totalSupply: 1000000, canLP: true, ...over });

let M; // the merchant of the main market
let T; // its token, whose pool opens with 100,000 tokens at $0.01
before(async () => {
  w = await startWorker();
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

test('liquidity: amount and initialStartingPrice open the pool (201); the token read shows it; a second call is 409 pool_exists', async () => {
  const r = await openPool(M, T.address, { initialStartingPrice: '0.01', amount: 100000 });
  assert.equal(r.status, 201, r.text);
  const b = exact(r);
  assert.equal(b.success, true);
  assert.equal(b.status, 'success');
  assert.equal(b.tokenAddress, T.address);
  assert.deepEqual(b.pool, {
    address: b.pool.address,
    tokenReserve: '100000',
    usdcReserve: '0',
    virtualUsdcReserve: '1000', // 100,000 x $0.01: the price support, never paid out
    price: '0.01',
    fee: '0.3',
    lpInfo: b.lpInfo,
  });
  assert.match(b.pool.address, /^0x[0-9a-fA-F]{40}$/);
  assert.notEqual(b.pool.address.toLowerCase(), T.address.toLowerCase());
  assert.deepEqual(b.lpInfo, { nftId: b.lpInfo.nftId, liquidityPoolAddress: b.pool.address });
  assert.match(b.lpInfo.nftId, /^[0-9]+$/);
  assert.deepEqual(b.data.pool, b.pool);
  assert.equal(b.data.liquiditySupply, '700000');
  assert.equal(b.data.price, '0.01');

  const t = await assertConserved(M, T.address, []);
  assert.deepEqual(t.pool, b.pool);
  assert.equal(t.price, '0.01');
  // The public read shows it too.
  const pub = await req('GET', `/token/${T.address}?publicKey=${M.publicKey}`, {});
  assert.deepEqual(pub.pool, b.pool);

  const again = fails(await openPool(M, T.address, { initialStartingPrice: '0.02', amount: 1 }), 409, 'pool_exists');
  assert.match(again.message, /already has a liquidity pool/);
  fails(await openPool(M, T.address, {}), 409, 'pool_exists');
  assert.deepEqual(await tokenRead(M, T.address), t);
});

test('liquidity: without amount the pool takes the whole reserve (a number price works too)', async () => {
  const m = await newMerchant('Whole reserve');
  const tok = await lpToken(m, 'WHL');
  const b = await req('POST', `/token/${tok.address}/liquidity`, { key: m.secretKey, body: { initialStartingPrice: 0.002 } }, 201);
  assert.equal(b.pool.tokenReserve, '800000');
  assert.equal(b.pool.virtualUsdcReserve, '1600');
  assert.equal(b.pool.usdcReserve, '0');
  assert.equal(b.pool.price, '0.002');
  const t = await assertConserved(m, tok.address, []);
  assert.equal(t.liquiditySupply, '0');
  assert.equal(t.price, '0.002');
  // An empty reserve cannot open a second pool either way.
  fails(await openPool(m, tok.address, { initialStartingPrice: 1 }), 409, 'pool_exists');
});

// ---- trading -------------------------------------------------------------------------------

test('quotes by GET with query parameters give the constant-product figures and change nothing', async () => {
  const before_ = await snapshot(M, T.address, ['ann', 'ben']);
  const p = poolOf(await tokenRead(M, T.address));
  const byUsdc = await req('GET', `/holder/ann/buy/quote?tokenAddress=${T.address}&usdcAmount=20`, { key: M.secretKey });
  assertFigures(byUsdc, 'buy', T.address, p, expectBuyWith(p, usdc(20)));
  assert.equal(byUsdc.success, undefined, 'a quote is not a trade');
  assert.equal(byUsdc.transactionHash, undefined);
  const byTokens = await req('GET', `/holder/ann/buy/quote?tokenAddress=${T.address.toLowerCase()}&tokenAmount=1234.5`, { key: M.secretKey });
  assertFigures(byTokens, 'buy', T.address, p, expectBuyExact(p, units('1234.5')));
  // No USDC paid in yet: a sell quote cannot be paid (only buyers' USDC is paid out).
  fails(await quote(M, 'ann', 'sell', { tokenAddress: T.address, tokenAmount: 1 }), 422, 'insufficient_liquidity');
  // Asking does not need the money: ben's quote for more than he holds is fine.
  const big = await req('GET', `/holder/ben/buy/quote?tokenAddress=${T.address}&usdcAmount=5000`, { key: M.secretKey });
  assertFigures(big, 'buy', T.address, p, expectBuyWith(p, usdc(5000)));
  assert.equal(await snapshot(M, T.address, ['ann', 'ben']), before_);
});

test('buy by usdcAmount, buy an exact tokenAmount, sell: exact amounts, balances, reserves, conservation', async () => {
  // 1. ann spends 20 USDC.
  let p = poolOf(await tokenRead(M, T.address));
  let ann = await balances(M, 'ann', T.address);
  let e = expectBuyWith(p, usdc(20));
  const q = await req('GET', `/holder/ann/buy/quote?tokenAddress=${T.address}&usdcAmount=20`, { key: M.secretKey });
  const b1 = await req('POST', '/holder/ann/buy', { key: M.secretKey, body: { tokenAddress: T.address, usdcAmount: 20 } });
  assert.equal(b1.success, true);
  assert.match(b1.transactionHash, /^0x[0-9a-f]{64}$/);
  assertFigures(b1, 'buy', T.address, p, e);
  assert.equal(b1.chainStatus, 'confirmed');
  const { success: _s, transactionHash: _h, chainStatus: _c, blockNumber: _b, ...figures } = b1;
  assert.deepEqual(figures, q, 'the trade is what the quote said');
  let now = await balances(M, 'ann', T.address);
  assert.equal(now.tokens, ann.tokens + e.tokens);
  assert.equal(now.usdc, ann.usdc - usdc(20));
  let t = await assertConserved(M, T.address, ['ann']);
  let after_ = poolOf(t);
  assert.deepEqual([after_.tokens, after_.usdc, after_.virt], [e.after.tokens, e.after.usdc, e.after.virt]);
  assert.ok(after_.k >= p.k, 'k never decreases');

  // 2. ben buys exactly 1,500.25 tokens (a decimal string), paying the least USDC that does it.
  p = after_;
  const ben = await balances(M, 'ben', T.address);
  e = expectBuyExact(p, units('1500.25'));
  const b2 = await req('POST', '/holder/ben/buy', { key: M.secretKey, body: { tokenAddress: T.address, tokenAmount: '1500.25' } });
  assertFigures(b2, 'buy', T.address, p, e);
  now = await balances(M, 'ben', T.address);
  assert.equal(now.tokens, ben.tokens + units('1500.25'));
  assert.equal(now.usdc, ben.usdc - e.usdc);
  t = await assertConserved(M, T.address, ['ann', 'ben']);
  after_ = poolOf(t);
  assert.deepEqual([after_.tokens, after_.usdc], [e.after.tokens, e.after.usdc]);
  assert.ok(after_.k >= p.k);

  // 3. ann sells 300 tokens: the USDC out is floored.
  p = after_;
  ann = await balances(M, 'ann', T.address);
  e = expectSell(p, units(300));
  const sq = await req('GET', `/holder/ann/sell/quote?tokenAddress=${T.address}&tokenAmount=300`, { key: M.secretKey });
  assertFigures(sq, 'sell', T.address, p, e);
  const s1 = await req('POST', '/holder/ann/sell', { key: M.secretKey, body: { tokenAddress: T.address, tokenAmount: 300 } });
  assertFigures(s1, 'sell', T.address, p, e);
  assert.equal(s1.fee, '0.9', '0.3 % of the 300 tokens that came in');
  now = await balances(M, 'ann', T.address);
  assert.equal(now.tokens, ann.tokens - units(300));
  assert.equal(now.usdc, ann.usdc + e.usdc);
  t = await assertConserved(M, T.address, ['ann', 'ben']);
  after_ = poolOf(t);
  assert.deepEqual([after_.tokens, after_.usdc], [e.after.tokens, e.after.usdc]);
  assert.ok(after_.k >= p.k);
  assert.equal(after_.usdc, usdc(20) + usdc(b2.usdcAmount) - e.usdc, 'the pool holds what buyers paid in minus what the seller got');
});

test('the token price is the pool price, and every USD value uses it', async () => {
  const t = await tokenRead(M, T.address);
  const p = poolOf(t);
  assert.equal(p.price, priceOf(p.curve, p.tokens));
  assert.equal(units(t.price), p.price);
  assert.notEqual(t.price, '0.01', 'the trades moved it');
  for (const h of t.holders) assert.equal(usdc(h.value), valueAt(units(h.balance), p.price), `${h.id}'s value on the token`);
  for (const u of ['ann', 'ben']) {
    const one = await req('GET', `/holder/${u}/token/${T.address}`, { key: M.publicKey });
    assert.equal(usdc(one.value), valueAt(units(one.balance), p.price));
    const full = await req('GET', `/holder/${u}?publicKey=${M.publicKey}`, {});
    const item = full.tokens.find((x) => x.address === T.address);
    assert.equal(usdc(item.value), valueAt(units(item.balance), p.price));
    const cash = full.tokens.find((x) => x.symbol === 'USDC');
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
  assert.notEqual(buyTok.id, buyUsdc.id);
  // Buy: tokens from the pool to ann, USDC from ann to the pool.
  assert.deepEqual([buyTok.tokenAddress, buyTok.symbol, buyTok.from, buyTok.to], [T.address, 'MKT', pool, ann]);
  assert.deepEqual([buyUsdc.tokenAddress, buyUsdc.symbol, buyUsdc.from, buyUsdc.to, buyUsdc.amount], [USDC, 'USDC', ann, pool, '20']);
  // Sell: the other way round.
  assert.deepEqual([sellTok.from, sellTok.to, sellTok.amount], [ann, pool, '300']);
  assert.deepEqual([sellUsdc.tokenAddress, sellUsdc.from, sellUsdc.to], [USDC, pool, ann]);
  assert.ok(usdc(sellUsdc.amount) > 0n);
});

test('slippage: minAmountOut, maxAmountIn and slippageBps refuse with 422 slippage_exceeded and change nothing; the bound itself passes', async () => {
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
  assertFigures(await req('POST', '/holder/ann/buy', { key: M.secretKey, body: { tokenAddress: T.address, usdcAmount: 5, minAmountOut: text(e.tokens) } }), 'buy', T.address, p, e);

  // Buy an exact tokenAmount with maxAmountIn: one USDC unit less than it costs is refused.
  p = poolOf(await tokenRead(M, T.address));
  e = expectBuyExact(p, units(100));
  snap = await snapshot(M, T.address, users);
  const tooCheap = await refused(await buy(M, 'ann', { tokenAddress: T.address, tokenAmount: 100, maxAmountIn: text(e.usdc - 1n, 6) }));
  assert.equal(usdc(tooCheap.details.usdcAmount), e.usdc);
  assert.equal(await snapshot(M, T.address, users), snap);
  assertFigures(await req('POST', '/holder/ann/buy', { key: M.secretKey, body: { tokenAddress: T.address, tokenAmount: 100, maxAmountIn: text(e.usdc, 6) } }), 'buy', T.address, p, e);

  // Sell with minAmountOut.
  p = poolOf(await tokenRead(M, T.address));
  e = expectSell(p, units(50));
  snap = await snapshot(M, T.address, users);
  await refused(await sell(M, 'ann', { tokenAddress: T.address, tokenAmount: 50, minAmountOut: text(e.usdc + 1n, 6) }));
  assert.equal(await snapshot(M, T.address, users), snap);
  assertFigures(await req('POST', '/holder/ann/sell', { key: M.secretKey, body: { tokenAddress: T.address, tokenAmount: 50, minAmountOut: text(e.usdc, 6) } }), 'sell', T.address, p, e);

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
  assertFigures(await req('POST', '/holder/ben/buy', { key: M.secretKey, body: { tokenAddress: T.address, usdcAmount: 30, slippageBps: Number(need) } }), 'buy', T.address, p, e);

  p = poolOf(await tokenRead(M, T.address));
  e = expectSell(p, units(1000));
  const needSell = bpsSell(p, e);
  assert.ok(needSell > 30n && needSell < 1000n, `bps ${needSell}`);
  snap = await snapshot(M, T.address, users);
  for (const bps of [0, Number(needSell) - 1]) await refused(await sell(M, 'ben', { tokenAddress: T.address, tokenAmount: 1000, slippageBps: bps }));
  assert.equal(await snapshot(M, T.address, users), snap);
  assertFigures(await req('POST', '/holder/ben/sell', { key: M.secretKey, body: { tokenAddress: T.address, tokenAmount: 1000, slippageBps: Number(needSell) } }), 'sell', T.address, p, e);
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
  await req('POST', `/token/${tok.address}/liquidity`, { key: m.secretKey, body: { initialStartingPrice: 1, amount: 1000 } }, 201);
  await holder(m, 'dee', 100);
  await holder(m, 'eve', 5000);
  await req('POST', `/token/${tok.address}/distribute`, { key: m.secretKey, body: { amount: 500, sendToId: 'dee' } });
  const users = ['dee', 'eve'];
  let snap = await snapshot(m, tok.address, users);
  // No USDC in the pool: nothing can be sold to it, though dee holds the tokens.
  fails(await sell(m, 'dee', { tokenAddress: tok.address, tokenAmount: 1 }), 422, 'insufficient_liquidity');
  // Every token of the pool, or more: refused.
  fails(await buy(m, 'eve', { tokenAddress: tok.address, tokenAmount: 1000 }), 422, 'insufficient_liquidity');
  fails(await buy(m, 'eve', { tokenAddress: tok.address, tokenAmount: 1001 }), 422, 'insufficient_liquidity');
  fails(await quote(m, 'eve', 'buy', { tokenAddress: tok.address, tokenAmount: '1000' }), 422, 'insufficient_liquidity');
  // More USDC or tokens than the holder has.
  fails(await buy(m, 'dee', { tokenAddress: tok.address, usdcAmount: '100.000001' }), 422, 'insufficient_balance');
  fails(await sell(m, 'eve', { tokenAddress: tok.address, tokenAmount: 1 }), 422, 'insufficient_balance');
  assert.equal(await snapshot(m, tok.address, users), snap);

  // dee buys with 10 USDC; the pool holds 10 USDC, so selling tokens worth more than that is refused.
  let p = poolOf(await tokenRead(m, tok.address));
  const bought = expectBuyWith(p, usdc(10));
  assertFigures(await req('POST', '/holder/dee/buy', { key: m.secretKey, body: { tokenAddress: tok.address, usdcAmount: 10 } }), 'buy', tok.address, p, bought);
  p = poolOf(await tokenRead(m, tok.address));
  assert.equal(p.usdc, usdc(10));
  snap = await snapshot(m, tok.address, users);
  assert.ok(outGivenIn(units(20), p.tokens, p.curve) > usdc(10), '20 tokens are worth more than 10 USDC here');
  const e = fails(await sell(m, 'dee', { tokenAddress: tok.address, tokenAmount: 20 }), 422, 'insufficient_liquidity');
  assert.match(e.message, /cannot pay/);
  fails(await quote(m, 'dee', 'sell', { tokenAddress: tok.address, tokenAmount: 20 }), 422, 'insufficient_liquidity');
  assert.equal(await snapshot(m, tok.address, users), snap);
  // What a buyer got back sells for less than it cost (the fee stays in the pool).
  const back = expectSell(p, bought.tokens);
  assert.ok(back.usdc < usdc(10));
  assertFigures(await req('POST', '/holder/dee/sell', { key: m.secretKey, body: { tokenAddress: tok.address, tokenAmount: text(bought.tokens) } }), 'sell', tok.address, p, back);
  const dee = await balances(m, 'dee', tok.address);
  assert.equal(dee.usdc, usdc(100) - usdc(10) + back.usdc);
  assert.equal(dee.tokens, units(500));
  const after_ = poolOf(await assertConserved(m, tok.address, ['dee']));
  assert.equal(after_.usdc, usdc(10) - back.usdc);
  assert.ok(after_.k >= p.k);
});

test('a buy followed by a sell of the same tokens never ends with more USDC (round trips of varied sizes)', async () => {
  const m = await newMerchant('Round trips');
  const tok = await lpToken(m, 'RND');
  await req('POST', `/token/${tok.address}/liquidity`, { key: m.secretKey, body: { initialStartingPrice: '0.05', amount: 200000 } }, 201);
  await holder(m, 'seed', 1000);
  await holder(m, 'fox', 1000);
  await req('POST', '/holder/seed/buy', { key: m.secretKey, body: { tokenAddress: tok.address, usdcAmount: 500 } });
  let k = poolOf(await tokenRead(m, tok.address)).k;
  for (const amount of ['0.000002', '0.5', '7.123457', '99.99', '250']) {
    const before_ = await balances(m, 'fox', tok.address);
    const b = await req('POST', '/holder/fox/buy', { key: m.secretKey, body: { tokenAddress: tok.address, usdcAmount: amount } });
    const s = await req('POST', '/holder/fox/sell', { key: m.secretKey, body: { tokenAddress: tok.address, tokenAmount: b.tokenAmount } });
    const after_ = await balances(m, 'fox', tok.address);
    assert.equal(after_.tokens, before_.tokens);
    assert.ok(after_.usdc < before_.usdc, `round trip of ${amount} USDC: ${before_.usdc} -> ${after_.usdc}`);
    assert.equal(after_.usdc, before_.usdc - usdc(amount) + usdc(s.usdcAmount));
    const k2 = poolOf(await tokenRead(m, tok.address)).k;
    assert.ok(k2 > k, 'the fee makes k grow');
    k = k2;
  }
  // The smallest buy gets tokens, but selling them back would pay nothing: refused (400
  // invalid_amount), never rounded up in the seller's favour; the tokens stay.
  const tiny = await req('POST', '/holder/fox/buy', { key: m.secretKey, body: { tokenAddress: tok.address, usdcAmount: '0.000001' } });
  assert.ok(units(tiny.tokenAmount) > 0n);
  const snap = await snapshot(m, tok.address, ['fox']);
  const e = fails(await sell(m, 'fox', { tokenAddress: tok.address, tokenAmount: tiny.tokenAmount }), 400, 'invalid_amount');
  assert.match(e.message, /too small/);
  fails(await quote(m, 'fox', 'sell', { tokenAddress: tok.address, tokenAmount: '0.000000000000000001' }), 400, 'invalid_amount');
  assert.equal(await snapshot(m, tok.address, ['fox']), snap);
  await assertConserved(m, tok.address, ['seed', 'fox']);
});

// ---- pools opened at launch ----------------------------------------------------------------

test('a memecoin deployment opens its pool at initialPrice; with noLp there is none', async () => {
  const m = await newMerchant('Memecoins');
  const recipient = '0x' + 'ab'.repeat(20);
  const deploy = async (body) => {
    const d = await req('POST', '/template/memecoin', { key: m.secretKey, body: {
      name: 'Meme', symbol: 'MEME', totalSupply: 1000000, initialPrice: 0.0001, network: 'base', marketplace: false,
      recipient: { address: recipient, supply: 100000 }, ...body,
    } }, 201);
    await advance(5);
    const s = await req('GET', `/template/memecoin/status/${d.id}`, { key: m.secretKey });
    assert.equal(s.data.status, 'success', JSON.stringify(s));
    return s.data.tokenAddress;
  };
  const meme = await deploy({});
  const t = await tokenRead(m, meme);
  assert.deepEqual(t.pool, {
    address: t.pool.address, tokenReserve: '900000', usdcReserve: '0', virtualUsdcReserve: '90',
    price: '0.0001', fee: '0.3', lpInfo: t.pool.lpInfo,
  });
  assert.equal(t.liquiditySupply, '0');
  assert.equal(t.price, '0.0001');
  await assertConserved(m, meme);
  // Tradable at once.
  await holder(m, 'gus', 10);
  const p = poolOf(t);
  assertFigures(await req('POST', '/holder/gus/buy', { key: m.secretKey, body: { tokenAddress: meme, usdcAmount: 1 } }), 'buy', meme, p, expectBuyWith(p, usdc(1)));
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

test('a presale launch opens a pool with the raised USDC at the presale price; locked tokens cannot be sold', async () => {
  const m = await newMerchant('Presale market');
  for (const u of ['pa', 'pb', 'pc']) await holder(m, u, 100);
  await holder(m, 'late', 100);
  const clock = await req('GET', '/admin/time', { adminKey: w.adminKey });
  const now = Number(clock.nowUnix);
  const p = await req('POST', '/merchant/presale', { key: m.secretKey, body: {
    name: 'Market launch', description: 'A presale that launches into a pool', startTimestamp: now - 10,
    endTimestamp: now + 3600, targetUsdcAmount: 90, lockDuration: 7,
    tokenInfo: { name: 'Launch', symbol: 'LNCH', imageUrl: IMAGE },
  } }, 201);
  for (const u of ['pa', 'pb', 'pc']) await req('POST', `/holder/${u}/buy-presale`, { key: m.secretKey, body: { presaleId: p.id, usdcAmount: 30 } });
  await advance(30);
  const s = await req('GET', `/merchant/presale/${p.id}`, { key: m.secretKey });
  assert.equal(s.completionState.step, 'completed');
  const address = s.tokenDeploymentInfo.tokenAddress;
  const bought = BigInt(s.tokenDeploymentInfo.amountTokensBought);

  const t = await assertConserved(m, address, ['pa', 'pb', 'pc']);
  const pool = poolOf(t);
  assert.equal(pool.tokens, bought, 'the pool holds as many tokens as the buyers bought');
  assert.equal(pool.usdc, usdc(90), 'and the raised USDC');
  assert.equal(pool.virt, 0n, 'no virtual reserve: the raise itself backs the price');
  assert.equal(pool.price, priceOf(usdc(90), bought));
  assert.equal(units(t.price), pool.price);
  const pub = await req('GET', `/token/${address}?publicKey=${m.publicKey}`, {});
  assert.deepEqual(pub.pool, t.pool);

  // pa's tokens are all locked: selling any is 422 tokens_locked, and nothing moves.
  const pa = await balances(m, 'pa', address);
  assert.equal(pa.tokens, 0n);
  assert.ok(pa.locked > 0n);
  const snap = await snapshot(m, address, ['pa', 'late']);
  fails(await sell(m, 'pa', { tokenAddress: address, tokenAmount: 1 }), 422, 'tokens_locked');
  fails(await sell(m, 'pa', { tokenAddress: address, tokenAmount: text(pa.locked) }), 422, 'tokens_locked');
  assert.equal(await snapshot(m, address, ['pa', 'late']), snap);

  // Someone who buys from the pool can sell those (active) tokens, and only those.
  const e = expectBuyWith(pool, usdc(9));
  assertFigures(await req('POST', '/holder/late/buy', { key: m.secretKey, body: { tokenAddress: address, usdcAmount: 9 } }), 'buy', address, pool, e);
  // pa buys too: now pa can sell the bought ones but not one unit more (the rest is locked).
  await req('POST', '/holder/pa/buy', { key: m.secretKey, body: { tokenAddress: address, usdcAmount: 3 } });
  const pa2 = await balances(m, 'pa', address);
  fails(await sell(m, 'pa', { tokenAddress: address, tokenAmount: text(pa2.tokens + 1n) }), 422, 'tokens_locked');
  await req('POST', '/holder/pa/sell', { key: m.secretKey, body: { tokenAddress: address, tokenAmount: text(pa2.tokens) } });
  const pa3 = await balances(m, 'pa', address);
  assert.deepEqual([pa3.tokens, pa3.locked], [0n, pa.locked]);
  const late = await balances(m, 'late', address);
  const half = late.tokens / 2n;
  const p2 = poolOf(await tokenRead(m, address));
  assertFigures(await req('POST', '/holder/late/sell', { key: m.secretKey, body: { tokenAddress: address, tokenAmount: text(half) } }), 'sell', address, p2, expectSell(p2, half));
  await assertConserved(m, address, ['pa', 'pb', 'pc', 'late']);
  const hist = await req('GET', '/holder/late/transactions', { key: m.secretKey });
  assert.deepEqual(hist.data.filter((r) => r.symbol === 'LNCH').map((r) => `${r.type}/${r.context}`), ['sell/Sell', 'buy/Buy']);
});

// ---- concurrency ---------------------------------------------------------------------------

test('concurrency: 28 simultaneous buys and sells on one pool: no overdraw, no lost units, k never decreases', async () => {
  const m = await newMerchant('Busy market');
  const tok = await lpToken(m, 'BSY');
  await req('POST', `/token/${tok.address}/liquidity`, { key: m.secretKey, body: { initialStartingPrice: '0.01', amount: 200000 } }, 201);
  const users = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'];
  for (const u of users) {
    await holder(m, u, 100);
    await req('POST', `/holder/${u}/buy`, { key: m.secretKey, body: { tokenAddress: tok.address, usdcAmount: 20 } });
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
  // While they run, an observer reads the token again and again: every read is a whole
  // state (conserved), and k never goes down from one read to the next.
  let running = true;
  let reads = 0;
  const observer = (async () => {
    let last = p0.k;
    while (running) {
      const t = await assertConserved(m, tok.address);
      const k = poolOf(t).k;
      assert.ok(k >= last, `k went down between two reads: ${last} -> ${k}`);
      last = k;
      reads++;
    }
  })();
  const results = await Promise.all(ops.map(([u, side, body]) =>
    call('POST', `/holder/${u}/${side}`, { key: m.secretKey, body: { tokenAddress: tok.address, ...body } })));
  running = false;
  await observer;
  assert.ok(reads >= 1);

  const delta = Object.fromEntries(users.map((u) => [u, { tokens: 0n, usdc: 0n }]));
  const hashes = Object.fromEntries(users.map((u) => [u, []]));
  let okCount = 0;
  results.forEach((r, i) => {
    const [u, side] = ops[i];
    if (u === 'c4' || u === 'c5') {
      assert.ok(r.status === 200 || r.status === 422, r.text);
      if (r.status === 422) {
        assert.equal(r.json.code, 'insufficient_balance', r.text);
        return;
      }
    } else {
      assert.equal(r.status, 200, `${u} ${side}: ${r.text}`);
    }
    okCount++;
    const b = exact(r);
    const sign = side === 'buy' ? 1n : -1n;
    delta[u].tokens += sign * units(b.tokenAmount);
    delta[u].usdc -= sign * usdc(b.usdcAmount);
    hashes[u].push(b.transactionHash);
  });
  const c4ok = results.slice(20, 24).filter((r) => r.status === 200).length;
  const c5ok = results.slice(24).filter((r) => r.status === 200).length;
  assert.equal(c4ok, 2, '80 USDC pays for two buys of 30, not more');
  assert.equal(c5ok, 2, 'two sells of 40 % of the tokens, not more');
  assert.equal(okCount, 24);

  // Every holder's balances moved by exactly what its own answers said.
  let heldTokens0 = 0n; let heldUsdc0 = 0n; let heldTokens1 = 0n; let heldUsdc1 = 0n;
  for (const u of users) {
    const end = await balances(m, u, tok.address);
    assert.equal(end.tokens, start[u].tokens + delta[u].tokens, `${u}'s tokens`);
    assert.equal(end.usdc, start[u].usdc + delta[u].usdc, `${u}'s USDC`);
    assert.ok(end.tokens >= 0n && end.usdc >= 0n);
    heldTokens0 += start[u].tokens; heldUsdc0 += start[u].usdc;
    heldTokens1 += end.tokens; heldUsdc1 += end.usdc;
    // Each trade left its two records in the holder's history, once.
    const h = await req('GET', `/holder/${u}/transactions?limit=100`, { key: m.secretKey });
    for (const hash of hashes[u]) assert.equal(h.data.filter((r) => r.transactionHash === hash).length, 2, `${u} ${hash}`);
  }
  const p1 = poolOf(await assertConserved(m, tok.address, users));
  // No unit lost or made: holders + pool hold what they held before, in tokens and in USDC.
  assert.equal(heldTokens1 + p1.tokens, heldTokens0 + p0.tokens, 'tokens');
  assert.equal(heldUsdc1 + p1.usdc, heldUsdc0 + p0.usdc, 'USDC');
  assert.equal(p1.virt, p0.virt);
  assert.ok(p1.k > p0.k, `k ${p0.k} -> ${p1.k}`);
  assert.equal(p1.price, priceOf(p1.curve, p1.tokens));
});
