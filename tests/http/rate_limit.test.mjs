// Fair request budgets (issue #36): the merchant's secret key has a budget of its own that
// public-key and session-token traffic cannot spend; public and session requests are limited
// per client address, and session requests per session too; over a budget, 429
// `rate_limited` with Retry-After and `details.budget`. Its own worker with tiny limits.
//
// Robust to a slow machine: every budget refills at 1 request a second, so a test asserts
// what must hold however long a step takes: the backend's requests all fit in its burst
// whatever the flood does, and what a flood got through is bounded by its burst plus one a
// second of the time it measured.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';

let w;
const { call, ok, fails, newMerchant } = checkedClient(() => w);

const SECRET_BURST = 40;
const CLIENT_BURST = 5;
const SESSION_BURST = 3;
// A public read the edge has kept answers without reaching the merchant's object and spends no
// budget (tests/http/public_cache.test.mjs): every request here says `Cache-Control: no-cache`,
// which the edge honours by asking the object, so every one reaches it and is charged.
const from = (ip, headers = {}) => ({ 'cf-connecting-ip': ip, 'cache-control': 'no-cache', ...headers });
const bearer = (token) => ({ authorization: `Bearer ${token}` });

before(async () => {
  w = await startWorker({
    env: {
      RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: String(SECRET_BURST),
      PUBLIC_RATE_LIMIT_PER_SECOND: '1', PUBLIC_RATE_LIMIT_BURST: String(CLIENT_BURST),
      SESSION_RATE_LIMIT_PER_SECOND: '1', SESSION_RATE_LIMIT_BURST: String(SESSION_BURST),
    },
  });
});
after(async () => {
  await w?.stop();
});

/** A 429 of the budget `budget`, with its Retry-After. */
function limited(r, budget) {
  const body = fails(r, 429, 'rate_limited');
  assert.equal(body.details.budget, budget, r.text);
  const retry = Number(r.headers.get('retry-after'));
  assert.ok(retry >= 1, `Retry-After: ${r.headers.get('retry-after')}`);
  assert.equal(body.details.retryAfterSeconds, retry);
  return retry;
}

/** Reads that went through, at most the burst plus one a second of `ms` (and one to spare). */
function atMostBurst(passed, burst, ms, what) {
  const bound = burst + Math.ceil(ms / 1000) + 1;
  assert.ok(passed <= bound, `${what}: ${passed} passed, more than ${bound} (burst ${burst}, ${ms} ms)`);
}

test('a flood of public reads and of a holder\'s session never spends the backend\'s budget', async () => {
  const m = await newMerchant('Busy');
  const backendBudgetUsed = 2; // newMerchant and the session below
  ok(await call('PUT', '/holder/alice', { key: m.secretKey }), 201);
  const s = ok(await call('POST', '/holder/alice/session', { key: m.secretKey, body: { scopes: ['read'] } }), 201);

  let flooding = true;
  const got = { public: { 200: 0, 429: 0 }, session: { 200: 0, 429: 0 } };
  const t0 = Date.now();
  const flood = Array.from({ length: 30 }, async (_, i) => {
    while (flooding) {
      const kind = i % 2 ? 'public' : 'session';
      const r = kind === 'public'
        ? await call('GET', `/holder/alice?publicKey=${m.publicKey}`, { headers: from('198.51.100.7') })
        : await call('GET', '/holder/alice', { headers: from('198.51.100.8', bearer(s.token)) });
      if (r.status === 429) limited(r, kind === 'public' ? 'client' : r.json.details.budget);
      else ok(r);
      got[kind][r.status]++;
    }
  });
  // Meanwhile the backend reads, with its own key: 30 requests, all inside its burst.
  const backend = [];
  for (let i = 0; i < SECRET_BURST - backendBudgetUsed - 8; i++) {
    backend.push(await call('GET', '/holder/alice', { key: m.secretKey, headers: from('203.0.113.1') }));
    await sleep(20);
  }
  flooding = false;
  await Promise.all(flood);
  const ms = Date.now() - t0;
  for (const r of backend) ok(r);
  assert.ok(got.public[429] > 0 && got.session[429] > 0, JSON.stringify(got));
  atMostBurst(got.public[200], CLIENT_BURST, ms, 'public reads from one address');
  atMostBurst(got.session[200], SESSION_BURST, ms, 'one session');
});

test('each client address and each session has its own budget; a refusal says when to retry', async () => {
  const m = await newMerchant('Fair');
  const other = await newMerchant('Other');
  ok(await call('PUT', '/holder/bob', { key: m.secretKey }), 201);
  const read = (ip) => call('GET', `/holder/bob?publicKey=${m.publicKey}`, { headers: from(ip) });

  // One address bursts: its burst passes, the rest are refused, with CORS for the browser.
  let t0 = Date.now();
  const burst = await Promise.all(Array.from({ length: 30 }, () => read('192.0.2.10')));
  const passed = burst.filter((r) => r.status === 200).length;
  atMostBurst(passed, CLIENT_BURST, Date.now() - t0, 'one address');
  const refused = burst.filter((r) => r.status === 429);
  assert.ok(refused.length >= 30 - CLIENT_BURST - Math.ceil((Date.now() - t0) / 1000) - 1);
  let retry = 1;
  for (const r of refused) {
    retry = limited(r, 'client');
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
  }
  // Another address (an IPv6 one counts per /64), and another merchant, are untouched.
  ok(await read('192.0.2.11'));
  ok(await read('2001:db8:1:2::1'));
  ok(await read('2001:db8:1:2::2'));
  ok(await call('GET', `/holder/bob?publicKey=${other.publicKey}`, { headers: from('192.0.2.10') }), 404);
  // After Retry-After, the address reads again.
  await sleep(retry * 1000 + 100);
  ok(await read('192.0.2.10'));

  // A session's budget is its own and follows it across addresses.
  const s1 = ok(await call('POST', '/holder/bob/session', { key: m.secretKey, body: {} }), 201);
  const s2 = ok(await call('POST', '/holder/bob/session', { key: m.secretKey, body: {} }), 201);
  const viaSession = (token, ip) => call('GET', '/holder/bob', { headers: from(ip, bearer(token)) });
  t0 = Date.now();
  const spread = await Promise.all(Array.from({ length: 20 }, (_, i) => viaSession(s1.token, `192.0.2.${20 + i}`)));
  atMostBurst(spread.filter((r) => r.status === 200).length, SESSION_BURST, Date.now() - t0, 'one session over 20 addresses');
  for (const r of spread.filter((x) => x.status === 429)) limited(r, 'session');
  // The holder's other session, from one of those addresses, has its own.
  ok(await viaSession(s2.token, '192.0.2.20'));
  // The backend never noticed.
  ok(await call('GET', '/holder/bob', { key: m.secretKey }));
});
