// Auth, routing, CORS and body rules of the edge (contract §1, §2, §11; docs/wire-decisions.md).
// Every response is checked against openapi.json and must never be a 5xx.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { api, startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';
import { withoutBuild } from './release.mjs';
import { assertMatches, doc } from './openapi.mjs';

let w;
const { seen, call, checked, ok, fails, newMerchant, advance, newToken, offset } = checkedClient(() => w);

let A; // merchant
let B; // another merchant
let tokenAddr;
let holderAddr;

before(async () => {
  w = await startWorker();
  [A, B] = [await newMerchant('Auth A'), await newMerchant('Auth B')];
  tokenAddr = (await newToken(A, { totalSupply: 1000 })).address;
  holderAddr = ok(await call('PUT', '/holder/alice', { key: A.secretKey }), 201).address;
});
after(async () => {
  await w?.stop();
});

const hex = (n) => randomBytes(n).toString('hex');
const secretRoutes = () => [
  ['GET', '/merchant/all-tokens'],
  ['POST', '/merchant/create-token', { name: 'X', symbol: 'X' }],
  ['PUT', '/holder/alice'],
  ['GET', '/holder/alice/transactions'],
  ['POST', `/token/${tokenAddr}/distribute`, { amount: 1, sendToId: 'alice' }],
  ['POST', '/holder/alice/spend', { tokenAddress: tokenAddr, amount: 1 }],
];
const publicReads = () => [`/token/${tokenAddr}`, '/holder/alice', `/holder/alice/token/${tokenAddr}`];

test('secret route without any key: 401 missing_api_key', async () => {
  for (const [method, path, body] of secretRoutes()) {
    fails(await call(method, path, { body }), 401, 'missing_api_key');
  }
});

test('secret route with only ?publicKey=: 403 secret_key_required', async () => {
  for (const [method, path, body] of secretRoutes()) {
    fails(await call(method, `${path}?publicKey=${A.publicKey}`, { body }), 403, 'secret_key_required');
  }
});

test('public key in x-api-key on a secret route: 403 secret_key_required', async () => {
  for (const [method, path, body] of secretRoutes()) {
    fails(await call(method, path, { key: A.publicKey, body }), 403, 'secret_key_required');
  }
});

test('malformed keys: 401 invalid_api_key', async () => {
  const malformed = [
    'garbage', 'sk_', 'sk_abc', `sk_${A.id}`, `sk_${A.id}_${hex(31)}`, `sk_${A.id}_${hex(33)}`,
    `sk_${A.id.toUpperCase()}_${hex(32)}`, `SK_${A.id}_${hex(32)}`, A.secretKey + 'x', ` ${A.secretKey}x`,
  ];
  for (const key of malformed) {
    fails(await call('GET', '/merchant/all-tokens', { key }), 401, 'invalid_api_key');
  }
  for (const key of ['garbage', 'pk_abc', `pk_${A.id}_${hex(15)}`, A.publicKey + '0']) {
    fails(await call('GET', `/token/${tokenAddr}?publicKey=${encodeURIComponent(key)}`), 401, 'invalid_api_key');
    fails(await call('GET', '/holder/alice', { key }), 401, 'invalid_api_key');
  }
});

test('well-formed key of an unknown merchant: 401 invalid_api_key', async () => {
  const id = hex(16);
  fails(await call('GET', '/merchant/all-tokens', { key: `sk_${id}_${hex(32)}` }), 401, 'invalid_api_key');
  fails(await call('POST', '/merchant/create-token', { key: `sk_${id}_${hex(32)}`, body: { name: 'X', symbol: 'X' } }),
    401, 'invalid_api_key');
  fails(await call('GET', `/token/${tokenAddr}?publicKey=pk_${id}_${hex(16)}`), 401, 'invalid_api_key');
});

