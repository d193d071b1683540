// Public-key reads the edge answers (edge/cached.rs) against the real worker in workerd:
// ETag and Cache-Control on public-key GETs, 304 to If-None-Match, a polling storm that does
// not spend the merchant's rate budget, a write never hidden past the cache period (and at
// once to a client coming back through the same isolate), no caching of private mode,
// session or secret-key reads, and a read whose key came in a header `private` and varying by
// that header (issue #43: one URL, every merchant's answer).
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, createMerchant, startWorker } from './harness.mjs';
import { createPresale, funded } from './check.mjs';

/** The cache period (http::PUBLIC_MAX_AGE_S). */
const MAX_AGE_MS = 1000;

let w;
let m;
before(async () => {
  // A small rate budget: cached answers must not spend it.
  w = await startWorker({ env: { RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '6' } });
  m = await createMerchant(w, 'Cache Merchant');
});
after(async () => {
  await w?.stop();
});

async function ok(res, what) {
  assert.ok(res.status >= 200 && res.status < 300, `${what}: HTTP ${res.status} ${res.text}`);
  return res.json;
}

/** A presale open for an hour that no test here fills (`check.mjs`'s `createPresale`). */
const presale = (merchant = m) => createPresale(w, merchant, { targetUsdcAmount: 100_000, autoLaunch: false });

