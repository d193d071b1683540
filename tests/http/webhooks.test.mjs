// Webhooks and the event log against the real worker in workerd, with a receiver on 127.0.0.1
// (ALLOW_PRIVATE_WEBHOOK_URLS is on in the harness): signatures verify (checked here with
// node:crypto, independently of the service's code); a receiver that answers 500 for a while
// gets every event afterwards, in order per resource, none missing (time travel moves the
// retries forward); a retried or replayed delivery carries the same event id; a deleted webhook
// gets nothing more; a slow receiver does not slow the API.
import test, { before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { startWorker, createMerchant } from './harness.mjs';
import { advanceTime, checkedCall, createPresale, eventLog, funded, holder, until } from './check.mjs';

let w;
before(async () => {
  w = await startWorker({ env: { WEBHOOK_TIMEOUT_MS: '8000' } });
});
after(async () => {
  await w?.stop();
});

/** A local receiver: records every request; answers `status` after `delayMs`. */
async function receiver() {
  const r = {
    got: [],
    status: 200,
    delayMs: 0,
    inFlight: 0,
    maxInFlight: 0,
  };
  r.server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      r.inFlight += 1;
      r.maxInFlight = Math.max(r.maxInFlight, r.inFlight);
      const status = r.status;
      const raw = Buffer.concat(chunks).toString('utf8');
      const entry = { headers: req.headers, raw, status, at: Date.now() };
      try {
        entry.body = JSON.parse(raw);
      } catch {
        entry.body = undefined;
      }
      r.got.push(entry);
      if (r.delayMs) await sleep(r.delayMs);
      r.inFlight -= 1;
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 200 ? 'ok' : 'not now');
    });
  });
  await new Promise((resolve) => r.server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${r.server.address().port}/hook`;
  r.close = () => new Promise((resolve) => {
    r.server.closeAllConnections?.();
    r.server.close(() => resolve());
  });
  /** The requests answered 2xx, in arrival order. */
  r.delivered = () => r.got.filter((g) => g.status === 200);
  return r;
}

/** Stripe's scheme, checked here without the service's code: t=<s>,v1=<hex HMAC of "t.body">. */
function verify(raw, header, secret) {
  const parts = Object.fromEntries(String(header).split(',').map((p) => p.split('=')));
  assert.match(parts.t ?? '', /^\d+$/, `no t in ${header}`);
  assert.match(parts.v1 ?? '', /^[0-9a-f]{64}$/, `no v1 in ${header}`);
  const want = createHmac('sha256', secret).update(`${parts.t}.${raw}`).digest();
  return timingSafeEqual(want, Buffer.from(parts.v1, 'hex')) ? Number(parts.t) : null;
}

const call = (method, path, opts, template) => checkedCall(w, method, path, opts, template);

async function createHook(m, url, events = ['*']) {
  const r = await call('POST', '/merchant/webhooks', { key: m.secretKey, body: { url, events } }, '/merchant/webhooks');
  assert.equal(r.status, 201, r.text);
  assert.match(r.json.secret, /^whsec_[0-9a-f]{64}$/);
  return r.json;
}

const allEvents = (m, after = undefined) => eventLog(w, m, { after });

/** A presale of `m` raising 1000 USDC: every purchase below is one more event of it. */
async function presale(m) {
  const p = await createPresale(w, m, {
    name: 'Hook launch', description: 'events in order', targetUsdcAmount: 1000,
    tokenInfo: { name: 'Hook', symbol: 'HOOK', imageUrl: 'https://example.com/h.png' },
  });
  return p.id;
}

describe('webhooks', () => {
  test('the secret is shown once; every delivery is signed with it; a ping and a replay carry their event id', async () => {
    const rx = await receiver();
    try {
      const m = await createMerchant(w, 'Hooks signed');
      const hook = await createHook(m, rx.url, ['holder.*']);
      const read = await call('GET', `/merchant/webhooks/${hook.id}`, { key: m.secretKey }, '/merchant/webhooks/{webhookId}');
      assert.equal(read.status, 200, read.text);
      assert.equal(read.json.secret, undefined, 'the secret is shown only at creation');
      assert.ok(!read.text.includes(hook.secret.slice(6)));
      const list = await call('GET', '/merchant/webhooks', { key: m.secretKey });
      assert.ok(!list.text.includes(hook.secret.slice(6)));

      await holder(w, m, 'sig-alice');
      await until('the holder.created delivery', () => rx.delivered().length >= 1);
      const [d] = rx.delivered();
      const t = verify(d.raw, d.headers['tokenpad-signature'], hook.secret);
      assert.ok(t, 'the signature verifies under the secret');
      assert.ok(Math.abs(t - Date.now() / 1000) < 120, 't is the real time of sending');
      assert.equal(verify(d.raw, d.headers['tokenpad-signature'], `${hook.secret}x`), null, 'another secret does not verify');
      assert.equal(verify(`${d.raw} `, d.headers['tokenpad-signature'], hook.secret), null, 'another body does not verify');
      assert.equal(d.body.type, 'holder.created');
      assert.equal(d.body.data.object.id, 'sig-alice');
      assert.equal(d.headers['tokenpad-event-id'], d.body.id);
      assert.equal(d.headers['tokenpad-event-type'], 'holder.created');
      assert.equal(d.headers['content-type'], 'application/json');
      // The payload is the event as GET /merchant/events shows it.
      const events = await allEvents(m);
      assert.deepEqual(events.find((e) => e.id === d.body.id), d.body);

      // A test ping: a webhook.ping event to this endpoint, signed the same way.
      const ping = await call('POST', `/merchant/webhooks/${hook.id}/test`, { key: m.secretKey });
      assert.ok([200, 201, 202].includes(ping.status), ping.text);
      await until('the ping', () => rx.delivered().some((g) => g.body?.type === 'webhook.ping'));
      const p = rx.delivered().find((g) => g.body?.type === 'webhook.ping');
      assert.ok(verify(p.raw, p.headers['tokenpad-signature'], hook.secret));

      // A replay: the same event (same id), as a new delivery.
      const page = await call('GET', `/merchant/webhooks/${hook.id}/deliveries`, { key: m.secretKey }, '/merchant/webhooks/{webhookId}/deliveries');
      assert.equal(page.status, 200, page.text);
      const first = page.json.data.find((x) => x.eventId === d.body.id);
      assert.equal(first.status, 'succeeded');
      assert.equal(first.attempts.at(-1).responseStatus, 200);
      const replay = await call('POST', `/merchant/webhooks/${hook.id}/deliveries/${first.id}/replay`, { key: m.secretKey });
      assert.ok([200, 201, 202].includes(replay.status), replay.text);
      await until('the replay', () => rx.delivered().filter((g) => g.body?.id === d.body.id).length === 2);
      const twice = rx.delivered().filter((g) => g.body?.id === d.body.id);
      assert.deepEqual(twice[1].body, twice[0].body, 'a duplicate is the same event');
      assert.notEqual(twice[1].headers['tokenpad-delivery-id'], twice[0].headers['tokenpad-delivery-id']);

      // Only http(s); an unknown event type is refused by name.
      for (const [body, field] of [
        [{ url: 'ftp://127.0.0.1/x', events: ['*'] }, 'url'],
        [{ url: rx.url, events: ['holder.nope'] }, 'events[0]'],
        [{ url: rx.url, events: [] }, 'events'],
      ]) {
        const bad = await call('POST', '/merchant/webhooks', { key: m.secretKey, body });
        assert.equal(bad.status, 400, bad.text);
        assert.equal(bad.json.details?.field, field, bad.text);
      }
    } finally {
      await rx.close();
    }
  });

  test('a receiver answering 500 for a while gets every event afterwards, in order per resource, none missing', async () => {
    const rx = await receiver();
    try {
      const m = await createMerchant(w, 'Hooks failing');
      const [before] = (await allEvents(m)).slice(-1);
      rx.status = 500;
      const hook = await createHook(m, rx.url);
      // One resource with many events (a presale: created, then every purchase), and others.
      const users = ['ord-a', 'ord-b', 'ord-c'];
      for (const u of users) await funded(w, m, u, 50);
      const presaleId = await presale(m);
      for (let i = 0; i < 6; i += 1) {
        const r = await call('POST', `/holder/${users[i % 3]}/buy-presale`, { key: m.secretKey, body: { presaleId, usdcAmount: 1 + i } });
        assert.equal(r.status, 200, r.text);
      }
      // Failing for a while: attempts come, are answered 500, and are retried (time travel
      // moves the service clock past each backoff).
      await until('failed attempts', () => rx.got.length >= 3, { between: () => advanceTime(w, 60) });
      await advanceTime(w, 300);
      await sleep(500);
      const failedIds = new Set(rx.got.map((g) => g.body.id));
      assert.ok(rx.got.every((g) => g.status === 500));
      const waiting = await call('GET', `/merchant/webhooks/${hook.id}/deliveries?limit=100`, { key: m.secretKey });
      assert.ok(waiting.json.data.some((x) => x.status === 'pending' && x.attempts.length > 0 && x.attempts.every((a) => a.responseStatus === 500)), waiting.text);
      assert.ok(waiting.json.data.some((x) => x.status === 'waiting'), 'later events of the presale wait behind the failing one');

      // The receiver comes back; every event since the webhook's creation arrives.
      rx.status = 200;
      const early = await allEvents(m, before?.id);
      assert.ok(early.length >= 3 + 3 + 1 + 6, `events: ${early.map((e) => e.type)}`);
      const unique = () => new Set(rx.delivered().map((g) => g.body.id));
      // Time travel moves the retries forward (and ends the presale, which writes more events:
      // the log is read again until everything in it has arrived).
      let log = early;
      await until('every event delivered', async () => {
        log = await allEvents(m, before?.id);
        return log.every((e) => unique().has(e.id));
      }, { timeoutMs: 60_000, between: () => advanceTime(w, 6 * 3600) });
      await sleep(1000);
      log = await allEvents(m, before?.id);
      const want = log.map((e) => e.id);
      assert.ok(early.every((e) => want.includes(e.id)));
      const delivered = rx.delivered();
      assert.deepEqual([...unique()].sort(), [...want].sort(), 'every event, none missing, none unknown');
      for (const g of delivered) assert.ok(verify(g.raw, g.headers['tokenpad-signature'], hook.secret));
      // Duplicates carry the same id: each event answered 500 earlier came again, same id, same body.
      for (const id of failedIds) {
        const again = rx.got.filter((g) => g.body.id === id);
        assert.ok(again.length >= 2 && again.at(-1).status === 200, `event ${id} was retried`);
        assert.deepEqual(again.at(-1).body, again[0].body);
      }
      // In order per resource: each resource's first successful deliveries follow the log.
      const byResource = (list) => list.reduce((acc, e) => {
        (acc[e.resource] ??= []).push(e.id);
        return acc;
      }, {});
      const seen = [];
      for (const g of delivered) if (!seen.includes(g.body.id)) seen.push(g.body.id);
      const got = byResource(seen.map((id) => log.find((e) => e.id === id)));
      assert.deepEqual(got, byResource(log));
      const presaleEvents = got[`presale:${presaleId}`];
      assert.ok(presaleEvents.length >= 7, `presale events: ${presaleEvents.length}`);
      const page = await call('GET', `/merchant/webhooks/${hook.id}/deliveries?limit=100`, { key: m.secretKey }, '/merchant/webhooks/{webhookId}/deliveries');
      assert.ok(page.json.data.every((x) => x.status === 'succeeded'), page.text);
    } finally {
      await rx.close();
    }
  });

  test('a deleted webhook gets nothing more', async () => {
    const rx = await receiver();
    try {
      const m = await createMerchant(w, 'Hooks deleted');
      const hook = await createHook(m, rx.url, ['holder.created']);
      await holder(w, m, 'del-1');
      await until('the first delivery', () => rx.delivered().length === 1);
      // Failing now: the next delivery stays pending, then the webhook is deleted.
      rx.status = 500;
      await holder(w, m, 'del-2');
      await until('the failing attempt', () => rx.got.length === 2);
      const del = await call('DELETE', `/merchant/webhooks/${hook.id}`, { key: m.secretKey });
      assert.equal(del.status, 200, del.text);
      assert.equal(del.json.deleted, true);
      const gone = await call('GET', `/merchant/webhooks/${hook.id}`, { key: m.secretKey });
      assert.equal(gone.status, 404);
      assert.equal(gone.json.code, 'webhook_not_found');
      rx.status = 200;
      await holder(w, m, 'del-3');
      for (let i = 0; i < 4; i += 1) {
        await advanceTime(w, 3600);
        await sleep(400);
      }
      assert.equal(rx.got.length, 2, `deliveries after deletion: ${rx.got.slice(2).map((g) => g.body?.type)}`);
      // The event log keeps the events.
      assert.equal((await allEvents(m)).filter((e) => e.type === 'holder.created').length, 3);
    } finally {
      await rx.close();
    }
  });

  test('a slow receiver does not slow the API', async () => {
    const rx = await receiver();
    try {
      const m = await createMerchant(w, 'Hooks slow');
      await createHook(m, rx.url, ['holder.created']);
      rx.delayMs = 4000;
      await holder(w, m, 'slow-0');
      await until('the receiver holding a delivery', () => rx.inFlight > 0);
      const times = [];
      for (let i = 1; i <= 15; i += 1) {
        const t0 = Date.now();
        await holder(w, m, `slow-${i}`);
        const r = await call('GET', `/merchant/events?limit=5`, { key: m.secretKey });
        assert.equal(r.status, 200);
        times.push(Date.now() - t0);
      }
      assert.ok(rx.inFlight > 0 || rx.got.length > 0);
      const worst = Math.max(...times);
      times.sort((a, b) => a - b);
      console.log(`# slow receiver: API round trips (PUT holder + GET events) median ${times[7]} ms, worst ${worst} ms`);
      assert.ok(worst < 2000, `an API call took ${worst} ms while the receiver held a delivery for 4000 ms`);
      // Deliveries still come, one at a time per resource but concurrently across resources.
      await until('the slow deliveries', () => rx.delivered().length >= 16, { timeoutMs: 40_000 });
    } finally {
      await rx.close();
    }
  });
});
