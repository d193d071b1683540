// Idempotency keys on secret-key POST/PUT/PATCH (contract §7, wire-decisions.md).
// Decisions under test: every answer of a request that started executing is recorded, a
// success or a 4xx the operation answered, and replayed; a request that failed to decode is
// not, so it can be corrected under the same key. An empty key is a 400.
// Every response is checked against openapi.json and must never be a 5xx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';

let w;
const { seen, call, checked, ok, fails, newMerchant, advance, newToken, offset, evm, reconcileAll, jobDone } = checkedClient(() => w);

let A;
let B;
let TA; // A's token, totalSupply 1000
let TB; // B's token

const idem = (key) => ({ 'Idempotency-Key': key });
let n = 0;
const freshKey = (label = 'k') => `${label}-${Date.now()}-${++n}`;

async function fund(m, token, userId, amount) {
  ok(await call('POST', `/token/${token.address}/distribute`, { key: m.secretKey, body: { amount, sendToId: userId } }));
}
async function balanceOf(m, userId, token) {
  return ok(await call('GET', `/holder/${userId}/token/${token.address}`, { key: m.publicKey })).balance;
}
async function spends(m, userId) {
  const h = ok(await call('GET', `/holder/${userId}/transactions?limit=200`, { key: m.secretKey }));
  return h.data.filter((r) => r.type === 'spend').length;
}

before(async () => {
  w = await startWorker();
  A = await newMerchant('Idem A');
  B = await newMerchant('Idem B');
  TA = await newToken(A, { name: 'Idem A', symbol: 'IA', totalSupply: 1000 });
  TB = await newToken(B, { name: 'Idem B', symbol: 'IB', totalSupply: 1000 });
  for (const u of ['u1', 'u2', 'u3', 'u4', 'poor']) ok(await call('PUT', `/holder/${u}`, { key: A.secretKey }), 201);
  ok(await call('PUT', '/holder/u1', { key: B.secretKey }), 201);
  for (const u of ['u1', 'u2', 'u3', 'u4']) await fund(A, TA, u, 20);
  await fund(B, TB, 'u1', 20);
});
after(async () => {
  // Every merchant's ledger agrees with the chain (on an EVM chain: balanceOf, once settled).
  if (w) await reconcileAll();
  await w?.stop();
});

test('same key + same request replays the first response and changes nothing', async () => {
  const key = freshKey('spend');
  const body = { tokenAddress: TA.address, amount: 1 };
  const first = await call('POST', '/holder/u1/spend', { key: A.secretKey, body, headers: idem(key) });
  const b1 = ok(first);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  for (let i = 0; i < 3; i++) {
    const again = await call('POST', '/holder/u1/spend', { key: A.secretKey, body, headers: idem(key) });
    assert.equal(again.status, first.status);
    assert.deepEqual(again.json, b1);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
  }
  // The same JSON with other key order and whitespace is the same request.
  const reordered = await call('POST', '/holder/u1/spend', {
    key: A.secretKey, rawBody: `{ "amount" : 1 ,\n "tokenAddress": "${TA.address}" }`,
    headers: { ...idem(key), 'content-type': 'application/json' },
  });
  assert.deepEqual(ok(reordered), b1);
  assert.equal(reordered.headers.get('idempotent-replayed'), 'true');
  assert.equal(await balanceOf(A, 'u1', TA), 19);
  assert.equal(await spends(A, 'u1'), 1);
  // Without a key, the same request runs again.
  const other = ok(await call('POST', '/holder/u1/spend', { key: A.secretKey, body }));
  // Another movement (on an EVM chain the answers carry no hash yet: the balances tell).
  if (!evm()) assert.notEqual(other.transactionHash, b1.transactionHash);
  assert.equal(await balanceOf(A, 'u1', TA), 18);
});

