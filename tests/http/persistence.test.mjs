// Persistence: everything survives a restart of workerd on the same state directory — balances,
// tokens, history, idempotency records, keys, the clock offset, and a token job that was
// still pending when the process stopped (contract §5-§7, §10).
// Every response is checked against openapi.json and must never be a 5xx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';

let w;
const { seen, call, checked, ok, fails, newMerchant, advance, newToken, offset } = checkedClient(() => w);

let M;
let T;
const snap = {}; // what the service answered before the restart
const IDEM = 'persist-key-1';
const spendBody = () => ({ tokenAddress: T.address, amount: 1.25 });
let pendingJob; // submitted just before the restart
let offsetBefore;

before(async () => {
  w = await startWorker();
});
after(async () => {
  await w?.stop();
});

async function snapshot() {
  return {
    token: ok(await call('GET', `/token/${T.address}?holdersLimit=1000`, { key: M.publicKey })),
    all: ok(await call('GET', '/merchant/all-tokens', { key: M.secretKey })),
    alice: ok(await call('GET', '/holder/alice', { key: M.publicKey })),
    bob: ok(await call('GET', '/holder/bob', { key: M.publicKey })),
    aliceBal: ok(await call('GET', `/holder/alice/token/${T.address}`, { key: M.secretKey })),
    aliceHist: ok(await call('GET', '/holder/alice/transactions?limit=200', { key: M.secretKey })),
    bobHist: ok(await call('GET', '/holder/bob/transactions?limit=200', { key: M.secretKey })),
  };
}

test('build state: merchant, token, holders, balances, history, an idempotency record', async () => {
  M = await newMerchant('Persistent');
  T = await newToken(M, { name: 'Persist', symbol: 'PER', totalSupply: 1000 });
  const alice = ok(await call('PUT', '/holder/alice', { key: M.secretKey }), 201);
  const bob = ok(await call('PUT', '/holder/bob', { key: M.secretKey }), 201);
  ok(await call('POST', `/token/${T.address}/distribute`, { key: M.secretKey, body: { amount: 40, sendToId: 'alice' } }));
  ok(await call('POST', `/token/${T.address}/distribute`, { key: M.secretKey, body: { amount: '0.1', sendToAddress: bob.address } }));
  ok(await call('POST', '/holder/alice/transfer', { key: M.secretKey, body: { tokenAddress: T.address, amount: 5, toAddress: bob.address } }));
  ok(await call('POST', '/holder/alice/withdraw', { key: M.secretKey, body: { tokenAddress: T.address, amount: 2, toAddress: `0x${'5'.repeat(40)}` } }));
  ok(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: alice.address, usdcAmount: 9.99 } }));
  const r = await call('POST', '/holder/alice/spend', { key: M.secretKey, body: spendBody(), headers: { 'Idempotency-Key': IDEM } });
  snap.idem = ok(r);
  Object.assign(snap, await snapshot());
  assert.equal(snap.aliceBal.balance, 31.75);
  assert.equal(snap.aliceHist.data.length, 5);
  offsetBefore = (await advance(60)).offsetSeconds;
  // A job whose deployment is mined while the process is down.
  pendingJob = ok(await call('POST', '/merchant/create-token', { key: M.secretKey, body: { name: 'Late', symbol: 'LATE' } }), 201).jobId;
});

test('restart: the same state directory, a new process', async () => {
  await w.restart();
  ok(await call('GET', '/health'));
});

test('a token job submitted just before the restart completes after it (first request after the restart)', async () => {
  let job;
  for (let i = 0; i < 40; i++) {
    job = ok(await call('GET', `/merchant/create-token/status/${pendingJob}`, { key: M.secretKey }));
    if (job.status !== 'pending') break;
    await sleep(250); // real time only: no time travel here
  }
  assert.equal(job.status, 'success', JSON.stringify(job));
  assert.equal(job.data.symbol, 'LATE');
  const list = ok(await call('GET', '/merchant/all-tokens', { key: M.secretKey }));
  assert.deepEqual(list.map((t) => t.symbol), ['PER', 'LATE']);
});

test('every balance, the token, the lists and the history are still there', async () => {
  const now = await snapshot();
  // The pending job may have finished by now; compare it separately.
  now.all = now.all.filter((t) => t.symbol !== 'LATE');
  for (const k of ['token', 'alice', 'bob', 'aliceBal', 'aliceHist', 'bobHist']) assert.deepEqual(now[k], snap[k], k);
  assert.deepEqual(now.all, snap.all);
  const usdc = now.alice.tokens.find((t) => t.symbol === 'USDC');
  assert.equal(usdc.balance, 9.99);
});

test('the idempotent request replays after the restart and changes nothing', async () => {
  const r = await call('POST', '/holder/alice/spend', { key: M.secretKey, body: spendBody(), headers: { 'Idempotency-Key': IDEM } });
  assert.deepEqual(ok(r), snap.idem);
  assert.equal(r.headers.get('idempotent-replayed'), 'true');
  fails(await call('POST', '/holder/alice/spend', {
    key: M.secretKey, body: { ...spendBody(), amount: 2 }, headers: { 'Idempotency-Key': IDEM },
  }), 409, 'idempotency_key_reused');
  assert.equal(ok(await call('GET', `/holder/alice/token/${T.address}`, { key: M.publicKey })).balance, 31.75);
});

test('the same keys still work, and the ledger keeps going', async () => {
  ok(await call('GET', `/token/${T.address}?publicKey=${M.publicKey}`));
  ok(await call('POST', '/holder/bob/spend', { key: M.secretKey, body: { tokenAddress: T.address, amount: 0.1 } }));
  assert.equal(ok(await call('GET', `/holder/bob/token/${T.address}`, { key: M.publicKey })).balance, 5);
  const created = ok(await call('PUT', '/holder/carol', { key: M.secretKey }), 201);
  assert.equal(ok(await call('PUT', '/holder/alice', { key: M.secretKey }), 200).address, snap.alice.address);
  assert.notEqual(created.address, snap.alice.address);
  const other = await newMerchant('After restart');
  ok(await call('GET', '/merchant/all-tokens', { key: other.secretKey }));
  const t = ok(await call('GET', `/token/${T.address}?holdersLimit=1000`, { key: M.secretKey }));
  const held = t.holders.reduce((s, h) => s + h.balance, 0);
  assert.equal(t.totalSupply, t.remainingAppSupply + t.merchantSupply + t.liquiditySupply + held);
});

test('the service clock offset survives the restart', async () => {
  const r = await advance(1);
  assert.equal(r.offsetSeconds, offsetBefore + 1);
});

test('no response in this file had a status >= 500', () => {
  assert.ok(seen.length > 30, `only ${seen.length} responses seen`);
  assert.deepEqual(seen.filter((s) => s.status >= 500), []);
});
