// @tokenpad/client/query with TanStack Query (@tanstack/react-query and React installed in a
// fresh app from packed tarballs, as from the registry) against the real worker (workerd):
// server rendering with prefetch, dehydrate and hydrate (the browser's QueryClient starts with
// the server's data and reads nothing to show it), refetch on focus, a write through a mutation
// then a fresh read (sent past every cache: `Cache-Control: no-cache`), the live push written
// into the query cache, and a 404 answered once, never retried.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { api, createMerchant, createToken, startWorker } from '../http/harness.mjs';
import { WS_FLAG, installApp, node } from './pack.mjs';

const PEERS = ['react', 'react-dom', 'scheduler', '@tanstack/react-query', '@tanstack/query-core'];

let w;
let m;
let token;
let app;
let session;
before(async () => {
  [w, app] = await Promise.all([startWorker(), installApp({ how: 'tarball', peers: PEERS })]);
  m = await createMerchant(w, 'Query Merchant');
  token = await createToken(w, m.secretKey, { name: 'Query Token', symbol: 'QRY' });
  await api(w, 'PUT', '/holder/alice', { key: m.secretKey });
  await api(w, 'POST', `/token/${token.address}/distribute`, { key: m.secretKey, body: { sendToId: 'alice', amount: '10.5' } });
  session = (await api(w, 'POST', '/holder/alice/session', { key: m.secretKey, body: { scopes: ['read', 'spend'] } })).json.token;
});
after(async () => {
  await w?.stop();
  await app?.cleanup();
});

test('TanStack Query: server rendering and hydration, refetch on focus, a write then a fresh read, the live push, no retried 404', { timeout: 120_000 }, async () => {
  await writeFile(path.join(app.app, 'query.mjs'), `
    import { QueryClient, QueryClientProvider, QueryObserver, MutationObserver, focusManager, dehydrate, hydrate, useSuspenseQuery } from '@tanstack/react-query';
    import { createElement as h, Suspense } from 'react';
    import { renderToString } from 'react-dom/server';
    import { TokenpadClient } from '@tokenpad/client';
    import { holderQuery, balanceQuery, spendMutation, followHolder, tokenpadKeys } from '@tokenpad/client/query';
    const env = process.env;
    // Every read the client sends, with whether it asked past the caches.
    const reads = [];
    const counting = (url, init) => {
      if ((init?.method ?? 'GET') === 'GET') reads.push([new URL(url).pathname, init?.headers?.['cache-control'] ?? null]);
      return fetch(url, init);
    };
    const client = new TokenpadClient({ baseUrl: env.BASE_URL, publicKey: env.PK, sessionToken: env.SESSION, fetch: counting });
    const balanceOf = (holder) => holder.tokens.find((t) => t.address === env.TOKEN)?.balance;
    const until = async (what, check) => {
      for (let i = 0; i < 200; i++) { if (check()) return; await new Promise((r) => setTimeout(r, 50)); }
      throw new Error('timed out waiting for ' + what);
    };
    const out = {};

    // Server rendering: prefetch, render with Suspense, dehydrate; the browser hydrates.
    const server = new QueryClient();
    await server.prefetchQuery(holderQuery(client, 'alice'));
    function Wallet() {
      const { data } = useSuspenseQuery(holderQuery(client, 'alice'));
      return h('p', null, 'alice holds ' + balanceOf(data));
    }
    out.html = renderToString(h(QueryClientProvider, { client: server }, h(Suspense, { fallback: 'loading' }, h(Wallet))));
    const dehydrated = JSON.stringify(dehydrate(server));
    const serverReads = reads.length;
    const browser = new QueryClient({ defaultOptions: { queries: { staleTime: 60_000 } } });
    browser.mount(); // as QueryClientProvider does: it follows focus and connectivity
    hydrate(browser, JSON.parse(dehydrated));
    out.hydrated = balanceOf(browser.getQueryData(tokenpadKeys.holder('alice')));

    // Mounted: the hydrated data shows without a read (fresh for a minute, as TanStack advises
    // with server rendering); focus reads it again all the same ('always').
    const observer = new QueryObserver(browser, { ...holderQuery(client, 'alice'), refetchOnWindowFocus: 'always' });
    const seen = [];
    const unsubscribe = observer.subscribe((r) => seen.push([r.status, r.isPending, r.isFetching]));
    await until('the mount read', () => !observer.getCurrentResult().isFetching);
    out.afterMount = reads.length - serverReads;
    focusManager.setFocused(false);
    focusManager.setFocused(true);
    await until('the focus read', () => reads.length - serverReads === out.afterMount + 1 && !observer.getCurrentResult().isFetching);
    out.afterFocus = reads.length - serverReads;
    out.status = observer.getCurrentResult().status;

    // A write through the mutation: the holder's queries are invalidated and read again, fresh.
    const before = reads.length;
    const spend = new MutationObserver(browser, spendMutation(client, browser));
    await spend.mutate({ userId: 'alice', tokenAddress: env.TOKEN, amount: '0.5', idempotencyKey: 'query-spend-1' });
    await until('the read after the write', () => reads.length > before && !observer.getCurrentResult().isFetching);
    out.afterWrite = balanceOf(observer.getCurrentResult().data);
    out.freshAfterWrite = reads.slice(before).every(([, cc]) => cc === 'no-cache');
    out.balanceQuery = (await browser.fetchQuery(balanceQuery(client, 'alice', env.TOKEN))).balance;

    // The live push: a distribute by the merchant's server lands in the query cache.
    const watch = followHolder(client, browser, 'alice');
    await fetch(env.BASE_URL + '/token/' + env.TOKEN + '/distribute', { method: 'POST',
      headers: { 'x-api-key': env.SK, 'content-type': 'application/json' }, body: JSON.stringify({ sendToId: 'alice', amount: 2 }) });
    await until('the pushed state', () => balanceOf(browser.getQueryData(tokenpadKeys.holder('alice'))) === '12');
    out.pushed = balanceOf(browser.getQueryData(tokenpadKeys.holder('alice')));
    watch.stop();
    unsubscribe();

    // A 404 is the request's: answered once, not retried.
    const nobody = reads.length;
    const anyone = new TokenpadClient({ baseUrl: env.BASE_URL, publicKey: env.PK, fetch: counting }); // no session: any holder
    out.missing = await browser.fetchQuery(holderQuery(anyone, 'nobody')).then(() => 'found', (e) => [e.code, e.status]);
    out.missingReads = reads.slice(nobody).filter(([p]) => p.endsWith('/nobody')).length;
    out.statuses = [...new Set(seen.map(([s]) => s))];
    console.log(JSON.stringify(out));
    process.exit(0);
  `);
  const out = JSON.parse(await node(app.app, 'query.mjs',
    { BASE_URL: w.baseUrl, PK: m.publicKey, SK: m.secretKey, SESSION: session, TOKEN: token.address }, WS_FLAG));
  assert.match(out.html, /alice holds 10\.5/);
  assert.equal(out.hydrated, '10.5');
  assert.equal(out.afterMount, 0, 'the hydrated data is shown without a read');
  assert.equal(out.afterFocus, 1, 'focus read it again');
  assert.equal(out.status, 'success');
  assert.equal(out.afterWrite, '10');
  assert.equal(out.freshAfterWrite, true, 'the reads after the write went past every cache');
  assert.equal(out.balanceQuery, '10');
  assert.equal(out.pushed, '12');
  assert.deepEqual(out.missing, ['holder_not_found', 404]);
  assert.equal(out.missingReads, 1, 'a 404 is not retried');
  assert.deepEqual(out.statuses, ['success']);
});
