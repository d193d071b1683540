// Every call real Metal clients make (issue 9, point 3), against the real worker in workerd:
// distribute with `sendTo`, the `reward` route, the reward-supply aliases, job `id` /
// `metalBuildUrl` / `uniswapUrl` / `lpInfo`, presale `userAddress` / `createdAt` / `updatedAt`,
// a top-level `deploymentConfig`, the `error` field, `Authorization: Bearer`; and Metal's own
// SDK pointed at tokenpad with the fetch wrapper of tests/http/fixtures/metal-fetch.mjs (the
// recipe in docs/metal.md), its calls reproduced exactly as its source (0xmetropolis/metal-sdk,
// src/client.ts, merchant.ts, token.ts, holder.ts) makes them.
// Every response is checked against openapi.json and must never be a 5xx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ROOT, startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';
import { pointMetalAt } from './fixtures/metal-fetch.mjs';

let w;
const { call, checked, ok, fails, newMerchant, advance, newToken } = checkedClient(() => w);

const IMAGE = 'https://example.com/metal.png';
const HASH = /^0x[0-9a-f]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const EXT = '0x3333333333333333333333333333333333333333';

async function putHolder(m, userId) {
  const r = await call('PUT', `/holder/${userId}`, { key: m.secretKey });
  assert.ok([200, 201].includes(r.status), r.text);
  return r.json;
}
const balance = async (m, userId, token) =>
  ok(await call('GET', `/holder/${userId}/token/${token}`, { key: m.publicKey })).balance;
const distribute = (m, token, body) => call('POST', `/token/${token}/distribute`, { key: m.secretKey, body });
const reward = (m, token, body, opts = {}) => call('POST', `/token/${token}/reward`, { key: m.secretKey, body, ...opts });
const serviceNow = async () => ok(await call('GET', '/admin/time', { adminKey: w.adminKey })).nowUnix;

async function createPresale(m, over = {}) {
  const now = await serviceNow();
  return call('POST', '/merchant/presale', {
    key: m.secretKey,
    body: {
      name: 'Metal presale', description: 'A presale as Metal clients create it', startTimestamp: now - 10,
      endTimestamp: now + 3600, targetUsdcAmount: 100, lockDuration: 7,
      tokenInfo: { name: 'Metal', symbol: 'MTL', imageUrl: IMAGE }, ...over,
    },
  });
}

/**
 * Checks `value` against a shape from the SDK's src/types.ts: { field: type } where type is
 * 'string', 'number', 'boolean', 'address', 'hex', 'null', a union 'number|null', a nested
 * shape, [shape] for an array, or a literal list ['a', 'b']; a name ending in '?' is optional.
 */
function assertShape(value, shape, where) {
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${where} is not an object: ${JSON.stringify(value)}`);
  for (const [key, type] of Object.entries(shape)) {
    const optional = key.endsWith('?');
    const name = optional ? key.slice(0, -1) : key;
    const at = `${where}.${name}`;
    if (!(name in value) || value[name] === undefined) {
      assert.ok(optional, `${at} is missing (the SDK's types declare it): ${JSON.stringify(value).slice(0, 400)}`);
      continue;
    }
    assertType(value[name], type, at);
  }
}
function assertType(v, type, at) {
  if (Array.isArray(type) && type.length === 1 && typeof type[0] === 'object') {
    assert.ok(Array.isArray(v), `${at} is not an array`);
    v.forEach((x, i) => assertShape(x, type[0], `${at}[${i}]`));
  } else if (Array.isArray(type)) {
    assert.ok(type.includes(v), `${at} is ${JSON.stringify(v)}, not one of ${type.join(', ')}`);
  } else if (typeof type === 'object') {
    assertShape(v, type, at);
  } else {
    const okOne = type.split('|').some((t) => {
      if (t === 'null') return v === null;
      if (t === 'address') return typeof v === 'string' && ADDRESS.test(v);
      if (t === 'hex') return typeof v === 'string' && /^0x[0-9a-fA-F]*$/.test(v);
      if (t === 'number') return typeof v === 'number' && Number.isFinite(v);
      return typeof v === t;
    });
    assert.ok(okOne, `${at} is ${JSON.stringify(v)}, not ${type}`);
  }
}

