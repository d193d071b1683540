// The merchant's API keys over HTTP (docs/keys.md): listed without their secrets, a named
// secret key made and shown once, its last use moving, a roll whose old key works through its
// grace period and then gets 401, a revoke that stops a key at once (a public read the edge
// kept included), the last live key kept, and the routes' bad inputs. No answer ever shows a
// secret key twice: every secret key shown is looked for in every later answer. Public keys
// are listed whole (they are public: they sit in browser pages), so a dashboard can show them.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, createMerchant, startWorker } from './harness.mjs';
import { assertMatches } from './openapi.mjs';

/** The edge's cache period for public reads (http::PUBLIC_MAX_AGE_S). */
const MAX_AGE_MS = 1000;

let w;
let m;
/** Every key an answer has shown, and every answer's text since. */
const shown = [];
const seen = [];
/** The merchant's live public key, once the public key was rolled. */
let livePk;

before(async () => {
  w = await startWorker();
  m = await createMerchant(w, 'Keys Merchant');
  shown.push(m.secretKey, m.publicKey);
  const alice = await api(w, 'PUT', '/holder/alice', { key: m.secretKey });
  assert.equal(alice.status, 201, alice.text);
});
after(async () => {
  await w?.stop();
});

/** A request; its answer is remembered so no key shown earlier may appear in it. */
async function call(method, path, opts = {}) {
  const res = await api(w, method, path, opts);
  seen.push(res.text);
  return res;
}

/** The answer, checked against openapi.json for its route and status. */
function ok(res, method, route, status) {
  assert.equal(res.status, status, `${method} ${route}: ${res.text}`);
  assertMatches(method, route, status, res.json);
  return res.json;
}

function refused(res, status, code) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.json.code, code, res.text);
}

const list = async (key = m.secretKey) => ok(await call('GET', '/keys', { key }), 'GET', '/keys', 200).data;
const byId = async (id) => (await list()).find((k) => k.id === id);
/** A secret-key read that works with any working secret key. */
const use = (key) => call('GET', '/merchant/settings', { key });
/** A public read the edge may keep (a holder, out of private mode). */
const publicRead = (pk) => call('GET', `/holder/alice?publicKey=${pk}`);
const advance = async (seconds) => {
  const r = await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds } });
  assert.equal(r.status, 200, r.text);
};

async function make(name) {
  const made = ok(await call('POST', '/keys', { key: m.secretKey, body: { name } }), 'POST', '/keys', 201);
  shown.push(made.apiKey);
  return made;
}

test('a merchant starts with its two keys, named Default, listed by their last four characters', async () => {
  const keys = await list();
  assert.equal(keys.length, 2);
  const [sk, pk] = keys;
  assert.deepEqual([sk.kind, pk.kind], ['secret', 'public'], 'of keys made at once, the secret key first');
  assert.deepEqual([sk.name, pk.name], ['Default', 'Default']);
  assert.equal(sk.last4, m.secretKey.slice(-4));
  assert.equal(pk.last4, m.publicKey.slice(-4));
  assert.equal(pk.publicKey, m.publicKey, 'a public key is listed whole');
  assert.equal(sk.publicKey, null, 'a secret key never is');
  assert.equal(sk.status, 'live');
  assert.match(sk.id, /^key_[0-9a-f]{32}$/);
  // The keys routes are the secret key's: a public key is refused, and answers no CORS.
  refused(await call('GET', '/keys', { key: m.publicKey }), 403, 'secret_key_required');
});

test('a named secret key is shown once, works at once, and its last use moves at most once a minute', async () => {
  const made = await make('Orders service');
  assert.match(made.apiKey, new RegExp(`^sk_${m.id}_[0-9a-f]{64}$`));
  assert.equal(made.key.name, 'Orders service');
  assert.equal(made.key.last4, made.apiKey.slice(-4));
  assert.equal(made.key.lastUsedAt, null);
  assert.equal((await use(made.apiKey)).status, 200);
  const first = (await byId(made.key.id)).lastUsedAt;
  assert.ok(first, 'its first use is written');
  assert.equal((await use(made.apiKey)).status, 200);
  assert.equal((await byId(made.key.id)).lastUsedAt, first, 'not again within the minute');
  await advance(61);
  assert.equal((await use(made.apiKey)).status, 200);
  const later = (await byId(made.key.id)).lastUsedAt;
  assert.ok(Date.parse(later) >= Date.parse(first) + 61_000, `${first} -> ${later}`);
});

