// The checked client every black-box test file uses: api() plus the checks that hold for every
// response of the service (never a 5xx; a JSON body that matches openapi.json for the route and
// status), and small helpers for the setup most tests need.
//
//   let w;
//   const c = checkedClient(() => w);   // w is assigned later, in before()
//   const m = await c.newMerchant('Acme');
//   c.ok(await c.call('GET', '/health'));
import assert from 'node:assert/strict';
import { api, fundRelayer } from './harness.mjs';
import { assertMatches } from './openapi.mjs';

/** Circle's USDC on Base: the ledger's USDC on the embedded chain. */
export const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

/** The USDC worker `w` reports balances under: the chain's contract on an EVM chain, Base's on the embedded one. */
export function usdcOf(w) {
  return w.chain.kind === 'evm' ? w.chain.usdc : BASE_USDC;
}

export function checkedClient(worker) {
  const seen = []; // every response: { method, path, status, text }
  let offsetMs = 0; // the service clock's time-travel offset, as the last advance reported it
  const merchants = []; // every merchant newMerchant made (reconcileAll settles and checks them)

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
  /** An error answer: its status, its code and a message; the field it names, when `field` is given. */
  function fails(r, status, code, field) {
    assert.equal(r.status, status, `expected ${status} ${code}, got ${r.status}: ${r.text}`);
    assert.equal(r.json.success, false, r.text);
    assert.equal(r.json.code, code, r.text);
    assert.equal(typeof r.json.message, 'string');
    if (field !== undefined) assert.equal(r.json.details?.field, field, r.text);
    return r.json;
  }
  async function newMerchant(name = 'Merchant') {
    const m = ok(await call('POST', '/admin/merchants', { adminKey: worker().adminKey, body: { name } }), 201);
    merchants.push(m);
    await fundRelayer(worker(), m.merchantAddress);
    return m;
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
    for (let i = 0; i < 300; i++) {
      const j = ok(await call('GET', `/jobs/${job.jobId}`, { key: m.secretKey }));
      if (j.status === 'success') return j.data;
      assert.equal(j.status, 'pending', JSON.stringify(j));
      // The embedded chain mines on the service clock; a real one in its own time.
      if (evm()) await new Promise((r) => setTimeout(r, 100));
      else await advance(2);
    }
    throw new Error(`job ${job.jobId} never finished`);
  }
  /** The last known time-travel offset, in ms. */
  const offset = () => offsetMs;
  // ---- the chain (TOKENPAD_TEST_CHAIN=anvil runs these suites on a real local node) ----
  /** Whether the worker settles on an EVM chain (then answers carry no hash yet). */
  const evm = () => worker().chain?.kind === 'evm';
  /**
   * A movement's answer: on the embedded chain its hash, confirmed in its block; on an EVM
   * chain no hash yet (never an invented one), pending.
   */
  function assertMovement(answer) {
    if (evm()) {
      assert.equal(answer.transactionHash, null, JSON.stringify(answer));
      assert.equal(answer.chainStatus, 'pending', JSON.stringify(answer));
      assert.equal(answer.blockNumber, undefined, JSON.stringify(answer));
    } else {
      assert.match(answer.transactionHash, /^0x[0-9a-f]{64}$/i, JSON.stringify(answer));
      assert.equal(answer.chainStatus, 'confirmed', JSON.stringify(answer));
      assert.ok(Number.isSafeInteger(answer.blockNumber), JSON.stringify(answer));
    }
    return answer;
  }
  /** A history record shows the movement an answer announced (by hash, where there is one). */
  function assertRecordOf(rec, answer) {
    if (evm()) {
      assert.ok(['pending', 'submitted', 'confirmed'].includes(rec.chainStatus), JSON.stringify(rec));
      if (rec.chainStatus === 'pending') assert.equal(rec.transactionHash, null);
      else assert.match(rec.transactionHash, /^0x[0-9a-f]{64}$/i);
    } else {
      assert.equal(rec.transactionHash, answer.transactionHash);
      assert.equal(rec.chainStatus, 'confirmed');
    }
  }
  /** Waits until every movement of merchant `m` is settled on chain (at once on the embedded one). */
  async function settled(m, timeoutMs = 60_000) {
    const t0 = Date.now();
    for (;;) {
      const c = ok(await call('GET', `/admin/merchants/${m.id}/chain`, { adminKey: worker().adminKey }));
      if (c.openMovements === 0 && c.transactions.length === 0) return c;
      if (Date.now() - t0 > timeoutMs) throw new Error(`merchant ${m.id} not settled: ${JSON.stringify(c)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  /** Settles, then compares the ledger with balanceOf on chain: no difference allowed. */
  async function reconciled(m) {
    await settled(m);
    const r = ok(await call('GET', `/admin/merchants/${m.id}/reconcile`, { adminKey: worker().adminKey }));
    assert.deepEqual(r.differences, [], `merchant ${m.id}: ledger and chain differ: ${JSON.stringify(r)}`);
    assert.equal(r.openMovements, 0);
    return r;
  }
  /** Waits for job `jobId` of merchant `m` to succeed: time travel mines the embedded chain;
   *  a real one mines on its own. Returns the job. */
  async function jobDone(m, jobId) {
    for (let i = 0; i < 300; i++) {
      const j = ok(await call('GET', `/jobs/${jobId}`, { key: m.secretKey }));
      if (j.status !== 'pending') return j;
      if (evm()) await new Promise((r) => setTimeout(r, 100));
      else await advance(2);
    }
    throw new Error(`job ${jobId} never finished`);
  }
  /** Every merchant this client created, reconciled (each suite ends with it). */
  async function reconcileAll() {
    const reports = [];
    for (const m of merchants) reports.push(await reconciled(m));
    return reports;
  }
  /**
   * reconcileAll, with no difference and every pool's state on chain the ledger's: the
   * reports and how many pools were compared (none on the embedded chain, which is the ledger).
   */
  async function reconcilePools() {
    const reports = await reconcileAll();
    let pools = 0;
    for (const r of reports) {
      assert.deepEqual(r.differences, []);
      for (const x of r.pools) {
        assert.equal(x.matches, true, `${x.symbol}'s pool: ${JSON.stringify(x)}`);
        assert.deepEqual(x.ledger, x.chain);
        pools++;
      }
    }
    return { reports, pools };
  }
  return {
    seen, call, checked, ok, fails, newMerchant, advance, newToken, offset,
    evm, assertMovement, assertRecordOf, settled, reconciled, reconcileAll, reconcilePools, jobDone,
  };
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

// ---- the setup the presale, session and webhook suites share (each takes the worker `w`) ----

/** api() plus: status < 500, and a JSON body matches openapi.json when `template` names the route. */
export async function checkedCall(w, method, path, opts = {}, template = undefined) {
  const res = await api(w, method, path, opts);
  assert.ok(res.status < 500, `${method} ${path} answered ${res.status}: ${res.text}`);
  if (template && res.json !== undefined) assertMatches(method, template, res.status, res.json);
  return res;
}

/**
 * Waits until `check()` (sync or async) returns a truthy value, and returns it; tries every
 * `every` ms, and `between()` runs between tries (to move time forward, say). Throws naming
 * `what` after `timeoutMs`.
 */
export async function until(what, check, { timeoutMs = 20_000, between = null, every = 150 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    if (between) await between();
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}

/**
 * On an EVM chain: the node's receipt of `hash`, which must be mined and successful (in block
 * `blockNumber` when given).
 */
export async function minedReceipt(w, hash, blockNumber) {
  const { rpc } = await import('../chain/anvil.mjs');
  const receipt = await rpc(w.chain.rpcUrl, 'eth_getTransactionReceipt', [hash]);
  assert.ok(receipt, `${hash}: no receipt on the node`);
  assert.equal(receipt.status, '0x1', `${hash} reverted`);
  if (blockNumber !== undefined) assert.equal(Number(receipt.blockNumber), blockNumber, `${hash}'s block`);
  return receipt;
}

/**
 * On an EVM chain: the first record of `type` in holder `userId`'s history, once the node has
 * mined it (an answer comes before, with no hash), checked against the node's receipt.
 */
export async function minedRecord(w, m, userId, type, timeoutMs = 60_000) {
  let rec;
  await until(`${userId}'s ${type} confirmed on chain`, async () => {
    const h = await checkedCall(w, 'GET', `/holder/${userId}/transactions`, { key: m.secretKey }, '/holder/{userId}/transactions');
    assert.equal(h.status, 200, h.text);
    rec = h.json.data.find((r) => r.type === type);
    assert.ok(rec, `${userId} has no ${type} record`);
    assert.notEqual(rec.chainStatus, 'failed', JSON.stringify(rec));
    return rec.chainStatus === 'confirmed';
  }, { timeoutMs });
  assert.match(rec.transactionHash, /^0x[0-9a-f]{64}$/, JSON.stringify(rec));
  await minedReceipt(w, rec.transactionHash, rec.blockNumber);
  return rec;
}

/**
 * Presale `id` of merchant `m` once its launch has run every step: on the embedded chain at
 * once (the caller moved the clock past the steps' blocks), on an EVM chain when the chain
 * has mined what each step waits on (its token's pool is open before the buyers get their
 * locks), polling for up to `timeoutMs`.
 */
export async function launched(w, m, id, timeoutMs = 60_000) {
  const read = async () => {
    const r = await checkedCall(w, 'GET', `/merchant/presale/${id}`, { key: m.secretKey }, '/merchant/presale/{presaleId}');
    assert.equal(r.status, 200, r.text);
    return r.json;
  };
  if (w.chain?.kind !== 'evm') return read();
  return until(`presale ${id} launched`, async () => {
    const p = await read();
    return p.completionState.step === 'completed' ? p : null;
  }, { timeoutMs, every: 200 });
}

/** Moves the service clock forward (time travel, for every merchant of `w`); its new time, in s. */
export async function advanceTime(w, seconds) {
  const r = await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds } });
  assert.equal(r.status, 200, r.text);
  return r.json.nowUnix;
}