// The SDK's src/types.ts, as shapes.
const TokenHolder = { id: 'string', address: 'address', balance: 'number', value: 'number' };
const TokenData = {
  id: 'address', address: 'address', name: 'string', symbol: 'string', totalSupply: 'number',
  startingAppSupply: 'number', remainingAppSupply: 'number', 'merchantSupply?': 'number',
  'merchantAddress?': 'address', price: 'number|null', holders: [TokenHolder],
};
const TokenInfo = { id: 'string', address: 'string', name: 'string', symbol: 'string', balance: 'number', value: 'number' };
const HolderData = { id: 'string', address: 'address', tokens: [TokenInfo], totalValue: 'number' };
const STATUS = ['success', 'pending', 'failed', 'stuck'];
const TokenJobResponse = { jobId: 'string', status: STATUS, data: TokenData };
const SpendResponse = { success: 'boolean', 'transactionHash?': 'hex' };
const TokenBalanceResponse = { name: 'string', symbol: 'string', id: 'string', address: 'string', balance: 'number', 'value?': 'number|null' };
const PendingTokenResponse = { id: 'string', status: ['pending'], 'transactionHash?': 'hex' };
const SuccessfulTokenResponse = {
  id: 'string', status: ['success'], tokenAddress: 'address', transactionHash: 'hex', metalBuildUrl: 'string',
  uniswapUrl: 'string', 'lpInfo?': { nftId: 'string', liquidityPoolAddress: 'address' },
};
const TokenRewardResponse = {
  // txUrl (an explorer page) is left out: the embedded chain's transactions are on no explorer.
  name: 'string', symbol: 'string', tokenAddress: 'address', txHash: 'hex', amount: 'number',
  recipient: 'address', rewardsBalance: 'number',
};

let M;
let T; // M's token: 1,000,000 (app 150,000), canDistribute and canLP on
before(async () => {
  w = await startWorker();
  M = await newMerchant('Metal client');
  T = await newToken(M, { name: 'Compat', symbol: 'CMP', totalSupply: 1000000, canLP: true });
});
after(async () => {
  await w?.stop();
});

test('distribute with sendTo: an address (any case) or a userId; with sendToAddress or sendToId as well it is 400', async () => {
  const alice = await putHolder(M, 'alice');
  await putHolder(M, 'bob');
  for (const body of [
    { sendTo: alice.address, amount: 1 },
    { sendTo: alice.address.toLowerCase(), amount: '2' },
    { sendTo: 'bob', amount: 3 },
  ]) {
    const d = ok(await distribute(M, T.address, body));
    assert.equal(d.success, true);
    assert.match(d.transactionHash, HASH);
  }
  assert.equal(await balance(M, 'alice', T.address), 3);
  assert.equal(await balance(M, 'bob', T.address), 3);
  const [rec] = ok(await call('GET', '/holder/bob/transactions', { key: M.secretKey })).data;
  assert.deepEqual([rec.type, rec.context, rec.amount, rec.to], ['distribute', 'Airdrop', 3, (await putHolder(M, 'bob')).address]);

  for (const body of [
    { sendTo: 'alice', sendToId: 'alice', amount: 1 },
    { sendTo: alice.address, sendToAddress: alice.address, amount: 1 },
    { sendTo: 'alice', sendToId: 'alice', sendToAddress: alice.address, amount: 1 },
    { sendTo: '', amount: 1 },
    { sendTo: 7, amount: 1 },
    { amount: 1 },
  ]) {
    fails(await distribute(M, T.address, body), 400, 'invalid_request');
  }
  fails(await distribute(M, T.address, { sendTo: 'nobody', amount: 1 }), 404, 'holder_not_found');
  fails(await distribute(M, T.address, { sendTo: EXT, amount: 1 }), 404, 'holder_not_found');
  fails(await distribute(M, T.address, { sendTo: 'alice', amount: 0 }), 400, 'invalid_amount');
  assert.equal(await balance(M, 'alice', T.address), 3);
  const t = ok(await call('GET', `/token/${T.address}`, { key: M.secretKey }));
  assert.equal(t.remainingAppSupply, 150000 - 6);
});

