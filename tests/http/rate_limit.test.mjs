// Rate limiting per merchant (contract section 2): a token bucket in the merchant's Durable
// Object; over it, 429 `rate_limited` with Retry-After. Its own worker with a tiny limit.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';

let w;
const { call, ok, fails, newMerchant } = checkedClient(() => w);

before(async () => {
  w = await startWorker({ env: { RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '4' } });
});
after(async () => {
  await w?.stop();
});

test('over the burst a merchant gets 429 with Retry-After; other merchants and time are unaffected', async () => {
  const a = await newMerchant('Busy');
  const b = await newMerchant('Quiet');
  // Ten at once against a bucket of four: four pass, the rest are refused.
  const burst = await Promise.all(Array.from({ length: 10 }, () => call('GET', '/merchant/all-tokens', { key: a.secretKey })));
  const statuses = burst.map((r) => r.status).sort();
  assert.equal(statuses.filter((s) => s === 200).length, 4, statuses.join(','));
  const limited = burst.filter((r) => r.status === 429);
  assert.equal(limited.length, 6);
  for (const r of limited) {
    fails(r, 429, 'rate_limited');
    assert.equal(r.headers.get('retry-after'), '1');
    assert.equal(r.json.details.retryAfterSeconds, 1);
  }
  // Public reads count too, and answer CORS even when refused.
  const pub = await call('GET', `/holder/nobody?publicKey=${a.publicKey}`);
  fails(pub, 429, 'rate_limited');
  assert.equal(pub.headers.get('access-control-allow-origin'), '*');
  // Another merchant has its own bucket.
  ok(await call('GET', '/merchant/all-tokens', { key: b.secretKey }));
  // Two a second: after a second there is room again.
  await new Promise((r) => setTimeout(r, 1100));
  ok(await call('GET', '/merchant/all-tokens', { key: a.secretKey }));
});
