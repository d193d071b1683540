// Metal's SDK README flow and the calls public apps written for Metal make, each as such an app
// sends it (the same path, method, headers and body shape: JSON bodies with string or number
// amounts, extra fields Metal ignores, a Content-Type and no body, keys as they put them),
// against the real worker in workerd. Each passes, but for the deliberate refusals at the end,
// which docs/metal.md documents (a secret key in a URL; a withdrawal without `toAddress`).
// Every answer is checked against openapi.json and is never a 5xx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';

let w;
const { call, ok, fails, newMerchant, advance } = checkedClient(() => w);
const EXT = '0x3333333333333333333333333333333333333333';
const JSON_CT = { 'content-type': 'application/json' };

let M;
before(async () => {
  w = await startWorker();
  M = await newMerchant('Metal app');
});
after(async () => {
  await w?.stop();
});

/** `createToken` as apps call it (fields they leave undefined are not sent), then its status until success. */
async function createToken(body) {
  const job = ok(await call('POST', '/merchant/create-token', { key: M.secretKey, body }), 201);
  for (let i = 0; i < 40; i++) {
    const s = ok(await call('GET', `/merchant/create-token/status/${job.jobId}`, { key: M.secretKey }));
    if (s.status === 'success') return s.data;
    await advance(2);
  }
  assert.fail(`job ${job.jobId} did not finish`);
}

test('Metal\'s SDK README flow: createToken({ name, symbol }), createLP, then buy and sell', async () => {
  // Nothing but name and symbol: canLP is on by default (docs/wire-decisions.md).
  const t = await createToken({ name: 'My Token', symbol: 'MTK' });
  assert.equal(t.canLP, true);
  const lp = ok(await call('POST', `/token/${t.address}/liquidity`, {
    key: M.secretKey, body: { tokenAddress: t.address, initialStartingPrice: '0.01' },
  }), 201);
  assert.equal(lp.status, 'success');
  // The pool opens at the usable tick nearest the asked price (ticks 60 apart: within 0.3 %).
  assert.ok(Math.abs(lp.data.price - 0.01) <= 0.01 * 0.003, `opening price ${lp.data.price}`);
  const h = ok(await call('PUT', '/holder/sdk-trader', { key: M.secretKey }), 201);
  ok(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: h.address, usdcAmount: 100 } }));
  const bought = ok(await call('POST', '/holder/sdk-trader/buy', { key: M.secretKey, body: { tokenAddress: t.address, usdcAmount: 20 } }));
  const sold = ok(await call('POST', '/holder/sdk-trader/sell', { key: M.secretKey, body: { tokenAddress: t.address, tokenAmount: 500 } }));
  assert.deepEqual([bought.side, sold.side], ['buy', 'sell']);
  assert.ok(Number(bought.tokenAmount) > 0 && Number(sold.usdcAmount) > 0);
});

test('public apps: create a token with canDistribute / canLP left undefined, open its pool with no body, buy and sell', async () => {
  // createToken({ name, symbol, merchantAddress, canDistribute, canLP }) with the two flags
  // undefined, then createLiquidity(address): a POST with a Content-Type and no body.
  const t = await createToken({ name: 'App Token', symbol: 'APP', merchantAddress: EXT });
  assert.deepEqual([t.canDistribute, t.canLP, t.merchantAddress], [true, true, EXT]);
  const lp = ok(await call('POST', `/token/${t.address}/liquidity`, { key: M.secretKey, headers: JSON_CT }), 201);
  // No price given and none yet: the default starting valuation, $10,000 for the whole supply.
  // The pool opens at the usable tick nearest that price (within 0.3 %).
  assert.ok(Math.abs(lp.data.price - 0.00001) <= 0.00001 * 0.003, `opening price ${lp.data.price}`);
  assert.equal(lp.pool.tokenReserve, 800000000);
  const h = ok(await call('PUT', '/holder/app-trader', { key: M.secretKey, headers: JSON_CT }), 201);
  ok(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: h.address, usdcAmount: 50 } }));
  // Buy an exact number of tokens, with a swapFeeBps tokenpad ignores (it charges no platform
  // fee); sell them back.
  const bought = ok(await call('POST', '/holder/app-trader/buy', {
    key: M.secretKey, body: { tokenAddress: t.address, tokenAmount: 100000, swapFeeBps: 100 },
  }));
  assert.equal(bought.tokenAmount, 100000);
  const sold = ok(await call('POST', '/holder/app-trader/sell', { key: M.secretKey, body: { tokenAddress: t.address, tokenAmount: 100000 } }));
  assert.ok(sold.usdcAmount < bought.usdcAmount, 'the round trip costs the fee');
  // A pool opened with an amount only (a Next.js route forwarding { amount }).
  const t2 = await createToken({ name: 'Amount Only', symbol: 'AMT' });
  const lp2 = ok(await call('POST', `/token/${t2.address}/liquidity`, { key: M.secretKey, body: { amount: 1000000 } }), 201);
  assert.equal(lp2.pool.tokenReserve, 1000000);
});