test('reward: 202 with Metal\'s fields (txHash, recipient, rewardsBalance, ...); sendTo is an address or a userId', async () => {
  const carol = await putHolder(M, 'carol');
  const before_ = ok(await call('GET', `/token/${T.address}`, { key: M.secretKey }));
  const r = reward(M, T.address, { sendTo: carol.address, amount: 5 });
  const body = ok(await r, 202);
  assert.equal(body.success, true);
  assert.match(body.txHash, HASH);
  assert.equal(body.transactionHash, body.txHash);
  assert.deepEqual([body.name, body.symbol, body.tokenAddress, body.amount, body.recipient],
    ['Compat', 'CMP', T.address, 5, carol.address]);
  assert.equal(body.rewardsBalance, before_.remainingAppSupply - 5);
  // By userId; amounts as decimal strings.
  const byId = ok(await reward(M, T.address, { sendTo: 'carol', amount: '0.5' }), 202);
  assert.equal(byId.recipient, carol.address);
  assert.equal(byId.amount, 0.5);
  assert.equal(byId.rewardsBalance, before_.remainingAppSupply - 5.5);
  assert.notEqual(byId.txHash, body.txHash);
  assert.equal(await balance(M, 'carol', T.address), 5.5);
  const t = ok(await call('GET', `/token/${T.address}?publicKey=${M.publicKey}`));
  assert.equal(t.remainingRewardSupply, byId.rewardsBalance);
  // The history calls it what it is: a distribution.
  const hist = ok(await call('GET', '/holder/carol/transactions', { key: M.secretKey })).data;
  assert.deepEqual(hist.map((x) => [x.type, x.context, x.transactionHash]),
    [['distribute', 'Airdrop', byId.txHash], ['distribute', 'Airdrop', body.txHash]]);
  // Every field of the SDK's TokenRewardResponse (src/types.ts) but txUrl (see above).
  assertShape(body, TokenRewardResponse, 'reward');
});

test('reward: the same rules as distribute (400, 403, 404, 422) and the secret key', async () => {
  const m = await newMerchant('Reward rules');
  const tok = await newToken(m, { name: 'Rules', symbol: 'RUL', totalSupply: 1000 });
  const dan = await putHolder(m, 'dan');
  fails(await reward(m, tok.address, { sendTo: 'dan', sendToId: 'dan', amount: 1 }), 400, 'invalid_request');
  fails(await reward(m, tok.address, { sendTo: 'dan', amount: -1 }), 400, 'invalid_amount');
  fails(await reward(m, tok.address, { sendTo: 'nobody', amount: 1 }), 404, 'holder_not_found');
  fails(await reward(m, `0x${'0'.repeat(39)}7`, { sendTo: 'dan', amount: 1 }), 404, 'token_not_found');
  fails(await reward(m, tok.address, { sendTo: dan.address, amount: 151 }), 422, 'insufficient_app_supply');
  fails(await reward(m, tok.address, { sendTo: 'dan', amount: 1 }, { key: m.publicKey }), 403, 'secret_key_required');
  fails(await reward(m, tok.address, { sendTo: 'dan', amount: 1 }, { key: undefined }), 401, 'missing_api_key');
  ok(await call('PATCH', `/merchant/token/${tok.address}`, { key: m.secretKey, body: { canDistribute: false } }));
  fails(await reward(m, tok.address, { sendTo: 'dan', amount: 1 }), 403, 'reward_allocation_disabled');
  assert.equal(await balance(m, 'dan', tok.address), 0);
  // An idempotency key replays the same 202.
  ok(await call('PATCH', `/merchant/token/${tok.address}`, { key: m.secretKey, body: { canDistribute: true } }));
  const headers = { 'Idempotency-Key': 'reward-1' };
  const one = await reward(m, tok.address, { sendTo: 'dan', amount: 2 }, { headers });
  const two = await reward(m, tok.address, { sendTo: 'dan', amount: 2 }, { headers });
  assert.equal(one.status, 202, one.text);
  assert.equal(two.status, 202);
  assert.equal(two.text, one.text);
  assert.equal(two.headers.get('idempotent-replayed'), 'true');
  assert.equal(await balance(m, 'dan', tok.address), 2);
});

