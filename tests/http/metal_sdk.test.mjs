// Metal's own SDK pointed at tokenpad with the fetch wrapper of tests/http/fixtures/metal-fetch.mjs
// (the recipe in docs/metal.md), its calls reproduced exactly as its source
// (0xmetropolis/metal-sdk, src/client.ts, merchant.ts, token.ts, holder.ts) makes them, against
// the real worker in workerd; and the wrapper itself. The other calls Metal clients make:
// metal_compat.test.mjs. Every response is checked against openapi.json and must never be a 5xx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';
import { pointMetalAt } from './fixtures/metal-fetch.mjs';
import {
  assertShape, assertType, HolderData, PendingTokenResponse, SpendResponse, STATUS, SuccessfulTokenResponse, TokenBalanceResponse, TokenData, TokenJobResponse,
} from './metal_shapes.mjs';

let w;
const { checked, newMerchant, advance } = checkedClient(() => w);

const EXT = '0x3333333333333333333333333333333333333333';

before(async () => {
  w = await startWorker();
});
after(async () => {
  await w?.stop();
});

test('the Metal fetch wrapper rewrites https://api.metal.build (string, URL, Request) and nothing else; undo restores fetch', async () => {
  const original = globalThis.fetch;
  const seen = [];
  globalThis.fetch = async (input, init) => {
    const req = input instanceof Request ? input : new Request(input, init);
    seen.push({ url: req.url, method: req.method, key: req.headers.get('x-api-key'), body: req.body ? await req.text() : null });
    return new Response('{}', { headers: { 'content-type': 'application/json' } });
  };
  try {
    const undo = pointMetalAt('http://tokenpad.test:8787/');
    await fetch('https://api.metal.build/holder/u1?publicKey=pk_1', { headers: { 'x-api-key': 'pk_1' } });
    await fetch(new URL('https://api.metal.build/merchant/all-tokens'));
    await fetch(new Request('https://api.metal.build/token/0xabc/distribute', {
      method: 'POST', headers: { 'x-api-key': 'sk_1', 'content-type': 'application/json' }, body: '{"amount":1}',
    }));
    await fetch('https://api.metal.build');
    await fetch('https://API.METAL.BUILD/jobs/1');
    await fetch('https://api.metal.build.example.com/x');
    await fetch('http://api.metal.build/x');
    await fetch('https://example.com/https://api.metal.build/x');
    undo();
    await fetch('https://api.metal.build/after-undo');
    assert.deepEqual(seen.map((s) => s.url), [
      'http://tokenpad.test:8787/holder/u1?publicKey=pk_1',
      'http://tokenpad.test:8787/merchant/all-tokens',
      'http://tokenpad.test:8787/token/0xabc/distribute',
      'http://tokenpad.test:8787/',
      'http://tokenpad.test:8787/jobs/1',
      'https://api.metal.build.example.com/x',
      'http://api.metal.build/x',
      'https://example.com/https://api.metal.build/x',
      'https://api.metal.build/after-undo',
    ]);
    assert.equal(seen[0].key, 'pk_1');
    assert.deepEqual([seen[2].method, seen[2].key, seen[2].body], ['POST', 'sk_1', '{"amount":1}']);
  } finally {
    globalThis.fetch = original;
  }
});

test('docs/metal.md prints the Metal fetch wrapper exactly as tests/http/fixtures/metal-fetch.mjs (the recipe tested here)', async () => {
  const doc = await readFile(path.join(ROOT, 'docs', 'metal.md'), 'utf8');
  const snippet = (await readFile(new URL('./fixtures/metal-fetch.mjs', import.meta.url), 'utf8')).trim();
  const blocks = [...doc.matchAll(/```(?:js|javascript|mjs)\n([\s\S]*?)```/g)].map((x) => x[1]);
  assert.ok(blocks.some((b) => b.includes(snippet)),
    'docs/metal.md has no ```js block containing tests/http/fixtures/metal-fetch.mjs verbatim');
});