test('a retry of the write that made a key never shows it again', async () => {
  const headers = { 'idempotency-key': 'make-key-1' };
  const made = ok(await call('POST', '/keys', { key: m.secretKey, body: { name: 'Retried' }, headers }), 'POST', '/keys', 201);
  shown.push(made.apiKey);
  const again = await call('POST', '/keys', { key: m.secretKey, body: { name: 'Retried' }, headers });
  refused(again, 409, 'key_already_shown');
  assert.equal(again.json.details.id, made.key.id);
  assert.equal((await list()).filter((k) => k.name === 'Retried').length, 1, 'nothing made twice');
  const revoked = await call('POST', `/keys/${made.key.id}/revoke`, { key: m.secretKey });
  ok(revoked, 'POST', '/keys/{keyId}/revoke', 200);
});

test('a rolled key works through its grace period, then gets 401; the new key works throughout', async () => {
  const old = await make('Billing');
  const rolled = ok(await call('POST', `/keys/${old.key.id}/roll`, { key: m.secretKey, body: { graceHours: 1 } }),
    'POST', '/keys/{keyId}/roll', 201);
  shown.push(rolled.apiKey);
  assert.equal(rolled.key.name, 'Billing');
  assert.notEqual(rolled.key.id, old.key.id);
  assert.equal(rolled.rolled.id, old.key.id);
  assert.equal(rolled.rolled.status, 'expiring');
  assert.equal(Date.parse(rolled.rolled.expiresAt) - Date.parse(rolled.key.createdAt), 3_600_000);
  assert.equal((await use(old.apiKey)).status, 200, 'the old key during its grace period');
  assert.equal((await use(rolled.apiKey)).status, 200);
  await advance(3_601);
  refused(await use(old.apiKey), 401, 'invalid_api_key');
  assert.equal((await use(rolled.apiKey)).status, 200);
  assert.equal((await byId(old.key.id)).status, 'revoked');
  // A key that stopped cannot be rolled.
  refused(await call('POST', `/keys/${old.key.id}/roll`, { key: m.secretKey, body: {} }), 409, 'key_revoked');
});

test('a revoked key gets 401 at once; the last live key of a kind cannot be revoked', async () => {
  const k = await make('Temporary');
  assert.equal((await use(k.apiKey)).status, 200);
  const revoked = ok(await call('POST', `/keys/${k.key.id}/revoke`, { key: m.secretKey }), 'POST', '/keys/{keyId}/revoke', 200);
  assert.equal(revoked.status, 'revoked');
  assert.ok(revoked.revokedAt);
  refused(await use(k.apiKey), 401, 'invalid_api_key');
  // Again: nothing changes.
  assert.equal((await call('POST', `/keys/${k.key.id}/revoke`, { key: m.secretKey })).status, 200);
  const live = (await list()).filter((x) => x.kind === 'public' && x.status === 'live');
  assert.equal(live.length, 1);
  refused(await call('POST', `/keys/${live[0].id}/revoke`, { key: m.secretKey }), 409, 'last_live_key');
  assert.equal((await publicRead(m.publicKey)).status, 200, 'the public key still works');
});

test('a public key rolled with no grace is refused at once, a read the edge kept included', async () => {
  const first = await publicRead(m.publicKey);
  assert.equal(first.status, 200, first.text);
  const kept = await publicRead(m.publicKey);
  assert.equal(kept.status, 200);
  assert.equal(kept.headers.get('x-tokenpad-cache'), 'hit', 'the edge keeps it');
  const pk = (await list()).find((x) => x.kind === 'public' && x.status === 'live');
  const rolled = ok(await call('POST', `/keys/${pk.id}/roll`, { key: m.secretKey, body: { graceHours: 0 } }),
    'POST', '/keys/{keyId}/roll', 201);
  shown.push(rolled.apiKey);
  assert.match(rolled.apiKey, new RegExp(`^pk_${m.id}_[0-9a-f]{32}$`));
  assert.equal(rolled.rolled.status, 'revoked');
  assert.equal((await byId(rolled.key.id)).publicKey, rolled.apiKey, 'the new public key is listed whole');
  refused(await publicRead(m.publicKey), 401, 'invalid_api_key');
  await sleep(MAX_AGE_MS + 200);
  refused(await publicRead(m.publicKey), 401, 'invalid_api_key');
  assert.equal((await publicRead(rolled.apiKey)).status, 200);
  livePk = rolled.apiKey;
});

