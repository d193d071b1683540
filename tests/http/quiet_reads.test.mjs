// Settlement costs a merchant's requests nothing it need not. A read changes nothing, so it asks
// nothing of settlement: once a merchant's movements have settled and its settler is quiet, a
// holder read the object has served before runs no SQL statement, on a real chain as on the
// embedded one. Before, every answer looked up when settlement was next due (`settle_soon`), a
// read's too: two statements a read (the next round's time, then whether a movement is open),
// for every read of a merchant on a chain. A write on a real chain runs its own writes and
// queues its movement (one statement); when the next round runs is known in memory
// (`objects/merchant/settle.rs`) and the movement is numbered as the history numbers its
// records. Before, a distribute there ran 9 statements, a spend 10: the movement queued, then
// written again with its id, and three reads (the next round's time twice, the merchant once).
// With ALLOW_TIME_TRAVEL (as here) each merchant answer names the SQL statements it ran
// (`x-sql-statements`). It runs on both chains; on a real one in scripts/test.sh's anvil
// subset. Deposits are looked for hourly here, so that once the movements are settled no
// round runs while the reads are counted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkedClient } from './check.mjs';
import { TEST_CHAIN, api, createMerchant, createToken, startWorker } from './harness.mjs';

let w;
const c = checkedClient(() => w);
before(async () => {
  w = await startWorker({ env: { CHAIN_SCAN_MS: '3600000' } });
});
after(async () => {
  await w?.stop();
});

/** A merchant `name` whose token's `amount` reached holder ann, settled: `{ m, T }`. */
async function settledMerchant(name, symbol, amount) {
  const m = await createMerchant(w, name);
  const T = (await createToken(w, m.secretKey, { name, symbol })).address;
  assert.equal((await api(w, 'PUT', '/holder/ann', { key: m.secretKey })).status, 201);
  const d = await api(w, 'POST', `/token/${T}/distribute`, { key: m.secretKey, body: { sendToId: 'ann', amount } });
  assert.equal(d.status, 200, d.text);
  // Every movement settled (at once on the embedded chain).
  await c.settled(m);
  return { m, T };
}

test('once settlement is quiet, a holder read served before runs no SQL statement', async () => {
  const { m, T } = await settledMerchant('Quiet', 'QT', 5);
  const read = async () => {
    // With the secret key: the edge keeps no copy of it (a public-key read may be answered
    // from the edge's copy, running nothing).
    const r = await api(w, 'GET', '/holder/ann', { key: m.secretKey });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('x-tokenpad-cache'), null);
    assert.equal(r.json.tokens.find((t) => t.address === T)?.balance, 5);
    return Number(r.headers.get('x-sql-statements'));
  };
  // The first reads read the holder's rows, and the schedule the last round moved (the alarm is
  // set again after an answer); then the object has what a read needs, and settlement asks for
  // nothing.
  const seen = [];
  for (let i = 0; i < 20 && seen.at(-1) !== 0; i++) {
    seen.push(await read());
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(seen.at(-1), 0, `statements of each read: ${seen.join(', ')}`);
  const next = [];
  for (let i = 0; i < 5; i++) next.push(await read());
  assert.deepEqual(next, [0, 0, 0, 0, 0]);
});

test('a write runs its own statements, and on a real chain one more: the movement it queues', async () => {
  const { m, T } = await settledMerchant('Quiet writes', 'QW', 50);
  const statements = (r) => Number(r.headers.get('x-sql-statements'));
  const distributes = [];
  const spends = [];
  for (let i = 0; i < 7; i++) {
    const d = await api(w, 'POST', `/token/${T}/distribute`, { key: m.secretKey, body: { sendToId: 'ann', amount: 5 } });
    assert.equal(d.status, 200, d.text);
    distributes.push(statements(d));
    const s = await api(w, 'POST', '/holder/ann/spend', { key: m.secretKey, body: { tokenAddress: T, amount: 1 } });
    assert.equal(s.status, 200, s.text);
    spends.push(statements(s));
  }
  // The balance, the token, the record and the event; a spend on a real chain also takes its
  // holder's authorization nonce. The first write after a settlement round also reads whether a
  // movement is open and notes the next round (two more): the median is a write between rounds.
  const chain = TEST_CHAIN === 'anvil' ? 1 : 0;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const seen = `distributes ${distributes.join(', ')}; spends ${spends.join(', ')}`;
  assert.equal(median(distributes), 4 + chain, seen);
  assert.equal(median(spends), 4 + 2 * chain, seen);
  await c.settled(m);
});
