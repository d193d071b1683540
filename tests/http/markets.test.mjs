// Markets against the real worker in workerd: opening a token's Uniswap v3 pool (0.3 % tier),
// buying and selling in it with quotes and slippage bounds, the exact v3 amounts (recomputed
// here with BigInt, ./market_model.mjs on ./v3.mjs), the price, history, conservation with the
// pool's reserves, bad input, and the refusals where there is no pool or it cannot pay.
// markets_traders.test.mjs has the rest: round trips, the pools a memecoin deployment and a
// presale launch open, simultaneous trades on one pool, and an outside trader.
//
// It runs on both chains. On the embedded one the ledger's pool is the pool. With
// TOKENPAD_TEST_CHAIN=anvil the pool is the real Uniswap v3 contract: every figure is also
// compared with the chain's QuoterV2, each trade is waited for until mined (the ledger books
// the worst the holder accepted, then tops up to the mined amounts), the pool contract's
// balances must move by exactly what the holder paid and received, and the suite ends with
// ledger and chain reconciled, pools included. Every response is checked against openapi.json
// and must never be a 5xx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startWorker } from './harness.mjs';
import { checkedClient, usdcOf } from './check.mjs';
import { exact, text, units, usdc, valueAt } from './amounts.mjs';
import { BPS, priceOfSqrt } from './market_model.mjs';
import { marketKit } from './market_kit.mjs';
import { rpc } from '../chain/anvil.mjs';

let w;
const c = checkedClient(() => w);
const { call, fails, newMerchant, newToken, evm, settled } = c;
const {
  poolOf, expectBuyWith, expectBuyExact, expectSell, assertSolvent, assertFigures, checkTokenOnlyPool, assertQuoterAgrees,
  req, tokenRead, holder, balances, buy, sell, quote, openPool, openedPool, checkPoolOnChain, assertConserved, snapshot,
  trade, lpToken, opened, reconciledAtEnd,
} = marketKit(c, () => w);

let USDC; // the USDC the worker reports balances under (the chain's on an EVM chain)
const MISSING_TOKEN = `0x${'0'.repeat(39)}7`;

let M; // the merchant of the main market
let T; // its token, whose pool opens with 100,000 tokens at $0.01
before(async () => {
  w = await startWorker();
  USDC = usdcOf(w);
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

test('events: each trade\'s trade.executed event says what its answer said (its figures and what the ledger booked)', async () => {
  const answers = [];
  for (const [side, body] of [['buy', { usdcAmount: 4 }], ['sell', { tokenAmount: 50 }], ['buy', { tokenAmount: '12.5' }]]) {
    const r = await call('POST', `/holder/ben/${side}`, { key: M.secretKey, body: { tokenAddress: T.address, ...body } });
    assert.equal(r.status, 200, r.text);
    answers.push(exact(r));
  }
  // Read exactly (amounts are JSON numbers with more digits than a double holds).
  const page = await call('GET', '/merchant/events?types=trade.executed&limit=100', { key: M.secretKey });
  assert.equal(page.status, 200, page.text);
  const all = exact(page);
  assert.equal(all.has_more, false);
  const events = all.data.slice(-3);
  events.forEach((e, n) => {
    assert.equal(e.data.userId, 'ben');
    assert.equal(e.resource, `token:${T.address}`);
    const { transactionHash: _h, chainStatus: _c, blockNumber: _b, ...said } = answers[n];
    const { transactionHash: _eh, chainStatus: _ec, blockNumber: _eb, ...told } = e.data.object;
    assert.deepEqual(told, said, `event ${e.id}`);
  });
  await settled(M); // on a chain: mined and topped up before the next test reads balances
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

test('the ledger reconciles with the chain: zero differences, every pool\'s state matching (the embedded chain is the ledger itself)', reconciledAtEnd);
