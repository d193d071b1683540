// Every call real Metal clients make (issue 9, point 3), against the real worker in workerd:
// distribute with `sendTo`, the `reward` route, the reward-supply aliases, job `id` /
// `metalBuildUrl` / `uniswapUrl` / `lpInfo`, presale `userAddress` / `createdAt` / `updatedAt`,
// a top-level `deploymentConfig`, the `error` field, `Authorization: Bearer`. Metal's own SDK
// pointed at tokenpad through the fetch wrapper: metal_sdk.test.mjs.
// Every response is checked against openapi.json and must never be a 5xx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { startWorker } from './harness.mjs';
import { checkedClient } from './check.mjs';
import { assertShape, PendingTokenResponse, SuccessfulTokenResponse, TokenRewardResponse } from './metal_shapes.mjs';

let w;
const { call, ok, fails, newMerchant, advance, newToken } = checkedClient(() => w);

const IMAGE = 'https://example.com/metal.png';
const HASH = /^0x[0-9a-f]{64}$/;
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