test('right merchant id with a wrong secret part: 401 invalid_api_key', async () => {
  fails(await call('GET', '/merchant/all-tokens', { key: `sk_${A.id}_${hex(32)}` }), 401, 'invalid_api_key');
  fails(await call('GET', `/token/${tokenAddr}?publicKey=pk_${A.id}_${hex(16)}`), 401, 'invalid_api_key');
  fails(await call('GET', '/holder/alice', { key: `pk_${A.id}_${hex(16)}` }), 401, 'invalid_api_key');
  // A's secret part under B's id is not B's key either.
  const secretPart = A.secretKey.split('_')[2];
  fails(await call('GET', '/merchant/all-tokens', { key: `sk_${B.id}_${secretPart}` }), 401, 'invalid_api_key');
  // The public key's secret part does not open the secret side.
  const publicPart = A.publicKey.split('_')[2];
  fails(await call('GET', '/merchant/all-tokens', { key: `sk_${A.id}_${publicPart}${publicPart}` }), 401, 'invalid_api_key');
});

test('public read with no key: 401 public_key_not_found, message exactly "Public key not found"', async () => {
  for (const path of publicReads()) {
    const e = fails(await call('GET', path), 401, 'public_key_not_found');
    assert.equal(e.message, 'Public key not found');
  }
});

test('public key works in the query and in x-api-key; the secret key works in x-api-key', async () => {
  for (const path of publicReads()) {
    const viaQuery = ok(await call('GET', `${path}?publicKey=${A.publicKey}`));
    const viaHeader = ok(await call('GET', path, { key: A.publicKey }));
    const viaSecret = ok(await call('GET', path, { key: A.secretKey }));
    assert.deepEqual(viaHeader, viaQuery, path);
    assert.deepEqual(viaSecret, viaQuery, path);
  }
  assert.equal(ok(await call('GET', `/holder/${holderAddr}/token/${tokenAddr}`, { key: A.publicKey })).balance, 0);
});

test('a secret key in any query parameter: 400 secret_key_in_url, on public and secret routes', async () => {
  for (const path of publicReads()) {
    fails(await call('GET', `${path}?publicKey=${A.secretKey}`), 400, 'secret_key_in_url');
    fails(await call('GET', `${path}?foo=sk_whatever`), 400, 'secret_key_in_url');
    // Even with a valid key in the header.
    fails(await call('GET', `${path}?publicKey=${A.secretKey}`, { key: A.publicKey }), 400, 'secret_key_in_url');
  }
  fails(await call('GET', `/merchant/all-tokens?publicKey=${A.secretKey}`), 400, 'secret_key_in_url');
  fails(await call('GET', `/merchant/all-tokens?apiKey=${A.secretKey}`, { key: A.secretKey }), 400, 'secret_key_in_url');
  fails(await call('POST', `/holder/alice/spend?key=sk_1`, { key: A.secretKey, body: { tokenAddress: tokenAddr, amount: 1 } }),
    400, 'secret_key_in_url');
});

test('admin routes without or with a wrong x-admin-key: 401 invalid_admin_key', async () => {
  const routes = [
    ['/admin/merchants', { name: 'X' }],
    ['/admin/time/advance', { seconds: 1 }],
    ['/admin/faucet', { address: holderAddr, usdcAmount: 1 }],
  ];
  for (const [path, body] of routes) {
    fails(await call('POST', path, { body }), 401, 'invalid_admin_key');
    fails(await call('POST', path, { body, adminKey: 'wrong' }), 401, 'invalid_admin_key');
    fails(await call('POST', path, { body, adminKey: w.adminKey + 'x' }), 401, 'invalid_admin_key');
    fails(await call('POST', path, { body, adminKey: '' }), 401, 'invalid_admin_key');
    // A merchant's secret key is not an admin key.
    fails(await call('POST', path, { body, adminKey: A.secretKey }), 401, 'invalid_admin_key');
    fails(await call('POST', path, { body, key: w.adminKey }), 401, 'invalid_admin_key');
  }
});

test('admin merchant creation: shape, validation, distinct keys', async () => {
  const m = await newMerchant('Shape Check');
  assert.equal(m.name, 'Shape Check');
  assert.match(m.id, /^[0-9a-f]{32}$/);
  assert.ok(m.secretKey.startsWith(`sk_${m.id}_`));
  assert.ok(m.publicKey.startsWith(`pk_${m.id}_`));
  assert.notEqual(m.id, A.id);
  for (const body of [{}, { name: '' }, { name: 5 }, { name: 'x'.repeat(101) }]) {
    fails(await call('POST', '/admin/merchants', { adminKey: w.adminKey, body }), 400, 'invalid_request');
  }
  ok(await call('POST', '/admin/merchants', { adminKey: w.adminKey, body: { name: 'x'.repeat(100) } }), 201);
});

