// @tokenpad/client installed from its tarball, under Node, against a local stand-in of the
// service (for what the real one cannot be made to do on demand: 503s, a hanging answer, a
// dropped connection): the tarball's contents (one .wasm), ESM and CommonJS, the wasm passed in
// by hand (`/init`, as on Deno-style runtimes), TokenpadError, retries with backoff and
// Retry-After, `signal`, request ids, the service clock, the server client's idempotency keys
// and exact amounts, and the TypeScript types of every entry point under a strict compiler.
// tests/consumer/live.test.mjs runs the same package against the real worker.
import assert from 'node:assert/strict';
import { lstatSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, installPacked, node, run } from './pack.mjs';

const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const PUBLIC_KEY = 'pk_demo_consumer';
const SECRET_KEY = 'sk_demo_consumer';
const WEEK = 7 * 86_400_000;

const HOLDER = `{"success":true,"id":"alice","address":"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB","totalValue":1285.185183,
"tokens":[{"id":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","address":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","name":"Demo Token","symbol":"DEMO","balance":1234.567890123456789012,"value":185.185183,"status":"active","type":"token"}],
"presales":[],
"locks":[{"id":"0x2222222222222222222222222222222222222222","address":"0x2222222222222222222222222222222222222222","name":"Star","symbol":"STAR","balance":250000000,"value":1100,"status":"locked","type":"lock","unlockDate":"2099-01-01T00:00:00.000Z"}]}`;
const LEDGER = '{"amount":1.000000000000000001,"from":"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB","success":true,"to":"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359","tokenAddress":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","transactionHash":"0xabababababababababababababababababababababababababababababababab"}';
const record = (i) => `{"amount":${i}.000000000000000001,"blockNumber":${i},"context":"Transfer","from":"0x1","id":"t${i}","symbol":"DEMO","timestamp":"2026-11-21T12:00:00.000Z","to":"0x2","tokenAddress":"0x3","transactionHash":"0x4","type":"spend"}`;

function fakeService() {
  const hits = new Map();
  const keys = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const n = (hits.get(url.pathname) ?? 0) + 1;
    hits.set(url.pathname, n);
    const send = (status, body, headers = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-service-time': String(Date.now() + WEEK), ...headers });
      res.end(body);
    };
    const error = (status, code, message, headers) => send(status, JSON.stringify({ success: false, code, message }), headers);
    const key = url.searchParams.get('publicKey') ?? req.headers['x-api-key'];
    if (!key) return error(401, 'public_key_not_found', 'Public key not found');
    if (key !== PUBLIC_KEY && key !== SECRET_KEY) return error(401, 'invalid_api_key', 'Invalid API key', { 'x-request-id': 'req-401' });
    switch (url.pathname) {
      case '/holder/alice': return send(200, HOLDER);
      case '/holder/flaky': return n <= 2 ? error(503, 'internal_error', 'Busy', { 'retry-after': '0' }) : send(200, HOLDER);
      case '/holder/limited': return n === 1 ? error(429, 'rate_limited', 'Slow down', { 'retry-after': '1' }) : send(200, HOLDER);
      case '/holder/always-limited': return error(429, 'rate_limited', 'Slow down', { 'retry-after': '120', 'x-request-id': 'req-429' });
      case '/holder/dropped': return n === 1 ? req.socket.destroy() : send(200, HOLDER);
      case '/holder/slow': return undefined; // never answers
      case '/holder/proxy': return send(502, '<html>Bad gateway</html>', { 'content-type': 'text/html' });
      case '/holder/details': return send(422, '{"success":false,"code":"insufficient_balance","message":"Not enough","details":{"available":100.000000000000000001,"locked":0.1,"field":"amount"}}');
      case '/holder/alice/spend': {
        keys.push(req.headers['idempotency-key']);
        return keys.length === 1 ? error(503, 'internal_error', 'Busy', { 'retry-after': '0' }) : send(200, LEDGER);
      }
      case '/holder/alice/transactions': {
        const cursor = Number(url.searchParams.get('cursor') ?? 0);
        const data = [cursor + 1, cursor + 2].map(record).join(',');
        const more = cursor < 2;
        return send(200, `{"data":[${data}],"has_more":${more},"next_cursor":${more ? `"${cursor + 2}"` : 'null'}}`);
      }
      default: return error(404, 'holder_not_found', `No holder with id ${url.pathname.slice(8)}`, { 'x-request-id': 'req-404' });
    }
  });
  return { server, hits, keys };
}

