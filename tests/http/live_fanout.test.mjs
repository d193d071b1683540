// Live push through the relays (objects/live/: relay.rs and the hub) against the real worker in
// workerd: many watchers of one presale, a burst of purchases, and the last state reaching
// every watcher with at most one push per period each; a worker restart (relays and the
// merchant's object restart, every socket drops) after which each watcher, reconnecting,
// gets the current state at once and every change after it.
// Needs a global WebSocket: Node 22+, or Node 20 with --experimental-websocket (scripts/test.sh
// adds it).
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, createMerchant, startWorker } from './harness.mjs';
import { createPresale, funded } from './check.mjs';

/** The service pushes a topic at most once per this many milliseconds (objects/live). */
const PUSH_EVERY_MS = 250;

let w;
let m;
before(async () => {
  assert.equal(typeof WebSocket, 'function', 'no global WebSocket: run node with --experimental-websocket');
  w = await startWorker();
  m = await createMerchant(w, 'Fan-out Merchant');
});
after(async () => {
  await w?.stop();
});

async function ok(res, what) {
  assert.ok(res.status >= 200 && res.status < 300, `${what}: HTTP ${res.status} ${res.text}`);
  return res.json;
}

/** A presale open for an hour that no test here fills (`check.mjs`'s `createPresale`). */
const presale = () => createPresale(w, m, { targetUsdcAmount: 100_000, autoLaunch: false });

/**
 * A watcher of `/live?<query>` that reconnects 200 ms after its socket closes (or its
 * handshake hangs for 2 s), to the
 * worker's current address (a restarted worker listens on another port): its messages (each
 * with its arrival time), and when its sockets opened and closed.
 */
function watcher(query) {
  const s = { messages: [], opened: [], closed: [], stopped: false, ws: null };
  const open = () => {
    if (s.stopped) return;
    const ws = new WebSocket(`${w.baseUrl.replace('http', 'ws')}/live?${query}`);
    s.ws = ws;
    let over = false;
    // Node 20's WebSocket reports a refused connection with an error and no close.
    const retry = () => {
      if (over) return;
      over = true;
      clearTimeout(handshake);
      if (s.opened.length > s.closed.length) s.closed.push(Date.now());
      if (s.ws === ws) setTimeout(open, 200);
    };
    // A handshake to a worker going down can hang: given up after 2 s, and tried again.
    const handshake = setTimeout(() => {
      ws.close();
      retry();
    }, 2_000);
    ws.addEventListener('open', () => {
      clearTimeout(handshake);
      s.opened.push(Date.now());
    });
    ws.addEventListener('message', (ev) => {
      const msg = JSON.parse(ev.data);
      msg.data = JSON.parse(msg.body);
      msg.at = Date.now();
      s.messages.push(msg);
    });
    ws.addEventListener('error', () => {
      if (ws.readyState !== WebSocket.OPEN) retry();
    });
    ws.addEventListener('close', retry);
  };
  open();
  s.stop = () => {
    s.stopped = true;
    s.ws?.close(1000);
  };
  return s;
}

/** Waits until `pred()` holds, polling, or fails after `ms` with `what()`. */
async function until(pred, ms, what) {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) assert.fail(`${what()} after ${ms} ms`);
    await sleep(50);
  }
}

