// The bad-key guard (bad_keys.test.mjs) and a crowd that is not bad: a client that opens with
// more requests at once than the guard's burst, with a key this isolate has not seen checked
// yet (a backend's batch, or a page's reads, just after a deploy started a new isolate). Each
// such request used to reserve one request of the address's bad-key budget while its key was
// checked, so those past the burst (20) were refused with 429 as if the key were bad. Now they
// wait for the first one's check. The crowd has to reach the Worker at once, which it did not
// through `wrangler dev` (miniflare.mjs): this suite runs tokenpad under Miniflare alone, with
// the guard at its defaults (5/s, bursts of 20), and sends its crowd with autocannon, one
// request per connection. The first test fails without the wait (40 of 60 refused); the
// second may not (a warm isolate checks a key faster than 60 connections open), and holds
// that the write still happens once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { TEST_WALLET_ENCRYPTION_KEY, api, createMerchant } from './harness.mjs';
import { PLAIN_ADMIN, TOKENPAD_DIRS, startPlain } from './miniflare.mjs';

const autocannon = createRequire(import.meta.url)('autocannon');
const CROWD = 60;

let w;
let m;
before(async () => {
  w = await startPlain(TOKENPAD_DIRS, {
    ADMIN_API_KEY: PLAIN_ADMIN, WALLET_ENCRYPTION_KEY: TEST_WALLET_ENCRYPTION_KEY,
    RATE_LIMIT_PER_SECOND: '0', PUBLIC_RATE_LIMIT_PER_SECOND: '0',
  });
  m = await createMerchant(w, 'Crowd');
  assert.equal((await api(w, 'PUT', '/holder/alice', { key: m.secretKey })).status, 201);
});
after(async () => {
  await w?.mf.dispose();
});

/** `CROWD` requests at once, one per connection, from address `ip`: their statuses, counted. */
async function crowd(path, ip, headers = {}, method = 'GET') {
  const r = await new Promise((resolve, reject) => autocannon({
    url: `${w.baseUrl}${path}`, method, connections: CROWD, amount: CROWD,
    headers: { 'cf-connecting-ip': ip, ...headers },
  }, (e, result) => (e ? reject(e) : resolve(result))));
  assert.equal(r.errors, 0);
  return Object.fromEntries(Object.entries(r.statusCodeStats).map(([status, { count }]) => [status, count]));
}

test('a good public key opening with a crowd of reads is not refused', async () => {
  assert.deepEqual(await crowd(`/holder/alice?publicKey=${m.publicKey}`, '203.0.113.21'), { 200: CROWD });
});

test('a good secret key opening with a crowd of writes is not refused, and the write happens once', async () => {
  // A key made now: one this isolate has never seen checked.
  const made = await api(w, 'POST', '/keys', { key: m.secretKey, body: { name: 'Batch' } });
  assert.equal(made.status, 201, made.text);
  assert.match(made.json.apiKey, /^sk_/);
  const statuses = await crowd('/holder/bob', '203.0.113.22', { 'x-api-key': made.json.apiKey }, 'PUT');
  assert.deepEqual(statuses, { 200: CROWD - 1, 201: 1 });
});

test('one forged key sent by a crowd is still held to the burst', async () => {
  const forged = `sk_${m.id}_${randomBytes(32).toString('hex')}`;
  const t0 = Date.now();
  const statuses = await crowd('/merchant/all-tokens', '198.51.100.70', { 'x-api-key': forged });
  const seconds = (Date.now() - t0) / 1000;
  assert.deepEqual(Object.keys(statuses).sort(), ['401', '429'], JSON.stringify(statuses));
  // The first check's 401 lets the others go on to reserve: the burst reaches the object, and
  // those past it are refused at the edge.
  assert.ok(statuses[401] <= 20 + 5 * seconds + 1, `${statuses[401]} of ${CROWD} reached the object in ${seconds} s`);
});
