// Concurrency (no overdraft under parallel requests) and cross-merchant isolation
// (contract §1: another merchant's resource is answered 404 exactly as if it did not exist).
// Every response is checked against openapi.json and must never be a 5xx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';

let w;
const { seen, call, checked, ok, fails, newMerchant, advance, newToken, offset } = checkedClient(() => w);

let A;
let B;
let TA; // A's token, totalSupply 1000
let TB; // B's token
let jobA; // a finished job of A
let aliceA; // A's holder 'alice'

async function assertConserved(m, address) {
  const t = ok(await call('GET', `/token/${address}?holdersLimit=1000`, { key: m.secretKey }));
  assert.equal(t.holders.length, t.holdersCount);
  const held = t.holders.reduce((s, h) => s + h.balance, 0);
  assert.equal(t.totalSupply, t.remainingAppSupply + t.merchantSupply + t.liquiditySupply + held, JSON.stringify(t));
  return t;
}

before(async () => {
  w = await startWorker();
  A = await newMerchant('Conc A');
  B = await newMerchant('Conc B');
  TA = await newToken(A, { name: 'Conc A', symbol: 'CA', totalSupply: 1000 });
  TB = await newToken(B, { name: 'Conc B', symbol: 'CB', totalSupply: 1000 });
  jobA = ok(await call('POST', '/merchant/create-token', { key: A.secretKey, body: { name: 'Job A', symbol: 'JA' } }), 201).jobId;
  aliceA = ok(await call('PUT', '/holder/alice', { key: A.secretKey }), 201);
});
after(async () => {
  await w?.stop();
});

test('30 concurrent spends of 1 against a balance of exactly 10: 10 succeed, 20 are 422', async () => {
  ok(await call('PUT', '/holder/racer', { key: A.secretKey }), 201);
  ok(await call('POST', `/token/${TA.address}/distribute`, { key: A.secretKey, body: { amount: 10, sendToId: 'racer' } }));
  const before_ = await assertConserved(A, TA.address);
  const rs = await Promise.all(Array.from({ length: 30 }, () =>
    call('POST', '/holder/racer/spend', { key: A.secretKey, body: { tokenAddress: TA.address, amount: 1 } })));
  const okCount = rs.filter((r) => r.status === 200).length;
  const refused = rs.filter((r) => r.status === 422);
  assert.equal(okCount, 10, rs.map((r) => r.status).join(','));
  assert.equal(refused.length, 20);
  for (const r of refused) fails(r, 422, 'insufficient_balance');
  assert.equal(new Set(rs.filter((r) => r.status === 200).map((r) => r.json.transactionHash)).size, 10);
  assert.equal(ok(await call('GET', `/holder/racer/token/${TA.address}`, { key: A.publicKey })).balance, 0);
  const t = await assertConserved(A, TA.address);
  assert.equal(t.merchantSupply, before_.merchantSupply + 10);
  assert.ok(!t.holders.some((h) => h.id === 'racer'), 'an emptied holder leaves the holders list');
  const h = ok(await call('GET', '/holder/racer/transactions?limit=200', { key: A.secretKey }));
  assert.equal(h.data.filter((r) => r.type === 'spend').length, 10);
});