test('startingRewardSupply / remainingRewardSupply repeat startingAppSupply / remainingAppSupply on every token read', async () => {
  const check = (t) => {
    assert.equal(t.startingRewardSupply, t.startingAppSupply, t.symbol);
    assert.equal(t.remainingRewardSupply, t.remainingAppSupply, t.symbol);
  };
  const pub = ok(await call('GET', `/token/${T.address}?publicKey=${M.publicKey}`));
  check(pub);
  assert.equal(pub.startingRewardSupply, 150000);
  assert.ok(pub.remainingRewardSupply < 150000);
  check(ok(await call('GET', `/token/${T.address}`, { key: M.secretKey })));
  const all = ok(await call('GET', '/merchant/all-tokens', { key: M.secretKey }));
  assert.ok(all.length >= 1);
  all.forEach(check);
});

test('create-token answers id (= jobId); job status has id, metalBuildUrl, uniswapUrl, and lpInfo once a pool opens', async () => {
  const m = await newMerchant('Jobs');
  const created = ok(await call('POST', '/merchant/create-token', { key: m.secretKey, body: { name: 'Job', symbol: 'JOB', canLP: true } }), 201);
  assert.equal(created.id, created.jobId);
  assert.equal(created.status, 'pending');
  // Both routes answer the same job. It moves on by itself (its steps come due with the
  // clock), so a step that came due between the two reads makes them differ: read again.
  const forms = async () => {
    for (let attempt = 1; ; attempt++) {
      const a = ok(await call('GET', `/merchant/create-token/status/${created.id}`, { key: m.secretKey }));
      const b = ok(await call('GET', `/jobs/${created.jobId}`, { key: m.secretKey }));
      if (attempt === 3 || isDeepStrictEqual(a, b)) {
        assert.deepEqual(a, b);
        return a;
      }
    }
  };
  let s = await forms();
  if (s.status === 'pending') {
    assertShape(s, PendingTokenResponse, 'pending job');
    assert.equal(s.metalBuildUrl, undefined);
    assert.equal(s.uniswapUrl, undefined);
    assert.equal(s.lpInfo, undefined);
  }
  for (let i = 0; i < 30 && s.status !== 'success'; i++) {
    await advance(2);
    s = await forms();
  }
  assert.equal(s.status, 'success');
  assertShape(s, SuccessfulTokenResponse, 'job');
  assert.equal(s.id, created.id);
  assert.equal(s.tokenAddress, created.tokenAddress);
  assert.equal(s.metalBuildUrl, `${w.baseUrl}/app/token?address=${s.tokenAddress}`);
  assert.equal(s.uniswapUrl, `https://app.uniswap.org/swap?chain=base&inputCurrency=0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913&outputCurrency=${s.tokenAddress}`);
  assert.equal(s.lpInfo, undefined, 'no pool yet');
  // metalBuildUrl is a page the service serves (the demo frontend's token page).
  const page = await fetch(s.metalBuildUrl);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /text\/html/);

  const lp = ok(await call('POST', `/token/${s.tokenAddress}/liquidity`, { key: m.secretKey, body: { initialStartingPrice: '0.001' } }), 201);
  s = await forms();
  assert.deepEqual(s.lpInfo, lp.lpInfo);
  assert.deepEqual(s.lpInfo, lp.pool.lpInfo);
  assert.equal(s.lpInfo.liquidityPoolAddress, lp.pool.address);
  assert.deepEqual(s.data.pool, lp.pool);
  assertShape(s, SuccessfulTokenResponse, 'job with a pool');
});

test('presale: participants[].userAddress, createdAt, and updatedAt that moves with a purchase', async () => {
  const m = await newMerchant('Presale reader');
  const ivy = await putHolder(m, 'ivy');
  ok(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: ivy.address, usdcAmount: 50, merchantId: m.id } }));
  const p = ok(await createPresale(m), 201);
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
  assert.match(p.createdAt, iso);
  assert.equal(p.updatedAt, p.createdAt);
  const nowMs = (await serviceNow()) * 1000;
  assert.ok(Math.abs(Date.parse(p.createdAt) - nowMs) < 5000, `createdAt ${p.createdAt} is now`);

  await advance(60);
  ok(await call('POST', '/holder/ivy/buy-presale', { key: m.secretKey, body: { presaleId: p.id, usdcAmount: 20 } }));
  for (const r of [
    await call('GET', `/token/presales/${p.id}?publicKey=${m.publicKey}`),
    await call('GET', `/merchant/presale/${p.id}`, { key: m.secretKey }),
  ]) {
    const s = ok(r);
    assert.equal(s.createdAt, p.createdAt);
    assert.match(s.updatedAt, iso);
    assert.ok(Date.parse(s.updatedAt) >= Date.parse(p.createdAt) + 60_000, `updatedAt ${s.updatedAt} after the purchase`);
    assert.equal(s.participants.length, 1);
    const [part] = s.participants;
    assert.equal(part.id, 'ivy');
    assert.equal(part.userAddress, ivy.address);
    assert.equal(part.address, ivy.address);
  }
  const list = ok(await call('GET', '/merchant/presales', { key: m.secretKey }));
  assert.equal(list[0].participants[0].userAddress, ivy.address);
  assert.ok(Date.parse(list[0].updatedAt) > Date.parse(list[0].createdAt));
  // updatedAt is when it last changed, not the time of the read.
  await advance(30);
  const later = ok(await call('GET', `/token/presales/${p.id}?publicKey=${m.publicKey}`));
  assert.equal(later.updatedAt, list[0].updatedAt);
});