describe('@tokenpad/client installed from its tarball, under Node', { timeout: 180_000 }, () => {
  let pack;
  let fake;
  let baseUrl;
  const js = async (name, code, env = {}) => {
    await writeFile(path.join(pack.app, name), code);
    return node(pack.app, name, { BASE_URL: baseUrl, ...env });
  };

  before(async () => {
    pack = await installPacked({ link: ['react', '@types/react', 'csstype', '@tanstack/react-query', '@tanstack/query-core'] });
    fake = fakeService();
    await new Promise((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${fake.server.address().port}`;
  });
  after(async () => {
    fake?.server.closeAllConnections?.();
    fake?.server.close();
    await pack?.cleanup();
  });

  test('the tarball: one wasm, every entry point, a copy not a link', async () => {
    assert.ok(!lstatSync(pack.installed).isSymbolicLink(), 'installed as a link, not a copy');
    const { stdout } = await run('tar', ['-tzf', pack.tarball]);
    const files = stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
    assert.deepEqual(files.filter((f) => f.endsWith('.wasm')), ['tokenpad_bg.wasm'], 'more than one wasm in the tarball');
    for (const f of ['index.js', 'inline.js', 'workerd.js', 'node.js', 'node.cjs', 'init.js', 'init.cjs', 'server.js', 'server.cjs',
      'metal.js', 'metal.cjs', 'react.js', 'react.cjs', 'query.js', 'query.cjs', 'query.d.ts', 'index.d.ts', 'index.d.cts', 'server.d.ts', 'server.d.cts', 'metal.d.ts',
      'react.d.ts', 'init.d.ts', 'generated/wire.d.ts', 'generated/api.d.ts', 'generated/wire.d.cts', 'README.md', 'LICENSE']) {
      assert.ok(files.includes(f), `${f} missing from the tarball`);
    }
    const pkg = JSON.parse(readFileSync(path.join(pack.installed, 'package.json'), 'utf8'));
    assert.equal(pkg.exports['./tokenpad_bg.wasm'], './tokenpad_bg.wasm');
    assert.deepEqual(Object.keys(pkg.exports['.']), ['workerd', 'node', 'webpack', 'development', 'production', 'browser', 'default']);
    // What a registry page and npm's provenance check read.
    assert.equal(pkg.license, 'Apache-2.0');
    assert.match(pkg.repository.url, /^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
    assert.ok(pkg.engines.node);
    assert.match(readFileSync(path.join(pack.installed, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0/);
    // The README is docs/package.md under the package's name, its examples in it, and its links
    // absolute (npm shows it away from the repository, where `metal.md` leads nowhere).
    const readme = readFileSync(path.join(pack.installed, 'README.md'), 'utf8');
    assert.match(readme, /^# @tokenpad\/client\n/);
    for (const example of ['browser', 'node', 'server', 'edge', 'react']) assert.ok(readme.includes(`<!-- example: ${example} -->`), example);
    const prose = readme.split(/^```.*$/m).filter((_, i) => i % 2 === 0).join('\n');
    assert.deepEqual([...prose.matchAll(/\]\((?![a-z][a-z+.-]*:|#)([^)\s]+)\)/gi)].map((m) => m[1]), [], 'relative links in the package README');
    assert.ok(prose.includes(`](${pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')}/blob/HEAD/docs/metal.md)`), 'the link to docs/metal.md, on the repository');
  });

  test('ESM and CommonJS, one TokenpadError class across both, the wasm passed in by hand', async () => {
    const out = JSON.parse(await js('esm.mjs', `
      import { createRequire } from 'node:module';
      import { formatAmount, formatUnits, countdown, TokenpadClient, TokenpadError, isTokenpadError, holderPortfolio } from '@tokenpad/client';
      const cjs = createRequire(import.meta.url)('@tokenpad/client');
      const codes = [];
      for (const make of [() => new TokenpadClient({ baseUrl: 'https://a.example', publicKey: 'sk_live' }),
                          () => new cjs.TokenpadClient({ baseUrl: 'ftp://a.example' }),
                          () => holderPortfolio({ id: 'x' })]) {
        try { make(); } catch (e) { codes.push([e.code, e instanceof TokenpadError, e instanceof cjs.TokenpadError, isTokenpadError(e), e.name]); }
      }
      console.log(JSON.stringify({
        big: formatAmount('123456789012345678901.5', { locale: 'en-US' }),
        units: formatUnits('1500000', 6),
        cjs: cjs.formatUnits('1', 18),
        label: countdown(90061000, 0).label,
        codes,
      }));
    `));
    // A Deno-style runtime: the wasm handed over as bytes, to the /init entry (alone in its
    // process: the entries share one instance of the wasm).
    const manual = JSON.parse(await js('manual.mjs', `
      import { readFile } from 'node:fs/promises';
      import { init, formatUnits, formatAmount } from '@tokenpad/client/init';
      let before;
      try { formatUnits('1', 6); } catch (e) { before = e.code; }
      await init({ module_or_path: await readFile(new URL(import.meta.resolve('@tokenpad/client/tokenpad_bg.wasm'))) });
      console.log(JSON.stringify({ before, after: formatAmount('1234.5', { locale: 'de-DE' }) }));
    `));
    assert.deepEqual(manual, { before: 'not_initialized', after: '1.234,5' });
    assert.deepEqual(out, {
      big: '123,456,789,012,345,678,901.5',
      units: '1.5',
      cjs: '0.000000000000000001',
      label: '1d 1h 1m 1s',
      codes: [
        ['secret_key_refused', true, true, true, 'TokenpadError'],
        ['invalid_options', true, true, true, 'TokenpadError'],
        ['invalid_input', true, true, true, 'TokenpadError'],
      ],
    });
  });

  test('the browser client: retries, Retry-After, signal, request ids, the service clock', async () => {
    const out = JSON.parse(await js('client.mjs', `
      import { TokenpadClient, serviceNow, holderPortfolio } from '@tokenpad/client';
      const client = new TokenpadClient({ baseUrl: process.env.BASE_URL, publicKey: '${PUBLIC_KEY}', retryDelayMs: 20 });
      const fail = async (p) => { try { await p; return null; } catch (e) { return { code: e.code, status: e.status, requestId: e.requestId ?? null, retryAfterMs: e.retryAfterMs ?? null, message: e.message }; } };
      const holder = await client.getHolder('alice');
      const offset = serviceNow() - Date.now();
      const t0 = Date.now();
      const flaky = await client.getHolder('flaky');
      const limited = await client.getHolder('limited');
      const waited = Date.now() - t0;
      const dropped = await client.getHolder('dropped');
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 100);
      const t1 = Date.now();
      const aborted = await fail(client.getHolder('slow', { signal: ac.signal, timeoutMs: 5000 }));
      const abortMs = Date.now() - t1;
      console.log(JSON.stringify({
        balance: holder.tokens[0].balance, offset, waited,
        flaky: flaky.id, limited: limited.id, dropped: dropped.id,
        aborted, abortMs,
        timeout: await fail(client.getHolder('slow', { timeoutMs: 150, retries: 0 })),
        nobody: await fail(client.getHolder('nobody')),
        limitedLong: await fail(client.getHolder('always-limited')),
        proxy: await fail(client.getHolder('proxy')),
        details: await client.getHolder('details').catch((e) => e.details),
        wrongKey: await fail(new TokenpadClient({ baseUrl: process.env.BASE_URL, publicKey: 'pk_wrong' }).getHolder('alice')),
        refused: await fail(new TokenpadClient({ baseUrl: 'http://127.0.0.1:9', publicKey: 'pk_x', retries: 1, retryDelayMs: 10 }).getHolder('a')),
        // The view models count from the service's clock: a week ahead here.
        unlockDays: holderPortfolio(holder).rows.find((r) => r.kind === 'lock').countdown.days,
        unlockDaysLocal: holderPortfolio(holder, Date.now()).rows.find((r) => r.kind === 'lock').countdown.days,
      }));
    `));
    assert.equal(out.balance, '1234.567890123456789012');
    assert.ok(Math.abs(out.offset - WEEK) < 5_000, `offset ${out.offset}`);
    assert.deepEqual([out.flaky, out.limited, out.dropped], ['alice', 'alice', 'alice']);
    assert.equal(fake.hits.get('/holder/flaky'), 3, 'two 503s then a success');
    assert.ok(out.waited >= 1000, `Retry-After: 1 was not waited for (${out.waited} ms)`);
    assert.equal(out.aborted.code, 'aborted');
    assert.ok(out.abortMs < 2000, `abort took ${out.abortMs} ms`);
    assert.equal(out.timeout.code, 'timeout');
    assert.deepEqual(out.nobody, { code: 'holder_not_found', status: 404, requestId: 'req-404', retryAfterMs: null, message: 'No holder with id nobody' });
    assert.equal(fake.hits.get('/holder/always-limited'), 1, 'a Retry-After beyond maxRetryDelayMs is not waited for');
    assert.deepEqual([out.limitedLong.code, out.limitedLong.status, out.limitedLong.retryAfterMs, out.limitedLong.requestId], ['rate_limited', 429, 120000, 'req-429']);
    assert.deepEqual([out.proxy.code, out.proxy.status], ['http_error', 502]);
    // Error details keep every digit of their amounts (decimal strings, as amounts in answers).
    assert.deepEqual(out.details, { available: '100.000000000000000001', locked: '0.1', field: 'amount' });
    assert.deepEqual([out.wrongKey.code, out.wrongKey.requestId], ['invalid_api_key', 'req-401']);
    assert.deepEqual([out.refused.code, out.refused.status], ['network_error', 0]);
    assert.equal(out.unlockDaysLocal - out.unlockDays, 7, 'the default clock is not the service\'s');
  });

  test('the server client: an idempotency key reused on retries, exact amounts, cursor iteration, no browser', async () => {
    const out = JSON.parse(await js('server.mjs', `
      import { TokenpadServer, TokenpadError } from '@tokenpad/client/server';
      const tp = new TokenpadServer({ baseUrl: process.env.BASE_URL, secretKey: '${SECRET_KEY}', retryDelayMs: 10 });
      const spent = await tp.spend('alice', { tokenAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', amount: '1.000000000000000001' });
      const amounts = [];
      for await (const r of tp.allTransactions('alice', { limit: 2 })) amounts.push(r.amount);
      let refused;
      globalThis.document = {};
      try { new TokenpadServer({ baseUrl: process.env.BASE_URL, secretKey: '${SECRET_KEY}' }); } catch (e) { refused = [e.code, e instanceof TokenpadError]; }
      const allowed = new TokenpadServer({ baseUrl: process.env.BASE_URL, secretKey: '${SECRET_KEY}', dangerouslyAllowBrowser: true }).baseUrl;
      // The dashboard's short-lived credential (dt_...) is the one key a browser may hold; a
      // secret key given as apiKey is refused there like secretKey.
      const dashboard = new TokenpadServer({ baseUrl: process.env.BASE_URL, apiKey: 'dt_m_payload.sig' }).baseUrl;
      let apiKeyRefused;
      try { new TokenpadServer({ baseUrl: process.env.BASE_URL, apiKey: '${SECRET_KEY}' }); } catch (e) { apiKeyRefused = e.code; }
      delete globalThis.document;
      let badKey;
      try { new TokenpadServer({ baseUrl: process.env.BASE_URL, secretKey: 'pk_x' }); } catch (e) { badKey = e.code; }
      console.log(JSON.stringify({ amount: spent.amount, blockNumbers: typeof spent.transactionHash, amounts, refused, allowed, badKey, dashboard, apiKeyRefused }));
    `));
    assert.equal(out.amount, '1.000000000000000001');
    assert.equal(fake.keys.length, 2, 'the spend was not retried once');
    assert.ok(fake.keys[0] && fake.keys[0].length >= 16, `no idempotency key: ${fake.keys[0]}`);
    assert.equal(fake.keys[1], fake.keys[0], 'the retry sent another idempotency key');
    assert.deepEqual(out.amounts, ['1.000000000000000001', '2.000000000000000001', '3.000000000000000001', '4.000000000000000001']);
    assert.deepEqual(out.refused, ['browser_refused', true]);
    assert.equal(out.allowed, baseUrl);
    assert.equal(out.badKey, 'invalid_options');
    assert.equal(out.dashboard, baseUrl);
    assert.equal(out.apiKeyRefused, 'browser_refused');
    // CommonJS too.
    await writeFile(path.join(pack.app, 'server.cjs'), `
      const { TokenpadServer } = require('@tokenpad/client/server');
      new TokenpadServer({ baseUrl: process.env.BASE_URL, secretKey: '${SECRET_KEY}' }).getHolder('alice').then((h) => console.log(h.tokens[0].balance));
    `);
    assert.equal((await node(pack.app, 'server.cjs', { BASE_URL: baseUrl })).trim(), '1234.567890123456789012');
  });

  test('verifyWebhook: a genuine delivery verifies and returns its event; anything else is refused', async () => {
    // Signed here with node:crypto, as the service signs: HMAC-SHA256 of "<t>.<raw body>".
    const out = JSON.parse(await js('verify.mjs', `
      import { createHmac } from 'node:crypto';
      import { verifyWebhook, TokenpadError } from '@tokenpad/client/server';
      const secret = 'whsec_' + '1f'.repeat(32);
      const body = '{"id":"evt_0123456789ab000000000001","type":"presale.purchase","createdAt":"2026-11-23T12:00:00.000Z","merchantId":"m","resource":"presale:p","data":{"object":{"purchasedUsdcAmount":12.000001}}}';
      const t = Math.floor(Date.now() / 1000);
      const sign = (b, s = secret, at = t) => 't=' + at + ',v1=' + createHmac('sha256', s).update(at + '.' + b).digest('hex');
      const event = await verifyWebhook(body, sign(body), secret);
      const fromBytes = await verifyWebhook(new TextEncoder().encode(body), sign(body), secret);
      const rotated = await verifyWebhook(body, sign(body, 'whsec_other') + ',' + sign(body).split(',')[1], secret);
      const refusal = async (...args) => {
        try { await verifyWebhook(...args); return 'accepted'; } catch (e) { return [e instanceof TokenpadError, e.code, e.details?.reason]; }
      };
      console.log(JSON.stringify({
        id: event.id, amount: event.data.object.purchasedUsdcAmount, bytesId: fromBytes.id, rotatedId: rotated.id,
        tampered: await refusal(body.replace('12.000001', '99'), sign(body), secret),
        otherSecret: await refusal(body, sign(body, 'whsec_other'), secret),
        old: await refusal(body, sign(body, secret, t - 600), secret),
        oldAllowed: (await verifyWebhook(body, sign(body, secret, t - 600), secret, { toleranceSeconds: 900 })).id,
        missing: await refusal(body, undefined, secret),
        malformed: await refusal(body, 'v1=abc', secret),
        parsed: await refusal(JSON.parse(body), sign(body), secret),
        notSecret: await refusal(body, sign(body), 'sk_x'),
      }));
    `));
    assert.equal(out.id, 'evt_0123456789ab000000000001');
    assert.equal(out.amount, '12.000001', 'amounts are read exactly');
    assert.equal(out.bytesId, out.id);
    assert.equal(out.rotatedId, out.id, 'one matching v1 of several is enough');
    assert.deepEqual(out.tampered, [true, 'invalid_webhook_signature', 'signature_mismatch']);
    assert.deepEqual(out.otherSecret, [true, 'invalid_webhook_signature', 'signature_mismatch']);
    assert.deepEqual(out.old, [true, 'invalid_webhook_signature', 'timestamp_out_of_tolerance']);
    assert.equal(out.oldAllowed, out.id);
    assert.deepEqual(out.missing, [true, 'invalid_webhook_signature', 'missing_header']);
    assert.deepEqual(out.malformed, [true, 'invalid_webhook_signature', 'malformed_header']);
    assert.deepEqual(out.parsed, [true, 'invalid_input', null]);
    assert.deepEqual(out.notSecret, [true, 'invalid_options', null]);
    // CommonJS too.
    await writeFile(path.join(pack.app, 'verify.cjs'), `
      const { createHmac } = require('node:crypto');
      const { verifyWebhook } = require('@tokenpad/client/server');
      const body = '{"id":"evt_1"}';
      const t = Math.floor(Date.now() / 1000);
      const header = 't=' + t + ',v1=' + createHmac('sha256', 'whsec_x').update(t + '.' + body).digest('hex');
      verifyWebhook(body, header, 'whsec_x').then((e) => console.log(e.id));
    `);
    assert.equal((await node(pack.app, 'verify.cjs', {})).trim(), 'evt_1');
  });

  test('watchHolder polls where there is no WebSocket, and stops', async () => {
    fake.hits.delete('/holder/alice');
    const out = JSON.parse(await js('watch.mjs', `
      import { TokenpadClient } from '@tokenpad/client';
      const client = new TokenpadClient({ baseUrl: process.env.BASE_URL, publicKey: '${PUBLIC_KEY}', WebSocket: undefined });
      const seen = [];
      const w = client.watchHolder('alice', (h, e) => seen.push(h ? h.tokens[0].balance : e.code), { intervalMs: 250, live: false });
      await new Promise((r) => setTimeout(r, 700));
      w.stop();
      const n = seen.length;
      await new Promise((r) => setTimeout(r, 500));
      console.log(JSON.stringify({ n, after: seen.length, live: w.live, active: w.active, first: seen[0] }));
    `));
    assert.ok(out.n >= 2 && out.n <= 4, `${out.n} reads in 700 ms at 250 ms`);
    assert.equal(out.after, out.n, 'a callback ran after stop()');
    assert.deepEqual([out.live, out.active, out.first], [false, false, '1234.567890123456789012']);
  });

  test('the TypeScript types of every entry point, under a strict compiler', async () => {
    await writeFile(path.join(pack.app, 'consumer.ts'), `
      import { TokenpadClient, TokenpadError, holderPortfolio, presaleProgress, tokenSupply, formatAmount, isTokenpadError, serviceNow } from '@tokenpad/client';
      import type { Token, HolderFull, TokenBalance, Presale, Portfolio, PresaleProgress, TokenSupply, Countdown, Decimal, TokenpadErrorCode, Watch } from '@tokenpad/client';
      import { init, initSync } from '@tokenpad/client/init';
      import { TokenpadServer } from '@tokenpad/client/server';
      import type { SpendRequest, LedgerResult, TxRecord, DistributeRequest, CreatePresaleRequest, PresaleMerchant, Quote, TradeResult, LiquidityCreated, RewardResult, ParkedWork, Webhook, TxPage } from '@tokenpad/client/server';
      import { useHolder, usePresale, useToken, TokenpadProvider, useBuyPresale, useSpend, useTransfer } from '@tokenpad/client/react';
      import type { Resource, Mutation } from '@tokenpad/client/react';
      import { Metal } from '@tokenpad/client/metal';
      import { holderQuery, presaleQuery, spendMutation, followHolder, tokenpadKeys } from '@tokenpad/client/query';
      import { QueryClient, useQuery, useSuspenseQuery, useMutation, queryOptions } from '@tanstack/react-query';
      import type { TokenData, HolderData, TokenJobResponse, SpendResponse, TokenBalanceResponse } from '@tokenpad/client/metal';

      type NotAny<T> = 0 extends (1 & T) ? 'any' : 'ok';
      type FieldsNotAny<T> = { [K in keyof T]-?: NotAny<T[K]> }[keyof T];
      type Ok<T extends 'ok'> = T;
      export type Checks = [
        Ok<FieldsNotAny<Token>>, Ok<FieldsNotAny<HolderFull>>, Ok<FieldsNotAny<TokenBalance>>, Ok<FieldsNotAny<Presale>>,
        Ok<FieldsNotAny<Portfolio>>, Ok<FieldsNotAny<PresaleProgress>>, Ok<FieldsNotAny<TokenSupply>>, Ok<FieldsNotAny<Countdown>>,
        Ok<FieldsNotAny<LedgerResult>>, Ok<FieldsNotAny<TxRecord>>, Ok<FieldsNotAny<PresaleMerchant>>,
        Ok<NotAny<Awaited<ReturnType<TokenpadClient['getToken']>>>>, Ok<NotAny<ReturnType<typeof useHolder>>>,
      ];
      // Amounts are strings, never numbers.
      export const exact: Decimal = ({} as LedgerResult).amount;
      // @ts-expect-error: exactly one of sendToId and sendToAddress
      export const both: DistributeRequest = { amount: 1, sendToId: 'a', sendToAddress: '0x1' };
      export const one: DistributeRequest = { amount: '1.5', sendToId: 'alice' };
      // @ts-expect-error: not a code
      export const code: TokenpadErrorCode = 5;
      export { init, initSync, TokenpadProvider, usePresale, useToken };
      export type Hooks = [Resource<HolderFull>['refetch'], Mutation<SpendRequest, LedgerResult>, typeof useBuyPresale, typeof useSpend, typeof useTransfer];

      // TanStack Query: the options type its hooks, QueryClient is what the mutations invalidate.
      export function useWallet(c: TokenpadClient, queryClient: QueryClient) {
        const holder = useQuery(holderQuery(c, 'alice'));
        const h: HolderFull | undefined = holder.data;
        const presale: Presale = useSuspenseQuery(presaleQuery(c, 'p-1')).data;
        const spend = useMutation(spendMutation(c, queryClient));
        spend.mutate({ userId: 'alice', tokenAddress: '0x1', amount: '1.5' });
        // @ts-expect-error: a spend names its holder
        spend.mutate({ tokenAddress: '0x1', amount: '1.5' });
        const watch: Watch = followHolder(c, queryClient, 'alice');
        const again = queryOptions(holderQuery(c, 'alice'));
        const cached: HolderFull | undefined = queryClient.getQueryData(again.queryKey);
        return [h, presale, watch, cached, tokenpadKeys.holder('alice'), holder.isPending, holder.status] as const;
      }

      // Metal's SDK shapes: numbers, as Metal's types say.
      const metal = Metal.createSecretClient('sk_x', { baseUrl: 'https://api.example.com' });
      export async function metalFlow(): Promise<number> {
        const job: TokenJobResponse = await metal.createToken({ name: 'A', symbol: 'A' });
        const holder: HolderData = await metal.getOrCreateHolder('u');
        const spent: SpendResponse = await metal.spend('u', { tokenAddress: '0x1', amount: 1 });
        const t: TokenData = await metal.getToken(job.data.address);
        const bal: TokenBalanceResponse = await Metal.createPublicClient('pk_x').holder.getTokenBalance('u', t.address);
        // @ts-expect-error: Metal's getHolder takes a holder id, not an object
        await metal.getHolder({ id: 'u' });
        return holder.totalValue + bal.balance + t.totalSupply + (spent.success ? 1 : 0);
      }

      const client = new TokenpadClient({ baseUrl: 'https://api.example.com', publicKey: 'pk_x', timeoutMs: 5000, retries: 3 });
      const server = new TokenpadServer({ baseUrl: 'https://api.example.com', secretKey: 'sk_x' });
      export async function show(signal: AbortSignal): Promise<string> {
        const token: Token = await client.getToken('0x1', { signal });
        const holder: HolderFull = await client.getHolder('alice');
        const balance: TokenBalance = await client.getHolderTokenBalance('alice', token.address);
        const presale: Presale = await client.getPresale('p-1');
        const wallet: Portfolio = holderPortfolio(holder, serviceNow(), { locale: 'en-US', roundingMode: 'trunc' });
        const progress: PresaleProgress = presaleProgress(presale);
        const supply: TokenSupply = tokenSupply(token, { maximumFractionDigits: 2 });
        const w: Watch = client.watchHolder('alice', (h: HolderFull | null, e: TokenpadError | null) => console.log(h?.totalValue, e?.code));
        w.stop();
        const spend: SpendRequest = { tokenAddress: token.address, amount: '1.5' };
        const spent: LedgerResult = await server.spend('alice', spend, { idempotencyKey: 'order-1' });
        for await (const r of server.allTransactions('alice')) console.log(r.amount, r.type);
        const created = await server.createPresale({} as CreatePresaleRequest);
        // The generated methods: typed by operation (path parameters, then body or query, then options).
        const quote: Quote = await server.buyQuote('alice', { tokenAddress: token.address, usdcAmount: '1' });
        const bought: TradeResult = await server.buy('alice', { tokenAddress: token.address, usdcAmount: 1 }, { idempotencyKey: 'buy-1' });
        const pool: LiquidityCreated = await server.createLiquidity(token.address, { initialStartingPrice: '0.01' });
        const reward: RewardResult = await server.reward(token.address, { sendToId: 'alice', amount: 1 });
        const parked: ParkedWork = await server.listParkedWork();
        const hook: Webhook = await server.getWebhook('wh_1');
        const page: TxPage = await server.listHolderTransactions('alice', { limit: 5 });
        const merchantForm: PresaleMerchant = await server.getMerchantPresale('p-1');
        // @ts-expect-error: a sell quote needs its token amount
        await server.sellQuote('alice', { tokenAddress: token.address });
        // @ts-expect-error: no operation is named so
        await server.getPresales();
        console.log(quote, bought, pool, reward.amount, parked, hook.id, page.data.length, merchantForm.completionState);
        try {
          await client.getHolder('nobody');
        } catch (err) {
          if (err instanceof TokenpadError && err.code === 'holder_not_found') return err.requestId ?? '';
          if (isTokenpadError(err)) return err.code;
        }
        return [progress.statusLabel, supply.distributedFormatted, formatAmount(balance.balance), wallet.totalValueFormatted, spent.amount, created.id].join();
      }
    `);
    const base = { strict: true, noEmit: true, skipLibCheck: false, target: 'es2022', lib: ['es2022', 'dom', 'dom.iterable', 'esnext.asynciterable'], types: [] };
    for (const [name, extra] of [
      ['tsconfig.bundler.json', { module: 'esnext', moduleResolution: 'bundler' }],
      ['tsconfig.node.json', { module: 'node16', moduleResolution: 'node16' }],
    ]) {
      await writeFile(path.join(pack.app, name), JSON.stringify({ compilerOptions: { ...base, ...extra }, files: ['consumer.ts'] }));
      try {
        await run(process.execPath, [TSC, '-p', name], { cwd: pack.app });
      } catch (e) {
        assert.fail(`tsc -p ${name} failed:\n${e.stdout}${e.stderr}`);
      }
    }
    // The public declarations never say `any` (the wasm glue's internal InitOutput may).
    for (const f of ['index.d.ts', 'lib.d.ts', 'client.d.ts', 'server.d.ts', 'generated/methods.d.ts', 'metal.d.ts', 'react.d.ts', 'query.d.ts', 'types.d.ts', 'errors.d.ts', 'generated/wire.d.ts', 'generated/api.d.ts']) {
      const text = readFileSync(path.join(pack.installed, f), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
      assert.doesNotMatch(text, /\bany\b(?![-\w])/, `${f} mentions any`);
    }
  });
});
