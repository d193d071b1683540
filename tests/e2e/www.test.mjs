// End to end: the www demo pages in Chromium (playwright-core, /usr/bin/chromium) against the
// built Worker in local workerd (tests/http/harness.mjs), with data seeded through the API.
// Needs: scripts/build-worker.sh, scripts/build-pkg.sh (www/app/pkg), Chromium (setup.sh --browser).
// Screenshots go to tests/artifacts/ (gitignored).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { ROOT, api, createMerchant, createToken, startWorker } from '../http/harness.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const ARTIFACTS = path.join(ROOT, 'tests', 'artifacts');
const FLAGS = [
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--no-sandbox',
  // Nothing but the local worker: no name resolves, so no request can leave the machine.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];
const PHONE = { width: 375, height: 812 };
const DESKTOP = { width: 1200, height: 900 };

async function ok(res, what) {
  assert.ok(res.status >= 200 && res.status < 300, `${what}: HTTP ${res.status} ${res.text}`);
  return res.json;
}

describe('www demo in Chromium', { timeout: 240_000 }, () => {
  let w;
  let browser;
  let m; // the merchant: { id, name, secretKey, publicKey }
  let token;
  let livePresale;
  let launchedPresale;

  before(async () => {
    assert.ok(existsSync(path.join(ROOT, 'www', 'app', 'pkg', 'index.js')), 'www/app/pkg missing: run scripts/build-pkg.sh');
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} missing: run scripts/setup.sh --browser`);
    await mkdir(ARTIFACTS, { recursive: true });
    w = await startWorker();
    m = await createMerchant(w, 'E2E Merchant');
    const sk = m.secretKey;
    token = await createToken(w, sk, { name: 'Demo Token', symbol: 'DEMO' });

    // alice: a distribution with more digits than a double holds.
    await ok(await api(w, 'PUT', '/holder/alice', { key: sk }), 'holder alice');
    await ok(await api(w, 'POST', `/token/${token.address}/distribute`, {
      key: sk, body: { sendToId: 'alice', amount: '1234.567890123456789012' },
    }), 'distribute');

    // bob and carol get test USDC.
    for (const u of ['bob', 'carol']) {
      const h = await ok(await api(w, 'PUT', `/holder/${u}`, { key: sk }), `holder ${u}`);
      await ok(await api(w, 'POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: h.address, usdcAmount: 100 } }), 'faucet');
    }
    const now = Math.floor(Date.now() / 1000);
    const presale = (name, symbol, target) => api(w, 'POST', '/merchant/presale', {
      key: sk,
      body: {
        name, description: `The ${symbol} presale`, startTimestamp: now, endTimestamp: now + 3600,
        targetUsdcAmount: target, lockDuration: 7,
        tokenInfo: { name, symbol, imageUrl: `${w.baseUrl}/app/favicon.svg` },
      },
    });
    livePresale = await ok(await presale('Moon', 'MOON', 100), 'presale 1');
    await ok(await api(w, 'POST', '/holder/bob/buy-presale', { key: sk, body: { presaleId: livePresale.id, usdcAmount: 60.5 } }), 'bob buys');
    launchedPresale = await ok(await presale('Star', 'STAR', 10), 'presale 2');
    await ok(await api(w, 'POST', '/holder/carol/buy-presale', { key: sk, body: { presaleId: launchedPresale.id, usdcAmount: 10 } }), 'carol buys');
    // The target is reached: the launch runs its steps, one block each; move the clock along.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const p = await ok(await api(w, 'GET', `/merchant/presale/${launchedPresale.id}`, { key: sk }), 'presale 2 read');
      if (p.completionState?.step === 'completed') break;
      assert.ok(Date.now() < deadline, `launch stuck at ${p.completionState?.step}`);
      await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 3 } });
      await sleep(100);
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  });

  after(async () => {
    await browser?.close();
    await w?.stop();
  });

  const newPage = async (viewport = DESKTOP) => {
    const ctx = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC' });
    const p = await ctx.newPage();
    p.errors = [];
    p.sockets = [];
    p.on('websocket', (ws) => p.sockets.push(ws.url()));
    p.on('pageerror', (e) => p.errors.push(String(e)));
    // A failed resource (an expected 404) is not a page error.
    p.on('console', (msg) => msg.type() === 'error' && !/Failed to load resource/.test(msg.text()) && p.errors.push(msg.text()));
    return p;
  };
  /** A page that already knows the merchant's public key (as after a ?publicKey= link). */
  const keyedPage = async (viewport) => {
    const p = await newPage(viewport);
    await p.goto(`${w.baseUrl}/?publicKey=${encodeURIComponent(m.publicKey)}`);
    await p.locator('#keybar code').waitFor();
    return p;
  };
  const shot = (p, name) => p.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const text = (p, sel) => p.locator(sel).first().innerText();
  /** Waits until `sel`'s text matches `re`; fails with the last text seen. */
  const waitForText = async (p, sel, re, timeout = 10_000) => {
    const deadline = Date.now() + timeout;
    let last = '';
    for (;;) {
      last = (await p.locator(sel).first().innerText({ timeout }).catch(() => '')) ?? '';
      if (re.test(last)) return last;
      if (Date.now() > deadline) assert.fail(`${sel}: ${JSON.stringify(last)} does not match ${re}`);
      await sleep(100);
    }
  };
  const fitsThePhone = async (p) => {
    const [scroll, width] = await p.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(scroll <= width, `the page is ${scroll}px wide in a ${width}px viewport`);
  };
  /**
   * WCAG AA contrast of every visible text on the page: 4.5:1, 3:1 for large text (24 px, or
   * 18.66 px bold). The background is the first opaque one up the tree; text over a gradient
   * or an image is not judged.
   */
  const contrastOk = async (p, where) => {
    const bad = await p.evaluate(() => {
      const rgb = (c) => (c.match(/[\d.]+/g) ?? []).map(Number);
      const lum = ([r, g, b]) => {
        const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
      };
      const out = [];
      for (const el of document.querySelectorAll('body *')) {
        const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
        if (!own || !el.getClientRects().length) continue;
        const cs = getComputedStyle(el);
        if (cs.visibility === 'hidden' || Number(cs.opacity) === 0) continue;
        let bg = null;
        for (let e = el; e; e = e.parentElement) {
          const b = getComputedStyle(e);
          if (b.backgroundImage !== 'none') break;
          const c = rgb(b.backgroundColor);
          if (c.length === 3 || c[3] === 1) { bg = c.slice(0, 3); break; }
        }
        if (!bg) continue;
        const [a, b] = [lum(rgb(cs.color).slice(0, 3)), lum(bg)].sort((x, y) => y - x);
        const ratio = (a + 0.05) / (b + 0.05);
        const size = parseFloat(cs.fontSize);
        const large = size >= 24 || (size >= 18.66 && Number(cs.fontWeight) >= 700);
        if (ratio < (large ? 3 : 4.5)) out.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}": ${ratio.toFixed(2)}`);
      }
      return out;
    });
    assert.deepEqual(bad, [], `text below WCAG AA contrast on ${where}`);
  };
  /** Links are told apart by more than colour, and progress bars have a name. */
  const accessible = async (p, where) => {
    const plain = await p.$$eval('main a', (as) => as.filter((a) => !getComputedStyle(a).textDecorationLine.includes('underline')).map((a) => a.textContent));
    assert.deepEqual(plain, [], `links on ${where} told apart by colour only`);
    const unnamed = await p.$$eval('[role=progressbar]', (bars) => bars.filter((b) => !b.getAttribute('aria-label') && !b.getAttribute('aria-labelledby')).length);
    assert.equal(unnamed, 0, `unlabeled progress bars on ${where}`);
  };
  const closeClean = async (p) => {
    assert.deepEqual(p.errors, [], 'errors in the page');
    await p.context().close();
  };

  test('without a key the page asks for one, and refuses a secret key', async () => {
    const p = await newPage(PHONE);
    await p.goto(`${w.baseUrl}/app/wallet`);
    await p.locator('#key-card').waitFor();
    assert.match(await text(p, '#key-card h1'), /Connect with a public key/);
    await p.fill('#key-form input', m.secretKey);
    await p.click('#key-form button');
    await waitForText(p, '#key-card [role=alert]', /That is a secret key/);
    assert.equal(await p.evaluate(() => localStorage.getItem('tokenpad.publicKey')), null, 'a secret key was stored');
    await fitsThePhone(p);
    await shot(p, 'key-form-phone');
    // A well-formed but unknown public key is taken, and the service refuses it.
    await p.fill('#key-form input', 'pk_nobody_0000');
    await p.click('#key-form button');
    await p.waitForLoadState('load');
    await p.locator('#lookup-form').waitFor();
    await p.fill('#lookup-form input', 'alice');
    await p.click('#lookup-form button');
    await waitForText(p, '[data-state=error]', /public key is not accepted/);
    await closeClean(p);
  });

  test('a ?publicKey= link is remembered and leaves the address bar', async () => {
    // `/` is the demo's home page (a static asset, with its content security policy).
    const home = await api(w, 'GET', '/');
    assert.equal(home.status, 200);
    assert.match(home.text, /<title>tokenpad · demo<\/title>/);
    assert.match(home.headers.get('content-security-policy') ?? '', /connect-src 'self'/);
    const p = await keyedPage(DESKTOP);
    assert.equal(await text(p, '#keybar code'), m.publicKey);
    assert.ok(!p.url().includes('publicKey'), p.url());
    assert.equal(await p.evaluate(() => localStorage.getItem('tokenpad.publicKey')), m.publicKey);
    await contrastOk(p, 'the home page');
    await shot(p, 'home-desktop');
    // The home page's forms lead to the pages, the key still known there.
    await p.fill('#go-wallet input', 'alice');
    await p.click('#go-wallet button');
    await waitForText(p, '#summary', /Wallet of alice/);
    await closeClean(p);
  });

  test('wallet: active tokens with exact amounts, at phone width', async () => {
    const p = await keyedPage(PHONE);
    await p.goto(`${w.baseUrl}/app/wallet?userId=alice`);
    await waitForText(p, '#summary', /Wallet of alice/);
    // The token has no price yet: its value is unknown, said so, not counted as $0.
    assert.equal(await text(p, '#total-value'), '$0.00');
    assert.equal(await text(p, '#unpriced'), 'plus 1 token with no price yet');
    const row = p.locator('.row[data-symbol=DEMO]');
    assert.match(await row.innerText(), /No price yet/);
    assert.doesNotMatch(await row.innerText(), /\$/);
    assert.match(await row.innerText(), /Demo Token\s+Active/);
    assert.match(await row.innerText(), /1,234\.56789 DEMO/);
    await fitsThePhone(p);
    await contrastOk(p, 'the wallet');
    await shot(p, 'wallet-alice-phone');
    // A distribution shows up without reloading, pushed (the page's poll is every 30 s).
    await ok(await api(w, 'POST', `/token/${token.address}/distribute`, { key: m.secretKey, body: { sendToId: 'alice', amount: '1' } }), 'distribute');
    await waitForText(p, '.row[data-symbol=DEMO]', /1,235\.56789 DEMO/, 5_000);
    assert.ok(p.sockets.some((u) => u.includes('/live?') && u.includes('holder=alice')), `no WebSocket: ${p.sockets}`);
    await ok(await api(w, 'POST', '/holder/alice/spend', { key: m.secretKey, body: { tokenAddress: token.address, amount: '1' } }), 'spend');
    await waitForText(p, '.row[data-symbol=DEMO]', /1,234\.56789 DEMO/, 5_000);
    await closeClean(p);
  });

  test('wallet: locked presale tokens with a live countdown, and USDC', async () => {
    const p = await keyedPage(PHONE);
    await p.goto(`${w.baseUrl}/app/wallet?userId=carol`);
    await waitForText(p, '#summary', /Wallet of carol/);
    assert.equal(await text(p, '#total-value'), '$100.00'); // 90 USDC + 250,000,000 STAR at 10/250,000,000
    const lock = p.locator('.row[data-kind=lock]');
    assert.match(await lock.innerText(), /250,000,000 STAR/);
    assert.match(await lock.innerText(), /Locked/);
    const first = await waitForText(p, '.row[data-kind=lock] .countdown', /^Unlocks in [67]d \d+h \d+m \d+s$/);
    const next = await waitForText(p, '.row[data-kind=lock] .countdown', new RegExp(`^(?!${first}$)Unlocks in`), 3_000);
    assert.notEqual(next, first, 'the countdown does not move');
    assert.match(await p.locator('.row[data-symbol=USDC]').innerText(), /90 USDC/);
    assert.match(await text(p, '#holdings'), /USDC[\s\S]*STAR/); // largest value first: $90 before $10
    await fitsThePhone(p);
    await shot(p, 'wallet-carol-lock-phone');
    await closeClean(p);
  });

  test('wallet: a presale position links to its presale', async () => {
    const p = await keyedPage(DESKTOP);
    await p.goto(`${w.baseUrl}/app/wallet?userId=bob`);
    const row = p.locator('.row[data-kind=presale]');
    await row.waitFor();
    assert.match(await row.innerText(), /60\.50 USDC paid/);
    assert.match(await row.innerText(), /60\.5% of target/);
    await shot(p, 'wallet-bob-desktop');
    await accessible(p, 'the wallet');
    await p.setViewportSize(PHONE);
    await fitsThePhone(p);
    // At 375 px the "Presale" pill and the amount do not overlap.
    const pill = await row.locator('.pill').boundingBox();
    const amount = await row.locator('.amount').boundingBox();
    const apart = pill.x + pill.width <= amount.x || amount.x + amount.width <= pill.x || pill.y + pill.height <= amount.y || amount.y + amount.height <= pill.y;
    assert.ok(apart, `the pill ${JSON.stringify(pill)} overlaps the amount ${JSON.stringify(amount)}`);
    // ... whatever the amount's length: on a phone it goes under the name and its pill.
    assert.ok(amount.y >= pill.y + pill.height, `the amount sits beside the pill at 375 px: ${JSON.stringify({ pill, amount })}`);
    await contrastOk(p, 'the wallet with a presale');
    await shot(p, 'wallet-bob-phone');
    await row.locator('a', { hasText: 'View presale' }).click();
    await waitForText(p, '#presale-name', /Moon/);
    await closeClean(p);
  });

  test('wallet: an unknown user id gets a clear error state', async () => {
    const p = await keyedPage(PHONE);
    await p.goto(`${w.baseUrl}/app/wallet?userId=nobody-here`);
    await waitForText(p, '[data-state=error]', /No wallet with this user id/);
    assert.match(await text(p, '[data-state=error]'), /holder_not_found/);
    await shot(p, 'wallet-error-phone');
    await closeClean(p);
  });

  test('presale: live progress bar, status, participants and time left, updated while open', async () => {
    const p = await keyedPage(DESKTOP);
    await p.goto(`${w.baseUrl}/app/presale?id=${livePresale.id}`);
    await waitForText(p, '#status', /^Live$/);
    assert.equal(await text(p, '#raised'), '60.50 USDC');
    assert.equal(await text(p, '#percent'), '60.5%');
    assert.match(await text(p, '#participants'), /Participants\s+1/i);
    assert.match(await text(p, '#time-left'), /Time left\s+\d+m \d+s/i);
    assert.match(await text(p, '#status-detail'), /9\.50 USDC more to reach the 70% launch threshold/);
    const width = await p.locator('#progress .fill').evaluate((el) => el.style.width);
    assert.equal(width, '60.5%');
    await contrastOk(p, 'the presale page');
    await accessible(p, 'the presale page');
    assert.match(await p.locator('#progress').getAttribute('aria-valuetext'), /60\.5% of the 100\.00 USDC target raised/);
    await shot(p, 'presale-live-desktop');
    // Another purchase shows up without reloading (watchPresale polls every 3 s).
    await ok(await api(w, 'POST', '/holder/bob/buy-presale', { key: m.secretKey, body: { presaleId: livePresale.id, usdcAmount: 10 } }), 'bob buys more');
    await waitForText(p, '#raised', /^70\.50 USDC$/, 2_500); // pushed: the poll would take 3 s
    assert.ok(p.sockets.some((u) => u.includes('/live?') && u.includes(livePresale.id)), `no WebSocket: ${p.sockets}`);
    assert.match(await text(p, '#status-detail'), /70% launch threshold reached/);
    await p.setViewportSize(PHONE);
    await fitsThePhone(p);
    await shot(p, 'presale-live-phone');
    await closeClean(p);
  });

  test('presale: a launched presale', async () => {
    const p = await keyedPage(PHONE);
    await p.goto(`${w.baseUrl}/app/presale?id=${launchedPresale.id}`);
    await waitForText(p, '#status', /^Completed$/);
    assert.equal(await text(p, '#percent'), '100%');
    assert.match(await text(p, '#status-detail'), /Target reached/);
    assert.match(await text(p, '#time-left'), /Ended/);
    await fitsThePhone(p);
    await shot(p, 'presale-completed-phone');
    await closeClean(p);
  });

  test('token: distributed versus remaining app supply, holders', async () => {
    const p = await keyedPage(DESKTOP);
    await p.goto(`${w.baseUrl}/app/token?address=${token.address}`);
    await waitForText(p, '#token-name', /Demo Token \(DEMO\)/);
    assert.equal(await text(p, '#distributed'), '1,235.56789');
    assert.equal(await text(p, '#remaining'), '149,998,764.43211');
    assert.match(await text(p, '#total-supply'), /1,000,000,000/);
    assert.match(await text(p, '#price'), /No price yet/);
    assert.match(await text(p, '#holders'), /alice[\s\S]*1,234\.56789/);
    // The supply split as a chart: a part per slice, each named in the legend and the label.
    const chart = p.locator('#split-chart');
    const label = await chart.getAttribute('aria-label');
    assert.match(label, /^Total supply split: Held by holders <0\.01%, App supply left 15%, Merchant supply 5%, Liquidity reserve 80%$/);
    assert.equal(await chart.locator('circle[data-part]').count(), 4);
    assert.match(await text(p, '.split-legend li[data-part=liquidity]'), /Liquidity reserve\s+80%\s+800,000,000 DEMO/);
    await contrastOk(p, 'the token page');
    await accessible(p, 'the token page');
    await shot(p, 'token-desktop');
    await p.setViewportSize(PHONE);
    await fitsThePhone(p);
    await contrastOk(p, 'the token page at 375 px');
    await shot(p, 'token-phone');
    await closeClean(p);
  });

  test('wallet: a signed-in user (session token) sees their wallet and buys into a presale', async (t) => {
    // In private mode, where the public key reads no wallet: the session token reads it and
    // follows it live.
    await ok(await api(w, 'PATCH', '/merchant/settings', { key: m.secretKey, body: { privateMode: true } }), 'private mode');
    t.after(() => api(w, 'PATCH', '/merchant/settings', { key: m.secretKey, body: { privateMode: false } }));
    const now = Math.floor(Date.now() / 1000);
    const sun = await ok(await api(w, 'POST', '/merchant/presale', {
      key: m.secretKey,
      body: {
        name: 'Sun', description: 'The SUN presale', startTimestamp: now, endTimestamp: now + 3600,
        targetUsdcAmount: 1000, lockDuration: 7, tokenInfo: { name: 'Sun', symbol: 'SUN', imageUrl: `${w.baseUrl}/app/favicon.svg` },
      },
    }), 'presale sun');
    // The merchant's server signs carol in: read and buy-presale, at most 30 USDC.
    const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
    const s = await ok(await api(w, 'POST', '/holder/carol/session', {
      key: m.secretKey, body: { scopes: ['read', 'buy-presale'], limits: [{ tokenAddress: usdc, maxPerSession: 30 }] },
    }), 'session');
    const usdcOf = async () => Number((await ok(await api(w, 'GET', `/holder/carol/token/${usdc}`, { key: m.secretKey }), 'usdc')).balance);
    const before = await usdcOf();
    const p = await keyedPage(PHONE);
    await p.goto(`${w.baseUrl}/app/wallet?presaleId=${sun.id}#session=${s.token}`);
    await waitForText(p, '#session-user', /Signed in as carol/);
    assert.ok(!p.url().includes('#session') && !p.url().includes(s.token), `the token stays in the address bar: ${p.url()}`);
    await waitForText(p, '#summary', /Wallet of carol/);
    assert.match(await text(p, '#session-scopes'), /read, buy-presale · 30 USDC left/);
    // A distribution shows up pushed (the page polls every 30 s), over a socket opened with
    // the token as a subprotocol: neither the token nor the public key is in its URL.
    await ok(await api(w, 'POST', `/token/${token.address}/distribute`, { key: m.secretKey, body: { sendToId: 'carol', amount: '3' } }), 'distribute');
    await waitForText(p, '.row[data-symbol=DEMO]', /\b3 DEMO/, 5_000);
    const socket = p.sockets.find((u) => u.includes('/live?'));
    assert.ok(socket?.includes('holder=carol'), `no WebSocket: ${p.sockets}`);
    assert.ok(!socket.includes(s.token) && !socket.includes('publicKey'), socket);
    // Buy 20 USDC: the purchase goes through with the session token alone.
    await p.locator('#buy-form input[name=usdcAmount]').fill('20');
    await p.locator('#buy-form button').click();
    await waitForText(p, '#buy-result', /Bought into the presale for 20 USDC/);
    await waitForText(p, '#session-scopes', /10 USDC left/);
    const after = await ok(await api(w, 'GET', `/token/presales/${sun.id}?publicKey=${m.publicKey}`), 'sun read');
    assert.equal(Number(after.purchasedUsdcAmount), 20);
    assert.equal(await usdcOf(), before - 20);
    // Its wallet shows the position, pushed or polled.
    await waitForText(p, '#holdings', /SUN/, 10_000);
    await fitsThePhone(p);
    await contrastOk(p, 'the signed-in wallet');
    await shot(p, 'wallet-session-carol-phone');
    // Over the session's limit: refused, explained, and nothing moves.
    await p.locator('#buy-form input[name=usdcAmount]').fill('20');
    await p.locator('#buy-form button').click();
    await waitForText(p, '#buy-result [data-state=error]', /Over this session's limit[\s\S]*session_limit_exceeded/);
    assert.equal(Number((await ok(await api(w, 'GET', `/token/presales/${sun.id}?publicKey=${m.publicKey}`), 'sun')).purchasedUsdcAmount), 20);
    assert.equal(await usdcOf(), before - 20);
    p.errors = p.errors.filter((e) => !/403/.test(e));
    await closeClean(p);
  });
});