/** A socket on /live following alice with public key `pk`, once its first message came. */
async function socket(pk) {
  assert.equal(typeof WebSocket, 'function', 'no global WebSocket: run node with --experimental-websocket');
  const ws = new WebSocket(`${w.baseUrl.replace('http', 'ws')}/live?publicKey=${pk}&holder=alice`);
  const closed = new Promise((resolve) => ws.addEventListener('close', (ev) => resolve({ code: ev.code, reason: ev.reason })));
  const first = new Promise((resolve) => ws.addEventListener('message', resolve, { once: true }));
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', () => reject(new Error('could not open the socket')), { once: true });
  });
  await first;
  return {
    ws,
    /** How it closed: the close frame within 3 s (locally the connection ends ~10 s later). */
    async closed() {
      const deadline = Date.now() + 3_000;
      while (ws.readyState < WebSocket.CLOSING) {
        if (Date.now() > deadline) assert.fail('still open 3 s after its key stopped');
        await sleep(50);
      }
      return Promise.race([closed, sleep(20_000).then(() => assert.fail('no close event'))]);
    },
  };
}

test('a live socket a key opened closes when the key stops (4401 invalid_api_key)', async () => {
  const live = await socket(livePk);
  const pk = (await list()).find((x) => x.kind === 'public' && x.status === 'live');
  const rolled = ok(await call('POST', `/keys/${pk.id}/roll`, { key: m.secretKey, body: { graceHours: 0 } }),
    'POST', '/keys/{keyId}/roll', 201);
  shown.push(rolled.apiKey);
  assert.deepEqual(await live.closed(), { code: 4401, reason: 'invalid_api_key' });
  refused(await publicRead(livePk), 401, 'invalid_api_key');
  livePk = rolled.apiKey;
});

test('the sockets of a rolled key close when its grace period ends, those opened during it too', async () => {
  const before = await socket(livePk);
  const pk = (await list()).find((x) => x.kind === 'public' && x.status === 'live');
  const rolled = ok(await call('POST', `/keys/${pk.id}/roll`, { key: m.secretKey, body: { graceHours: 1 } }),
    'POST', '/keys/{keyId}/roll', 201);
  shown.push(rolled.apiKey);
  const during = await socket(livePk);
  await sleep(500);
  assert.equal(before.ws.readyState, WebSocket.OPEN, 'open through the grace period');
  await advance(3_601);
  const [a, b] = await Promise.all([before.closed(), during.closed()]);
  assert.deepEqual(a, { code: 4401, reason: 'invalid_api_key' });
  assert.deepEqual(b, { code: 4401, reason: 'invalid_api_key' });
  livePk = rolled.apiKey;
});

test('bad input: an unknown id, a grace period over 24 hours, a name that does not show as itself', async () => {
  const sk = m.secretKey;
  refused(await call('POST', '/keys/key_0000/roll', { key: sk, body: {} }), 404, 'key_not_found');
  refused(await call('POST', '/keys/key_0000/revoke', { key: sk }), 404, 'key_not_found');
  const id = (await list())[0].id;
  refused(await call('POST', `/keys/${id}/roll`, { key: sk, body: { graceHours: 25 } }), 400, 'invalid_request');
  refused(await call('POST', `/keys/${id}/roll`, { key: sk, body: { graceHours: -1 } }), 400, 'invalid_request');
  refused(await call('POST', '/keys', { key: sk, body: { name: 'evil\u202Etxt' } }), 400, 'invalid_text');
  refused(await call('POST', '/keys', { key: sk, body: { name: '' } }), 400, 'invalid_request');
  refused(await call('POST', '/keys', { key: sk, body: {} }), 400, 'invalid_request');
  refused(await call('POST', '/keys', { key: sk, body: { name: 'x'.repeat(65) } }), 400, 'invalid_request');
  // Nothing was made or changed.
  assert.equal((await list()).filter((k) => k.status !== 'revoked' && k.name.startsWith('evil')).length, 0);
});

test('no answer ever showed a secret key a second time', () => {
  for (const key of shown.filter((k) => k.startsWith('sk_'))) {
    const times = seen.filter((text) => text.includes(key)).length;
    assert.ok(times <= 1, `a key was shown ${times} times`);
  }
});
