// Every page of the www demo, in every state the seeded data gives it, read in Chromium for
// words that leak from code instead of reading right: "null", "undefined", "NaN",
// "[object Object]" in the visible text or in any attribute a person meets (aria-*, title,
// alt, placeholder). Also: a value with no price reads as unknown, not "$0.00"; the presale
// page says "live" while its socket is open, and never a poll interval then.
// Needs: scripts/build-worker.sh, scripts/build-pkg.sh (www/app/pkg), Chromium.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { ROOT, api, createMerchant, createToken, startWorker } from '../http/harness.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const FLAGS = ['--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-quic', '--no-sandbox', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'];
const LEAKS = /\b(null|undefined|NaN)\b|\[object Object\]/;

async function ok(res, what) {
  assert.ok(res.status >= 200 && res.status < 300, `${what}: HTTP ${res.status} ${res.text}`);
  return res.json;
}

describe('www demo: no page reads "null", "undefined" or "NaN"', { timeout: 300_000 }, () => {
  let w;
  let browser;
  let m;
  const pages = []; // [name, path, what to wait for]
  let checked = 0;

  before(async () => {
    assert.ok(existsSync(path.join(ROOT, 'www', 'app', 'pkg', 'index.js')), 'www/app/pkg missing: run scripts/build-pkg.sh');
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} missing: run scripts/setup.sh --browser`);
    w = await startWorker();
    m = await createMerchant(w, 'Text Merchant');
    const sk = m.secretKey;
    const plain = await createToken(w, sk, { name: 'Plain Token', symbol: 'PLN' }); // no pool, no price
    const pooled = await createToken(w, sk, { name: 'Pooled Token', symbol: 'POOL' });
    await ok(await api(w, 'POST', `/token/${pooled.address}/liquidity`, { key: sk, body: { initialStartingPrice: '0.02', amount: 1000000 } }), 'pool');
    const alice = await ok(await api(w, 'PUT', '/holder/alice', { key: sk }), 'alice');
    await ok(await api(w, 'PUT', '/holder/empty', { key: sk }), 'empty');
    for (const t of [plain, pooled]) {
      await ok(await api(w, 'POST', `/token/${t.address}/distribute`, { key: sk, body: { sendToId: 'alice', amount: '12.5' } }), 'distribute');
    }
    await ok(await api(w, 'POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: alice.address, usdcAmount: 100 } }), 'faucet');
    await ok(await api(w, 'POST', '/holder/alice/buy', { key: sk, body: { tokenAddress: pooled.address, usdcAmount: 5 } }), 'buy');
    const now = (await ok(await api(w, 'GET', '/admin/time', { adminKey: w.adminKey }), 'clock')).nowUnix;
    const presale = (name, start, end, target) => api(w, 'POST', '/merchant/presale', {
      key: sk,
      body: { name, description: `The ${name} presale`, startTimestamp: start, endTimestamp: end, targetUsdcAmount: target,
        tokenInfo: { name, symbol: name.toUpperCase().slice(0, 4), imageUrl: `${w.baseUrl}/app/favicon.svg` } },
    });
    const upcoming = await ok(await presale('Later', now + 3600, now + 7200, 100), 'upcoming');
    const live = await ok(await presale('Moon', now, now + 3600, 100), 'live');
    const empty = await ok(await presale('Quiet', now, now + 3600, 100), 'no buyers');
    const done = await ok(await presale('Star', now, now + 3600, 10), 'launching');
    await ok(await api(w, 'POST', '/holder/alice/buy-presale', { key: sk, body: { presaleId: live.id, usdcAmount: 20 } }), 'buy live');
    await ok(await api(w, 'POST', '/holder/alice/buy-presale', { key: sk, body: { presaleId: done.id, usdcAmount: 10 } }), 'buy done');
    for (let i = 0; i < 40; i++) {
      const p = await ok(await api(w, 'GET', `/merchant/presale/${done.id}`, { key: sk }), 'launch');
      if (p.completionState?.step === 'completed') break;
      await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 3 } });
    }
    const meme = await ok(await api(w, 'POST', '/template/memecoin', {
      key: sk, body: { name: 'Meme', symbol: 'MEME', totalSupply: 1000000, initialPrice: '0.001', network: 'base', marketplace: true },
    }), 'memecoin');
    await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 3 } });
    const session = await ok(await api(w, 'POST', '/holder/alice/session', { key: sk, body: { scopes: ['read', 'buy-presale'] } }), 'session');

    pages.push(
      ['home', '/', '#go-wallet'],
      ['wallet: priced, unpriced, USDC, a presale, a lock', '/app/wallet?userId=alice', '[data-state=ready]'],
      ['wallet: empty', '/app/wallet?userId=empty', '[data-state=ready]'],
      ['wallet: unknown user', '/app/wallet?userId=nobody', '[data-state=error]'],
      ['wallet: signed in', `/app/wallet?presaleId=${live.id}#session=${session.token}`, '#buy-form'],
      ['presale: upcoming', `/app/presale?id=${upcoming.id}`, '[data-state=ready]'],
      ['presale: live', `/app/presale?id=${live.id}`, '[data-state=ready]'],
      ['presale: no buyers', `/app/presale?id=${empty.id}`, '[data-state=ready]'],
      ['presale: launched', `/app/presale?id=${done.id}`, '[data-state=ready]'],
      ['presale: unknown', '/app/presale?id=00000000-0000-4000-8000-000000000000', '[data-state=error]'],
      ['token: no pool, no price', `/app/token?address=${plain.address}`, '[data-state=ready]'],
      ['token: with its pool', `/app/token?address=${pooled.address}`, '[data-state=ready]'],
      ['token: unknown', `/app/token?address=0x${'0'.repeat(39)}1`, '[data-state=error]'],
      ['deployment page', `/deployments/${meme.id}`, 'body'],
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await w?.stop();
  });

  /** The page's visible text and every attribute a person meets, as [where, text]. */
  const words = (p) => p.evaluate(() => {
    const out = [['text', document.body.innerText], ['title', document.title]];
    for (const el of document.querySelectorAll('*')) {
      for (const a of el.attributes) {
        if (/^(aria-|title$|alt$|placeholder$|value$|data-countdown-label)/.test(a.name)) out.push([`${el.tagName.toLowerCase()}[${a.name}]`, a.value]);
      }
    }
    return out;
  });

  const open = async (url, waitFor) => {
    const ctx = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
    const p = await ctx.newPage();
    p.errors = [];
    p.on('pageerror', (e) => p.errors.push(String(e)));
    await p.goto(`${w.baseUrl}/?publicKey=${encodeURIComponent(m.publicKey)}`);
    await p.locator('#keybar code').waitFor();
    await p.goto(`${w.baseUrl}${url}`);
    await p.locator(waitFor).first().waitFor({ timeout: 15_000 });
    await sleep(1200); // a countdown tick and a push, if any, have run
    return p;
  };

  test('every page, every state', async () => {
    for (const [name, url, waitFor] of pages) {
      const p = await open(url, waitFor);
      for (const [where, text] of await words(p)) {
        assert.doesNotMatch(text, LEAKS, `${name} (${url}): ${where} reads ${JSON.stringify(text.match(LEAKS)?.[0])}: ${text.slice(0, 300)}`);
      }
      assert.deepEqual(p.errors, [], name);
      checked++;
      await p.context().close();
    }
    assert.equal(checked, pages.length);
  });

  test('unknown prices read as unknown; percents are written one way; the presale page says live while it is', async () => {
    const wallet = await open('/app/wallet?userId=alice', '[data-state=ready]');
    assert.match(await wallet.locator('.row[data-symbol=PLN]').innerText(), /No price yet/);
    assert.doesNotMatch(await wallet.locator('.row[data-symbol=PLN]').innerText(), /\$/);
    assert.match(await wallet.locator('.row[data-symbol=POOL]').innerText(), /\$\d/);
    assert.match(await wallet.locator('#unpriced').innerText(), /^plus 1 token with no price yet$/);
    await wallet.context().close();

    const token = await open(pages.find(([n]) => n === 'token: no pool, no price')[1], '[data-state=ready]');
    assert.match(await token.locator('#price').innerText(), /No price yet/);
    assert.match(await token.locator('#holders tbody').innerText(), /No price yet/);
    assert.doesNotMatch(await token.locator('#holders tbody').innerText(), /\$0\.00/);
    // Every percent on the page in one form: no trailing zeros (5%, not 5.00%), no space.
    const text = await token.locator('main').innerText();
    assert.doesNotMatch(text, /\d\.\d*0%|\d %/);
    await token.context().close();

    const presale = await open(pages.find(([n]) => n === 'presale: live')[1], '[data-state=ready]');
    for (let i = 0; i < 50 && !/live$/.test(await presale.locator('#updated').innerText()); i++) await sleep(100);
    assert.match(await presale.locator('#updated').innerText(), /^Updated .* · live$/);
    assert.match(await presale.locator('main').innerText(), /Launch at 70%/i);
    assert.doesNotMatch(await presale.locator('main').innerText(), /every \d+ s|70 %/);
    await presale.context().close();
  });
});
