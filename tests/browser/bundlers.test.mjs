// The packed package bundled as users bundle it, with no configuration for the wasm, and the
// bundles loaded in Chromium (playwright-core, /usr/bin/chromium) against the worker in
// workerd, from another origin (so CORS is what a real page gets):
//   - esbuild: docs/package.md's browser example as printed (the `browser` build: the wasm inside
//     the bundle, nothing to copy), following a presale live over the WebSocket;
//   - vite, with React: docs/package.md's React example as printed (useHolder, live);
//   - webpack: the client's errors, Retry-After and the service clock read across origins.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { ROOT, api, createMerchant, createToken, startWorker } from '../http/harness.mjs';
import { installPacked, readmeExample } from '../consumer/pack.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const FLAGS = ['--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-quic', '--no-sandbox', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'];
const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };

/** Serves `dir` on a free loopback port. */
async function serve(dir) {
  const server = createServer((req, res) => {
    const file = path.join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!file.startsWith(dir) || !existsSync(file) || statSync(file).isDirectory()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

describe('bundlers in Chromium', { timeout: 300_000 }, () => {
  let w;
  let m;
  let token;
  let presale;
  let pack;
  let browser;
  const servers = [];

  const fill = (code) => code
    .replaceAll('http://127.0.0.1:8787', w.baseUrl)
    .replaceAll("'pk_...'", `'${m.publicKey}'`)
    .replaceAll("'PRESALE_ID'", `'${presale.id}'`);

  const page = async (dir, html) => {
    // No favicon request (its 404 would be a console error).
    await writeFile(path.join(dir, 'index.html'), html.replace('<meta charset="utf-8">', '<meta charset="utf-8"><link rel="icon" href="data:,">'));
    const s = await serve(dir);
    servers.push(s);
    const ctx = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
    const p = await ctx.newPage();
    p.errors = [];
    p.sockets = [];
    p.on('pageerror', (e) => p.errors.push(String(e)));
    p.on('console', (msg) => msg.type() === 'error' && p.errors.push(msg.text()));
    p.on('websocket', (ws) => p.sockets.push(ws.url()));
    await p.goto(`${s.url}/index.html`);
    return p;
  };
  const waitForText = async (p, sel, re, timeout = 10_000) => {
    const deadline = Date.now() + timeout;
    let last = '';
    for (;;) {
      last = (await p.locator(sel).first().innerText({ timeout }).catch(() => '')) ?? '';
      if (re.test(last)) return last;
      if (Date.now() > deadline) assert.fail(`${sel}: ${JSON.stringify(last)} does not match ${re}; page errors: ${p.errors}`);
      await sleep(100);
    }
  };

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} missing: run scripts/setup.sh --browser`);
    [w, pack] = await Promise.all([
      startWorker({ env: { RATE_LIMIT_PER_SECOND: '10', RATE_LIMIT_BURST: '30', PUBLIC_RATE_LIMIT_PER_SECOND: '10', PUBLIC_RATE_LIMIT_BURST: '30' } }),
      installPacked({ link: ['react', 'react-dom', 'scheduler'] }),
    ]);
    m = await createMerchant(w, 'Bundler Merchant');
    token = await createToken(w, m.secretKey, { name: 'Demo Token', symbol: 'DEMO' });
    for (const u of ['alice', 'bob']) await api(w, 'PUT', `/holder/${u}`, { key: m.secretKey });
    await api(w, 'POST', `/token/${token.address}/distribute`, { key: m.secretKey, body: { sendToId: 'alice', amount: '1234.567890123456789012' } });
    const bob = await api(w, 'GET', '/holder/bob', { key: m.secretKey });
    await api(w, 'POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: bob.json.address, usdcAmount: 100 } });
    const now = (await api(w, 'GET', '/admin/time', { adminKey: w.adminKey })).json.nowUnix;
    presale = (await api(w, 'POST', '/merchant/presale', {
      key: m.secretKey,
      body: { name: 'Moon', description: 'Moon', startTimestamp: now, endTimestamp: now + 3600, targetUsdcAmount: 100, tokenInfo: { name: 'Moon', symbol: 'MOON', imageUrl: 'https://example.com/m.png' } },
    })).json;
    await api(w, 'POST', '/holder/bob/buy-presale', { key: m.secretKey, body: { presaleId: presale.id, usdcAmount: 60.5 } });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  });

  after(async () => {
    await browser?.close();
    for (const s of servers) s.close();
    await w?.stop();
    await pack?.cleanup();
  });

  test('esbuild: the browser example of docs/package.md, its wasm inside the bundle, pushed live', async () => {
    const { build } = await import(path.join(ROOT, 'node_modules', 'esbuild', 'lib', 'main.js'));
    const src = path.join(pack.app, 'esbuild');
    await mkdir(src, { recursive: true });
    await writeFile(path.join(src, 'app.js'), fill(await readmeExample('browser')));
    const out = path.join(src, 'dist');
    await build({ entryPoints: [path.join(src, 'app.js')], bundle: true, format: 'esm', outdir: out, logLevel: 'error' });
    assert.deepEqual(readdirSync(out), ['app.js'], 'esbuild needed a file beside the bundle');
    const p = await page(out, '<!doctype html><meta charset="utf-8"><p id="presale">…</p><script type="module" src="app.js"></script>');
    await waitForText(p, '#presale', /^Live: 60\.50 of 100\.00 USDC \(60\.5%\), Ends in (1h 0m 0s|\d+m \d+s)$/);
    // Another purchase shows up without reloading, pushed (the poll interval is 5 s).
    const t0 = Date.now();
    await api(w, 'POST', '/holder/bob/buy-presale', { key: m.secretKey, body: { presaleId: presale.id, usdcAmount: 10 } });
    await waitForText(p, '#presale', /70\.50 of 100\.00 USDC/, 4_000);
    assert.ok(Date.now() - t0 < 4_000);
    assert.ok(p.sockets.some((u) => u.includes('/live?') && u.includes(presale.id)), `no WebSocket: ${p.sockets}`);
    assert.deepEqual(p.errors, []);
  });

  test('esbuild in a CommonJS project (require and import; IIFE, CommonJS and ESM output): bundles that work', async () => {
    // A package.json of "type": "commonjs" makes esbuild wrap each module in a function: a
    // top-level await in the package's browser entry made it write a bundle with a SyntaxError
    // and exit 0. The entry has none; the calls wait for the wasm, `ready` for the sync ones.
    const { build } = await import(path.join(ROOT, 'node_modules', 'esbuild', 'lib', 'main.js'));
    const src = path.join(pack.app, 'cjs');
    await mkdir(src, { recursive: true });
    await writeFile(path.join(src, 'package.json'), JSON.stringify({ name: 'cjs-app', private: true, type: 'commonjs' }));
    const body = `
      const client = new TokenpadClient({ baseUrl: ${JSON.stringify(w.baseUrl)}, publicKey: ${JSON.stringify(m.publicKey)} });
      client.getHolder('alice').then(async (h) => {
        await ready;
        document.querySelector('#out').textContent = formatAmount(h.tokens[0].balance, { locale: 'en-US' });
      }, (e) => { document.querySelector('#out').textContent = 'error ' + e.code; });
    `;
    await writeFile(path.join(src, 'required.js'), `const { TokenpadClient, formatAmount, ready } = require('@tokenpad/client');\n${body}`);
    await writeFile(path.join(src, 'imported.js'), `import { TokenpadClient, formatAmount, ready } from '@tokenpad/client';\n${body}`);
    for (const entry of ['required', 'imported']) {
      for (const format of ['iife', 'cjs', 'esm']) {
        const out = path.join(src, `dist-${entry}-${format}`);
        const result = await build({ entryPoints: [path.join(src, `${entry}.js`)], bundle: true, format, outdir: out, logLevel: 'silent' });
        assert.deepEqual(result.errors, [], `${entry} ${format}`);
        const script = format === 'esm' ? '<script type="module" src="required.js"></script>' : '<script src="required.js"></script>';
        const p = await page(out, `<!doctype html><meta charset="utf-8"><p id="out">…</p>${script.replace('required', entry)}`);
        await waitForText(p, '#out', /^1,23\d\.56789/);
        assert.deepEqual(p.errors, [], `${entry} ${format}`);
      }
    }
  });

  test('vite with React: the React example of docs/package.md, useHolder live', async () => {
    const { build } = await import(path.join(ROOT, 'node_modules', 'vite', 'dist', 'node', 'index.js'));
    const src = path.join(pack.app, 'vite');
    await mkdir(src, { recursive: true });
    await writeFile(path.join(src, 'main.jsx'), fill(await readmeExample('react')));
    await writeFile(path.join(src, 'index.html'), '<!doctype html><meta charset="utf-8"><div id="root"></div><script type="module" src="./main.jsx"></script>');
    const out = path.join(src, 'dist');
    await build({ root: src, logLevel: 'error', configFile: false, build: { outDir: out, emptyOutDir: true } });
    const assets = readdirSync(path.join(out, 'assets'));
    assert.ok(assets.some((f) => f.endsWith('.wasm')), `vite copied no wasm: ${assets}`);
    const html = readFileSync(path.join(out, 'index.html'), 'utf8');
    const p = await page(out, html);
    await waitForText(p, '#wallet', /^1,234\.56789 DEMO$/);
    for (let i = 0; i < 50 && (await p.locator('#wallet').getAttribute('data-live')) !== 'true'; i++) await sleep(100);
    assert.equal(await p.locator('#wallet').getAttribute('data-live'), 'true', 'useHolder never went live');
    await api(w, 'POST', `/token/${token.address}/distribute`, { key: m.secretKey, body: { sendToId: 'alice', amount: '1' } });
    await waitForText(p, '#wallet', /^1,235\.56789 DEMO$/, 4_000);
    assert.deepEqual(p.errors, []);
  });

  test('webpack: errors, Retry-After and the service clock, across origins', async () => {
    const webpack = (await import(path.join(ROOT, 'node_modules', 'webpack', 'lib', 'index.js'))).default;
    const src = path.join(pack.app, 'webpack');
    await mkdir(src, { recursive: true });
    await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 86_400 } });
    await writeFile(path.join(src, 'app.js'), `
      import { TokenpadClient, TokenpadError, serviceNow, holderPortfolio } from '@tokenpad/client';
      const client = new TokenpadClient({ baseUrl: ${JSON.stringify(w.baseUrl)}, publicKey: ${JSON.stringify(m.publicKey)}, retries: 0 });
      const out = {};
      const holder = await client.getHolder('alice');
      out.total = holderPortfolio(holder).rows[0].balanceFormatted;
      out.offsetHours = Math.round((serviceNow() - Date.now()) / 3_600_000);
      try { await client.getHolder('nobody'); } catch (e) { out.nobody = [e instanceof TokenpadError, e.code, e.status]; }
      // A burst past the rate limit: the 429's Retry-After is readable from this origin. Each
      // read asks for another holder: the edge answers a repeated public read from what it
      // keeps, which spends no budget, while these (404s, never kept) all reach the merchant.
      const results = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => client.getHolder('burst-' + i)));
      const limited = results.find((r) => r.status === 'rejected' && r.reason.code === 'rate_limited');
      out.limited = limited ? [limited.reason.status, typeof limited.reason.retryAfterMs] : null;
      document.querySelector('#out').textContent = JSON.stringify(out);
    `);
    const out = path.join(src, 'dist');
    const stats = await new Promise((resolve, reject) => webpack({
      mode: 'production', context: src, entry: './app.js', output: { path: out, filename: 'main.js' },
      resolve: { modules: [path.join(pack.app, 'node_modules')] }, performance: { hints: false },
    }, (e, s) => (e ? reject(e) : resolve(s))));
    assert.ok(!stats.hasErrors(), stats.toString('errors-only'));
    assert.ok(readdirSync(out).some((f) => f.endsWith('.wasm')), `webpack copied no wasm: ${readdirSync(out)}`);
    const p = await page(out, '<!doctype html><meta charset="utf-8"><pre id="out"></pre><script src="main.js"></script>');
    const text = await waitForText(p, '#out', /^\{/, 20_000);
    const result = JSON.parse(text);
    assert.equal(result.total, '1,235.56789');
    assert.ok(result.offsetHours >= 24, `the service clock was not learned across origins: ${result.offsetHours} h`);
    assert.deepEqual(result.nobody, [true, 'holder_not_found', 404]);
    assert.deepEqual(result.limited, [429, 'number'], 'Retry-After was not readable (CORS)');
  });
});
