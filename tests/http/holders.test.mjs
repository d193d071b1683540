// Holders: get-or-create, the full form, one token's balance, userId rules, and that no key
// material ever leaves the service (contract §5, wire-decisions.md).
// Every response is checked against openapi.json and must never be a 5xx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, startWorker } from './harness.mjs';
import { checkedClient, usdcOf } from './check.mjs';

let w;
const { seen, call, checked, ok, fails, newMerchant, advance, newToken, offset, evm, reconcileAll } = checkedClient(() => w);

let M;
let T; // a token of M with a few holders
let USDC; // the chain's USDC (usdcOf)

before(async () => {
  w = await startWorker();
  USDC = usdcOf(w);
  M = await newMerchant('Holders');
  T = await newToken(M, { name: 'Holder Token', symbol: 'HT', totalSupply: 1000 });
});
after(async () => {
  // Every merchant's ledger agrees with the chain (on an EVM chain: balanceOf, once settled).
  if (w) await reconcileAll();
  await w?.stop();
});

function assertHolderFull(h, userId) {
  assert.equal(h.success, true);
  assert.equal(h.id, userId);
  assert.match(h.address, /^0x[0-9a-fA-F]{40}$/);
  assert.equal(typeof h.totalValue, 'number');
  assert.ok(Array.isArray(h.tokens));
  assert.ok(Array.isArray(h.presales));
  assert.ok(Array.isArray(h.locks));
}

test('PUT /holder/:userId creates (201), then answers the same holder (200)', async () => {
  const first = await call('PUT', '/holder/alice', { key: M.secretKey });
  const a = ok(first, 201);
  assertHolderFull(a, 'alice');
  assert.deepEqual(a.tokens, []);
  assert.deepEqual(a.presales, []);
  assert.deepEqual(a.locks, []);
  assert.equal(a.totalValue, 0);
  const again = ok(await call('PUT', '/holder/alice', { key: M.secretKey }), 200);
  assert.deepEqual(again, a);
  assert.deepEqual(ok(await call('GET', '/holder/alice', { key: M.publicKey })), a);
  // Another user gets another wallet.
  const b = ok(await call('PUT', '/holder/bob', { key: M.secretKey }), 201);
  assert.notEqual(b.address.toLowerCase(), a.address.toLowerCase());
});

test('10 concurrent PUTs for one new userId make one wallet', async () => {
  const rs = await Promise.all(Array.from({ length: 10 }, () => call('PUT', '/holder/racer', { key: M.secretKey })));
  const statuses = rs.map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
  const addresses = new Set(rs.map((r) => r.json.address));
  assert.equal(addresses.size, 1);
  assert.equal(ok(await call('GET', '/holder/racer', { key: M.publicKey })).address, [...addresses][0]);
});

test('userIds are URL-decoded: spaces, unicode, reserved characters', async () => {
  const ids = ['user one', 'ユーザー🎉', 'alice@example.com', 'a/b', 'a+b', '100%', 'é'.repeat(128), 'x'.repeat(128), "o'neil \"q\""];
  for (const id of ids) {
    const path = `/holder/${encodeURIComponent(id)}`;
    const created = ok(await call('PUT', path, { key: M.secretKey }), 201);
    assertHolderFull(created, id);
    assert.equal(ok(await call('GET', path, { key: M.publicKey })).address, created.address, id);
  }
  // %20 and a literal space name the same holder.
  const viaEscape = ok(await call('GET', '/holder/user%20one', { key: M.publicKey }));
  assert.equal(viaEscape.id, 'user one');
});

test('invalid userIds: 400 invalid_user_id', async () => {
  for (const id of ['x'.repeat(129), 'é'.repeat(129), 'a\nb', '\u0000', 'tab\there', '\u007f']) {
    const path = `/holder/${encodeURIComponent(id)}`;
    fails(await call('PUT', path, { key: M.secretKey }), 400, 'invalid_user_id');
    fails(await call('GET', path, { key: M.publicKey }), 400, 'invalid_user_id');
  }
});

test('GET /holder/:userId of an unknown holder: 404 holder_not_found', async () => {
  fails(await call('GET', '/holder/nobody', { key: M.publicKey }), 404, 'holder_not_found');
  fails(await call('GET', '/holder/nobody', { key: M.secretKey }), 404, 'holder_not_found');
  // An address is not a userId on this route.
  const alice = ok(await call('GET', '/holder/alice', { key: M.publicKey }));
  fails(await call('GET', `/holder/${alice.address}`, { key: M.publicKey }), 404, 'holder_not_found');
});

test('full form: tokens items, USDC item, totalValue', async () => {
  const carol = ok(await call('PUT', '/holder/carol', { key: M.secretKey }), 201);
  ok(await call('POST', `/token/${T.address}/distribute`, { key: M.secretKey, body: { amount: 12.5, sendToId: 'carol' } }));
  ok(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: carol.address, usdcAmount: 3.25 } }));
  const h = ok(await call('GET', '/holder/carol', { key: M.publicKey }));
  assertHolderFull(h, 'carol');
  assert.equal(h.address, carol.address);
  const bySymbol = Object.fromEntries(h.tokens.map((t) => [t.symbol, t]));
  assert.deepEqual(Object.keys(bySymbol).sort(), ['HT', 'USDC']);
  assert.deepEqual(bySymbol.HT, {
    id: T.address, address: T.address, name: 'Holder Token', symbol: 'HT', balance: 12.5, value: 0, price: null, status: 'active', type: 'token',
  });
  assert.equal(bySymbol.USDC.balance, 3.25);
  assert.equal(bySymbol.USDC.value, 3.25);
  assert.equal(bySymbol.USDC.address, USDC);
  assert.equal(bySymbol.USDC.status, 'active');
  assert.equal(bySymbol.USDC.type, 'token');
  assert.equal(h.totalValue, 3.25);
  assert.deepEqual(h.presales, []);
  assert.deepEqual(h.locks, []);
  // PUT answers the same full form for an existing holder.
  assert.deepEqual(ok(await call('PUT', '/holder/carol', { key: M.secretKey }), 200), h);
});

