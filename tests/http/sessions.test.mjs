// Holder sessions against the real worker in workerd: short-lived, user-scoped session tokens
// (POST /holder/:userId/session, DELETE /holder/:userId/sessions), accepted as
// `Authorization: Bearer` on the holder's reads and on buy-presale, transfer and spend within
// their scopes and limits; forged, expired, revoked, other-merchant and other-holder tokens
// refused with 401/403 and nothing changed; limits held under concurrent requests; private
// mode (holder reads need a session, public reads show addresses). With
// TOKENPAD_TEST_CHAIN=anvil every movement also settles on a real node, and the suite ends with
// ledger and chain agreeing.
import test, { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker } from './harness.mjs';
import { advanceTime, checkedCall, checkedClient, createPresale, faucet, holder, usdcOf } from './check.mjs';

const OUTSIDE = '0x000000000000000000000000000000000000dEaD';

let w;
const { newMerchant, newToken, reconcileAll } = checkedClient(() => w);
before(async () => {
  w = await startWorker();
});
after(async () => {
  // Every merchant's ledger agrees with the chain (on an EVM chain: balanceOf, once settled).
  if (w) await reconcileAll();
  await w?.stop();
});

const call = (method, path, opts, template) => checkedCall(w, method, path, opts, template);

const bearer = (token, headers = {}) => ({ headers: { authorization: `Bearer ${token}`, ...headers } });

/** A merchant with a token, and `users` holders each given 100 of it. */
async function setup(name, users = ['alice', 'bob']) {
  const m = await newMerchant(name);
  const t = await newToken(m, { symbol: 'SESS', canDistribute: true });
  const holders = {};
  for (const u of users) {
    holders[u] = (await holder(w, m, u)).address;
    const d = await call('POST', `/token/${t.address}/distribute`, { key: m.secretKey, body: { sendToId: u, amount: 100 } });
    assert.equal(d.status, 200, d.text);
  }
  return { m, token: t.address, holders };
}

async function session(m, userId, body = {}) {
  const r = await call('POST', `/holder/${userId}/session`, { key: m.secretKey, body }, '/holder/{userId}/session');
  assert.equal(r.status, 201, r.text);
  return r.json;
}

async function balance(m, userId, token) {
  const r = await call('GET', `/holder/${userId}/token/${token}`, { key: m.secretKey });
  assert.equal(r.status, 200, r.text);
  return Number(r.json.balance);
}

function refused(res, status, code) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.json?.code, code, res.text);
}

/** Base64url of a JSON object (to forge token payloads). */
const b64 = (obj) => Buffer.from(JSON.stringify(obj)).toString('base64url');
const payloadOf = (token) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());

describe('issuing', () => {
  test('a session token is made with the secret key only, read-only and 15 minutes by default', async () => {
    const { m } = await setup('Sessions issue', ['alice']);
    const s = await session(m, 'alice');
    assert.deepEqual(s.scopes, ['read']);
    assert.equal(s.userId, 'alice');
    assert.deepEqual(s.limits, []);
    assert.equal(s.token.split('.').length, 3);
    const p = payloadOf(s.token);
    assert.equal(p.sub, 'alice');
    assert.equal(p.aud, m.id);
    assert.equal(p.exp - p.iat, 900);
    assert.equal(s.expiresAtUnix, p.exp);
    assert.equal(Date.parse(s.expiresAt) / 1000, p.exp);
    // Nothing secret in the token: neither key, nor any signing secret.
    assert.ok(!s.token.includes(m.secretKey) && !JSON.stringify(p).includes('sk_'));

    refused(await call('POST', '/holder/alice/session', { key: m.publicKey, body: {} }), 403, 'secret_key_required');
    refused(await call('POST', '/holder/alice/session', { body: {}, ...bearer(s.token) }), 403, 'secret_key_required');
    refused(await call('POST', '/holder/nobody/session', { key: m.secretKey, body: {} }), 404, 'holder_not_found');
    for (const body of [{ ttlSeconds: 59 }, { ttlSeconds: 86_401 }, { scopes: [] }, { scopes: ['admin'] },
      { limits: [{ tokenAddress: OUTSIDE }] }]) {
      const r = await call('POST', '/holder/alice/session', { key: m.secretKey, body });
      assert.equal(r.status, r.json?.code === 'token_not_found' ? 404 : 400, `${JSON.stringify(body)}: ${r.text}`);
    }
    const day = await session(m, 'alice', { ttlSeconds: 86_400, scopes: ['transfer', 'read', 'transfer'] });
    assert.deepEqual(day.scopes, ['read', 'transfer']);
    assert.equal(payloadOf(day.token).exp - payloadOf(day.token).iat, 86_400);
  });

  test('GET /session tells a token what it may do', async () => {
    const { m, token } = await setup('Sessions info', ['alice']);
    const s = await session(m, 'alice', { scopes: ['spend'], limits: [{ tokenAddress: token, maxPerSession: 40 }] });
    const r = await call('GET', '/session', bearer(s.token), '/session');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.scopes, ['spend']);
    assert.equal(Number(r.json.limits[0].maxPerSession), 40);
    assert.equal(Number(r.json.limits[0].remaining), 40);
    refused(await call('GET', '/session', { key: m.publicKey }), 403, 'session_token_required');
  });
});

