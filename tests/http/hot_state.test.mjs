// What a merchant's Durable Object keeps in memory between requests (the merchant record, the
// clock's offset) is only ever a copy of what SQLite committed: a transaction that writes the
// merchant and then fails leaves neither SQLite nor the copy changed; a clock moved by time
// travel is what every later answer reads, before and after a restart; a committed write of the
// merchant is what the next request reads.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, createMerchant, startWorker } from './harness.mjs';

let w;
let m;
before(async () => {
  w = await startWorker();
  m = await createMerchant(w, 'Hot state');
  assert.equal((await api(w, 'PUT', '/holder/alice', { key: m.secretKey })).status, 201);
});
after(async () => {
  await w?.stop();
});

const read = (key) => api(w, 'GET', `/holder/alice?publicKey=${key}`);
const other = () => `pk_${m.id}_${'0'.repeat(32)}`;

test('a rolled-back write of the merchant changes neither its record nor the copy the object reads keys from', async () => {
  assert.equal((await read(m.publicKey)).status, 200, 'the object has read (and keeps) the merchant');
  assert.equal((await read(other())).status, 401);
  const fault = await api(w, 'POST', '/admin/faults', { adminKey: w.adminKey, body: { kind: 'merchant_rollback', merchantId: m.id } });
  assert.equal(fault.status, 200, fault.text);
  // The failed transaction had written a record that takes other() and refuses the real key.
  const after = await read(m.publicKey);
  assert.equal(after.status, 200, after.text);
  const refused = await read(other());
  assert.equal(refused.status, 401, refused.text);
  assert.equal(refused.json.code, 'invalid_api_key');
  await w.restart();
  assert.equal((await read(m.publicKey)).status, 200, 'and SQLite kept the committed record');
  assert.equal((await read(other())).status, 401);
});

test('a committed write of the merchant is what the very next request reads', async () => {
  // Private mode lives in the merchant record: turning it on must refuse the next public-key
  // holder read at once (the copy in memory is read again after the write), and turning it
  // off must allow the next one.
  assert.equal((await read(m.publicKey)).status, 200);
  for (const [privateMode, status] of [[true, 403], [false, 200], [true, 403], [false, 200]]) {
    const set = await api(w, 'PATCH', '/merchant/settings', { key: m.secretKey, body: { privateMode } });
    assert.equal(set.status, 200, set.text);
    const r = await read(m.publicKey);
    assert.equal(r.status, status, `privateMode ${privateMode}: ${r.text}`);
    if (status === 403) assert.equal(r.json.code, 'session_token_required');
  }
});

test('the clock offset the object keeps follows time travel, and a restart reads the same', async () => {
  const before = Number((await read(m.publicKey)).headers.get('x-service-time'));
  const moved = await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 86_400 } });
  assert.equal(moved.status, 200, moved.text);
  const now = Number((await read(m.publicKey)).headers.get('x-service-time'));
  assert.ok(now - before >= 86_400_000 && now - before < 86_400_000 + 60_000, `${before} -> ${now}`);
  await w.restart();
  const restarted = Number((await read(m.publicKey)).headers.get('x-service-time'));
  assert.ok(restarted - before >= 86_400_000 && restarted - before < 86_400_000 + 120_000, `${before} -> ${restarted}`);
});