/** The service clock, in unix seconds. */
export async function serviceNow(w) {
  const r = await api(w, 'GET', '/admin/time', { adminKey: w.adminKey });
  assert.equal(r.status, 200, r.text);
  return r.json.nowUnix;
}

/** The holder `userId` of merchant `m` (get-or-create). */
export async function holder(w, m, userId) {
  const r = await checkedCall(w, 'PUT', `/holder/${userId}`, { key: m.secretKey });
  assert.ok([200, 201].includes(r.status), r.text);
  return r.json;
}

/** Test USDC from the faucet to `address`. */
export async function faucet(w, m, address, usdcAmount) {
  const f = await api(w, 'POST', '/admin/faucet', { adminKey: w.adminKey, body: { address, usdcAmount, merchantId: m.id } });
  assert.equal(f.status, 200, f.text);
}

/** Every event of `m`'s log after `after` (an event id), of `types` if given: all pages. */
export async function eventLog(w, m, { after, types } = {}) {
  const out = [];
  let cursor = after;
  for (;;) {
    const q = new URLSearchParams({ limit: '100' });
    if (cursor) q.set('after', cursor);
    if (types) q.set('types', types);
    const r = await checkedCall(w, 'GET', `/merchant/events?${q}`, { key: m.secretKey }, '/merchant/events');
    assert.equal(r.status, 200, r.text);
    out.push(...r.json.data);
    if (!r.json.has_more) return out;
    cursor = r.json.next_cursor;
  }
}

/** The holder `userId`, given `usdcAmount` test USDC; its address. */
export async function funded(w, m, userId, usdcAmount) {
  const h = await holder(w, m, userId);
  await faucet(w, m, h.address, usdcAmount);
  return h.address;
}

export const PRESALE_IMAGE = 'https://example.com/moon.png';

/** A presale of `m`, open now for an hour, raising 100 USDC unless `overrides` say otherwise. */
export async function createPresale(w, m, overrides = {}) {
  const now = await serviceNow(w);
  const body = {
    name: 'Moon launch',
    description: 'The Moon token presale',
    startTimestamp: now - 10,
    endTimestamp: now + 3600,
    targetUsdcAmount: 100,
    tokenInfo: { name: 'Moon', symbol: 'MOON', imageUrl: PRESALE_IMAGE, deploymentConfig: { lockupPercentage: 25 } },
    lockDuration: 7,
    ...overrides,
  };
  const r = await checkedCall(w, 'POST', '/merchant/presale', { key: m.secretKey, body }, '/merchant/presale');
  assert.equal(r.status, 201, r.text);
  return r.json;
}
