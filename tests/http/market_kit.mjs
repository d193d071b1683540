// What the markets suites (markets.test.mjs, markets_traders.test.mjs) trade and check with, on
// either chain (the embedded one, or anvil with TOKENPAD_TEST_CHAIN=anvil): the service's market
// routes, trade() that checks a trade whole, pools opened and checked against the model
// (market_model.mjs) and, on anvil, against the pool contract and the chain's QuoterV2, the
// conservation checks, and the reconciliation each suite ends with.
import assert from 'node:assert/strict';
import { until, usdcOf } from './check.mjs';
import { E30, exact, units, usdc, valueAt } from './amounts.mjs';
import { BPS, FEE, marketModel, max, min } from './market_model.mjs';
import { balanceOf, clients, read, uniswapArtifact } from '../chain/anvil.mjs';

const QUOTER_ABI = uniswapArtifact('QuoterV2').abi;
const POOL_ABI = uniswapArtifact('UniswapV3Pool').abi;
const NPM_ABI = uniswapArtifact('NonfungiblePositionManager').abi;
const UNI_FACTORY_ABI = uniswapArtifact('UniswapV3Factory').abi;

/**
 * The helpers that need the worker: `c` is the suite's checkedClient, `worker()` its worker.
 * Returns them with the suite's pool model (market_model.mjs); what trade() counts stays here,
 * for reconciledAtEnd to report.
 */
export function marketKit(c, worker) {
  const { call, advance, newToken, evm, assertMovement } = c;
  const usdcAddress = () => usdcOf(worker());
  const model = marketModel(usdcAddress);
  const { positions, poolOf, expectTrade, assertFigures, assertPoolAfter, checkTokenOnlyPool } = model;

  // ---- the chain (TOKENPAD_TEST_CHAIN=anvil) -----------------------------------------------------

  /** What QuoterV2 says: the amount out of an exact input, or the amount in of an exact output. */
  async function quoterSays(token, buy, exactIn, amount) {
    const w = worker();
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
    const w = worker();
    return { tokens: await balanceOf(w.chain.rpcUrl, token, pool.address ?? pool), usdc: await balanceOf(w.chain.rpcUrl, w.chain.usdc, pool.address ?? pool) };
  }
  /** The pool contract's slot0 price and tick and its active liquidity. */
  async function poolState(address) {
    const w = worker();
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

  // ---- service helpers -------------------------------------------------------------------------

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
      await req('POST', '/admin/faucet', { adminKey: worker().adminKey, body: { address: r.json.address, usdcAmount, merchantId: m.id } });
    }
    return r.json;
  }
  /** A holder's active and locked balance of `tokenAddress` and its USDC, in base units. */
  async function balances(m, userId, tokenAddress) {
    const t = await req('GET', `/holder/${userId}/token/${tokenAddress}`, { key: m.publicKey });
    const u = await req('GET', `/holder/${userId}/token/${usdcAddress()}`, { key: m.publicKey });
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

  /** On anvil: the pool contract, the position NFT locked in the market contract, and the reserves. */
  async function checkPoolOnChain(t) {
    if (!evm()) return;
    const w = worker();
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
    const tokenLeg = legs.find((r) => r.tokenAddress !== usdcAddress());
    const usdcLeg = legs.find((r) => r.tokenAddress === usdcAddress());
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
    const w = worker();
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

  /**
   * The suite's last test: every merchant it made reconciled, ledger and chain, and every pool
   * it opened compared with the pool contract (the embedded chain is the ledger itself: no pool
   * to compare). Each markets suite ends with it.
   */
  async function reconciledAtEnd(t) {
    // On a chain, trades were seen booked and pending before they were mined (so trade()'s
    // checks of that state ran), then final.
    t.diagnostic(`${trades} trades checked one by one, ${seenPending} of them seen pending`);
    if (evm()) assert.ok(seenPending > 0, 'no trade was seen before it was mined');
    const { reports, pools } = await c.reconcilePools();
    t.diagnostic(`${reports.length} merchants reconciled, ${pools} pools compared (the suite opened ${positions.size})`);
    if (evm()) assert.ok(pools >= positions.size, `${pools} pools compared, ${positions.size} opened by the suite`);
    else assert.equal(pools, 0);
  }

  return {
    ...model, assertQuoterAgrees, assertPoolOnChain, req, tokenRead, addresses, holder, balances, buy, sell, quote, openPool,
    openedPool, checkPoolOnChain, assertConserved, snapshot, trade, lpToken, opened, deployed, reconciledAtEnd,
  };
}