test('x-idempotency-key works too, and names the same key as Idempotency-Key', async () => {
  const key = freshKey('x');
  const body = { tokenAddress: TA.address, amount: 2, toAddress: `0x${'4'.repeat(40)}` };
  const first = ok(await call('POST', '/holder/u2/transfer', { key: A.secretKey, body, headers: { 'x-idempotency-key': key } }));
  const again = await call('POST', '/holder/u2/transfer', { key: A.secretKey, body, headers: { 'x-idempotency-key': key } });
  assert.deepEqual(ok(again), first);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  const viaStandard = await call('POST', '/holder/u2/transfer', { key: A.secretKey, body, headers: idem(key) });
  assert.deepEqual(ok(viaStandard), first);
  assert.equal(viaStandard.headers.get('idempotent-replayed'), 'true');
  assert.equal(await balanceOf(A, 'u2', TA), 18);
});

test('same key with another body, method or path: 409 idempotency_key_reused', async () => {
  const key = freshKey('reuse');
  ok(await call('POST', '/holder/u3/spend', { key: A.secretKey, body: { tokenAddress: TA.address, amount: 1 }, headers: idem(key) }));
  fails(await call('POST', '/holder/u3/spend', { key: A.secretKey, body: { tokenAddress: TA.address, amount: 2 }, headers: idem(key) }),
    409, 'idempotency_key_reused');
  fails(await call('POST', '/holder/u4/spend', { key: A.secretKey, body: { tokenAddress: TA.address, amount: 1 }, headers: idem(key) }),
    409, 'idempotency_key_reused');
  fails(await call('POST', `/token/${TA.address}/distribute`, { key: A.secretKey, body: { amount: 1, sendToId: 'u3' }, headers: idem(key) }),
    409, 'idempotency_key_reused');
  fails(await call('PUT', '/holder/u3', { key: A.secretKey, headers: idem(key) }), 409, 'idempotency_key_reused');
  fails(await call('PATCH', `/merchant/token/${TA.address}`, { key: A.secretKey, body: { canDistribute: true }, headers: idem(key) }),
    409, 'idempotency_key_reused');
  assert.equal(await balanceOf(A, 'u3', TA), 19);
  assert.equal(await balanceOf(A, 'u4', TA), 20);
});

test('keys are per merchant: B may use a key A already used', async () => {
  const key = freshKey('shared');
  const a = ok(await call('POST', '/holder/u1/spend', { key: A.secretKey, body: { tokenAddress: TA.address, amount: 1 }, headers: idem(key) }));
  const r = await call('POST', '/holder/u1/spend', { key: B.secretKey, body: { tokenAddress: TB.address, amount: 1 }, headers: idem(key) });
  const b = ok(r);
  assert.equal(r.headers.get('idempotent-replayed'), null);
  if (!evm()) assert.notEqual(b.transactionHash, a.transactionHash);
  assert.equal(b.tokenAddress, TB.address);
  assert.equal(await balanceOf(B, 'u1', TB), 19);
  // Even the identical request body under B is B's own, first request.
  const key2 = freshKey('same-body');
  ok(await call('PUT', '/holder/shared-user', { key: A.secretKey, headers: idem(key2) }), 201);
  const rb = await call('PUT', '/holder/shared-user', { key: B.secretKey, headers: idem(key2) });
  ok(rb, 201);
  assert.equal(rb.headers.get('idempotent-replayed'), null);
});

test('10 concurrent identical requests with one key debit once', async () => {
  const key = freshKey('race');
  const body = { tokenAddress: TA.address, amount: 1 };
  const before = await balanceOf(A, 'u4', TA);
  const rs = await Promise.all(Array.from({ length: 10 }, () =>
    call('POST', '/holder/u4/spend', { key: A.secretKey, body, headers: idem(key) })));
  for (const r of rs) ok(r);
  assert.equal(new Set(rs.map((r) => r.json.transactionHash)).size, 1);
  assert.equal(rs.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 9);
  assert.equal(await balanceOf(A, 'u4', TA), before - 1);
  assert.equal(await spends(A, 'u4'), 1);
});

