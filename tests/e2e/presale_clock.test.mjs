// The www presale page after the local clock moved (issue 43, the demo's first bug), in Chromium
// against the built Worker: a merchant created after `POST /admin/time/advance`, its presale
// open and taking purchases on the service clock. The page showed it as "Upcoming / Not
// started yet" once the live push, sent by a merchant object that had just started (here after
// a restart on the same state), read the presale at real time. The root is tested without a
// browser in tests/http/live_clock.test.mjs.
// Needs: scripts/build-worker.sh, scripts/build-pkg.sh (www/app/pkg), Chromium (setup.sh --browser).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { ROOT, api, createMerchant, startWorker } from '../http/harness.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const FLAGS = [
  '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-quic', '--no-sandbox', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];
const DAY_S = 86_400;

let w;
let browser;
before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www', 'app', 'pkg', 'index.js')), 'www/app/pkg missing: run scripts/build-pkg.sh');
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} missing: run scripts/setup.sh --browser`);
  w = await startWorker();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
});
after(async () => {
  await browser?.close();
  await w?.stop();
});

async function ok(res, what) {
  assert.ok(res.status >= 200 && res.status < 300, `${what}: HTTP ${res.status} ${res.text}`);
  return res.json;
}

/** The presale page, open for `ms` after it first says `Live`: what its status said, in order. */
async function statusesSeen(url, ms) {
  const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
  const p = await ctx.newPage();
  const sockets = [];
  p.on('websocket', (ws) => sockets.push(ws.url()));
  try {
    await p.goto(url);
    const seen = [];
    const deadline = Date.now() + 10_000 + ms;
    let live = null;
    while (Date.now() < deadline && (live === null || Date.now() - live < ms)) {
      const s = await p.locator('#status').first().innerText({ timeout: 1_000 }).catch(() => '');
      const detail = await p.locator('#status-detail').first().innerText({ timeout: 1_000 }).catch(() => '');
      const now = `${s} / ${detail}`;
      if (s && seen.at(-1) !== now) seen.push(now);
      if (s === 'Live' && live === null) live = Date.now();
      await sleep(100);
    }
    assert.ok(sockets.some((u) => u.includes('/live')), 'the page follows the presale over /live');
    return seen;
  } finally {
    await ctx.close();
  }
}

test('presale page: an open presale of a merchant made after the clock moved stays Live, after a restart too', { timeout: 180_000 }, async () => {
  await ok(await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 2 * DAY_S } }), 'advance');
  const m = await createMerchant(w, 'After The Move');
  const { nowUnix } = await ok(await api(w, 'GET', '/admin/time', { adminKey: w.adminKey }), 'time');
  const presale = await ok(await api(w, 'POST', '/merchant/presale', {
    key: m.secretKey,
    body: {
      name: 'Moved', description: 'Open since yesterday', startTimestamp: nowUnix - DAY_S, endTimestamp: nowUnix + DAY_S,
      targetUsdcAmount: 100, tokenInfo: { name: 'Moved', symbol: 'MVD', imageUrl: `${w.baseUrl}/app/favicon.svg` },
    },
  }), 'presale');
  // Taking purchases.
  const bob = await ok(await api(w, 'PUT', '/holder/bob', { key: m.secretKey }), 'holder bob');
  await ok(await api(w, 'POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: bob.address, usdcAmount: 20 } }), 'faucet');
  await ok(await api(w, 'POST', '/holder/bob/buy-presale', { key: m.secretKey, body: { presaleId: presale.id, usdcAmount: 12 } }), 'bob buys');

  const url = () => `${w.baseUrl}/app/presale?id=${presale.id}&publicKey=${encodeURIComponent(m.publicKey)}`;
  const live = (seen) => seen.length > 0 && seen.every((s) => s.startsWith('Live / '));
  const first = await statusesSeen(url(), 1_500);
  assert.ok(live(first), `before the restart the page said: ${JSON.stringify(first)}`);
  // A new process on the same state: the merchant's object starts anew and pushes to the
  // sockets that follow its presale.
  await w.restart();
  const again = await statusesSeen(url(), 2_500);
  assert.ok(live(again), `after the restart the page said: ${JSON.stringify(again)}`);
});
