// Development switches (contract §10): with ALLOW_TIME_TRAVEL / ENABLE_FAUCET not exactly
// "true", both admin routes do not exist (404 not_found); with them on, time advance validates
// its input and reports the service clock. Two workers, one after the other (never together):
// the switches are process configuration.
// Every response is checked against openapi.json and must never be a 5xx.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';

let w;
const { seen, call, checked, ok, fails, newMerchant, advance, newToken, offset } = checkedClient(() => w);

/** Waits for a job in real time only (no time travel). */
async function waitJobRealTime(m, jobId) {
  for (let i = 0; i < 40; i++) {
    const j = ok(await call('GET', `/jobs/${jobId}`, { key: m.secretKey }));
    if (j.status === 'success') return j.data;
    assert.equal(j.status, 'pending', JSON.stringify(j));
    await sleep(200);
  }
  throw new Error(`job ${jobId} did not finish in real time`);
}

describe('switches off', () => {
  before(async () => {
    // ALLOW_TIME_TRAVEL removed: wrangler.toml's deployed default ("false") applies.
    // ENABLE_FAUCET set, but not to exactly "true".
    // ALLOW_PRIVATE_WEBHOOK_URLS removed too: webhooks may call public addresses only.
    w = await startWorker({ env: { ALLOW_TIME_TRAVEL: null, ENABLE_FAUCET: 'TRUE', ALLOW_PRIVATE_WEBHOOK_URLS: null } });
  });
  after(async () => {
    await w?.stop();
    w = undefined;
  });

  test('POST /admin/time/advance, /admin/faucet and the fault routes answer 404 not_found', async () => {
    assert.equal(w.vars.ALLOW_TIME_TRAVEL, undefined);
    const m = await newMerchant('Flags Off');
    const holder = ok(await call('PUT', '/holder/alice', { key: m.secretKey }), 201);
    for (const seconds of [5, 0, 'x']) {
      fails(await call('POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds } }), 404, 'not_found');
    }
    fails(await call('POST', '/admin/time/advance', { adminKey: w.adminKey }), 404, 'not_found');
    for (const body of [{ address: holder.address, usdcAmount: 10 }, { address: holder.address, usdcAmount: 10, merchantId: m.id }, {}]) {
      fails(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body }), 404, 'not_found');
    }
    // The test-only fault injection is closed too, whatever it is asked.
    for (const kind of ['poison_due', 'lost_answers', 'alarm_writes', 'registry_writes']) {
      fails(await call('POST', '/admin/faults', { adminKey: w.adminKey, body: { kind, merchantId: m.id } }), 404, 'not_found');
    }
    fails(await call('POST', '/admin/chain/faults', { adminKey: w.adminKey, body: { merchantId: m.id, count: 1 } }), 404, 'not_found');
    assert.deepEqual(ok(await call('GET', '/merchant/parked-work', { key: m.secretKey })).data, []);
    // The admin key is still checked first.
    fails(await call('POST', '/admin/time/advance', { body: { seconds: 5 } }), 401, 'invalid_admin_key');
    fails(await call('POST', '/admin/faucet', { adminKey: 'nope', body: { address: holder.address, usdcAmount: 1 } }), 401, 'invalid_admin_key');
    // Nothing was credited.
    const h = ok(await call('GET', '/holder/alice', { key: m.publicKey }));
    assert.deepEqual(h.tokens, []);
    assert.deepEqual(ok(await call('GET', '/holder/alice/transactions', { key: m.secretKey })).data, []);
  });

  test('webhooks may not call this machine or a private network: 400 url_not_allowed', async () => {
    assert.equal(w.vars.ALLOW_PRIVATE_WEBHOOK_URLS, undefined);
    const m = await newMerchant('Flags Off hooks');
    for (const url of ['http://127.0.0.1:8789/hook', 'http://localhost/hook', 'https://10.1.2.3/x', 'http://[::1]/x',
      'http://2130706433/x', 'http://192.168.0.10/x', 'http://169.254.169.254/latest/meta-data', 'https://api.internal/x']) {
      const e = fails(await call('POST', '/merchant/webhooks', { key: m.secretKey, body: { url, events: ['*'] } }), 400, 'url_not_allowed');
      assert.equal(e.details?.field, 'url', url);
    }
    const hook = ok(await call('POST', '/merchant/webhooks', { key: m.secretKey, body: { url: 'https://example.com/hook', events: ['*'] } }), 201);
    fails(await call('PATCH', `/merchant/webhooks/${hook.id}`, { key: m.secretKey, body: { url: 'http://127.0.0.1/x' } }), 400, 'url_not_allowed');
    ok(await call('DELETE', `/merchant/webhooks/${hook.id}`, { key: m.secretKey }));
  });

  test('the rest of the service works: jobs finish in real time', async () => {
    const m = await newMerchant('Flags Off 2');
    const job = ok(await call('POST', '/merchant/create-token', { key: m.secretKey, body: { name: 'Real', symbol: 'REAL' } }), 201);
    const t = await waitJobRealTime(m, job.jobId);
    assert.equal(t.symbol, 'REAL');
    const created = Date.parse(t.createdAt);
    assert.ok(Math.abs(created - Date.now()) < 10_000, `createdAt ${t.createdAt} is not about now`);
  });
});

