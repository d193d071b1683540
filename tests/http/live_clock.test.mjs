// Live push on a moved clock (issue 43, the demo's first bug): a merchant created after
// `POST /admin/time/advance` has its presale pushed on the service clock, never on real time.
// The merchant's object keeps the clock's offset in storage; its live hub used to keep a copy
// learned only from writes, 0 in a new instance, so the first push of an object that had just
// started (the sockets of a page reconnecting after a restart, or after the object was evicted)
// read the presale at real time: `status: pending`, a real-time `serviceTime`, and the www page
// said "Upcoming / Not started yet" of a presale taking purchases.
// Needs a global WebSocket: Node 22+, or Node 20 with --experimental-websocket (scripts/test.sh
// adds it).
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, createMerchant, startWorker } from './harness.mjs';

const DAY_S = 86_400;
let w;
before(async () => {
  assert.equal(typeof WebSocket, 'function', 'no global WebSocket: run node with --experimental-websocket');
  w = await startWorker();
});
after(async () => {
  await w?.stop();
});

async function ok(res, what) {
  assert.ok(res.status >= 200 && res.status < 300, `${what}: HTTP ${res.status} ${res.text}`);
  return res.json;
}

/** Every message a socket on /live?`query` gets within `ms` of opening. */
async function messages(query, ms) {
  const ws = new WebSocket(`${w.baseUrl.replace('http', 'ws')}/live?${query}`);
  const got = [];
  ws.addEventListener('message', (ev) => {
    const msg = JSON.parse(ev.data);
    got.push({ ...msg, data: JSON.parse(msg.body) });
  });
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', () => reject(new Error('could not open /live')), { once: true });
  });
  await sleep(ms);
  ws.close(1000);
  return got;
}

test('a presale of a merchant created after the clock moved is pushed on the service clock, after a restart too', async () => {
  await ok(await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 2 * DAY_S } }), 'advance');
  const m = await createMerchant(w, 'Made After The Move');
  const clock = await ok(await api(w, 'GET', '/admin/time', { adminKey: w.adminKey }), 'time');
  // Started a day ago on the service clock: a day in the future on the real one.
  const p = await ok(await api(w, 'POST', '/merchant/presale', {
    key: m.secretKey,
    body: {
      name: 'Moved clock', description: 'Open since yesterday', startTimestamp: clock.nowUnix - DAY_S,
      endTimestamp: clock.nowUnix + DAY_S, targetUsdcAmount: 100,
      tokenInfo: { name: 'Clock', symbol: 'CLK', imageUrl: 'https://example.com/c.png' },
    },
  }), 'presale');
  const query = `publicKey=${m.publicKey}&presale=${p.id}`;
  const check = (got, when) => {
    assert.ok(got.length >= 1, `${when}: no message`);
    for (const msg of got) {
      const behind = clock.nowUnix * 1000 - msg.serviceTime;
      assert.ok(behind < 600_000, `${when}: serviceTime ${msg.serviceTime} is ${Math.round(behind / 1000)} s behind the service clock`);
      assert.equal(msg.data.status, 'active', `${when}: ${msg.body.slice(0, 200)}`);
    }
  };
  check(await messages(query, 1_000), 'first socket');
  // A new process on the same state: the object starts anew, with its followers in storage,
  // and sends them every topic at its first flush.
  await w.restart();
  check(await messages(query, 1_500), 'after the restart');
});
