// The checked client every black-box test file uses: api() plus the checks that hold for every
// response of the service (never a 5xx; a JSON body that matches openapi.json for the route and
// status), and small helpers for the setup most tests need.
//
//   let w;
//   const c = checkedClient(() => w);   // w is assigned later, in before()
//   const m = await c.newMerchant('Acme');
//   c.ok(await c.call('GET', '/health'));
import assert from 'node:assert/strict';
import { api } from './harness.mjs';
import { assertMatches } from './openapi.mjs';

export function checkedClient(worker) {
  const seen = []; // every response: { method, path, status, text }
  let offsetMs = 0; // the service clock's time-travel offset, as the last advance reported it

  /** api() plus: status < 500, and the body matches openapi.json for (method, path, status). */
  async function call(method, path, opts = {}) {
    const r = await api(worker(), method, path, opts);
    return checked(method, path, r);
  }
  function checked(method, path, r) {
    seen.push({ method, path, status: r.status, text: r.text });
    assert.ok(r.status < 500, `${method} ${path} answered ${r.status}: ${r.text}`);
    if (r.status === 204) {
      assertMatches(method, path, 204, r.text);
    } else {
      assert.notEqual(r.json, undefined, `${method} ${path} ${r.status}: body is not JSON: ${r.text.slice(0, 300)}`);
      assertMatches(method, path, r.status, r.json);
    }
    return r;
  }
  function ok(r, status = 200) {
    assert.equal(r.status, status, `expected ${status}, got ${r.status}: ${r.text}`);
    return r.json;
  }
  function fails(r, status, code) {
    assert.equal(r.status, status, `expected ${status} ${code}, got ${r.status}: ${r.text}`);
    assert.equal(r.json.success, false, r.text);
    assert.equal(r.json.code, code, r.text);
    assert.equal(typeof r.json.message, 'string');
    return r.json;
  }
  async function newMerchant(name = 'Merchant') {
    return ok(await call('POST', '/admin/merchants', { adminKey: worker().adminKey, body: { name } }), 201);
  }
  async function advance(seconds) {
    const r = ok(await call('POST', '/admin/time/advance', { adminKey: worker().adminKey, body: { seconds } }));
    offsetMs = r.offsetSeconds * 1000;
    return r;
  }
  async function newToken(m, body = {}) {
    const job = ok(await call('POST', '/merchant/create-token', {
      key: m.secretKey, body: { name: 'Test Token', symbol: 'TEST', ...body },
    }), 201);
    for (let i = 0; i < 60; i++) {
      const j = ok(await call('GET', `/jobs/${job.jobId}`, { key: m.secretKey }));
      if (j.status === 'success') return j.data;
      assert.equal(j.status, 'pending', JSON.stringify(j));
      await advance(2);
    }
    throw new Error(`job ${job.jobId} never finished`);
  }
  /** The last known time-travel offset, in ms. */
  const offset = () => offsetMs;
  return { seen, call, checked, ok, fails, newMerchant, advance, newToken, offset };
}

/**
 * Waits until the service clock is early in a 2-second block of the embedded chain, so that
 * a transaction submitted next stays pending for most of a block: a test that wants to see
 * `pending` then has ~1.5 s, not a random share of one block, before the block is mined.
 */
export async function earlyInBlock(w) {
  const clock = await api(w, 'GET', '/admin/time', { adminKey: w.adminKey });
  assert.equal(clock.status, 200, clock.text);
  const offsetMs = clock.json.offsetSeconds * 1000;
  for (;;) {
    const ms = (Date.now() + offsetMs) % 2000;
    if (ms < 500) return;
    await new Promise((r) => setTimeout(r, 2000 - ms + 10));
  }
}
