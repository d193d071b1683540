// No poisoned item takes a merchant down (issue #15). Due work runs item by item, each in its
// own transaction; an item failing five times in a row is parked, listed with its error at
// GET /merchant/parked-work, and blocks neither requests nor the alarm. The poison comes from
// the test-only POST /admin/faults { kind: "poison_due" }: a job due now whose stored record
// cannot be read.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';

let w;
const { call, ok, fails, newMerchant, advance, newToken } = checkedClient(() => w);

before(async () => {
  w = await startWorker();
});
after(async () => {
  await w?.stop();
});

async function poison(m) {
  const r = ok(await call('POST', '/admin/faults', { adminKey: w.adminKey, body: { kind: 'poison_due', merchantId: m.id } }));
  assert.equal(r.kind, 'poison_due');
  assert.match(r.id, /^poison-/);
  return r.id;
}

test('with a poisoned item due, reads and writes keep working, and it ends parked with its error', async () => {
  const m = await newMerchant('Poisoned');
  const token = await newToken(m, { totalSupply: 1000 });
  ok(await call('PUT', '/holder/p1', { key: m.secretKey }), 201);
  const id = await poison(m);

  // Every request runs due work first: each of these meets the poisoned item.
  ok(await call('POST', `/token/${token.address}/distribute`, { key: m.secretKey, body: { amount: 10, sendToId: 'p1' } }));
  ok(await call('POST', '/holder/p1/spend', { key: m.secretKey, body: { tokenAddress: token.address, amount: 3 }, headers: { 'Idempotency-Key': `p-${id}` } }));
  assert.equal(ok(await call('GET', `/holder/p1/token/${token.address}`, { key: m.publicKey })).balance, 7);
  ok(await call('GET', `/token/${token.address}?publicKey=${m.publicKey}`));
  // New scheduled work behind it still runs: a second token's job finishes.
  const second = await newToken(m, { name: 'Second', symbol: 'SEC' });
  assert.equal(second.symbol, 'SEC');
  assert.deepEqual(ok(await call('GET', '/merchant/parked-work', { key: m.secretKey })), { has_more: false, data: [] });

  // Retried after 1, 2, 4 and 8 s of service time; parked at the fifth failure.
  for (let i = 0; i < 6; i++) {
    await advance(10);
    ok(await call('GET', '/merchant/all-tokens', { key: m.secretKey }));
  }
  const parked = ok(await call('GET', '/merchant/parked-work', { key: m.secretKey }));
  assert.equal(parked.data.length, 1, JSON.stringify(parked));
  const [item] = parked.data;
  assert.equal(item.kind, 'job');
  assert.equal(item.id, id);
  assert.equal(item.attempts, 5);
  assert.equal(item.code, 'internal_error');
  assert.equal(item.message, 'Internal error'); // no internals
  assert.ok(Date.parse(item.parkedAt) > Date.parse(item.firstFailedAt));
  // Parked items are the merchant's own: another merchant sees none, a public key is refused.
  const other = await newMerchant('Clean');
  assert.deepEqual(ok(await call('GET', '/merchant/parked-work', { key: other.secretKey })).data, []);
  fails(await call('GET', '/merchant/parked-work', { key: m.publicKey }), 403, 'secret_key_required');

  // And it stays parked: more time, more requests, nothing changes, everything works.
  await advance(120);
  ok(await call('POST', '/holder/p1/spend', { key: m.secretKey, body: { tokenAddress: token.address, amount: 1 } }));
  assert.equal(ok(await call('GET', '/merchant/parked-work', { key: m.secretKey })).data[0].attempts, 5);
});

test('the alarm goes on with a poisoned item: work due later still happens with no request arriving', async () => {
  const m = await newMerchant('Alarm goes on');
  await poison(m);
  // A memecoin deployment: mined at the next 2-second block, by the alarm. Ask this merchant
  // nothing meanwhile; watch only its keyless overview page, which runs no due work.
  const created = await api(w, 'POST', '/template/memecoin', {
    key: m.secretKey,
    body: { name: 'Later', symbol: 'LATE', totalSupply: 1000, initialPrice: 1, network: 'base', marketplace: false },
  });
  assert.equal(created.status, 201, created.text);
  let status = 'pending';
  for (let i = 0; i < 40 && status === 'pending'; i++) {
    await sleep(500);
    const page = await fetch(`${w.baseUrl}/deployments/${created.json.id}`);
    const html = await page.text();
    assert.equal(page.status, 200, html);
    status = html.includes('class="status status-success"') ? 'success' : 'pending';
  }
  assert.equal(status, 'success', 'the alarm deployed the memecoin despite the poisoned item');
  // Meanwhile the alarm retried the poison on its own (1 + 2 + 4 + 8 s): within 20 s it is parked.
  let parked = [];
  for (let i = 0; i < 40 && parked.length === 0; i++) {
    await sleep(500);
    parked = ok(await call('GET', '/merchant/parked-work', { key: m.secretKey })).data;
  }
  assert.equal(parked.length, 1);
});

test('poison_due needs its merchant, and time travel on', async () => {
  fails(await call('POST', '/admin/faults', { adminKey: w.adminKey, body: { kind: 'poison_due' } }), 400, 'invalid_request');
  fails(await call('POST', '/admin/faults', { adminKey: w.adminKey, body: { kind: 'poison_due', merchantId: '0'.repeat(32) } }),
    404, 'merchant_not_found');
  fails(await call('POST', '/admin/faults', { body: { kind: 'poison_due' } }), 401, 'invalid_admin_key');
});