test('presale: a top-level deploymentConfig.lockupPercentage is honoured (at launch too); a conflicting tokenInfo value is 400', async () => {
  const m = await newMerchant('Presale config');
  const top = ok(await createPresale(m, { targetUsdcAmount: 10, deploymentConfig: { lockupPercentage: 20 } }), 201);
  const read = ok(await call('GET', `/merchant/presale/${top.id}`, { key: m.secretKey }));
  assert.equal(read.lockupPercentage, 20);
  // The same value in both places is fine; different values are refused, naming the field.
  const both = ok(await createPresale(m, {
    deploymentConfig: { lockupPercentage: 15 },
    tokenInfo: { name: 'Both', symbol: 'BTH', imageUrl: IMAGE, deploymentConfig: { lockupPercentage: 15 } },
  }), 201);
  assert.equal(ok(await call('GET', `/merchant/presale/${both.id}`, { key: m.secretKey })).lockupPercentage, 15);
  const e = fails(await createPresale(m, {
    deploymentConfig: { lockupPercentage: 20 },
    tokenInfo: { name: 'Clash', symbol: 'CLS', imageUrl: IMAGE, deploymentConfig: { lockupPercentage: 25 } },
  }), 400, 'invalid_request');
  assert.equal(e.details.field, 'deploymentConfig.lockupPercentage');
  assert.equal(e.error, e.message);
  for (const bad of [12, 29, '20', 20.5]) {
    const x = fails(await createPresale(m, { deploymentConfig: { lockupPercentage: bad } }), 400, 'invalid_request');
    assert.equal(x.details.field, 'deploymentConfig.lockupPercentage', JSON.stringify(bad));
  }
  assert.equal(ok(await call('GET', '/merchant/presales', { key: m.secretKey })).length, 2, 'nothing else was created');

  // At launch the buyers get 20 % of the supply, not the default 25 %.
  const kim = await putHolder(m, 'kim');
  ok(await call('POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: kim.address, usdcAmount: 10, merchantId: m.id } }));
  ok(await call('POST', '/holder/kim/buy-presale', { key: m.secretKey, body: { presaleId: top.id, usdcAmount: 10 } }));
  await advance(30);
  const done = ok(await call('GET', `/merchant/presale/${top.id}`, { key: m.secretKey }));
  assert.equal(done.completionState.step, 'completed');
  assert.equal(done.tokenDeploymentInfo.amountTokensBought, (200_000_000n * 10n ** 18n).toString());
});

test('every error body has `error` equal to `message`', async () => {
  const JSON_CT = { 'content-type': 'application/json' };
  const cases = [
    [await call('POST', `/token/${T.address}/distribute`, { key: M.secretKey, rawBody: '{"amount":', headers: JSON_CT }), 400, 'invalid_json'],
    [await call('POST', `/token/${T.address}/distribute`, { key: M.secretKey, body: { amount: 0, sendTo: 'alice' } }), 400, 'invalid_amount'],
    [await call('GET', '/merchant/all-tokens'), 401, 'missing_api_key'],
    [await call('GET', `/token/${T.address}`), 401, 'public_key_not_found'],
    [await call('GET', '/merchant/all-tokens', { key: 'sk_nope' }), 401, 'invalid_api_key'],
    [await call('POST', '/admin/merchants', { adminKey: 'wrong', body: { name: 'x' } }), 401, 'invalid_admin_key'],
    [await call('GET', '/merchant/all-tokens', { key: M.publicKey }), 403, 'secret_key_required'],
    [await call('GET', '/no/such/route', { key: M.secretKey }), 404, 'not_found'],
    [await call('GET', '/holder/nobody', { key: M.secretKey }), 404, 'holder_not_found'],
    [await call('DELETE', `/token/${T.address}`, { key: M.secretKey }), 405, 'method_not_allowed'],
    [await call('POST', '/holder/alice/sell', { key: M.secretKey, body: { tokenAddress: T.address, tokenAmount: 1 } }), 409, 'no_liquidity'],
    [await call('POST', `/token/${T.address}/distribute`, { key: M.secretKey, rawBody: 'x'.repeat(70 * 1024), headers: JSON_CT }), 413, 'payload_too_large'],
    [await call('POST', `/token/${T.address}/distribute`, { key: M.secretKey, rawBody: 'amount=1', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type'],
    [await call('POST', '/holder/alice/spend', { key: M.secretKey, body: { tokenAddress: T.address, amount: 1e6 } }), 422, 'insufficient_balance'],
  ];
  for (const [r, status, code] of cases) {
    const e = fails(r, status, code);
    assert.equal(typeof e.error, 'string', r.text);
    assert.equal(e.error, e.message, r.text);
    assert.ok(e.error.length > 0);
  }
});

test('Authorization: Bearer <sk> works as x-api-key; Bearer <pk> reads; a secret key in the URL is still refused', async () => {
  const bearer = (k) => ({ authorization: `Bearer ${k}` });
  // Secret routes with Bearer sk (any case of the scheme).
  const all = ok(await call('GET', '/merchant/all-tokens', { headers: bearer(M.secretKey) }));
  assert.ok(all.some((t) => t.address === T.address));
  ok(await call('GET', '/merchant/all-tokens', { headers: { Authorization: `bearer ${M.secretKey}` } }));
  const erin = ok(await call('PUT', '/holder/erin', { headers: bearer(M.secretKey) }), 201);
  ok(await call('POST', `/token/${T.address}/distribute`, { headers: bearer(M.secretKey), body: { sendTo: 'erin', amount: 4 } }));
  ok(await call('POST', `/token/${T.address}/reward`, { headers: bearer(M.secretKey), body: { sendTo: erin.address, amount: 1 } }), 202);
  // Public reads with Bearer pk.
  const h = ok(await call('GET', '/holder/erin', { headers: bearer(M.publicKey) }));
  assert.equal(h.tokens.find((t) => t.address === T.address).balance, 5);
  const tok = await call('GET', `/token/${T.address}`, { headers: bearer(M.publicKey) });
  assert.equal(ok(tok).address, T.address);
  assert.equal(ok(await call('GET', `/holder/erin/token/${T.address}`, { headers: bearer(M.publicKey) })).balance, 5);
  // A public key does not write, through either header; x-api-key wins over Authorization.
  fails(await call('PUT', '/holder/frank', { headers: bearer(M.publicKey) }), 403, 'secret_key_required');
  fails(await call('GET', '/merchant/all-tokens', { key: M.publicKey, headers: bearer(M.secretKey) }), 403, 'secret_key_required');
  // Not a key.
  fails(await call('GET', '/merchant/all-tokens', { headers: bearer('sk_nope') }), 401, 'invalid_api_key');
  fails(await call('GET', '/merchant/all-tokens', { headers: { authorization: `Basic ${M.secretKey}` } }), 401, 'missing_api_key');
  fails(await call('GET', '/merchant/all-tokens', { headers: { authorization: 'Bearer' } }), 401, 'missing_api_key');
  fails(await call('GET', `/token/${T.address}`, { headers: { authorization: `Token ${M.publicKey}` } }), 401, 'public_key_not_found');
  // A secret key in the URL is refused whatever the header says.
  fails(await call('GET', `/token/${T.address}?publicKey=${M.secretKey}`, { headers: bearer(M.secretKey) }), 400, 'secret_key_in_url');
  fails(await call('GET', `/merchant/all-tokens?apiKey=${M.secretKey}`, { headers: bearer(M.secretKey) }), 400, 'secret_key_in_url');
  fails(await call('GET', `/holder/erin?key=${M.secretKey}`, { headers: bearer(M.publicKey) }), 400, 'secret_key_in_url');
  assert.equal(await balance(M, 'erin', T.address), 5);
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