test('concurrent transfers between two holders never create or lose tokens', async () => {
  ok(await call('PUT', '/holder/ping', { key: A.secretKey }), 201);
  ok(await call('PUT', '/holder/pong', { key: A.secretKey }), 201);
  const addr = {
    ping: ok(await call('GET', '/holder/ping', { key: A.publicKey })).address,
    pong: ok(await call('GET', '/holder/pong', { key: A.publicKey })).address,
  };
  ok(await call('POST', `/token/${TA.address}/distribute`, { key: A.secretKey, body: { amount: 5, sendToId: 'ping' } }));
  ok(await call('POST', `/token/${TA.address}/distribute`, { key: A.secretKey, body: { amount: 5, sendToId: 'pong' } }));
  const rs = await Promise.all(Array.from({ length: 24 }, (_, i) => {
    const [from, to] = i % 2 ? ['ping', 'pong'] : ['pong', 'ping'];
    return call('POST', `/holder/${from}/transfer`, { key: A.secretKey, body: { tokenAddress: TA.address, amount: 2, toAddress: addr[to] } });
  }));
  for (const r of rs) if (r.status !== 200) fails(r, 422, 'insufficient_balance');
  const ping = ok(await call('GET', `/holder/ping/token/${TA.address}`, { key: A.publicKey })).balance;
  const pong = ok(await call('GET', `/holder/pong/token/${TA.address}`, { key: A.publicKey })).balance;
  assert.equal(ping + pong, 10);
  assert.ok(ping >= 0 && pong >= 0);
  await assertConserved(A, TA.address);
});

test('concurrent distributions never exceed the app supply', async () => {
  const t = await newToken(A, { name: 'Small', symbol: 'SM', totalSupply: 100 }); // app supply 15
  ok(await call('PUT', '/holder/greedy', { key: A.secretKey }), 201);
  const rs = await Promise.all(Array.from({ length: 20 }, () =>
    call('POST', `/token/${t.address}/distribute`, { key: A.secretKey, body: { amount: 1, sendToId: 'greedy' } })));
  assert.equal(rs.filter((r) => r.status === 200).length, 15);
  for (const r of rs.filter((x) => x.status !== 200)) fails(r, 422, 'insufficient_app_supply');
  const after_ = await assertConserved(A, t.address);
  assert.equal(after_.remainingAppSupply, 0);
  assert.equal(ok(await call('GET', `/holder/greedy/token/${t.address}`, { key: A.publicKey })).balance, 15);
});

test("B's keys cannot see A's token: 404 token_not_found", async () => {
  for (const key of [B.secretKey, B.publicKey]) {
    fails(await call('GET', `/token/${TA.address}`, { key }), 404, 'token_not_found');
    fails(await call('GET', `/holder/${aliceA.address}/token/${TA.address}`, { key }), 404, 'token_not_found');
  }
  fails(await call('GET', `/token/${TA.address}?publicKey=${B.publicKey}`), 404, 'token_not_found');
  fails(await call('PATCH', `/merchant/token/${TA.address}`, { key: B.secretKey, body: { canDistribute: false } }), 404, 'token_not_found');
  assert.ok(!ok(await call('GET', '/merchant/all-tokens', { key: B.secretKey })).some((t) => t.address === TA.address));
  // And the 404 is the same as for a token that exists nowhere.
  const nowhere = fails(await call('GET', `/token/0x${'0'.repeat(39)}3`, { key: B.publicKey }), 404, 'token_not_found');
  const theirs = fails(await call('GET', `/token/${TA.address}`, { key: B.publicKey }), 404, 'token_not_found');
  assert.deepEqual(Object.keys(theirs).sort(), Object.keys(nowhere).sort());
  assert.equal(ok(await call('GET', `/token/${TA.address}`, { key: A.publicKey })).canDistribute, true);
});

test("B's keys cannot see A's holders: 404 holder_not_found", async () => {
  fails(await call('GET', '/holder/alice', { key: B.publicKey }), 404, 'holder_not_found');
  fails(await call('GET', '/holder/alice', { key: B.secretKey }), 404, 'holder_not_found');
  fails(await call('GET', '/holder/alice/transactions', { key: B.secretKey }), 404, 'holder_not_found');
  fails(await call('GET', `/holder/alice/token/${TB.address}`, { key: B.publicKey }), 404, 'holder_not_found');
  fails(await call('POST', '/holder/alice/spend', { key: B.secretKey, body: { tokenAddress: TB.address, amount: 1 } }), 404, 'holder_not_found');
  fails(await call('POST', `/token/${TB.address}/distribute`, { key: B.secretKey, body: { amount: 1, sendToId: 'alice' } }), 404, 'holder_not_found');
  fails(await call('POST', `/token/${TB.address}/distribute`, { key: B.secretKey, body: { amount: 1, sendToAddress: aliceA.address } }),
    404, 'holder_not_found');
  // The same userId under B is B's own, new holder with its own wallet.
  const aliceB = ok(await call('PUT', '/holder/alice', { key: B.secretKey }), 201);
  assert.notEqual(aliceB.address.toLowerCase(), aliceA.address.toLowerCase());
  assert.equal(ok(await call('GET', '/holder/alice', { key: A.publicKey })).address, aliceA.address);
});

