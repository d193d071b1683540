// Issue #15's edge rules: a secret key anywhere in the URL is refused before any lookup and
// never echoed or logged; a JSON body with a key given twice is refused; the deployment
// page's errors are the documented HTML ones. Issue #43's: a Content-Length past the body
// limit is a 413 at once, whatever its size. Every response is checked against openapi.json.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { runtimeUrl, startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';
import { assertMatches } from './openapi.mjs';

let w;
const { call, checked, ok, fails, newMerchant, newToken } = checkedClient(() => w);
let A;
let token;

before(async () => {
  w = await startWorker();
  A = await newMerchant('Edge rules');
  token = await newToken(A, { totalSupply: 1000 });
  ok(await call('PUT', '/holder/alice', { key: A.secretKey }), 201);
  ok(await call('POST', `/token/${token.address}/distribute`, { key: A.secretKey, body: { amount: 10, sendToId: 'alice' } }));
});
after(async () => {
  await w?.stop();
});

test('a secret key anywhere in the URL: 400 secret_key_in_url, before any lookup, never echoed or logged', async () => {
  const sk = A.secretKey;
  const upper = sk.replace(/[a-f]/g, (c) => c.toUpperCase()).replace(/^SK_/, 'sk_');
  const encoded = [...sk].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
  const cases = [
    ['GET', `/holder/${sk}`], // a public route: a userId that is a key
    ['GET', `/holder/${sk}/token/${token.address}`],
    ['PUT', `/holder/${sk}`],
    ['POST', `/holder/${sk}/spend`],
    ['GET', `/holder/x${sk}y/transactions`],
    ['GET', `/holder/${encoded}`], // percent-encoded
    ['GET', `/holder/${upper}`],
    ['GET', `/no/such/route/${sk}`], // would be a 404 naming the path
    ['DELETE', `/holder/${sk}`], // would be a 405 naming the path
    ['GET', `/merchant/all-tokens?apiKey=${sk}`],
    ['GET', `/merchant/all-tokens?${sk}=1`], // the key as a parameter's name
    ['GET', `/merchant/all-tokens?note=key-${sk}`],
    ['GET', `/token/${token.address}?publicKey=${A.publicKey}&x=${encodeURIComponent(sk)}`],
    ['GET', `/deployments/${sk}`],
    ['GET', `/health?k=${sk}`],
    ['POST', `/admin/merchants?k=${sk}`],
  ];
  for (const [method, path] of cases) {
    // With the right key in the header too: the URL alone decides.
    const r = await call(method, path, { key: sk, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
    fails(r, 400, 'secret_key_in_url');
    assert.ok(!r.text.includes(sk) && !r.text.toLowerCase().includes(sk.toLowerCase().slice(3)), `${method} ${path} echoed the key: ${r.text}`);
    for (const [, v] of r.headers) assert.ok(!v.includes(sk.slice(3)), `${method} ${path}: a header carries the key`);
  }
  // Public paths still answer CORS, so a browser sees the refusal.
  const pub = await call('GET', `/holder/${sk}`);
  assert.equal(pub.headers.get('access-control-allow-origin'), '*');
  // Nothing was done: alice's balance is whole, no holder was created under the key.
  assert.equal(ok(await call('GET', `/holder/alice/token/${token.address}`, { key: A.publicKey })).balance, 10);
  // Nothing of it reached the log (wrangler's own access log is off in the harness; this is
  // what the service itself prints).
  assert.ok(!w.logs().includes(sk.slice(3)), 'the key is in the worker log');
  // A userId or parameter that merely contains sk_ is not a key.
  ok(await call('PUT', '/holder/task_force', { key: sk }), 201);
  fails(await call('GET', `/holder/desk_sk_1?publicKey=${A.publicKey}`), 404, 'holder_not_found');
  ok(await call('GET', '/merchant/all-tokens?note=desk_sk_1', { key: sk }));
  // A query value that starts with sk_ is refused even when it is not a well-formed key.
  fails(await call('GET', '/merchant/all-tokens?note=sk_typo', { key: sk }), 400, 'secret_key_in_url');
});

test('a JSON body with a key given twice: 400 invalid_json, at any depth, and nothing happens', async () => {
  const before = ok(await call('GET', `/holder/alice/token/${token.address}`, { key: A.publicKey })).balance;
  const raw = [
    `{"tokenAddress":"${token.address}","amount":1,"amount":5}`,
    `{"amount":5,"tokenAddress":"${token.address}","amount":1}`,
    `{"tokenAddress":"${token.address}","amount":1,"x":{"a":1,"a":2}}`,
  ];
  for (const rawBody of raw) {
    const r = await call('POST', '/holder/alice/spend', { key: A.secretKey, rawBody, headers: { 'content-type': 'application/json' } });
    fails(r, 400, 'invalid_json');
  }
  const create = await call('POST', '/template/memecoin', {
    key: A.secretKey,
    rawBody: '{"name":"D","symbol":"D","totalSupply":1,"totalSupply":2,"initialPrice":1,"network":"base","marketplace":false}',
    headers: { 'content-type': 'application/json' },
  });
  fails(create, 400, 'invalid_json');
  assert.equal(ok(await call('GET', `/holder/alice/token/${token.address}`, { key: A.publicKey })).balance, before);
});

test('the deployment page answers its documented errors, as HTML', async () => {
  for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
    const res = await fetch(`${w.baseUrl}/deployments/${id}`);
    const text = await res.text();
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type'), /^text\/html; charset=utf-8/);
    assert.match(text, /Deployment not found/);
    assertMatches('GET', `/deployments/${id}`, 404, text);
  }
});

test('an answer carries its length: Content-Length is the body\'s UTF-8 bytes, not chunked, for an object\'s answer (non-ASCII text too), its error and the edge\'s own', async () => {
  const named = await newToken(A, { name: 'Crème brûlée ☕', symbol: 'CREME', totalSupply: 1000 });
  ok(await call('POST', `/token/${named.address}/distribute`, { key: A.secretKey, body: { amount: 3, sendToId: 'alice' } }));
  const cases = [
    ['/holder/alice/transactions', A.secretKey, 200], // the object's answer, a page
    [`/token/${named.address}`, A.publicKey, 200],
    ['/holder/nobody', A.publicKey, 404], // the object's refusal
    ['/holder/alice', undefined, 401], // the edge's own (no key)
    ['/health', undefined, 200],
  ];
  for (const [path, key, status] of cases) {
    const headers = { 'accept-encoding': 'identity', ...(key ? { 'x-api-key': key } : {}) };
    const res = await fetch(`${w.baseUrl}${path}`, { headers });
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(res.status, status, path);
    assert.equal(res.headers.get('transfer-encoding'), null, path);
    assert.equal(res.headers.get('content-length'), String(bytes.length), path);
    assert.ok(bytes.length > 0, path);
    JSON.parse(bytes.toString('utf8'));
  }
  const page = ok(await call('GET', `/token/${named.address}`, { key: A.publicKey }));
  assert.equal(page.name, 'Crème brûlée ☕');
});

/**
 * Sends `head` (the request line and headers, CRLF-separated, no blank line) and `body` over
 * a socket of its own to `base` (default: the worker's port), as no fetch() can (it sets
 * Content-Length itself), then ends its side of the socket, and reads the answer until its own
 * Content-Length is in. The answer as `api` gives it.
 */
function rawRequest(head, body, base = w.baseUrl) {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no whole answer in 10 s: ${data}`)); }, 10_000);
    const done = () => {
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers = new Headers(lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]));
      const length = Number(headers.get('content-length'));
      const bytes = data.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
      if (!(bytes.length >= length)) return false;
      clearTimeout(timer);
      socket.destroy();
      const bodyText = bytes.subarray(0, length).toString('utf8');
      resolve({ status: Number(statusLine.split(' ')[1]), headers, text: bodyText, json: JSON.parse(bodyText) });
      return true;
    };
    socket.on('data', (chunk) => { data = Buffer.concat([data, chunk]); done(); });
    socket.on('error', (e) => { clearTimeout(timer); reject(e); });
    socket.on('end', () => { if (!done()) { clearTimeout(timer); reject(new Error(`closed before a whole answer: ${data}`)); } });
    socket.end(`${head}\r\n\r\n${body}`);
  });
}

test('a Content-Length past the body limit is 413 payload_too_large at once, whatever its size (2^32 and beyond too)', async () => {
  const body = JSON.stringify({ tokenAddress: token.address, amount: 1 });
  const sizes = ['65537', '4294967295', '4294967296', '4294967297', '9007199254740993', '18446744073709551615', '18446744073709551616', '99999999999999999999999999999999'];
  // Straight to the Worker's runtime: wrangler's dev proxy answers any request whose body ends
  // early with its own 503 (on Cloudflare the Worker is reached first). Before the fix, sizes of
  // 2^32 and more (read as 32 bits) went on to read the body, which ended early: a 500.
  const runtime = await runtimeUrl(w);
  for (const size of sizes) {
    const head = [
      'POST /holder/alice/spend HTTP/1.1', `Host: 127.0.0.1`, `x-api-key: ${A.secretKey}`,
      'content-type: application/json', `content-length: ${size}`, 'connection: close',
    ].join('\r\n');
    // Only the few bytes of a small body follow, then the socket ends: no more is coming.
    const r = checked('POST', '/holder/alice/spend', await rawRequest(head, body, runtime));
    const e = fails(r, 413, 'payload_too_large');
    assert.equal(e.details.limit, 65536, size);
  }
  // Nothing was spent.
  assert.equal(ok(await call('GET', `/holder/alice/token/${token.address}`, { key: A.publicKey })).balance, 10);
  // A Content-Length within the limit, with its body, still goes through.
  const head = [
    'POST /holder/alice/spend HTTP/1.1', 'Host: 127.0.0.1', `x-api-key: ${A.secretKey}`,
    'content-type: application/json', `content-length: ${Buffer.byteLength(body)}`, 'connection: close',
  ].join('\r\n');
  ok(checked('POST', '/holder/alice/spend', await rawRequest(head, body)));
  assert.equal(ok(await call('GET', `/holder/alice/token/${token.address}`, { key: A.publicKey })).balance, 9);
});