describe('refused tokens change nothing', () => {
  test('forged, expired, revoked, other-merchant and other-holder tokens: 401/403 with stable codes', async () => {
    const { m, token } = await setup('Sessions refused');
    const other = await setup('Sessions other merchant', ['alice']);
    const s = await session(m, 'alice', { scopes: ['read', 'transfer', 'spend'] });
    const spend = (tok, user = 'alice') =>
      call('POST', `/holder/${user}/spend`, { body: { tokenAddress: token, amount: 1 }, ...bearer(tok) });

    // Good first: the token reads alice and spends for her.
    assert.equal((await call('GET', '/holder/alice', bearer(s.token), '/holder/{userId}')).status, 200);
    assert.equal((await spend(s.token)).status, 200);
    assert.equal(await balance(m, 'alice', token), 99);

    // Forged: the payload changed (bob, more scopes), the signature kept; alg none; junk.
    const [h, , sig] = s.token.split('.');
    const claims = payloadOf(s.token);
    const forged = [
      `${h}.${b64({ ...claims, sub: 'bob' })}.${sig}`,
      `${h}.${b64({ ...claims, exp: claims.exp + 86_400 })}.${sig}`,
      `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`,
      `${h}.${b64(claims)}.${sig.slice(0, -4)}AAAA`,
    ];
    for (const f of forged) {
      refused(await spend(f), 401, 'invalid_session_token');
      refused(await call('GET', '/holder/alice', bearer(f)), 401, 'invalid_session_token');
    }
    // A token naming another merchant (re-signed by nobody who has its key), or none.
    refused(await spend(`${h}.${b64({ ...claims, aud: other.m.id })}.${sig}`), 401, 'invalid_session_token');
    refused(await spend(`${h}.${b64({ ...claims, aud: '0'.repeat(32) })}.${sig}`), 401, 'invalid_session_token');
    // Another merchant's token for its own alice never touches this merchant's alice.
    const theirs = await session(other.m, 'alice', { scopes: ['read', 'spend'] });
    const r = await call('GET', '/holder/alice', bearer(theirs.token));
    assert.equal(r.status, 200);
    assert.equal(r.json.address, other.holders.alice);
    assert.notEqual(r.json.address, (await call('GET', '/holder/alice', { key: m.secretKey })).json.address);
    refused(await spend(theirs.token), 404, 'token_not_found');

    // Another holder: refused, whatever the route.
    refused(await spend(s.token, 'bob'), 403, 'session_holder_mismatch');
    refused(await call('GET', '/holder/bob', bearer(s.token)), 403, 'session_holder_mismatch');
    refused(await call('GET', '/holder/bob/transactions', bearer(s.token)), 403, 'session_holder_mismatch');
    refused(await call('GET', `/holder/bob/token/${token}`, bearer(s.token)), 403, 'session_holder_mismatch');
    const bobAddress = (await call('GET', '/holder/bob', { key: m.secretKey })).json.address;
    refused(await call('GET', `/holder/${bobAddress}/token/${token}`, bearer(s.token)), 403, 'session_holder_mismatch');
    // Secret-key operations: refused.
    refused(await call('POST', '/holder/alice/withdraw', { body: { tokenAddress: token, amount: 1, toAddress: OUTSIDE }, ...bearer(s.token) }), 403, 'secret_key_required');
    refused(await call('POST', `/token/${token}/distribute`, { body: { sendToId: 'alice', amount: 1 }, ...bearer(s.token) }), 403, 'secret_key_required');
    refused(await call('PUT', '/holder/carol', bearer(s.token)), 403, 'secret_key_required');

    // Expired: the clock moves past its 15 minutes.
    const short = await session(m, 'alice', { ttlSeconds: 60, scopes: ['read', 'spend'] });
    assert.equal((await call('GET', '/holder/alice', bearer(short.token))).status, 200);
    await advanceTime(w, 61);
    refused(await spend(short.token), 401, 'session_expired');
    refused(await call('GET', '/holder/alice', bearer(short.token)), 401, 'session_expired');

    // Revoked: every live session of alice, at once.
    const rv = await call('DELETE', '/holder/alice/sessions', { key: m.secretKey }, '/holder/{userId}/sessions');
    assert.equal(rv.status, 200, rv.text);
    assert.equal(rv.json.success, true);
    assert.ok(rv.json.revoked >= 1, rv.text);
    refused(await spend(s.token), 401, 'session_revoked');
    refused(await call('GET', '/holder/alice', bearer(s.token)), 401, 'session_revoked');
    refused(await call('DELETE', '/holder/alice/sessions', bearer(theirs.token)), 403, 'secret_key_required');

    // Nothing moved after the one good spend; a new session works again.
    assert.equal(await balance(m, 'alice', token), 99);
    assert.equal(await balance(m, 'bob', token), 100);
    const again = await session(m, 'alice', { scopes: ['spend'] });
    assert.equal((await spend(again.token)).status, 200);
    assert.equal(await balance(m, 'alice', token), 98);
  });

  test('a Bearer value that is an API key stays an API key (Metal clients)', async () => {
    const { m, token } = await setup('Sessions bearer keys', ['alice']);
    const r = await call('POST', '/holder/alice/spend', { body: { tokenAddress: token, amount: 2 }, headers: { authorization: `Bearer ${m.secretKey}` } });
    assert.equal(r.status, 200, r.text);
    assert.equal((await call('GET', '/merchant/all-tokens', { headers: { authorization: `Bearer ${m.secretKey}` } })).status, 200);
    refused(await call('POST', '/holder/alice/spend', { body: { tokenAddress: token, amount: 2 }, headers: { authorization: `Bearer ${m.publicKey}` } }), 403, 'secret_key_required');
    assert.equal(await balance(m, 'alice', token), 98);
  });
});