test('GET /holder/:x/token/:t by userId and by address (any case), with public or secret key', async () => {
  const dave = ok(await call('PUT', '/holder/dave', { key: M.secretKey }), 201);
  ok(await call('POST', `/token/${T.address}/distribute`, { key: M.secretKey, body: { amount: 7, sendToId: 'dave' } }));
  const want = { name: 'Holder Token', symbol: 'HT', id: T.address, address: T.address, balance: 7, value: 0 };
  const who = [
    'dave', dave.address, dave.address.toLowerCase(), '0x' + dave.address.slice(2).toUpperCase(),
  ];
  for (const x of who) {
    for (const t of [T.address, T.address.toLowerCase()]) {
      for (const auth of [{ key: M.publicKey }, { key: M.secretKey }]) {
        const b = ok(await call('GET', `/holder/${x}/token/${t}`, auth));
        for (const [k, v] of Object.entries(want)) assert.equal(b[k], v, `${x} ${t} ${k}`);
      }
      const q = ok(await call('GET', `/holder/${x}/token/${t}?publicKey=${M.publicKey}`));
      assert.equal(q.balance, 7);
    }
  }
  // Unknown userId, unknown token, malformed token address.
  fails(await call('GET', `/holder/nobody/token/${T.address}`, { key: M.publicKey }), 404, 'holder_not_found');
  fails(await call('GET', `/holder/dave/token/0x${'0'.repeat(39)}9`, { key: M.publicKey }), 404, 'token_not_found');
  fails(await call('GET', '/holder/dave/token/0x1234', { key: M.publicKey }), 400, 'invalid_address');
  // An address that holds nothing has a zero balance.
  const empty = ok(await call('GET', `/holder/0x${'1'.repeat(40)}/token/${T.address}`, { key: M.publicKey }));
  assert.equal(empty.balance, 0);
  // USDC balance through the same route.
  assert.equal(ok(await call('GET', `/holder/dave/token/${USDC}`, { key: M.publicKey })).balance, 0);
});

test('no private key, sealed key or other secret in any holder or merchant response', async () => {
  // Exercise the remaining response kinds once more.
  ok(await call('GET', '/merchant/all-tokens', { key: M.secretKey }));
  ok(await call('GET', `/token/${T.address}`, { key: M.publicKey }));
  ok(await call('GET', '/holder/carol/transactions', { key: M.secretKey }));
  ok(await call('POST', '/holder/carol/spend', { key: M.secretKey, body: { tokenAddress: T.address, amount: 1 } }));
  ok(await call('POST', '/holder/carol/transfer', { key: M.secretKey, body: { tokenAddress: T.address, amount: 1, toAddress: `0x${'2'.repeat(40)}` } }));
  ok(await call('POST', '/holder/carol/withdraw', { key: M.secretKey, body: { tokenAddress: T.address, amount: 1, toAddress: `0x${'3'.repeat(40)}` } }));

  const hashes = new Set();
  const collect = (v) => {
    if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'transactionHash' && typeof x === 'string') hashes.add(x.slice(2).toLowerCase());
        collect(x);
      }
    }
  };
  let checked = 0;
  for (const s of seen) {
    if (s.method === 'POST' && s.path === '/admin/merchants') {
      // The one response that carries a secret, by design (returned once).
      const m = JSON.parse(s.text);
      if (s.status === 201) assert.deepEqual(Object.keys(m).sort(), ['id', 'merchantAddress', 'name', 'publicKey', 'secretKey']);
      assert.doesNotMatch(s.text, /sealed|private/i);
      continue;
    }
    checked++;
    // These errors' messages tell people where a secret key belongs; nothing else may say "secret".
    const keyAdvice = /"code":"(secret_key_required|secret_key_in_url|missing_api_key)"/.test(s.text);
    if (!keyAdvice) assert.doesNotMatch(s.text, /sealed|secret|private|mnemonic|seed/i, `${s.method} ${s.path}: ${s.text.slice(0, 300)}`);
    assert.ok(!s.text.includes(M.secretKey.split('_')[2]), `${s.method} ${s.path} leaks the secret key`);
    let body;
    try { body = JSON.parse(s.text); } catch { continue; }
    collect(body);
    // Any 64-hex run must be a transaction hash this response names (record ids embed it).
    for (const run of s.text.match(/[0-9a-fA-F]{64,}/g) ?? []) {
      assert.ok(run.length === 64 && hashes.has(run.toLowerCase()), `${s.method} ${s.path}: unexplained hex ${run}`);
    }
  }
  assert.ok(checked > 50, `only ${checked} responses checked`);
});

test('no response in this file had a status >= 500', () => {
  assert.ok(seen.length > 50, `only ${seen.length} responses seen`);
  assert.deepEqual(seen.filter((s) => s.status >= 500), []);
});
