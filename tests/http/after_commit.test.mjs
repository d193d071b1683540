// Nothing after commit turns a success into an error (issue #15). What follows a committed
// write (setting the merchant object's alarm; recording a new deployment's owner in the
// registry, which the keyless overview page reads) is idempotent follow-up work: retried
// until it lands, never the request's failure. The failures are made with the test-only
// POST /admin/faults { kind: "alarm_writes" | "registry_writes" | "lost_answers" }. The
// clock's moves (POST /admin/time/advance) follow the same rule, and say which merchant did
// not take one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, startWorker } from './harness.mjs';
import { checkedClient, createPresale, serviceNow } from './check.mjs';
import { assertMatches } from './openapi.mjs';

let w;
const { call, ok, fails, newMerchant } = checkedClient(() => w);

before(async () => {
  w = await startWorker();
});
after(async () => {
  await w?.stop();
});

const memecoin = (symbol) => ({ name: `Coin ${symbol}`, symbol, totalSupply: 1000, initialPrice: 1, network: 'base', marketplace: false });
const fault = async (body) => ok(await call('POST', '/admin/faults', { adminKey: w.adminKey, body }));

/** Polls the keyless overview page (it runs no due work) until `want(status, html)`. */
async function pageUntil(id, want, seconds = 20) {
  let last;
  for (let i = 0; i < seconds * 4; i++) {
    const res = await fetch(`${w.baseUrl}/deployments/${id}`);
    last = { status: res.status, html: await res.text() };
    assert.ok(last.status === 200 || last.status === 404, `${last.status}: ${last.html}`);
    if (want(last)) return last;
    await sleep(250);
  }
  assert.fail(`the page of ${id} never got there: ${last.status}`);
}
const success = ({ status, html }) => status === 200 && html.includes('class="status status-success"');

test('a failing alarm write does not fail the committed create, and the alarm is set after all', async () => {
  const m = await newMerchant('Alarm faults');
  await fault({ kind: 'alarm_writes', merchantId: m.id, count: 1 });
  const key = `alarm-${Date.now()}`;
  const created = await call('POST', '/template/memecoin', { key: m.secretKey, body: memecoin('ALRM'), headers: { 'Idempotency-Key': key } });
  const { id } = ok(created, 201);
  // The same key replays that one creation: exactly one deployment.
  const again = await call('POST', '/template/memecoin', { key: m.secretKey, body: memecoin('ALRM'), headers: { 'Idempotency-Key': key } });
  assert.equal(ok(again, 201).id, id);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  // No request to this merchant from here on: only its alarm can mine the deployment.
  await pageUntil(id, success);
});

test('alarm writes failing on every try: the answer is still the success, and the next request sets the alarm', async () => {
  const m = await newMerchant('Alarm down');
  await fault({ kind: 'alarm_writes', merchantId: m.id, count: 2 });
  const { id } = ok(await call('POST', '/template/memecoin', { key: m.secretKey, body: memecoin('DOWN') }), 201);
  // Any later request of this merchant sets the alarm it could not set then.
  ok(await call('GET', '/merchant/all-tokens', { key: m.secretKey }));
  await pageUntil(id, success);
});

test('a failing registry write does not fail the create; the owner record is retried until the page works', async () => {
  const m = await newMerchant('Registry faults');
  await fault({ kind: 'registry_writes', count: 2 });
  const t0 = Date.now();
  const { id } = ok(await call('POST', '/template/memecoin', { key: m.secretKey, body: memecoin('REG') }), 201);
  // The status routes work at once: the deployment exists.
  ok(await call('GET', `/template/memecoin/status/${id}`, { key: m.secretKey }));
  // The page cannot find it until the record lands: the alarm retries it (1 s, then 2 s).
  const first = await fetch(`${w.baseUrl}/deployments/${id}`);
  assert.equal(first.status, 404, 'the owner record was not written yet');
  await first.text();
  await pageUntil(id, success);
  assert.ok(Date.now() - t0 >= 2_000, 'the record landed on a retry, after the backoff');
});

test('faults route: test-only and checked', async () => {
  fails(await call('POST', '/admin/faults', { adminKey: w.adminKey, body: { kind: 'alarm_writes' } }), 400, 'invalid_request');
  fails(await call('POST', '/admin/faults', { adminKey: w.adminKey, body: { kind: 'nope', merchantId: '0'.repeat(32) } }), 400, 'invalid_request');
  fails(await call('POST', '/admin/faults', { adminKey: w.adminKey, body: { kind: 'registry_writes', count: 0 } }), 400, 'invalid_request');
});

test('a clock move whose alarm write fails still answers 200: the clock moved and what came due ran', async () => {
  const m = await newMerchant('Advance alarm');
  const { id } = ok(await call('POST', '/template/memecoin', { key: m.secretKey, body: memecoin('ADVA') }), 201);
  await fault({ kind: 'alarm_writes', merchantId: m.id, count: 1 });
  ok(await call('POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 1 } }));
  await pageUntil(id, success);
});

test('a merchant object that misses a clock move is named in a 503, and the next move brings it to the clock', async () => {
  const a = await newMerchant('Advance lost');
  const b = await newMerchant('Advance fine');
  const start = (await serviceNow(w)) + 30;
  const opens = { startTimestamp: start, endTimestamp: start + 3600 };
  const pa = await createPresale(w, a, opens);
  const pb = await createPresale(w, b, opens);
  const status = async (m, p) => ok(await call('GET', `/token/presales/${p.id}?publicKey=${m.publicKey}`)).status;
  assert.equal(await status(a, pa), 'pending');
  // a's object loses two answers, counted from the last: the clock move's before it runs
  // (a's clock stays where it was), then the next read's after it ran.
  await fault({ kind: 'lost_answers', merchantId: a.id, count: 2 });
  const moved = await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 60 } });
  assert.equal(moved.status, 503, moved.text);
  assertMatches('POST', '/admin/time/advance', 503, moved.json);
  assert.equal(moved.json.code, 'unavailable', moved.text);
  assert.deepEqual(moved.json.details.merchants, [a.id], moved.text);
  assert.equal(await status(b, pb), 'active', 'every other merchant took the move');
  const lostRead = await api(w, 'GET', `/token/presales/${pa.id}?publicKey=${a.publicKey}`);
  assert.equal(lostRead.status, 503, lostRead.text);
  assert.equal(await status(a, pa), 'pending', 'a did not');
  // The clock itself moved: the next move takes a to the whole offset.
  const again = ok(await call('POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 1 } }));
  assert.ok(again.nowUnix > start, JSON.stringify(again));
  assert.equal(await status(a, pa), 'active');
});