test("B's keys cannot see A's jobs: 404 job_not_found", async () => {
  fails(await call('GET', `/jobs/${jobA}`, { key: B.secretKey }), 404, 'job_not_found');
  fails(await call('GET', `/merchant/create-token/status/${jobA}`, { key: B.secretKey }), 404, 'job_not_found');
  ok(await call('GET', `/jobs/${jobA}`, { key: A.secretKey }));
});

test("B cannot distribute, spend or move A's token", async () => {
  ok(await call('PUT', '/holder/bob', { key: B.secretKey }), 201);
  const before_ = ok(await call('GET', `/token/${TA.address}`, { key: A.secretKey }));
  fails(await call('POST', `/token/${TA.address}/distribute`, { key: B.secretKey, body: { amount: 1, sendToId: 'bob' } }), 404, 'token_not_found');
  fails(await call('POST', `/token/${TA.address.toLowerCase()}/distribute`, { key: B.secretKey, body: { amount: 1, sendToId: 'bob' } }),
    404, 'token_not_found');
  for (const kind of ['spend', 'transfer', 'withdraw']) {
    fails(await call('POST', `/holder/bob/${kind}`, { key: B.secretKey, body: { tokenAddress: TA.address, amount: 1, toAddress: aliceA.address } }),
      404, 'token_not_found');
  }
  assert.deepEqual(ok(await call('GET', `/token/${TA.address}`, { key: A.secretKey })), before_);
});

test("keys name their merchant: A's key always reads A, B's always B", async () => {
  // The same path answers each merchant's own resource.
  ok(await call('PUT', '/holder/same', { key: A.secretKey }), 201);
  ok(await call('PUT', '/holder/same', { key: B.secretKey }), 201);
  const a = ok(await call('GET', '/holder/same', { key: A.publicKey }));
  const b = ok(await call('GET', '/holder/same', { key: B.publicKey }));
  assert.notEqual(a.address, b.address);
  // Mixing one merchant's id with the other's secret part is no key at all.
  fails(await call('GET', '/holder/same', { key: `pk_${B.id}_${A.publicKey.split('_')[2]}` }), 401, 'invalid_api_key');
  fails(await call('GET', '/merchant/all-tokens', { key: `sk_${A.id}_${B.secretKey.split('_')[2]}` }), 401, 'invalid_api_key');
  // A's public key in the query with B's secret key in the header: the query decides (A).
  assert.equal(ok(await call('GET', `/holder/same?publicKey=${A.publicKey}`, { key: B.secretKey })).address, a.address);
});

test('faucet with merchantId reaches only that merchant', async () => {
  fails(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: aliceA.address, usdcAmount: 1, merchantId: B.id } }),
    404, 'holder_not_found');
  ok(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: aliceA.address, usdcAmount: 1, merchantId: A.id } }));
  ok(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: aliceA.address, usdcAmount: 1 } }));
  const usdc = ok(await call('GET', '/holder/alice', { key: A.publicKey })).tokens.find((t) => t.symbol === 'USDC');
  assert.equal(usdc.balance, 2);
  assert.ok(!ok(await call('GET', '/holder/alice', { key: B.publicKey })).tokens.some((t) => t.symbol === 'USDC'));
});

test('no response in this file had a status >= 500', () => {
  assert.ok(seen.length > 100, `only ${seen.length} responses seen`);
  assert.deepEqual(seen.filter((s) => s.status >= 500), []);
});