/** A raw GET (the harness's `api` always sends a key header when given one). */
async function get(path, headers = {}) {
  const res = await fetch(`${w.baseUrl}${path}`, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('public-key reads at the edge', () => {
  test('a public read carries ETag and Cache-Control, and answers 304 to If-None-Match', async () => {
    const p = await presale();
    const path = `/token/presales/${p.id}?publicKey=${m.publicKey}`;
    const first = await get(path);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers.get('cache-control'), 'public, max-age=1, stale-while-revalidate=5');
    const etag = first.headers.get('etag');
    assert.match(etag, /^"[0-9a-f]{32}"$/);
    assert.ok(Number(first.headers.get('x-service-time')) > 0);
    assert.equal(first.headers.get('x-tokenpad-cache'), 'miss');
    const again = await get(path, { 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get('x-tokenpad-cache'), 'hit');
    assert.equal(again.text, '');
    assert.equal(again.headers.get('etag'), etag);
    assert.equal((await get(path, { 'if-none-match': '"other"' })).status, 200);
    // After the period, from the object again: the same state, the same tag, still a 304.
    await sleep(MAX_AGE_MS + 100);
    const later = await get(path, { 'if-none-match': `W/${etag}` });
    assert.equal(later.status, 304);
    // CORS still lets a browser read the tag.
    assert.equal(first.headers.get('access-control-allow-origin'), '*');
  });

  test('Cache-Control: no-cache (or Pragma: no-cache) asks the object, and its answer is kept for the next', async () => {
    const p = await presale();
    const path = `/token/presales/${p.id}?publicKey=${m.publicKey}`;
    assert.equal((await get(path)).headers.get('x-tokenpad-cache'), 'miss');
    assert.equal((await get(path)).headers.get('x-tokenpad-cache'), 'hit');
    for (const headers of [{ 'cache-control': 'no-cache' }, { 'cache-control': 'max-age=0' }, { pragma: 'no-cache' }]) {
      const fresh = await get(path, headers);
      assert.equal(fresh.status, 200, fresh.text);
      assert.equal(fresh.headers.get('x-tokenpad-cache'), 'miss', JSON.stringify(headers));
      // What it asked is kept: the plain read right after is answered at the edge.
      assert.equal((await get(path)).headers.get('x-tokenpad-cache'), 'hit', JSON.stringify(headers));
    }
    // A conditional request is answered from what is kept even so: fetch() adds no-cache to
    // every request given an If-None-Match (as this one is), and ETag polls must stay cheap.
    const etag = (await get(path)).headers.get('etag');
    const conditional = await get(path, { 'if-none-match': etag, 'cache-control': 'no-cache' });
    assert.equal(conditional.status, 304);
    assert.equal(conditional.headers.get('x-tokenpad-cache'), 'hit');
    // A browser may send it: the preflight allows the header.
    const pre = await fetch(`${w.baseUrl}${path}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'cache-control' },
    });
    assert.match(pre.headers.get('access-control-allow-headers') ?? '', /cache-control/);
  });

  test('a polling storm is answered without spending the rate budget', async () => {
    const p = await presale();
    await sleep(3_000); // the budget refills
    const path = `/token/presales/${p.id}?publicKey=${m.publicKey}`;
    // 2/s with a burst of 6: 300 reads over about 1.5 s would be mostly refused if each
    // reached the object.
    const statuses = [];
    const t0 = Date.now();
    while (Date.now() - t0 < 1_500) {
      const batch = await Promise.all(Array.from({ length: 20 }, () => get(path)));
      statuses.push(...batch.map((r) => r.status));
    }
    const refused = statuses.filter((s) => s === 429).length;
    assert.ok(statuses.length >= 100, `${statuses.length} reads`);
    // At most one read a period reaches the object (about 2-3 here): within the budget.
    assert.equal(refused, 0, `${refused} of ${statuses.length} refused`);
    assert.ok(statuses.every((s) => s === 200));
  });

  test('a write is never hidden past the cache period, and at once through the same isolate', async () => {
    const p = await presale();
    await funded(w, m, 'poller-buyer', 100);
    await sleep(3_000); // the budget refills
    const path = `/token/presales/${p.id}?publicKey=${m.publicKey}`;
    const before = JSON.parse((await get(path)).text);
    assert.equal(before.purchasedUsdcAmount, 0);
    // The merchant's own write through this (local: the only) isolate: seen at once.
    await ok(await api(w, 'POST', '/holder/poller-buyer/buy-presale', { key: m.secretKey, body: { presaleId: p.id, usdcAmount: 2 } }), 'buy');
    assert.equal(JSON.parse((await get(path)).text).purchasedUsdcAmount, 2);
    // Polled while it changes: every read made a period after a write's answer shows it.
    let written = { at: Date.now(), amount: 2 };
    const stop = Date.now() + 2_500;
    const reads = (async () => {
      const seen = [];
      while (Date.now() < stop) {
        const asked = Date.now();
        const body = JSON.parse((await get(path)).text);
        seen.push({ asked, amount: body.purchasedUsdcAmount, last: { ...written } });
        await sleep(20);
      }
      return seen;
    })();
    for (let i = 0; i < 3; i++) {
      await sleep(600);
      await ok(await api(w, 'POST', '/holder/poller-buyer/buy-presale', { key: m.secretKey, body: { presaleId: p.id, usdcAmount: 1 } }), 'buy');
      written = { at: Date.now(), amount: written.amount + 1 };
    }
    for (const r of await reads) {
      if (r.asked >= r.last.at + MAX_AGE_MS) assert.ok(r.amount >= r.last.amount, JSON.stringify(r));
    }
    await sleep(MAX_AGE_MS + 100);
    assert.equal(JSON.parse((await get(path)).text).purchasedUsdcAmount, 5);
  });

  test('a public read keyed by a header is private and varies by the header; keyed by its URL it stays public', async () => {
    const vm = await createMerchant(w, 'Vary Cache');
    const p = await presale(vm);
    const path = `/token/presales/${p.id}`;
    const PRIVATE = 'private, max-age=1, stale-while-revalidate=5';
    for (const headers of [{ 'x-api-key': vm.publicKey }, { authorization: `Bearer ${vm.publicKey}` }]) {
      const first = await get(path, headers);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.headers.get('cache-control'), PRIVATE, JSON.stringify(headers));
      assert.equal(first.headers.get('vary'), 'x-api-key, authorization');
      // What the edge keeps is answered the same way, a 304 too.
      const again = await get(path, headers);
      assert.equal(again.headers.get('x-tokenpad-cache'), 'hit');
      assert.equal(again.headers.get('cache-control'), PRIVATE);
      assert.equal(again.headers.get('vary'), 'x-api-key, authorization');
      const etag = first.headers.get('etag');
      const same = await get(path, { ...headers, 'if-none-match': etag });
      assert.equal(same.status, 304);
      assert.equal(same.headers.get('cache-control'), PRIVATE);
      assert.equal(same.headers.get('vary'), 'x-api-key, authorization');
    }
    const head = await fetch(`${w.baseUrl}${path}`, { method: 'HEAD', headers: { 'x-api-key': vm.publicKey } });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('cache-control'), PRIVATE, 'HEAD');
    assert.equal(head.headers.get('vary'), 'x-api-key, authorization');
    // The same URL with another merchant's key is another answer: why a shared cache must
    // never serve one for the other.
    const other = await get(path, { 'x-api-key': m.publicKey });
    assert.equal(other.status, 404, other.text);
    // The key in the URL names whose answer it is: public, as before, and no Vary.
    const byUrl = await get(`${path}?publicKey=${vm.publicKey}`);
    assert.equal(byUrl.status, 200);
    assert.equal(byUrl.headers.get('cache-control'), 'public, max-age=1, stale-while-revalidate=5');
    assert.equal(byUrl.headers.get('vary'), null);
    // The URL's key wins over a header's (as it always did), and so does its caching.
    const both = await get(`${path}?publicKey=${vm.publicKey}`, { 'x-api-key': m.publicKey });
    assert.equal(both.status, 200, both.text);
    assert.equal(both.headers.get('cache-control'), 'public, max-age=1, stale-while-revalidate=5');
  });

  test('private mode, session and secret-key reads are never cached', async () => {
    const pm = await createMerchant(w, 'Private Cache');
    const p = await presale(pm);
    await ok(await api(w, 'PUT', '/holder/dana', { key: pm.secretKey }), 'holder');
    const path = `/token/presales/${p.id}?publicKey=${pm.publicKey}`;
    const holderPath = `/holder/dana?publicKey=${pm.publicKey}`;
    assert.match((await get(path)).headers.get('cache-control'), /^public/);
    assert.equal((await get(holderPath)).status, 200);
    await sleep(3_000); // the budget refills
    await ok(await api(w, 'PATCH', '/merchant/settings', { key: pm.secretKey, body: { privateMode: true } }), 'private mode');
    // At once here (the write went through this isolate), and past the period anywhere.
    for (const wait of [0, MAX_AGE_MS + 100]) {
      await sleep(wait);
      const read = await get(path);
      assert.equal(read.status, 200);
      assert.equal(read.headers.get('cache-control'), 'no-store');
      assert.equal(read.headers.get('etag'), null);
      const refused = await get(holderPath);
      assert.equal(refused.status, 403, refused.text);
    }
    // A secret key's read and a session's: no-store, no tag.
    await sleep(2_500); // the budget refills
    const secret = await get(`/token/presales/${p.id}`, { 'x-api-key': pm.secretKey });
    assert.equal(secret.headers.get('cache-control'), 'no-store');
    const s = await ok(await api(w, 'POST', '/holder/dana/session', { key: pm.secretKey, body: {} }), 'session');
    const mine = await get('/holder/dana', { authorization: `Bearer ${s.token}` });
    assert.equal(mine.status, 200, mine.text);
    assert.equal(mine.headers.get('cache-control'), 'no-store');
    assert.equal(mine.headers.get('etag'), null);
  });
});