// ---- Metal's SDK, transcribed from its source (src/client.ts and the API classes) ------------
// Each method makes the request exactly as the SDK does: the same URL built from
// METAL_API_BASE_URL, the same method, headers and body. Only docs/metal.md's wrapper sends it to
// tokenpad.
const METAL_API_BASE_URL = 'https://api.metal.build';
class MetalClient {
  constructor(config) {
    this.config = config;
  }
  async fetchPublic(endpoint, options = {}) {
    if (!this.config.publicKey) throw new Error('Metal public API key is required for client-side requests');
    const url = `${METAL_API_BASE_URL}${endpoint}`;
    const headers = { ...options.headers, 'x-api-key': this.config.publicKey };
    const response = await fetch(url, { ...options, headers });
    if (!response.ok) {
      const error = await response.json().catch(() => ({ message: 'Unknown error' }));
      throw new Error(`Metal API error: ${error.message || response.statusText}`);
    }
    return response.json();
  }
  async fetchSecret(endpoint, options = {}) {
    if (!this.config.secretKey) throw new Error('Metal secret API key is required for server-side requests');
    const url = `${METAL_API_BASE_URL}${endpoint}`;
    const headers = { ...options.headers, 'Content-Type': 'application/json', 'x-api-key': this.config.secretKey };
    const response = await fetch(url, { ...options, headers });
    if (!response.ok) {
      const error = await response.json().catch(() => ({ message: 'Unknown error' }));
      throw new Error(`Metal API error: ${error.message || response.statusText}`);
    }
    return response.json();
  }
  get publicKey() {
    return this.config.publicKey;
  }
}
/** The `Metal` class of src/index.ts: MerchantAPI, TokenAPI and HolderAPI in one. */
class Metal {
  constructor(config) {
    this.client = new MetalClient(config);
  }
  // src/merchant.ts
  createToken(params) {
    return this.client.fetchSecret('/merchant/create-token', { method: 'POST', body: JSON.stringify(params) });
  }
  getTokenStatus(jobId) {
    return this.client.fetchSecret(`/merchant/create-token/status/${jobId}`);
  }
  getAllTokens() {
    return this.client.fetchSecret('/merchant/all-tokens');
  }
  // src/token.ts
  getToken(address) {
    return this.client.fetchSecret(`/token/${address}`);
  }
  distribute(tokenAddress, params) {
    return this.client.fetchSecret(`/token/${tokenAddress}/distribute`, { method: 'POST', body: JSON.stringify(params) });
  }
  createLP(tokenAddress, params) {
    return this.client.fetchSecret(`/token/${tokenAddress}/liquidity`, { method: 'POST', body: JSON.stringify(params) });
  }
  // src/holder.ts
  getOrCreateHolder(holderId) {
    return this.client.fetchSecret(`/holder/${holderId}`, { method: 'PUT' });
  }
  getHolder(holderId) {
    if (!this.client.publicKey) throw new Error('Public key is required for this operation');
    return this.client.fetchPublic(`/holder/${holderId}?publicKey=${this.client.publicKey}`);
  }
  getTokenBalance(holderId, tokenAddress) {
    return this.client.fetchPublic(`/holder/${holderId}/token/${tokenAddress}`);
  }
  spend(holderId, params) {
    return this.client.fetchSecret(`/holder/${holderId}/spend`, { method: 'POST', body: JSON.stringify(params) });
  }
  withdraw(holderId, params) {
    return this.client.fetchSecret(`/holder/${holderId}/withdraw`, { method: 'POST', body: JSON.stringify(params) });
  }
}

