// No tenant can be starved by strangers (issue #15). A key names its merchant, and the id is
// part of the public key, so anyone can send `sk_<victim id>_<64 hex>`. The merchant's rate
// budget is charged only once a key checked; bad keys spend a separate budget per client
// address (CF-Connecting-IP), refused at the edge once spent. Its own worker, with a low
// merchant limit and the bad-key guard at its defaults (5/s, bursts of 20).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';

let w;
const { call, ok, fails, newMerchant } = checkedClient(() => w);
let victim;

const RATE = 20; // the merchant's budget: 20 requests a second, bursts of 20
const REAL = '203.0.113.10'; // the merchant's backend
const ATTACKER = '198.51.100.7';
const from = (ip) => ({ 'cf-connecting-ip': ip });
const forged = (m) => `sk_${m.id}_${randomBytes(32).toString('hex')}`;

before(async () => {
  w = await startWorker({
    env: { RATE_LIMIT_PER_SECOND: String(RATE), RATE_LIMIT_BURST: String(RATE), BAD_KEY_LIMIT_PER_SECOND: null },
  });
  victim = await newMerchant('Victim');
});
after(async () => {
  await w?.stop();
});

test('a flood of forged keys does not take a single request from the victim, and is cut off at the edge', async () => {
  let flooding = true;
  const flood = { 401: 0, 429: 0, other: [] };
  const attackers = Array.from({ length: 30 }, async (_, i) => {
    while (flooding) {
      // Secret keys on a secret route, and forged public keys on a public one.
      const r = i % 3 === 0
        ? await call('GET', `/holder/alice?publicKey=pk_${victim.id}_${randomBytes(16).toString('hex')}`, { headers: from(ATTACKER) })
        : await call('GET', '/merchant/all-tokens', { key: forged(victim), headers: from(ATTACKER) });
      if (r.status === 401) {
        fails(r, 401, 'invalid_api_key');
        flood[401]++;
      } else if (r.status === 429) {
        fails(r, 429, 'rate_limited');
        assert.match(r.json.message, /invalid API key/);
        assert.ok(Number(r.headers.get('retry-after')) >= 1);
        flood[429]++;
      } else {
        flood.other.push(r.status);
      }
    }
  });
  // Meanwhile the merchant's backend makes 10 requests a second, half its budget, for 6 s.
  const real = [];
  const t0 = Date.now();
  for (let i = 0; i < 60; i++) {
    await sleep(Math.max(0, t0 + i * 100 - Date.now()));
    real.push(call('GET', '/merchant/all-tokens', { key: victim.secretKey, headers: from(REAL) }));
  }
  const answers = await Promise.all(real);
  // The victim's own key works even from the attacker's address (a shared NAT): it passed.
  const shared = await call('GET', '/merchant/all-tokens', { key: victim.secretKey, headers: from(ATTACKER) });
  flooding = false;
  await Promise.all(attackers);

  assert.deepEqual(answers.map((r) => r.status).filter((s) => s !== 200), [], 'every real request succeeded');
  ok(shared);
  assert.deepEqual(flood.other, []);
  // The attacker's address got its burst of 401s and a trickle at 5 a second, then 429s.
  const seconds = (Date.now() - t0) / 1000;
  assert.ok(flood[429] > flood[401], JSON.stringify(flood));
  assert.ok(flood[401] <= 20 + 5 * seconds + 30, `${flood[401]} forged keys reached the object in ${seconds} s`);
  // Another address with a bad key still gets its plain answer: the budget is per address.
  fails(await call('GET', '/merchant/all-tokens', { key: forged(victim), headers: from('192.0.2.55') }), 401, 'invalid_api_key');
  // IPv6 clients count per /64: every request below comes from another address of one /64,
  // and they share one budget. Sent in batches until the edge refuses one: the bucket refills
  // at 5 a second, so on a slow machine the burst alone may not empty it, but a budget kept
  // per address would never refuse these at all.
  const t1 = Date.now();
  let reached = 0;
  let refused;
  for (let sent = 0; !refused && sent < 300; sent += 10) {
    const batch = await Promise.all(Array.from({ length: 10 }, (_, j) => call('GET', '/merchant/all-tokens', {
      key: forged(victim), headers: from(`2001:db8:1:2:${(sent + j).toString(16)}::1`),
    })));
    for (const r of batch) {
      if (r.status === 401) {
        fails(r, 401, 'invalid_api_key');
        reached++;
      } else {
        fails(r, 429, 'rate_limited');
        refused = r;
      }
    }
  }
  assert.ok(refused, `${reached} forged keys from one /64 all reached the object`);
  const v6seconds = (Date.now() - t1) / 1000;
  assert.ok(reached <= 20 + 5 * v6seconds + 10, `${reached} forged keys from one /64 in ${v6seconds} s`);
  fails(await call('GET', '/merchant/all-tokens', { key: forged(victim), headers: from('2001:db8:1:3::1') }), 401, 'invalid_api_key');
});

test('the merchant budget still limits the merchant itself: over it, 429 with Retry-After', async () => {
  await sleep(1100);
  const burst = await Promise.all(Array.from({ length: RATE + 10 }, () =>
    call('GET', '/merchant/all-tokens', { key: victim.secretKey, headers: from(REAL) })));
  const limited = burst.filter((r) => r.status === 429);
  assert.ok(limited.length >= 5, `only ${limited.length} of ${burst.length} limited`);
  for (const r of limited) {
    fails(r, 429, 'rate_limited');
    assert.doesNotMatch(r.json.message, /invalid API key/);
    assert.equal(r.headers.get('retry-after'), '1');
  }
});