test('key length: 1 and 255 characters are fine, 256 is 400 invalid_idempotency_key', async () => {
  const body = { tokenAddress: TA.address, amount: 1 };
  const k255 = 'k'.repeat(250) + String(++n).padStart(5, '0');
  ok(await call('POST', '/holder/u2/spend', { key: A.secretKey, body, headers: idem(k255) }));
  ok(await call('POST', '/holder/u2/spend', { key: A.secretKey, body, headers: idem(k255) }));
  ok(await call('POST', '/holder/u2/spend', { key: A.secretKey, body, headers: idem(String.fromCharCode(65 + (n % 26))) }));
  const before = await balanceOf(A, 'u2', TA);
  fails(await call('POST', '/holder/u2/spend', { key: A.secretKey, body, headers: idem('k'.repeat(256)) }), 400, 'invalid_idempotency_key');
  fails(await call('POST', '/holder/u2/spend', { key: A.secretKey, body, headers: { 'x-idempotency-key': 'x'.repeat(1000) } }),
    400, 'invalid_idempotency_key');
  fails(await call('PUT', '/holder/u2', { key: A.secretKey, headers: idem('k'.repeat(256)) }), 400, 'invalid_idempotency_key');
  assert.equal(await balanceOf(A, 'u2', TA), before);
});