describe('scopes and limits', () => {
  test('a token does exactly what its scopes allow', async () => {
    const { m, token, holders } = await setup('Sessions scopes');
    const read = await session(m, 'alice');
    const body = { tokenAddress: token, amount: 5, toAddress: holders.bob };
    const spendBody = { tokenAddress: token, amount: 5 };
    refused(await call('POST', '/holder/alice/transfer', { body, ...bearer(read.token) }), 403, 'insufficient_scope');
    refused(await call('POST', '/holder/alice/spend', { body: spendBody, ...bearer(read.token) }), 403, 'insufficient_scope');
    const tr = await session(m, 'alice', { scopes: ['transfer'] });
    refused(await call('GET', '/holder/alice', bearer(tr.token)), 403, 'insufficient_scope');
    refused(await call('POST', '/holder/alice/spend', { body: spendBody, ...bearer(tr.token) }), 403, 'insufficient_scope');
    const ok = await call('POST', '/holder/alice/transfer', { body, ...bearer(tr.token) }, '/holder/{userId}/transfer');
    assert.equal(ok.status, 200, ok.text);
    assert.equal(await balance(m, 'alice', token), 95);
    assert.equal(await balance(m, 'bob', token), 105);
    const h = await call('GET', '/holder/alice/transactions', bearer(read.token), '/holder/{userId}/transactions');
    assert.equal(h.status, 200, h.text);
    // Public reads stay public with a token.
    assert.equal((await call('GET', `/token/${token}`, bearer(read.token))).status, 200);
  });

  test('limits per operation and per session; idempotent retries count once', async () => {
    const { m, token } = await setup('Sessions limits', ['alice']);
    const s = await session(m, 'alice', { scopes: ['spend'], limits: [{ tokenAddress: token, maxPerOperation: 20, maxPerSession: 30 }] });
    const spend = (amount, headers = {}) =>
      call('POST', '/holder/alice/spend', { body: { tokenAddress: token, amount }, ...bearer(s.token, headers) });
    const big = await spend(21);
    refused(big, 403, 'session_limit_exceeded');
    assert.equal(big.json.details?.limit, 'maxPerOperation', big.text);
    const first = await spend(15, { 'idempotency-key': 'order-1' });
    assert.equal(first.status, 200, first.text);
    const replay = await spend(15, { 'idempotency-key': 'order-1' });
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(await balance(m, 'alice', token), 85);
    refused(await spend(16), 403, 'session_limit_exceeded');
    assert.equal((await spend(15)).status, 200);
    refused(await spend(1), 403, 'session_limit_exceeded');
    assert.equal(await balance(m, 'alice', token), 70);
    const info = await call('GET', '/session', bearer(s.token));
    assert.equal(Number(info.json.limits[0].spent), 30);
    assert.equal(Number(info.json.limits[0].remaining), 0);
    // A token not in the limits may not move at all.
    const usdcOnly = await session(m, 'alice', { scopes: ['spend'], limits: [{ tokenAddress: usdcOf(w), maxPerSession: 5 }] });
    refused(await call('POST', '/holder/alice/spend', { body: { tokenAddress: token, amount: 1 }, ...bearer(usdcOnly.token) }), 403, 'session_limit_exceeded');
    assert.equal(await balance(m, 'alice', token), 70);
  });

  test('an operation refused after its limit was counted leaves the count as it was', async () => {
    // The charge runs first in the operation's transaction; the spend then fails for want of
    // balance, and the count must roll back with it (the core alone has no rollback).
    const { m, token } = await setup('Sessions rollback', ['alice']);
    const s = await session(m, 'alice', { scopes: ['spend'], limits: [{ tokenAddress: token, maxPerSession: 500 }] });
    const spend = (amount) => call('POST', '/holder/alice/spend', { body: { tokenAddress: token, amount }, ...bearer(s.token) });
    refused(await spend(150), 422, 'insufficient_balance');
    let info = await call('GET', '/session', bearer(s.token));
    assert.equal(Number(info.json.limits[0].spent), 0, info.text);
    assert.equal((await spend(40)).status, 200);
    info = await call('GET', '/session', bearer(s.token));
    assert.equal(Number(info.json.limits[0].spent), 40, info.text);
    assert.equal(await balance(m, 'alice', token), 60);
  });

  test('concurrent requests that together exceed a limit never move more than it', async () => {
    const { m, token, holders } = await setup('Sessions concurrent');
    const s = await session(m, 'alice', { scopes: ['spend', 'transfer'], limits: [{ tokenAddress: token, maxPerSession: 35 }] });
    const reqs = Array.from({ length: 12 }, (_, i) =>
      call('POST', `/holder/alice/${i % 2 ? 'spend' : 'transfer'}`, {
        body: i % 2 ? { tokenAddress: token, amount: 5 } : { tokenAddress: token, amount: 5, toAddress: holders.bob },
        ...bearer(s.token),
      }));
    const answers = await Promise.all(reqs);
    const ok = answers.filter((r) => r.status === 200).length;
    for (const r of answers) if (r.status !== 200) refused(r, 403, 'session_limit_exceeded');
    assert.equal(ok, 7);
    const alice = await balance(m, 'alice', token);
    const bob = await balance(m, 'bob', token);
    assert.equal(alice, 65);
    assert.ok(bob <= 135 && bob >= 100, String(bob));
  });
});

