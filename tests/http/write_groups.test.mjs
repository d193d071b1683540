// Group commit (crates/worker/src/objects/merchant/gate.rs): writes that arrive together may
// go through together, in one commit, each still whole or not at all. Many writes at once,
// some refused and some sent twice under one key: every accepted one applied once, every
// refused one changed nothing, a repeat answered as the first, the books the same after a
// restart. Local answers to writes name how many writes went through together
// (`x-write-group`); reads do not.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, createMerchant, createToken, startWorker } from './harness.mjs';

let w;
let m;
let T;
before(async () => {
  w = await startWorker({ assets: false });
  m = await createMerchant(w, 'Write groups');
  T = (await createToken(w, m.secretKey)).address;
  for (const u of ['ann', 'bob']) assert.equal((await api(w, 'PUT', `/holder/${u}`, { key: m.secretKey })).status, 201);
});
after(async () => {
  await w?.stop();
});

const balance = async (userId) => {
  const r = await api(w, 'GET', `/holder/${userId}`, { key: m.secretKey });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers.get('x-write-group'), null, 'a read names no write group');
  return Number(r.json.tokens.find((t) => t.address.toLowerCase() === T.toLowerCase())?.balance ?? 0);
};

test('writes sent at once: each applied once or refused whole, a key sent twice applied once, the same after a restart', async () => {
  const distribute = (userId, amount, key) => api(w, 'POST', `/token/${T}/distribute`, {
    key: m.secretKey, headers: { 'idempotency-key': key }, body: { sendToId: userId, amount },
  });
  assert.equal((await distribute('ann', 10, 'fund-ann')).status, 200);
  const groups = [];
  for (let wave = 0; wave < 3; wave++) {
    // ann spends 1 twenty times with 10 to spend (or 0, after the first wave): 10 go through,
    // the rest are refused; bob gets 1 from each of 20 distributes, five of them sent twice.
    const calls = [];
    for (let i = 0; i < 20; i++) {
      calls.push(api(w, 'POST', '/holder/ann/spend', {
        key: m.secretKey, headers: { 'idempotency-key': `spend-${wave}-${i}` }, body: { tokenAddress: T, amount: 1 },
      }));
      calls.push(distribute('bob', 1, `give-${wave}-${i}`));
      if (i < 5) calls.push(distribute('bob', 1, `give-${wave}-${i}`));
    }
    const answers = await Promise.all(calls);
    for (const r of answers) {
      assert.ok([200, 422].includes(r.status), `${r.status} ${r.text}`);
      const group = Number(r.headers.get('x-write-group'));
      assert.ok(Number.isInteger(group) && group >= 1, `x-write-group: ${r.headers.get('x-write-group')}`);
      groups.push(group);
    }
    const refused = answers.filter((r) => r.status === 422);
    assert.equal(refused.length, 10, `wave ${wave}: ${refused.length} refused: ${refused.map((r) => r.text).join(' ')}`);
    for (const r of refused) assert.equal(r.json.code, 'insufficient_balance', r.text);
    assert.equal(await balance('ann'), 0, 'ann spent her 10, and no more');
    assert.equal(await balance('bob'), 20 * (wave + 1), 'each distribute applied once, a key sent twice once');
    // ann gets 10 again for the next wave.
    if (wave < 2) assert.equal((await distribute('ann', 10, `refund-ann-${wave}`)).status, 200);
  }
  await w.restart();
  assert.equal(await balance('ann'), 0);
  assert.equal(await balance('bob'), 60);
  process.stdout.write(`# write groups seen: ${JSON.stringify(Object.entries(groups.reduce((n, g) => ({ ...n, [g]: (n[g] ?? 0) + 1 }), {})))}\n`);
});
