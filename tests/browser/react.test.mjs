// @tokenpad/client/react in Chromium (playwright-core, /usr/bin/chromium) against the worker in
// workerd, in a vite app with its own React, the package installed from its tarball and by
// path (as a copy, --install-links): the page is rendered on the server with react-dom/server
// from what the server read (initialData), then hydrated without a mismatch; useHolder follows
// the wallet live; useToken's refetch reads at once (tokens are polled every 15 s); the session
// helpers (useBuyPresale) buy, show pending, then the answer, refresh the wallet, and report a
// refusal with its code.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { ROOT, api, createMerchant, createToken, startWorker } from '../http/harness.mjs';
import { installApp, node } from '../consumer/pack.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const FLAGS = ['--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-quic', '--no-sandbox'];
const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };

// The app: the same component tree on the server (ssr.mjs) and in the page (main.jsx).
const APP = `
import { TokenpadClient } from '@tokenpad/client';
import { TokenpadProvider, useHolder, useToken, useBuyPresale } from '@tokenpad/client/react';

function Wallet({ initial }) {
  const { data, loading } = useHolder('alice', { initialData: initial });
  if (loading) return <p id="wallet">Loading…</p>;
  const usdc = data.tokens.find((t) => t.symbol === 'USDC');
  return <p id="wallet">{usdc ? usdc.balance : '0'} USDC</p>;
}

function Holders({ token }) {
  const { data, refetch } = useToken(token, { intervalMs: 600_000 });
  return (
    <p>
      <span id="holders">{data ? data.holders.map((h) => h.balance).join(',') : '…'}</span>
      <button id="refetch" onClick={() => refetch()}>Refresh</button>
    </p>
  );
}

function Buy({ presaleId }) {
  const { mutate, pending, data, error } = useBuyPresale();
  return (
    <p>
      <button id="buy" onClick={() => mutate('alice', { presaleId, usdcAmount: '10' })}>Buy 10</button>
      <button id="overbuy" onClick={() => mutate('alice', { presaleId, usdcAmount: '500' })}>Buy 500</button>
      <span id="buy-state">{pending ? 'pending' : error ? error.code : data ? 'bought ' + data.usdcAmount : 'idle'}</span>
    </p>
  );
}

export function App({ config, initial }) {
  const client = new TokenpadClient({ baseUrl: config.baseUrl, publicKey: config.publicKey, sessionToken: config.session });
  return (
    <TokenpadProvider client={client}>
      <Wallet initial={initial} />
      <Holders token={config.token} />
      <Buy presaleId={config.presale} />
    </TokenpadProvider>
  );
}
`;