describe('presales and private mode', () => {
  async function presale(m) {
    const p = await createPresale(w, m, {
      name: 'Moon', description: 'Moon presale', targetUsdcAmount: 1000,
      tokenInfo: { name: 'Moon', symbol: 'MOON', imageUrl: 'https://example.com/m.png' },
    });
    return p.id;
  }

  test('a session token buys into a presale within its USDC limit', async () => {
    const { m, holders } = await setup('Sessions presale', ['alice']);
    await faucet(w, m, holders.alice, 100);
    const id = await presale(m);
    const usdc = usdcOf(w);
    const s = await session(m, 'alice', { scopes: ['read', 'buy-presale'], limits: [{ tokenAddress: usdc, maxPerSession: 50 }] });
    const buy = (usdcAmount, headers = {}) =>
      call('POST', '/holder/alice/buy-presale', { body: { presaleId: id, usdcAmount }, ...bearer(s.token, headers) }, '/holder/{userId}/buy-presale');
    assert.equal((await buy(30, { 'idempotency-key': 'p-1' })).status, 200);
    assert.equal((await buy(30, { 'idempotency-key': 'p-1' })).headers.get('idempotent-replayed'), 'true');
    refused(await buy(21), 403, 'session_limit_exceeded');
    assert.equal((await buy(20)).status, 200);
    const p = await call('GET', `/token/presales/${id}?publicKey=${m.publicKey}`);
    assert.equal(Number(p.json.purchasedUsdcAmount), 50);
    const spend = await session(m, 'alice', { scopes: ['spend'] });
    refused(await call('POST', '/holder/alice/buy-presale', { body: { presaleId: id, usdcAmount: 1 }, ...bearer(spend.token) }), 403, 'insufficient_scope');
  });

  test('private mode: holder reads need a session token; public reads show addresses, never userIds', async () => {
    const { m, token, holders } = await setup('Sessions private', ['alice']);
    await faucet(w, m, holders.alice, 10);
    const id = await presale(m);
    assert.equal((await call('POST', '/holder/alice/buy-presale', { key: m.secretKey, body: { presaleId: id, usdcAmount: 5 } })).status, 200);
    // Off by default: today's behaviour.
    const settings = await call('GET', '/merchant/settings', { key: m.secretKey }, '/merchant/settings');
    assert.deepEqual(settings.json, { privateMode: false });
    assert.equal((await call('GET', `/holder/alice?publicKey=${m.publicKey}`)).status, 200);
    assert.equal((await call('GET', `/token/presales/${id}?publicKey=${m.publicKey}`)).json.participants[0].id, 'alice');

    refused(await call('PATCH', '/merchant/settings', { key: m.publicKey, body: { privateMode: true } }), 403, 'secret_key_required');
    const on = await call('PATCH', '/merchant/settings', { key: m.secretKey, body: { privateMode: true } }, '/merchant/settings');
    assert.equal(on.status, 200, on.text);
    assert.deepEqual(on.json, { privateMode: true });

    refused(await call('GET', `/holder/alice?publicKey=${m.publicKey}`), 403, 'session_token_required');
    refused(await call('GET', `/holder/alice/token/${token}?publicKey=${m.publicKey}`), 403, 'session_token_required');
    refused(await call('GET', `/holder/${holders.alice}/token/${token}?publicKey=${m.publicKey}`), 403, 'session_token_required');
    const s = await session(m, 'alice');
    const mine = await call('GET', `/holder/alice?publicKey=${m.publicKey}`, bearer(s.token), '/holder/{userId}');
    assert.equal(mine.status, 200, mine.text);
    assert.equal((await call('GET', `/holder/${holders.alice}/token/${token}`, bearer(s.token))).status, 200);
    // Public presale and token reads: addresses, never userIds (the merchant's own reads keep them).
    const pub = await call('GET', `/token/presales/${id}?publicKey=${m.publicKey}`, {}, '/token/presales/{presaleId}');
    assert.equal(pub.json.participants[0].id.toLowerCase(), holders.alice.toLowerCase());
    assert.ok(!pub.text.includes('"alice"'), pub.text);
    // The secret key's read first: its rows (named by userId) are kept as written, and the
    // public read after it must not be served them.
    const own = await call('GET', `/token/${token}`, { key: m.secretKey });
    assert.ok(own.json.holders.some((h) => h.id === 'alice'), own.text);
    const t = await call('GET', `/token/${token}?publicKey=${m.publicKey}`);
    assert.ok(t.json.holders.length > 0 && !t.text.includes('"alice"'), t.text);
    assert.ok((await call('GET', `/token/${token}`, { key: m.secretKey })).json.holders.some((h) => h.id === 'alice'));
    const merchantView = await call('GET', `/merchant/presale/${id}`, { key: m.secretKey });
    assert.ok(merchantView.text.includes('alice'));
    assert.equal((await call('GET', `/holder/alice`, { key: m.secretKey })).status, 200);

    const off = await call('PATCH', '/merchant/settings', { key: m.secretKey, body: { privateMode: false } });
    assert.deepEqual(off.json, { privateMode: false });
    assert.equal((await call('GET', `/holder/alice?publicKey=${m.publicKey}`)).status, 200);
  });
});
