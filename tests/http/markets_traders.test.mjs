// Markets where many trade, against the real worker in workerd: round trips of varied sizes,
// the pools a memecoin deployment and a presale launch open and their first trades (a presale
// buyer's locked tokens cannot be sold), 28 simultaneous buys and sells on one pool, and an
// outside trader. Every trade is checked whole against the v3 amounts recomputed here with
// BigInt (./market_model.mjs on ./v3.mjs); markets.test.mjs has the market routes themselves
// (opening a pool, quotes, trades, slippage, bad input).
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
import { checkedClient, launched, usdcOf } from './check.mjs';
import * as v3 from './v3.mjs';
import { exact, priceOf, text, units, usdc } from './amounts.mjs';
import { FEE, abs, priceOfSqrt } from './market_model.mjs';
import { marketKit } from './market_kit.mjs';
import { DEV_ACCOUNTS, artifact, balanceOf, latestTimestamp, mintUsdc, send, uniswapArtifact } from '../chain/anvil.mjs';

let w;
const c = checkedClient(() => w);
const { call, fails, newMerchant, advance, evm, assertMovement, settled } = c;
const {
  positions, poolOf, expectBuyWith, expectBuyExact, expectSell, assertSolvent, assertFigures, assertPoolAfter,
  checkTokenOnlyPool, assertQuoterAgrees, assertPoolOnChain, req, tokenRead, addresses, holder, balances, buy, sell, quote,
  openPool, openedPool, checkPoolOnChain, assertConserved, snapshot, trade, lpToken, opened, deployed, reconciledAtEnd,
} = marketKit(c, () => w);

let USDC; // the USDC the worker reports balances under (the chain's on an EVM chain)
const IMAGE = 'https://example.com/market.png';
const ROUTER_ABI = uniswapArtifact('SwapRouter').abi;
const ERC20_ABI = artifact('TestUSDC').abi;

before(async () => {
  w = await startWorker();
  USDC = usdcOf(w);
});
after(async () => {
  await w?.stop();
});

// ---- round trips ---------------------------------------------------------------------------

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

test('the ledger reconciles with the chain: zero differences, every pool\'s state matching (the embedded chain is the ledger itself)', reconciledAtEnd);