describe('switches on', () => {
  before(async () => {
    w = await startWorker(); // the harness turns both on
  });
  after(async () => {
    await w?.stop();
  });

  test('time advance validates seconds: 400 invalid_request', async () => {
    for (const seconds of [0, -1, 'x', '5', 1.5, 31_536_001, null, true, [], {}]) {
      const e = fails(await call('POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds } }), 400, 'invalid_request');
      assert.equal(e.details?.field, 'seconds', JSON.stringify(seconds));
    }
    for (const body of [{}, { secs: 5 }]) {
      fails(await call('POST', '/admin/time/advance', { adminKey: w.adminKey, body }), 400, 'invalid_request');
    }
    fails(await call('POST', '/admin/time/advance', { adminKey: w.adminKey }), 400, 'invalid_request');
    fails(await call('POST', '/admin/time/advance', { adminKey: w.adminKey, body: [5] }), 400, 'invalid_request');
    fails(await call('POST', '/admin/time/advance', {
      adminKey: w.adminKey, rawBody: '{"seconds":', headers: { 'content-type': 'application/json' },
    }), 400, 'invalid_json');
    // None of them moved the clock.
    assert.equal((await advance(1)).offsetSeconds, 1);
  });

  test('time advance returns { offsetSeconds, now, nowUnix } and accumulates', async () => {
    const t0 = Date.now();
    const a = await advance(100);
    assert.deepEqual(Object.keys(a).sort(), ['now', 'nowUnix', 'offsetSeconds']);
    assert.equal(a.offsetSeconds, 101);
    assert.ok(Number.isInteger(a.nowUnix));
    assert.ok(Math.abs(a.nowUnix - (t0 / 1000 + 101)) < 5, `nowUnix ${a.nowUnix}`);
    assert.ok(Math.abs(Date.parse(a.now) / 1000 - a.nowUnix) < 1, `${a.now} vs ${a.nowUnix}`);
    assert.match(a.now, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const b = await advance(31_536_000); // the largest single step
    assert.equal(b.offsetSeconds, 101 + 31_536_000);
    assert.ok(b.nowUnix - a.nowUnix >= 31_536_000);
  });

  test('the faucet is on', async () => {
    const m = await newMerchant('Flags On');
    const holder = ok(await call('PUT', '/holder/alice', { key: m.secretKey }), 201);
    const r = ok(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: holder.address, usdcAmount: 4 } }));
    assert.equal(r.usdcAmount, 4);
  });

  test('a merchant created after a time advance lives on the service clock',
    async () => {
      const clock = await advance(1);
      const m = await newMerchant('Late Comer');
      const job = ok(await call('POST', '/merchant/create-token', { key: m.secretKey, body: { name: 'Late', symbol: 'LATE' } }), 201);
      const t = await waitJobRealTime(m, job.jobId);
      const serviceNow = Date.now() + clock.offsetSeconds * 1000;
      assert.ok(Math.abs(Date.parse(t.createdAt) - serviceNow) < 10_000,
        `createdAt ${t.createdAt}, service clock ${new Date(serviceNow).toISOString()}`);
    });

  test('no response in this file had a status >= 500', () => {
    assert.ok(seen.length > 30, `only ${seen.length} responses seen`);
    assert.deepEqual(seen.filter((s) => s.status >= 500), []);
  });
});
