// Availability and exactly-once under load (issue #15): 100 concurrent writers on one
// merchant for LOAD_SECONDS (default 10), at the default rate limit, while answers of the
// merchant's Durable Object are lost mid-burst, some before the write ran and some after it
// committed (POST /admin/faults { kind: "lost_answers" }: what a caller sees when an object
// is reset or overloaded). Every answer must be a success, a documented 4xx, or a 503
// `unavailable` with Retry-After; a writer retries 503 and 429 with the same Idempotency-Key
// until it has a final answer, and the balances and histories then show every write applied
// exactly once: the successes, and nothing else.
//
// One answer is not the service's: wrangler dev's own proxy answers a write in flight while it
// reloads the worker with a plain-text 503 ("Your worker restarted mid-request", Retry-After 0;
// harness.mjs). It was seen twice under ./scripts/test.sh (a few such answers in one burst),
// never with this file run alone, cause not found. It is a lost answer like the faults' own:
// the writer retries it under the same key, it is counted apart, and exactly-once holds it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, startWorker } from './harness.mjs';
import { assertMatches } from './openapi.mjs';

const WRITERS = 100;
const SECONDS = Number(process.env.LOAD_SECONDS ?? 10);
const FAULTS = 3; // bursts of lost answers
const LOST = 30; // answers lost in each
const START = 100_000; // each holder's tokens

let w;
let m;
let token;
const holders = []; // { id, address }

before(async () => {
  w = await startWorker();
  const merchant = await api(w, 'POST', '/admin/merchants', { adminKey: w.adminKey, body: { name: 'Load' } });
  m = merchant.json;
  const job = await api(w, 'POST', '/merchant/create-token', { key: m.secretKey, body: { name: 'Load', symbol: 'LOAD', totalSupply: 100_000_000 } });
  for (;;) {
    await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 2 } });
    const j = await api(w, 'GET', `/jobs/${job.json.jobId}`, { key: m.secretKey });
    if (j.json.status === 'success') { token = j.json.data; break; }
  }
  for (let i = 0; i < WRITERS; i += 20) {
    await Promise.all(Array.from({ length: 20 }, async (_, k) => {
      const id = `w${i + k}`;
      const h = await api(w, 'PUT', `/holder/${id}`, { key: m.secretKey });
      assert.equal(h.status, 201, h.text);
      holders[i + k] = { id, address: h.json.address };
      const d = await api(w, 'POST', `/token/${token.address}/distribute`, { key: m.secretKey, body: { amount: START, sendToId: id } });
      assert.equal(d.status, 200, d.text);
    }));
  }
});
after(async () => {
  await w?.stop();
});

/**
 * A check after the load: the merchant's rate limit still applies (the load drains its
 * bucket), so a 429 is waited out as its Retry-After says, and anything else is the answer.
 */
async function settled(method, path, opts) {
  for (;;) {
    const r = await api(w, method, path, opts);
    if (r.status !== 429) return r;
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(r.headers.get('retry-after') ?? 1)));
  }
}