test('a business refusal (4xx) is recorded and replayed: funding later does not change the answer under that key', async () => {
  const key = freshKey('refused');
  const body = { tokenAddress: TA.address, amount: 5 };
  const first = await call('POST', '/holder/poor/spend', { key: A.secretKey, body, headers: idem(key) });
  fails(first, 422, 'insufficient_balance');
  assert.equal(first.headers.get('idempotent-replayed'), null);
  await fund(A, TA, 'poor', 5);
  // The same key answers the first answer, byte for byte, and spends nothing.
  for (let i = 0; i < 2; i++) {
    const again = await call('POST', '/holder/poor/spend', { key: A.secretKey, body, headers: idem(key) });
    fails(again, 422, 'insufficient_balance');
    assert.equal(again.text, first.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
  }
  assert.equal(await balanceOf(A, 'poor', TA), 5);
  // Another request under that key is still a conflict.
  fails(await call('POST', '/holder/poor/spend', { key: A.secretKey, body: { tokenAddress: TA.address, amount: 1 }, headers: idem(key) }),
    409, 'idempotency_key_reused');
  // A new key runs it, once.
  const key2 = freshKey('funded');
  const done = ok(await call('POST', '/holder/poor/spend', { key: A.secretKey, body, headers: idem(key2) }));
  const replay = await call('POST', '/holder/poor/spend', { key: A.secretKey, body, headers: idem(key2) });
  assert.deepEqual(ok(replay), done);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(await balanceOf(A, 'poor', TA), 0);
  // Other refusals the operation answers are kept too: an unknown holder (404).
  const key3 = freshKey('nobody');
  const r404 = await call('POST', '/holder/nobody-yet/spend', { key: A.secretKey, body, headers: idem(key3) });
  fails(r404, 404, 'holder_not_found');
  ok(await call('PUT', '/holder/nobody-yet', { key: A.secretKey }), 201);
  const r404again = await call('POST', '/holder/nobody-yet/spend', { key: A.secretKey, body, headers: idem(key3) });
  fails(r404again, 404, 'holder_not_found');
  assert.equal(r404again.headers.get('idempotent-replayed'), 'true');
});

test('a request that never started executing is not recorded: a decoding 400 can be corrected under the same key', async () => {
  const key = freshKey('fix');
  fails(await call('POST', '/holder/u3/spend', { key: A.secretKey, body: { tokenAddress: TA.address, amount: 'x' }, headers: idem(key) }),
    400, 'invalid_amount');
  fails(await call('POST', '/holder/u3/spend', { key: A.secretKey, rawBody: '{"amount":1,', headers: { ...idem(key), 'content-type': 'application/json' } }),
    400, 'invalid_json');
  const r = await call('POST', '/holder/u3/spend', { key: A.secretKey, body: { tokenAddress: TA.address, amount: 1 }, headers: idem(key) });
  ok(r);
  assert.equal(r.headers.get('idempotent-replayed'), null);
  // A deployment whose fields break its cross-field rules did not start executing either.
  const key2 = freshKey('deploy-fix');
  const meme = { name: 'Fix', symbol: 'FIX', totalSupply: 100, initialPrice: 1, network: 'base', marketplace: false };
  fails(await call('POST', '/template/memecoin', {
    key: B.secretKey, body: { ...meme, recipient: { address: `0x${'5'.repeat(40)}`, amount: 1000 } }, headers: idem(key2),
  }), 400, 'allocation_exceeds_supply');
  ok(await call('POST', '/template/memecoin', { key: B.secretKey, body: meme, headers: idem(key2) }), 201);
});

test('an empty key, or two different keys, is 400 invalid_idempotency_key and changes nothing', async () => {
  const body = { tokenAddress: TA.address, amount: 1 };
  const before = await balanceOf(A, 'u2', TA);
  for (const headers of [
    { 'Idempotency-Key': '' },
    { 'Idempotency-Key': '   ' },
    { 'x-idempotency-key': '' },
    { 'Idempotency-Key': 'one', 'x-idempotency-key': 'two' },
  ]) {
    fails(await call('POST', '/holder/u2/spend', { key: A.secretKey, body, headers }), 400, 'invalid_idempotency_key');
  }
  // The same key in both headers is one key.
  const k = freshKey('both');
  ok(await call('POST', '/holder/u2/spend', { key: A.secretKey, body, headers: { 'Idempotency-Key': k, 'x-idempotency-key': k } }));
  const again = await call('POST', '/holder/u2/spend', { key: A.secretKey, body, headers: idem(k) });
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(await balanceOf(A, 'u2', TA), before - 1);
});

test('PUT, PATCH, create-token and distribute replay too', async () => {
  const kPut = freshKey('put');
  const p1 = await call('PUT', '/holder/idem-new', { key: A.secretKey, headers: idem(kPut) });
  ok(p1, 201);
  const p2 = await call('PUT', '/holder/idem-new', { key: A.secretKey, headers: idem(kPut) });
  assert.equal(p2.status, 201); // the first response, replayed
  assert.deepEqual(p2.json, p1.json);
  assert.equal(p2.headers.get('idempotent-replayed'), 'true');

  const kPatch = freshKey('patch');
  const t1 = ok(await call('PATCH', `/merchant/token/${TA.address}`, { key: A.secretKey, body: { canDistribute: true }, headers: idem(kPatch) }));
  const t2 = await call('PATCH', `/merchant/token/${TA.address}`, { key: A.secretKey, body: { canDistribute: true }, headers: idem(kPatch) });
  assert.deepEqual(ok(t2), t1);
  assert.equal(t2.headers.get('idempotent-replayed'), 'true');

  const kJob = freshKey('job');
  const before = ok(await call('GET', '/merchant/all-tokens', { key: A.secretKey })).length;
  const j1 = ok(await call('POST', '/merchant/create-token', { key: A.secretKey, body: { name: 'Once', symbol: 'ONCE' }, headers: idem(kJob) }), 201);
  const j2 = await call('POST', '/merchant/create-token', { key: A.secretKey, body: { name: 'Once', symbol: 'ONCE' }, headers: idem(kJob) });
  assert.equal(j2.status, 201);
  assert.equal(j2.json.jobId, j1.jobId);
  assert.equal(j2.headers.get('idempotent-replayed'), 'true');
  assert.equal((await jobDone(A, j1.jobId)).status, 'success');
  const list = ok(await call('GET', '/merchant/all-tokens', { key: A.secretKey }));
  assert.equal(list.length, before + 1);
  assert.equal(list.filter((t) => t.symbol === 'ONCE').length, 1);

  const kDist = freshKey('dist');
  const appBefore = ok(await call('GET', `/token/${TA.address}`, { key: A.publicKey })).remainingAppSupply;
  const d1 = ok(await call('POST', `/token/${TA.address}/distribute`, { key: A.secretKey, body: { amount: 3, sendToId: 'u3' }, headers: idem(kDist) }));
  const d2 = ok(await call('POST', `/token/${TA.address}/distribute`, { key: A.secretKey, body: { amount: 3, sendToId: 'u3' }, headers: idem(kDist) }));
  assert.deepEqual(d2, d1);
  assert.equal(ok(await call('GET', `/token/${TA.address}`, { key: A.publicKey })).remainingAppSupply, appBefore - 3);
});

test('reads ignore idempotency headers', async () => {
  const r = await call('GET', '/merchant/all-tokens', { key: A.secretKey, headers: idem('k'.repeat(300)) });
  ok(r);
  assert.equal(r.headers.get('idempotent-replayed'), null);
});

test('records last 24 hours of service time', async () => {
  const key = freshKey('ttl');
  const body = { tokenAddress: TA.address, amount: 1 };
  const first = ok(await call('POST', '/holder/u1/spend', { key: A.secretKey, body, headers: idem(key) }));
  await advance(23 * 3600);
  const within = await call('POST', '/holder/u1/spend', { key: A.secretKey, body, headers: idem(key) });
  assert.deepEqual(ok(within), first);
  assert.equal(within.headers.get('idempotent-replayed'), 'true');
  await advance(3600 + 5);
  const later = await call('POST', '/holder/u1/spend', { key: A.secretKey, body, headers: idem(key) });
  const again = ok(later);
  if (!evm()) assert.notEqual(again.transactionHash, first.transactionHash);
  assert.equal(later.headers.get('idempotent-replayed'), null);
});

test('no response in this file had a status >= 500', () => {
  assert.ok(seen.length > 50, `only ${seen.length} responses seen`);
  assert.deepEqual(seen.filter((s) => s.status >= 500), []);
});

test('a key belongs to the credential that sent it: a holder cannot take the backend\'s next key, nor learn which keys it used', async () => {
  // A holder with a spend session token takes the key the README's backend uses next.
  const s = ok(await call('POST', '/holder/u3/session', { key: A.secretKey, body: { scopes: ['read', 'spend'] } }), 201);
  const bearer = (headers = {}) => ({ authorization: `Bearer ${s.token}`, ...headers });
  const key = freshKey('order');
  const body = { tokenAddress: TA.address, amount: 1 };
  const u3Before = await balanceOf(A, 'u3', TA);
  const u4Before = await balanceOf(A, 'u4', TA);
  const taken = await call('POST', '/holder/u3/spend', { body, headers: bearer(idem(key)) });
  ok(taken);
  // The backend's request under that key, for another holder, runs: it is the backend's key.
  const backend = await call('POST', '/holder/u4/spend', { key: A.secretKey, body, headers: idem(key) });
  ok(backend);
  assert.equal(backend.headers.get('idempotent-replayed'), null);
  assert.equal(await balanceOf(A, 'u4', TA), u4Before - 1);
  // Each retries and gets its own first answer back, once.
  const backendAgain = await call('POST', '/holder/u4/spend', { key: A.secretKey, body, headers: idem(key) });
  assert.equal(backendAgain.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(backendAgain.json, backend.json);
  const holderAgain = await call('POST', '/holder/u3/spend', { body, headers: bearer(idem(key)) });
  assert.equal(holderAgain.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(holderAgain.json, taken.json);
  assert.equal(await balanceOf(A, 'u3', TA), u3Before - 1);
  assert.equal(await balanceOf(A, 'u4', TA), u4Before - 1);
  // A key the backend used is a fresh key to the holder: its request runs (no 409 that would
  // say the key was used), and replays only its own answer after.
  const backendKey = freshKey('order');
  ok(await call('POST', '/holder/u4/spend', { key: A.secretKey, body: { ...body, amount: 2 }, headers: idem(backendKey) }));
  const probe = await call('POST', '/holder/u3/spend', { body, headers: bearer(idem(backendKey)) });
  ok(probe);
  assert.equal(probe.headers.get('idempotent-replayed'), null);
  assert.equal(await balanceOf(A, 'u3', TA), u3Before - 2);
  // The same caller reusing its own key for another request is still refused.
  fails(await call('POST', '/holder/u3/spend', { body: { ...body, amount: 3 }, headers: bearer(idem(key)) }), 409, 'idempotency_key_reused');
  fails(await call('POST', '/holder/u4/spend', { key: A.secretKey, body: { ...body, amount: 3 }, headers: idem(key) }), 409, 'idempotency_key_reused');
});