test('public apps: holders, rewards, reads, spends and withdrawals, as they send them', async () => {
  const t = await createToken({ name: 'Reward', symbol: 'RWD', canDistribute: true });
  // PUT /holder/:id with a Content-Type and no body; a wallet address as the userId, with a
  // body Metal ignores.
  const alice = ok(await call('PUT', '/holder/alice', { key: M.secretKey, headers: JSON_CT }), 201);
  const wallet = '0x4444444444444444444444444444444444444444';
  const byWallet = ok(await call('PUT', `/holder/${wallet}`, {
    key: M.secretKey, body: { tokens: [{ address: t.address, balance: 0 }] },
  }), 201);
  assert.equal(byWallet.id, wallet);
  // distribute: { sendTo (an address), amount as a string }, { sendToAddress, amount: Number(..) }, { sendToId, amount }.
  ok(await call('POST', `/token/${t.address}/distribute`, { key: M.secretKey, body: { sendTo: `${alice.address}`, amount: '10' } }));
  ok(await call('POST', `/token/${t.address}/distribute`, { key: M.secretKey, body: { sendToAddress: alice.address, amount: Number('100') } }));
  ok(await call('POST', `/token/${t.address}/distribute`, { key: M.secretKey, body: { sendToId: 'alice', amount: 15 } }));
  // Reads: the holder with ?publicKey= and the secret key in the header; a balance by the
  // holder's address with the secret key; the token with the secret key.
  const h = ok(await call('GET', `/holder/alice?publicKey=${M.publicKey}`, { key: M.secretKey }));
  assert.equal(h.tokens.find((x) => x.address === t.address).balance, 125);
  const b = ok(await call('GET', `/holder/${alice.address}/token/${t.address}`, { key: M.secretKey }));
  assert.equal(b.balance, 125);
  const tok = ok(await call('GET', `/token/${t.address}`, { key: M.secretKey }));
  assert.equal(tok.holders[0].address, alice.address);
  // spend: the amount as a template string, and as a product of floats (3 x 0.1).
  ok(await call('POST', '/holder/alice/spend', { key: M.secretKey, body: { tokenAddress: `${t.address}`, amount: `${5}` } }));
  ok(await call('POST', '/holder/alice/spend', { key: M.secretKey, body: { tokenAddress: t.address, amount: 3 * 0.1 } }));
  // withdraw: { tokenAddress, amount, toAddress }.
  ok(await call('POST', '/holder/alice/withdraw', { key: M.secretKey, body: { tokenAddress: t.address, amount: 10, toAddress: EXT } }));
  const after_ = ok(await call('GET', `/holder/alice/token/${t.address}`, { key: M.publicKey }));
  assert.equal(after_.balance, 125 - 5 - 0.30000000000000004 - 10);
  // The job by its other route, as Metal's docs poll it.
  const job = ok(await call('POST', '/merchant/create-token', { key: M.secretKey, body: { name: 'Polled', symbol: 'POL' } }), 201);
  assert.equal(ok(await call('GET', `/jobs/${job.jobId}`, { key: M.secretKey })).jobId, job.jobId);
});

test('the deliberate refusals (docs/metal.md): a secret key in a URL; a withdrawal without toAddress', async () => {
  ok(await call('PUT', '/holder/bob', { key: M.secretKey }), 201);
  // An app that puts its secret key where the public key goes: refused, never used or echoed.
  const e = fails(await call('GET', `/holder/bob?publicKey=${M.secretKey}`), 400, 'secret_key_in_url');
  assert.ok(!e.message.includes(M.secretKey));
  // Metal's SpendRequest makes toAddress optional; a withdrawal must say where the tokens go.
  const t = await createToken({ name: 'Kept', symbol: 'KPT' });
  const x = fails(await call('POST', '/holder/bob/withdraw', { key: M.secretKey, body: { tokenAddress: t.address, amount: 1 } }), 400, 'invalid_request');
  assert.equal(x.details.field, 'toAddress');
});