test('unknown route: 404 not_found', async () => {
  for (const [method, path] of [
    ['GET', '/nope'], ['GET', '/token'], ['GET', `/token/${tokenAddr}/extra/segments`], ['POST', '/admin/nope'],
    ['GET', '/merchant'], ['DELETE', '/nothing/here'], ['GET', '/holder/alice/token'],
  ]) {
    fails(await call(method, path, { key: A.secretKey }), 404, 'not_found');
  }
});

test('wrong method on a known path: 405 method_not_allowed, with Allow naming the methods the path has', async () => {
  for (const [method, path, allow] of [
    ['POST', '/health', 'GET, HEAD, OPTIONS'], ['DELETE', `/token/${tokenAddr}`, 'GET, HEAD, OPTIONS'],
    ['GET', '/merchant/create-token', 'POST'], ['PUT', '/merchant/all-tokens', 'GET, HEAD'], ['GET', '/admin/merchants', 'POST'],
    ['DELETE', '/holder/alice', 'GET, HEAD, PUT, OPTIONS'], ['GET', '/holder/alice/spend', 'POST, OPTIONS'],
    ['PATCH', '/holder/alice', 'GET, HEAD, PUT, OPTIONS'], ['POST', '/openapi.json', 'GET, HEAD, OPTIONS'],
    ['PUT', '/merchant/webhooks/wh_x', 'GET, HEAD, PATCH, DELETE'],
  ]) {
    const r = await call(method, path, { key: A.secretKey });
    fails(r, 405, 'method_not_allowed');
    assert.equal(r.headers.get('allow'), allow, `${method} ${path}`);
  }
});

test('CORS: public routes answer with Access-Control-Allow-Origin *', async () => {
  for (const path of publicReads()) {
    const r = await call('GET', `${path}?publicKey=${A.publicKey}`);
    ok(r);
    assert.equal(r.headers.get('access-control-allow-origin'), '*', path);
    assert.match(r.headers.get('access-control-expose-headers') ?? '', /\bx-request-id\b/, path);
    // What only a preflight's answer is read for is on the preflight's alone.
    for (const h of ['access-control-allow-methods', 'access-control-allow-headers', 'access-control-max-age']) {
      assert.equal(r.headers.get(h), null, `${path}: ${h}`);
    }
    // Errors on public routes too, or a browser could not read them.
    const e = await call('GET', path);
    fails(e, 401, 'public_key_not_found');
    assert.equal(e.headers.get('access-control-allow-origin'), '*', path);
  }
});