describe('GET /live through relays', () => {
  test('a burst of purchases: the last state reaches every watcher, at most one push per period each', async () => {
    const p = await presale();
    const buyers = Array.from({ length: 8 }, (_, i) => `burst${i}`);
    for (const id of buyers) await funded(w, m, id, 100);
    const watchers = Array.from({ length: 40 }, () => watcher(`publicKey=${m.publicKey}&presale=${p.id}`));
    try {
      await until(() => watchers.every((x) => x.messages.length >= 1), 20_000,
        () => `${watchers.filter((x) => !x.messages.length).length} watchers without the current state`);
      for (const x of watchers) assert.equal(x.messages[0].data.purchasedUsdcAmount, 0);
      // 8 buyers, 5 purchases each, all at once: 40 changes in well under a second or two.
      const started = Date.now();
      await Promise.all(buyers.map(async (id) => {
        for (let i = 0; i < 5; i++) {
          await ok(await api(w, 'POST', `/holder/${id}/buy-presale`, { key: m.secretKey, body: { presaleId: p.id, usdcAmount: 1 } }), 'buy');
        }
      }));
      const final = await ok(await api(w, 'GET', `/token/presales/${p.id}?publicKey=${m.publicKey}`), 'read');
      assert.equal(final.purchasedUsdcAmount, 40);
      // The last state reaches every watcher, exactly as the public read answers it.
      await until(() => watchers.every((x) => x.messages.at(-1).data.purchasedUsdcAmount === 40), 10_000,
        () => `last states ${JSON.stringify(watchers.map((x) => x.messages.at(-1).data.purchasedUsdcAmount))}`);
      const text = (await api(w, 'GET', `/token/presales/${p.id}?publicKey=${m.publicKey}`)).text;
      for (const x of watchers) assert.equal(x.messages.at(-1).body, text);
      const ended = Date.now();
      await sleep(3 * PUSH_EVERY_MS);
      // States, not deltas: fewer pushes than purchases (coalesced), never two within a
      // period, never an older state after a newer one, and nothing once nothing changes.
      const periods = Math.ceil((ended - started) / PUSH_EVERY_MS) + 1;
      for (const x of watchers) {
        const pushes = x.messages.slice(1);
        assert.ok(pushes.length >= 1 && pushes.length <= periods, `${pushes.length} pushes in ${ended - started} ms`);
        const amounts = pushes.map((msg) => msg.data.purchasedUsdcAmount);
        assert.deepEqual(amounts, [...amounts].sort((a, b) => a - b), 'an older state after a newer one');
        assert.equal(new Set(amounts).size, amounts.length, 'the same state twice');
        for (let i = 1; i < pushes.length; i++) {
          // Made a period apart at the service (its clock), whatever the network did.
          const apart = pushes[i].serviceTime - pushes[i - 1].serviceTime;
          assert.ok(apart >= PUSH_EVERY_MS - 5, `two pushes ${apart} ms apart`);
        }
      }
      assert.ok(watchers.every((x) => x.messages.at(-1).data.purchasedUsdcAmount === 40));
    } finally {
      for (const x of watchers) x.stop();
    }
  });

  test('a restart loses no watcher for longer than its reconnect: each gets the current state at once, then every change', async () => {
    const p = await presale();
    await funded(w, m, 'restart-buyer', 100);
    const watchers = Array.from({ length: 10 }, () => watcher(`publicKey=${m.publicKey}&presale=${p.id}`));
    try {
      await until(() => watchers.every((x) => x.messages.length >= 1), 20_000, () => 'watchers without the current state');
      await ok(await api(w, 'POST', '/holder/restart-buyer/buy-presale', { key: m.secretKey, body: { presaleId: p.id, usdcAmount: 3 } }), 'buy');
      await until(() => watchers.every((x) => x.messages.at(-1).data.purchasedUsdcAmount === 3), 10_000, () => 'the purchase before the restart');

      // workerd stops (the relays, the merchant's object and every socket with it) and starts
      // again on its state; the watchers reconnect on their own.
      const before = watchers.map((x) => x.messages.length);
      await w.restart();
      await until(() => watchers.every((x) => x.opened.length >= 2), 30_000,
        () => `${watchers.filter((x) => x.opened.length < 2).length} watchers not reconnected`);
      // At once: the current state is the first thing each reconnected socket gets.
      await until(() => watchers.every((x, i) => x.messages.length > before[i]), 5_000, () => 'no state after reconnecting');
      for (const [i, x] of watchers.entries()) {
        const first = x.messages[before[i]];
        assert.equal(first.data.purchasedUsdcAmount, 3);
        assert.ok(first.at - x.opened[1] < 2_000, `the state came ${first.at - x.opened[1]} ms after the socket opened`);
      }
      // A change after the restart reaches every one of them.
      await ok(await api(w, 'POST', '/holder/restart-buyer/buy-presale', { key: m.secretKey, body: { presaleId: p.id, usdcAmount: 4 } }), 'buy');
      await until(() => watchers.every((x) => x.messages.at(-1).data.purchasedUsdcAmount === 7), 10_000,
        () => `last states ${JSON.stringify(watchers.map((x) => x.messages.at(-1).data.purchasedUsdcAmount))}`);
      // Away only while the worker restarted: one close each, and the socket it reconnected
      // stays open.
      for (const x of watchers) {
        assert.equal(x.closed.length, 1);
        assert.equal(x.ws.readyState, WebSocket.OPEN);
      }
    } finally {
      for (const x of watchers) x.stop();
    }
  });
});