test('Metal\'s SDK calls, made exactly as its source makes them, work against tokenpad through the wrapper', async () => {
  const m = await newMerchant('Metal SDK user');
  const server = new Metal({ secretKey: m.secretKey }); // Metal.createSecretClient
  const browser = new Metal({ publicKey: m.publicKey }); // Metal.createPublicClient
  // Every request the SDK makes goes through the checked client's checks as well (never a
  // 5xx, a body that matches openapi.json), and is recorded with where it really went.
  const sdkCalls = [];
  const undo = pointMetalAt(w.baseUrl);
  const wrapped = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const res = await wrapped(input, init);
    if (String(input).startsWith(METAL_API_BASE_URL)) {
      const text = await res.clone().text();
      let json;
      try { json = JSON.parse(text); } catch { json = undefined; }
      const method = init?.method ?? 'GET';
      sdkCalls.push({ method, asked: String(input), went: res.url, status: res.status });
      checked(method, new URL(res.url).pathname, { status: res.status, headers: res.headers, json, text });
    }
    return res;
  };
  try {
    // createToken -> getTokenStatus (until success) -> getAllTokens.
    const job = await server.createToken({
      name: 'Metal SDK', symbol: 'MSDK', network: 'base', merchantAddress: '0x1234567890123456789012345678901234567890',
      canAirdrop: false, canDistribute: true, canLP: true,
    });
    assertShape(job, { jobId: 'string', status: STATUS }, 'createToken');
    assert.equal(job.status, 'pending');
    assert.equal(job.id, job.jobId);
    let status = await server.getTokenStatus(job.jobId);
    for (let i = 0; i < 30 && status.status === 'pending'; i++) {
      assertShape(status, PendingTokenResponse, 'getTokenStatus (pending)');
      await advance(2);
      status = await server.getTokenStatus(job.jobId);
    }
    assertShape(status, TokenJobResponse, 'getTokenStatus');
    assertShape(status, SuccessfulTokenResponse, 'getTokenStatus');
    const token = status.data;
    assert.equal(token.merchantAddress, '0x1234567890123456789012345678901234567890');
    const all = await server.getAllTokens();
    assertType(all, [TokenData], 'getAllTokens');
    assert.deepEqual(all.map((t) => t.address), [token.address]);

    // getOrCreateHolder (twice: the same holder), distribute, getHolder, getTokenBalance.
    const h = await server.getOrCreateHolder('metal-user-1');
    assertShape(h, HolderData, 'getOrCreateHolder');
    assert.deepEqual(await server.getOrCreateHolder('metal-user-1'), h);
    const d1 = await server.distribute(token.address, { tokenAddress: token.address, amount: 100, sendToId: 'metal-user-1' });
    const d2 = await server.distribute(token.address, { tokenAddress: token.address, amount: 25.5, sendToAddress: h.address });
    for (const d of [d1, d2]) assertShape(d, { success: 'boolean' }, 'distribute');
    const held = await browser.getHolder('metal-user-1');
    assertShape(held, HolderData, 'getHolder');
    assert.equal(held.tokens.find((t) => t.address === token.address).balance, 125.5);
    const bal = await browser.getTokenBalance('metal-user-1', token.address);
    assertShape(bal, TokenBalanceResponse, 'getTokenBalance');
    assert.equal(bal.balance, 125.5);
    assert.deepEqual([bal.name, bal.symbol, bal.address], ['Metal SDK', 'MSDK', token.address]);

    // spend and withdraw (SpendRequest: tokenAddress, amount, toAddress?).
    const spent = await server.spend('metal-user-1', { tokenAddress: token.address, amount: 20 });
    assertShape(spent, SpendResponse, 'spend');
    assert.equal(spent.success, true);
    const out = await server.withdraw('metal-user-1', { tokenAddress: token.address, amount: 5.5, toAddress: EXT });
    assertShape(out, SpendResponse, 'withdraw');
    assert.equal((await browser.getTokenBalance('metal-user-1', token.address)).balance, 100);

    // createLP (CreateLPRequest: tokenAddress, initialStartingPrice as a string), then
    // getToken and getTokenStatus show the pool.
    const lp = await server.createLP(token.address, { tokenAddress: token.address, initialStartingPrice: '0.02' });
    assert.equal(lp.status, 'success');
    assert.deepEqual(Object.keys(lp.lpInfo).sort(), ['liquidityPoolAddress', 'nftId']);
    assertShape(lp.data, TokenData, 'createLP data');
    const t = await server.getToken(token.address);
    assertShape(t, TokenData, 'getToken');
    // The pool opens at the usable tick nearest the price asked: within 0.3 % of it.
    assert.ok(Math.abs(t.price - 0.02) <= 0.02 * 0.003, `price ${t.price}`);
    const row = t.holders.find((x) => x.id === 'metal-user-1');
    assert.deepEqual([row.address, row.balance], [h.address, 100]);
    assert.ok(Math.abs(row.value - 100 * t.price) < 0.000002, `value ${row.value} at ${t.price}`);
    const after_ = await server.getTokenStatus(job.jobId);
    assertShape(after_, SuccessfulTokenResponse, 'getTokenStatus after createLP');
    assert.deepEqual(after_.lpInfo, lp.lpInfo);

    // The SDK's error path reads `message`: tokenpad's message reaches the caller.
    await assert.rejects(browser.getHolder('nobody'), { message: 'Metal API error: No holder with id nobody' });
    await assert.rejects(server.createLP(token.address, { tokenAddress: token.address, initialStartingPrice: '0.02' }),
      /^Error: Metal API error: MSDK already has a liquidity pool$/);
    await assert.rejects(browser.getAllTokens(), /Metal secret API key is required/);

    // Every call went to tokenpad, to the same path and query, none to Metal.
    // 17 when the token's job is done at the first status poll (a slow or busy machine: its
    // 2-second block passed before the poll), more with pending polls.
    assert.ok(sdkCalls.length >= 17, JSON.stringify(sdkCalls, null, 1));
    for (const c of sdkCalls) assert.equal(c.went, w.baseUrl + c.asked.slice(METAL_API_BASE_URL.length), JSON.stringify(c));
    assert.deepEqual([...new Set(sdkCalls.map((c) => `${c.method} ${new URL(c.went).pathname.split('/').slice(0, 3).join('/')}`))].sort(), [
      'GET /holder/metal-user-1', 'GET /holder/nobody', 'GET /merchant/all-tokens', 'GET /merchant/create-token',
      `GET /token/${token.address}`, 'POST /holder/metal-user-1', 'POST /merchant/create-token', `POST /token/${token.address}`,
      'PUT /holder/metal-user-1',
    ].sort());

    // createLP's answer: the SDK types it as a job (TokenJobResponse), but a pool opens at once,
    // so there is no job to poll: status (success) and data, without jobId.
    assertShape(lp, { status: ['success'], data: TokenData }, 'createLP');
  } finally {
    globalThis.fetch = wrapped;
    undo();
  }
});