test('CORS: OPTIONS preflight on a public route is 204 with CORS headers', async () => {
  for (const path of publicReads()) {
    const r = await call('OPTIONS', path, {
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    assert.equal(r.status, 204, `${path}: ${r.status} ${r.text}`);
    assert.equal(r.text, '');
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    assert.match(r.headers.get('access-control-allow-methods') ?? '', /\bGET\b/);
    assert.match((r.headers.get('access-control-allow-headers') ?? '').toLowerCase(), /x-api-key/);
    assert.equal(r.headers.get('access-control-max-age'), '86400');
  }
});

test('CORS: secret routes send no CORS headers, and OPTIONS on a secret-only route is 405', async () => {
  const responses = [
    await call('GET', '/merchant/all-tokens', { key: A.secretKey }),
    await call('GET', '/merchant/all-tokens'),
    await call('PUT', '/holder/alice', { key: A.secretKey }), // same path as the public GET
    await call('POST', `/token/${tokenAddr}/distribute`, { key: A.secretKey, body: {} }),
  ];
  for (const r of responses) {
    assert.equal(r.headers.get('access-control-allow-origin'), null, `${r.status} ${r.text}`);
  }
  for (const path of ['/merchant/all-tokens', '/merchant/create-token', '/holder/alice/session',
    `/token/${tokenAddr}/distribute`, '/holder/alice/withdraw', `/merchant/token/${tokenAddr}`]) {
    const r = await call('OPTIONS', path, { headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
    fails(r, 405, 'method_not_allowed');
    assert.equal(r.headers.get('access-control-allow-origin'), null, path);
    assert.ok(r.headers.get('allow') && !r.headers.get('allow').includes('OPTIONS'), `${path}: Allow ${r.headers.get('allow')}`);
  }
  // The holder routes a browser calls with a session token (issue 12) answer CORS, POST included.
  for (const path of ['/holder/alice/transactions', '/holder/alice/spend', '/holder/alice/transfer',
    '/holder/alice/buy-presale', '/session']) {
    const r = await call('OPTIONS', path, { headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
    assert.equal(r.status, 204, path);
    assert.equal(r.headers.get('access-control-allow-origin'), '*', path);
    assert.match(r.headers.get('access-control-allow-methods') ?? '', /\bPOST\b/, path);
    assert.match(r.headers.get('access-control-allow-headers') ?? '', /\bauthorization\b/, path);
  }
});

test('body over 64 KiB: 413 payload_too_large (with and without Content-Length)', async () => {
  const big = JSON.stringify({ name: 'X', symbol: 'X', pad: 'x'.repeat(64 * 1024) });
  fails(await call('POST', '/merchant/create-token', { key: A.secretKey, rawBody: big, headers: { 'content-type': 'application/json' } }),
    413, 'payload_too_large');
  fails(await call('POST', '/admin/merchants', { adminKey: w.adminKey, rawBody: big, headers: { 'content-type': 'application/json' } }),
    413, 'payload_too_large');
  // Chunked: no Content-Length, so the limit must hold while reading.
  const chunk = new TextEncoder().encode('x'.repeat(1024));
  const stream = new ReadableStream({
    start(c) {
      for (let i = 0; i < 70; i++) c.enqueue(chunk);
      c.close();
    },
  });
  const res = await fetch(`${w.baseUrl}/holder/alice/spend`, {
    method: 'POST', body: stream, duplex: 'half',
    headers: { 'x-api-key': A.secretKey, 'content-type': 'application/json' },
  });
  const text = await res.text();
  const r = checked('POST', '/holder/alice/spend', { status: res.status, headers: res.headers, text, json: JSON.parse(text) });
  fails(r, 413, 'payload_too_large');
});

test('a body of exactly 64 KiB is accepted', async () => {
  const base = JSON.stringify({ name: 'Edge', symbol: 'EDGE', pad: '' });
  const exact = JSON.stringify({ name: 'Edge', symbol: 'EDGE', pad: 'x'.repeat(64 * 1024 - base.length) });
  assert.equal(Buffer.byteLength(exact), 64 * 1024);
  const job = ok(await call('POST', '/merchant/create-token', {
    key: A.secretKey, rawBody: exact, headers: { 'content-type': 'application/json' },
  }), 201);
  assert.equal(job.status, 'pending');
});

test('a body that is not JSON: 415 unsupported_media_type', async () => {
  const body = JSON.stringify({ name: 'X', symbol: 'X' });
  for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx']) {
    fails(await call('POST', '/merchant/create-token', { key: A.secretKey, rawBody: body, headers: { 'content-type': ct } }),
      415, 'unsupported_media_type');
  }
  // fetch labels a string body text/plain when no content-type is given.
  fails(await call('POST', '/merchant/create-token', { key: A.secretKey, rawBody: body }), 415, 'unsupported_media_type');
  fails(await call('POST', '/admin/time/advance', { adminKey: w.adminKey, rawBody: '{"seconds":1}' }), 415, 'unsupported_media_type');
  // Content-Type parameters and case do not matter.
  ok(await call('POST', '/merchant/create-token', {
    key: A.secretKey, rawBody: JSON.stringify({ name: 'Y', symbol: 'Y' }), headers: { 'content-type': 'Application/JSON; charset=utf-8' },
  }), 201);
});

test('malformed JSON: 400 invalid_json', async () => {
  const json = { 'content-type': 'application/json' };
  for (const raw of ['{', '{"name":', "{'name':'x'}", '{"name":"X",}', 'nul', '{"a":1}{"b":2}', '\u00ff']) {
    fails(await call('POST', '/merchant/create-token', { key: A.secretKey, rawBody: raw, headers: json }), 400, 'invalid_json');
  }
  fails(await call('POST', '/admin/merchants', { adminKey: w.adminKey, rawBody: '{"name":', headers: json }), 400, 'invalid_json');
  fails(await call('POST', '/holder/alice/spend', { key: A.secretKey, rawBody: '[1,', headers: json }), 400, 'invalid_json');
});

test('a JSON body that is not an object: 400 invalid_request', async () => {
  for (const raw of ['[]', '[{"name":"X","symbol":"X"}]', '"text"', '42', 'true']) {
    fails(await call('POST', '/merchant/create-token', { key: A.secretKey, body: JSON.parse(raw) }), 400, 'invalid_request');
  }
  fails(await call('POST', '/admin/merchants', { adminKey: w.adminKey, body: [] }), 400, 'invalid_request');
  fails(await call('POST', `/token/${tokenAddr}/distribute`, { key: A.secretKey, body: [1] }), 400, 'invalid_request');
});

test('GET /health and GET /openapi.json need no key', async () => {
  assert.deepEqual(withoutBuild(ok(await call('GET', '/health'))), { ok: true, chain: { kind: 'embedded' } });
  const r = await call('GET', '/openapi.json');
  const served = ok(r);
  assert.match(served.openapi, /^3\.1\.\d+$/);
  assert.equal(typeof served.paths, 'object');
  assert.ok(Object.keys(served.paths).length > 10);
  assert.ok(served.paths['/token/{tokenAddress}']);
  // Contract §11: the repository keeps the same file as the service serves.
  assert.deepEqual(served, doc, 'served /openapi.json differs from the repository file (stale worker build?)');
});

test('GET /openapi.json comes from the static assets: a deployment without them answers 404 not_found', async () => {
  // The document is kept among the assets (www/openapi.json), not in the Worker's code.
  const bare = await startWorker({ assets: false });
  try {
    const r = await api(bare, 'GET', '/openapi.json');
    assert.equal(r.status, 404, r.text);
    assert.equal(r.json.code, 'not_found');
    assert.match(r.json.message, /without its \[assets\] table/);
    assertMatches('GET', '/openapi.json', 404, r.json);
    assert.equal((await api(bare, 'GET', '/health')).status, 200, 'the API itself runs without them');
  } finally {
    await bare.stop();
  }
});

test('PUT /holder with a non-JSON or oversized body: answered as documented in openapi.json',
  async () => {
    fails(await call('PUT', '/holder/bob', { key: A.secretKey, rawBody: 'hello' }), 415, 'unsupported_media_type');
    fails(await call('PUT', '/holder/bob', {
      key: A.secretKey, rawBody: JSON.stringify({ pad: 'x'.repeat(70_000) }), headers: { 'content-type': 'application/json' },
    }), 413, 'payload_too_large');
  });

test('PUT /holder with a malformed JSON body: 400 invalid_json',
  async () => {
    fails(await call('PUT', '/holder/carol', {
      key: A.secretKey, rawBody: '{bad', headers: { 'content-type': 'application/json' },
    }), 400, 'invalid_json');
  });

test('a secret key in the URL of /health: answered as documented in openapi.json',
  async () => {
    fails(await call('GET', '/health?x=sk_1'), 400, 'secret_key_in_url');
  });

test('a secret key in the URL is refused even when the parameter is repeated',
  async () => {
    fails(await call('GET', `/token/${tokenAddr}?publicKey=${A.secretKey}&publicKey=${A.publicKey}`), 400, 'secret_key_in_url');
    fails(await call('GET', `/holder/alice?x=${A.secretKey}&x=1`, { key: A.publicKey }), 400, 'secret_key_in_url');
  });

test('OPTIONS on an unknown path: 404 not_found',
  async () => {
    fails(await call('OPTIONS', '/no/such/route'), 404, 'not_found');
  });

test('no response in this file had a status >= 500', () => {
  assert.ok(seen.length > 100, `only ${seen.length} responses seen`);
  const bad = seen.filter((s) => s.status >= 500);
  assert.deepEqual(bad, []);
});
