// GET /merchant/chain: the merchant's own view of its settlement (the dashboard's Chain page).
// On the embedded chain (the ledger presented as a chain) there is no relayer and nothing in
// flight; a public key is refused; every answer is checked against openapi.json (check.mjs),
// and the 200 once more here by hand.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';
import { assertMatches } from './openapi.mjs';

let w;
const { call, ok, fails, newMerchant, newToken } = checkedClient(() => w);

before(async () => {
  w = await startWorker();
});
after(async () => {
  await w?.stop();
});

test('the embedded chain: kind embedded, no relayer, nothing open, in flight, failed or parked', async () => {
  const m = await newMerchant('Chain view');
  const token = await newToken(m, { totalSupply: 1000 });
  ok(await call('PUT', '/holder/c1', { key: m.secretKey }), 201);
  ok(await call('POST', `/token/${token.address}/distribute`, { key: m.secretKey, body: { amount: 10, sendToId: 'c1' } }));
  const view = ok(await call('GET', '/merchant/chain', { key: m.secretKey }));
  assertMatches('get', '/merchant/chain', 200, view);
  assert.deepEqual(view, {
    kind: 'embedded',
    chainId: null,
    relayer: null,
    openMovements: 0,
    transactions: [],
    failed: [],
    parked: [],
  });
});

test('a public key is refused, and so is no key', async () => {
  const m = await newMerchant('Chain view refused');
  fails(await call('GET', '/merchant/chain', { key: m.publicKey }), 403, 'secret_key_required');
  const r = await call('GET', '/merchant/chain', {});
  assert.equal(r.status, 401);
});