test(`${WRITERS} concurrent writers with lost answers: only successes, documented 4xx, or 503 with Retry-After; retries reach exactly-once`, async () => {
  const statuses = {}; // every answer, first tries and retries
  const bad = []; // answers outside the contract
  const outcomes = []; // one final outcome per idempotency key
  let retried = 0;
  let reloads = 0; // wrangler dev's own 503s (above)
  const reloading = (r) => r.status === 503 && r.text.startsWith('Your worker restarted mid-request');
  const count = (r) => { statuses[r.status] = (statuses[r.status] ?? 0) + 1; };

  /** Sends one write under `key` until it has a final answer; returns it. */
  async function write(method, path, body, key) {
    for (let attempt = 0; ; attempt++) {
      let r;
      try {
        r = await api(w, method, path, { key: m.secretKey, body, headers: { 'Idempotency-Key': key } });
      } catch (e) {
        bad.push({ path, status: 'no answer', text: String(e.cause ?? e) });
        return null;
      }
      if (attempt > 0) retried++;
      if (reloading(r)) {
        reloads++;
        await sleep(500);
        continue;
      }
      count(r);
      if (r.status === 503 || r.status === 429) {
        const code = r.status === 503 ? 'unavailable' : 'rate_limited';
        if (r.json?.code !== code || !(Number(r.headers.get('retry-after')) >= 1)) {
          bad.push({ path, status: r.status, text: r.text.slice(0, 200), retryAfter: r.headers.get('retry-after') });
          return null;
        }
        assertMatches(method, path, r.status, r.json);
        await sleep(200 + Math.random() * 300); // well within Retry-After's "1": the test is about correctness
        continue;
      }
      if (r.status >= 500 || r.json === undefined) {
        bad.push({ path, status: r.status, text: r.text.slice(0, 200) });
        return null;
      }
      assertMatches(method, path, r.status, r.json);
      return r;
    }
  }

  const deadline = Date.now() + SECONDS * 1000;
  const writers = holders.map(async (h, i) => {
    for (let n = 0; Date.now() < deadline; n++) {
      const key = `${h.id}-${n}`;
      if (n % 25 === 7) {
        // A refusal the operation answers (422), under a key like any other.
        const r = await write('POST', `/holder/${h.id}/spend`, { tokenAddress: token.address, amount: START * 10 }, key);
        if (r) outcomes.push({ key, kind: 'overdraw', from: i, status: r.status, code: r.json.code });
      } else if (n % 10 === 3) {
        const to = (i + 1) % WRITERS;
        const r = await write('POST', `/holder/${h.id}/transfer`, { tokenAddress: token.address, amount: 1, toAddress: holders[to].address }, key);
        if (r) outcomes.push({ key, kind: 'transfer', from: i, to, status: r.status, hash: r.json.transactionHash });
      } else if (n % 20 === 11) {
        // The same write sent twice at once: one runs, the other waits and replays it.
        const [a, b] = await Promise.all([0, 1].map(() =>
          write('POST', `/holder/${h.id}/spend`, { tokenAddress: token.address, amount: 1 }, key)));
        if (a && b) {
          assert.equal(a.status, b.status);
          assert.deepEqual(a.json, b.json);
          outcomes.push({ key, kind: 'spend', from: i, status: a.status, hash: a.json.transactionHash });
        }
      } else {
        const r = await write('POST', `/holder/${h.id}/spend`, { tokenAddress: token.address, amount: 1 }, key);
        if (r) outcomes.push({ key, kind: 'spend', from: i, status: r.status, hash: r.json.transactionHash });
      }
    }
  });
  const faults = (async () => {
    for (let k = 1; k <= FAULTS; k++) {
      await sleep(Math.max(0, deadline - Date.now()) / (FAULTS + 2 - k));
      const r = await api(w, 'POST', '/admin/faults', { adminKey: w.adminKey, body: { kind: 'lost_answers', merchantId: m.id, count: LOST } });
      assert.equal(r.status, 200, r.text);
    }
  })();
  await Promise.all([...writers, faults]);

  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  const summary = { seconds: SECONDS, requests: total, statuses, retried, keys: outcomes.length, reloads };
  console.log(`# load: ${JSON.stringify(summary)}`);
  if (reloads > 0) {
    // Why wrangler reloaded, for whoever looks into it (the answer itself says nothing).
    const said = w.logs().split('\n').filter((l) => /reload|restart|error|crash|exit/i.test(l)).slice(-20);
    console.log(`# wrangler's output around its reload:\n${said.map((l) => `#   ${l}`).join('\n')}`);
  }
  assert.deepEqual(bad, [], 'answers outside the contract');
  assert.ok(total > WRITERS * 5, `only ${total} requests`);
  assert.equal(statuses[503], FAULTS * LOST, 'every lost answer was a 503, and nothing else was');

  // Final answers: successes, and the 422s asked for; nothing else.
  for (const o of outcomes) {
    if (o.kind === 'overdraw') assert.deepEqual([o.status, o.code], [422, 'insufficient_balance'], o.key);
    else assert.equal(o.status, 200, o.key);
  }
  // Exactly once: each holder's balance is its start minus what it sent, plus what it got.
  const expected = holders.map(() => START);
  const spends = holders.map(() => 0);
  for (const o of outcomes) {
    if (o.kind === 'spend') { expected[o.from] -= 1; spends[o.from] += 1; }
    if (o.kind === 'transfer') { expected[o.from] -= 1; expected[o.to] += 1; }
  }
  const seen = new Set(outcomes.filter((o) => o.hash).map((o) => o.hash));
  assert.equal(seen.size, outcomes.filter((o) => o.hash).length, 'every write has its own transaction');
  for (let i = 0; i < WRITERS; i++) {
    const h = holders[i];
    const b = await settled('GET', `/holder/${h.id}/token/${token.address}`, { key: m.publicKey });
    assert.equal(b.status, 200, b.text);
    assert.equal(b.json.balance, expected[i], `${h.id}: balance`);
    const hist = await settled('GET', `/holder/${h.id}/transactions?limit=200&tokenAddress=${token.address}`, { key: m.secretKey });
    assert.equal(hist.status, 200, hist.text);
    const mine = hist.json.data.filter((t) => t.type === 'spend');
    if (!hist.json.has_more) assert.equal(mine.length, spends[i], `${h.id}: spends recorded`);
    for (const t of mine) assert.ok(seen.has(t.transactionHash), `${h.id}: a spend no writer got an answer for`);
  }
  // And a key replays its answer after all of it.
  const o = outcomes.find((x) => x.kind === 'spend');
  const again = await settled('POST', `/holder/${holders[o.from].id}/spend`, {
    key: m.secretKey, body: { tokenAddress: token.address, amount: 1 }, headers: { 'Idempotency-Key': o.key },
  });
  assert.equal(again.json.transactionHash, o.hash);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
});
