// Request ids and the request log (crates/worker/src/edge/trace.rs) against the real worker in
// workerd: x-request-id on every answer; one JSON log line per request that names the route
// pattern, the merchant, the status and the error code, and never a key, a body or a path;
// `REQUEST_LOG=errors` writes lines only for answers of 400 and above; a request id shaped
// like a key or secret is never echoed nor logged (issue #43).
import test, { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, api, createMerchant, logLines } from './harness.mjs';
import { until } from './check.mjs';

let w;
let quiet;
before(async () => {
  // logLevel log: the worker's console.log lines (the request log) reach w.logs().
  [w, quiet] = await Promise.all([
    startWorker({ logLevel: 'log' }),
    startWorker({ logLevel: 'log', env: { REQUEST_LOG: 'errors' } }),
  ]);
});
after(async () => {
  await Promise.all([w?.stop(), quiet?.stop()]);
});

/** The worker's request log lines so far. */
const lines = (worker) => logLines(worker.logs()).filter((l) => l.type === 'request');

describe('request ids and the request log', () => {
  test('every answer carries x-request-id: the caller\'s when sane, else a fresh one', async () => {
    const m = await createMerchant(w, 'Request ids');
    const own = await api(w, 'GET', '/merchant/events', { key: m.secretKey, headers: { 'x-request-id': 'trace-abc_1.2:3' } });
    assert.equal(own.headers.get('x-request-id'), 'trace-abc_1.2:3');
    const insane = await api(w, 'GET', '/merchant/events', { key: m.secretKey, headers: { 'x-request-id': 'a b<script>' } });
    assert.match(insane.headers.get('x-request-id'), /^req_[0-9a-f]{24}$/);
    const a = await api(w, 'GET', '/merchant/events', { key: 'sk_nope' });
    const b = await api(w, 'GET', '/nowhere');
    for (const r of [a, b]) assert.match(r.headers.get('x-request-id'), /^req_[0-9a-f]{24}$/);
    assert.notEqual(a.headers.get('x-request-id'), b.headers.get('x-request-id'));
    assert.equal(a.headers.get('tokenpad-error-code'), null, 'the internal header stays inside');
  });

  test('a request id shaped like a key or a secret is neither echoed nor logged: the service makes its own', async () => {
    const m = await createMerchant(w, 'Unsafe ids');
    assert.ok([200, 201].includes((await api(w, 'PUT', '/holder/id-holder', { key: m.secretKey })).status));
    const s = await api(w, 'POST', '/holder/id-holder/session', { key: m.secretKey, body: {} });
    assert.equal(s.status, 201, s.text);
    const secrets = [
      m.secretKey, // the merchant's secret key, as the hostile run sent it
      m.secretKey.toUpperCase(),
      `trace-${m.secretKey}`,
      m.publicKey,
      w.adminKey, // the operator's admin key
      `req-${w.adminKey}-1`,
      s.json.token, // a holder's session token
      'sk_live_51HqLongStripeStyleKey', // another service's secret key, by its shape
      `whsec_${'ab'.repeat(32)}`, // a webhook signing secret
      `0x${'4f'.repeat(32)}`, // a private key
      'a1b2c3d4e5f60718293a4b5c6d7e8f90', // 128 bits of hex
    ];
    for (const id of secrets) {
      const r = await api(w, 'GET', '/merchant/events', { key: m.secretKey, headers: { 'x-request-id': id } });
      assert.equal(r.status, 200, r.text);
      assert.match(r.headers.get('x-request-id'), /^req_[0-9a-f]{24}$/, `echoed ${id.slice(0, 12)}...`);
    }
    // Refused as a key in the header too (a 401), it is not echoed either.
    const bad = await api(w, 'GET', '/merchant/events', { key: 'sk_nope', headers: { 'x-request-id': m.secretKey } });
    assert.equal(bad.status, 401);
    assert.match(bad.headers.get('x-request-id'), /^req_[0-9a-f]{24}$/);
    const marker = `safe-${Date.now()}`;
    const last = await api(w, 'GET', '/merchant/events', { key: m.secretKey, headers: { 'x-request-id': marker } });
    assert.equal(last.headers.get('x-request-id'), marker, 'a safe id is still taken');
    await until('the last line', () => lines(w).some((l) => l.requestId === marker));
    const text = w.logs();
    for (const id of secrets) {
      const secret = id.replace(/^(trace|req)-/, '').replace(/-1$/, '');
      assert.ok(!text.toLowerCase().includes(secret.toLowerCase()), `the log holds ${secret.slice(0, 12)}...`);
    }
  });

  test('one JSON line per request: route, merchant, status, code, duration; never a key or a body', async () => {
    const m = await createMerchant(w, 'Request log');
    const id = `log-${Date.now()}`;
    const r = await api(w, 'PUT', '/holder/bob-logged', { key: m.secretKey, headers: { 'x-request-id': id } });
    assert.ok([200, 201].includes(r.status));
    const bad = await api(w, 'POST', '/merchant/webhooks', {
      key: m.secretKey, headers: { 'x-request-id': `${id}-bad` }, body: { url: 'ftp://secret-body-marker', events: ['*'] },
    });
    assert.equal(bad.status, 400);
    // An operator route about one merchant names it from its path.
    const chain = await api(w, 'GET', `/admin/merchants/${m.id}/chain`, { adminKey: w.adminKey, headers: { 'x-request-id': `${id}-admin` } });
    assert.ok(chain.status < 500, `admin chain view: ${chain.status}`);
    await until('the log lines', () => lines(w).some((l) => l.requestId === `${id}-admin`));
    const ok = lines(w).filter((l) => l.requestId === id);
    assert.equal(ok.length, 1, 'one line per request');
    assert.equal(ok[0].type, 'request');
    assert.equal(ok[0].method, 'PUT');
    assert.equal(ok[0].route, '/holder/:userId', 'the route pattern, not the path');
    assert.equal(ok[0].merchantId, m.id);
    assert.ok([200, 201].includes(ok[0].status));
    assert.equal(typeof ok[0].durationMs, 'number');
    const [err] = lines(w).filter((l) => l.requestId === `${id}-bad`);
    assert.equal(err.status, 400);
    assert.equal(err.code, 'invalid_request');
    assert.equal(err.merchantId, m.id);
    const [admin] = lines(w).filter((l) => l.requestId === `${id}-admin`);
    assert.equal(admin.route, '/admin/merchants/:merchantId/chain');
    assert.equal(admin.merchantId, m.id, 'the merchant an admin path names');
    const text = w.logs();
    assert.ok(!text.includes(m.secretKey.slice(3)), 'a key in the log');
    assert.ok(!text.includes('secret-body-marker'), 'a body in the log');
    // wrangler dev's own access lines name the path; the worker's lines never do.
    const ours = text.split('\n').filter((l) => !l.includes('[wrangler:')).join('\n');
    assert.ok(!ours.includes('bob-logged'), 'a path (with its userId) in the log');
  });
});