async function serve(dir, html) {
  const server = createServer((req, res) => {
    const pathname = new URL(req.url, 'http://x').pathname;
    if (pathname === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    const file = path.join(dir, decodeURIComponent(pathname));
    if (!file.startsWith(dir) || !existsSync(file)) return res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}

describe('React hooks in Chromium: server rendering, hydration, refetch, mutations', { timeout: 300_000 }, () => {
  let w;
  let m;
  let token;
  let presale;
  let browser;

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} missing: run scripts/setup.sh --browser`);
    w = await startWorker();
    m = await createMerchant(w, 'React Merchant');
    token = await createToken(w, m.secretKey, { name: 'Hooks Token', symbol: 'HOOK' });
    const alice = (await api(w, 'PUT', '/holder/alice', { key: m.secretKey })).json;
    await api(w, 'POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: alice.address, usdcAmount: 100 } });
    await api(w, 'POST', `/token/${token.address}/distribute`, { key: m.secretKey, body: { sendToId: 'alice', amount: '1' } });
    const now = (await api(w, 'GET', '/admin/time', { adminKey: w.adminKey })).json.nowUnix;
    presale = (await api(w, 'POST', '/merchant/presale', {
      key: m.secretKey,
      body: { name: 'Hooks', description: 'Hooks', startTimestamp: now, endTimestamp: now + 3600, targetUsdcAmount: 1000,
        tokenInfo: { name: 'Hooks', symbol: 'HKS', imageUrl: 'https://example.com/h.png' } },
    })).json;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await w?.stop();
  });

  for (const how of ['tarball', 'copy']) {
    test(`installed ${how === 'tarball' ? 'from its tarball' : 'by path (--install-links)'}`, async () => {
      const app = await installApp({ how, peers: ['react', 'react-dom', 'scheduler'] });
      const servers = [];
      try {
        const session = (await api(w, 'POST', '/holder/alice/session', { key: m.secretKey, body: { scopes: ['read', 'buy-presale'] } })).json.token;
        const config = { baseUrl: w.baseUrl, publicKey: m.publicKey, session, token: token.address, presale: presale.id };
        const src = path.join(app.app, 'web');
        await mkdir(src, { recursive: true });
        await writeFile(path.join(src, 'App.jsx'), APP);
        await writeFile(path.join(src, 'main.jsx'), `
          import { hydrateRoot } from 'react-dom/client';
          import { App } from './App.jsx';
          const { config, initial } = JSON.parse(document.getElementById('data').textContent);
          hydrateRoot(document.getElementById('root'), <App config={config} initial={initial} />);
        `);
        await writeFile(path.join(src, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><div id="root"><!--ssr--></div><script type="application/json" id="data">/*data*/</script><script type="module" src="./main.jsx"></script>');
        const { build } = await import(path.join(ROOT, 'node_modules', 'vite', 'dist', 'node', 'index.js'));
        const out = path.join(src, 'dist');
        await build({ root: src, logLevel: 'error', configFile: false, build: { outDir: out, emptyOutDir: true } });
        // The server render: the same App, bundled for Node by vite, rendered with the app's
        // react-dom/server from the holder the server read (with the merchant's key).
        await build({ root: src, logLevel: 'error', configFile: false,
          build: { ssr: path.join(src, 'App.jsx'), outDir: path.join(src, 'ssr'), emptyOutDir: true } });
        await writeFile(path.join(app.app, 'render.mjs'), `
          import { renderToString } from 'react-dom/server';
          import { createElement } from 'react';
          import { App } from './web/ssr/App.js';
          const { config, initial } = JSON.parse(process.env.DATA);
          console.log(renderToString(createElement(App, { config, initial })));
        `);
        const initial = (await api(w, 'GET', '/holder/alice', { key: m.secretKey })).json;
        const usdc = Number(initial.tokens.find((t) => t.symbol === 'USDC').balance);
        const holders = (await api(w, 'GET', `/token/${token.address}`, { key: m.secretKey })).json.holders[0].balance;
        const data = JSON.stringify({ config, initial });
        const ssr = (await node(app.app, 'render.mjs', { DATA: data })).trim();
        assert.ok(ssr.includes(`<p id="wallet">${usdc}<!-- --> USDC</p>`), `the server did not render initialData: ${ssr}`);
        const html = readFileSync(path.join(out, 'index.html'), 'utf8').replace('<!--ssr-->', ssr)
          .replace('/*data*/', data.replaceAll('<', '\\u003c'));
        const s = await serve(out, html);
        servers.push(s);

        const ctx = await browser.newContext({ locale: 'en-US', javaScriptEnabled: true });
        const p = await ctx.newPage();
        const errors = [];
        p.on('pageerror', (e) => errors.push(String(e)));
        // The refused purchase below is a 422 on purpose; anything else the console says is a failure.
        p.on('console', (msg) => ['error', 'warning'].includes(msg.type()) && !/status of 422/.test(msg.text()) && errors.push(msg.text()));
        await p.goto(s.url);
        const text = (sel) => p.locator(sel).innerText();
        const until = async (sel, re, ms = 8_000) => {
          for (let t = Date.now(); Date.now() - t < ms; await sleep(100)) if (re.test(await text(sel))) return;
          assert.fail(`${sel}: ${await text(sel)} does not match ${re}; errors: ${errors}`);
        };
        // Hydrated (the token's read ran), with the server's markup kept: no mismatch.
        await until('#holders', new RegExp(`^${holders}$`));
        assert.equal(await text('#wallet'), `${usdc} USDC`);

        // refetch: the token is polled every 10 minutes here; a distribution shows at the click.
        await api(w, 'POST', `/token/${token.address}/distribute`, { key: m.secretKey, body: { sendToId: 'alice', amount: '2' } });
        await sleep(500);
        assert.equal(await text('#holders'), String(holders));
        await p.click('#refetch');
        await until('#holders', new RegExp(`^${holders + 2}$`), 3_000);

        // The mutation helper: pending, then the answer; the wallet shows the 10 USDC spent.
        await p.click('#buy');
        await until('#buy-state', /^(pending|bought 10)$/, 3_000);
        await until('#buy-state', /^bought 10$/);
        await until('#wallet', new RegExp(`^${usdc - 10} USDC$`), 3_000);
        await p.click('#overbuy');
        await until('#buy-state', /^insufficient_balance$/);
        assert.equal(await text('#wallet'), `${usdc - 10} USDC`);
        assert.deepEqual(errors, []);
        await ctx.close();
      } finally {
        for (const s of servers) s.close();
        await app.cleanup();
      }
    });
  }
});
