// A read changes nothing, so it asks nothing of settlement. Once a merchant's movements have
// settled and its settler is quiet, a holder read the object has served before runs no SQL
// statement, on a real chain as on the embedded one. Before, every answer looked up when
// settlement was next due (`settle_soon`), a read's too: two statements a read (the next
// round's time, then whether a movement is open), for every read of a merchant on a chain. With ALLOW_TIME_TRAVEL (as here) each merchant answer names
// the SQL statements it ran (`x-sql-statements`). It runs on both chains; on a real one in
// scripts/test.sh's anvil subset. Deposits are looked for hourly here, so that once the
// movements are settled no round runs while the reads are counted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkedClient } from './check.mjs';
import { api, createMerchant, createToken, startWorker } from './harness.mjs';

let w;
const c = checkedClient(() => w);
before(async () => {
  w = await startWorker({ env: { CHAIN_SCAN_MS: '3600000' } });
});
after(async () => {
  await w?.stop();
});

test('once settlement is quiet, a holder read served before runs no SQL statement', async () => {
  const m = await createMerchant(w, 'Quiet');
  const T = (await createToken(w, m.secretKey, { name: 'Quiet', symbol: 'QT' })).address;
  assert.equal((await api(w, 'PUT', '/holder/ann', { key: m.secretKey })).status, 201);
  const d = await api(w, 'POST', `/token/${T}/distribute`, { key: m.secretKey, body: { sendToId: 'ann', amount: 5 } });
  assert.equal(d.status, 200, d.text);
  // Every movement settled (at once on the embedded chain).
  await c.settled(m);
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