describe('REQUEST_LOG=errors', () => {
  test('answers of 400 and above write their line; the others write none', async () => {
    const m = await createMerchant(quiet, 'Quiet log');
    const id = `quiet-${Date.now()}`;
    const ok = await api(quiet, 'PUT', '/holder/carol', { key: m.secretKey, headers: { 'x-request-id': `${id}-ok` } });
    assert.ok([200, 201].includes(ok.status));
    assert.equal(ok.headers.get('x-request-id'), `${id}-ok`, 'the answer still carries its id');
    const missing = await api(quiet, 'GET', '/holder/nobody-here', { key: m.secretKey, headers: { 'x-request-id': `${id}-404` } });
    assert.equal(missing.status, 404);
    const bad = await api(quiet, 'GET', '/merchant/events', { key: 'sk_nope', headers: { 'x-request-id': `${id}-401` } });
    assert.equal(bad.status, 401);
    // Lines come out in the order the requests were answered: once the last is in, the
    // first would be too.
    await until('the 401 line', () => lines(quiet).some((l) => l.requestId === `${id}-401`));
    const ours = lines(quiet).filter((l) => l.requestId?.startsWith(id));
    assert.deepEqual(ours.map((l) => [l.requestId, l.status, l.code]), [
      [`${id}-404`, 404, missing.json.code],
      [`${id}-401`, 401, bad.json.code],
    ]);
    assert.ok(missing.json.code && bad.json.code, 'each refusal names its code');
    assert.ok(!lines(quiet).some((l) => l.type === 'request' && l.status < 400), 'a line for a success');
  });
});
