// Memecoin and airdrop deployments (contract §9): the template endpoints with every
// validation error, status polling in all three forms, pending -> success on the chain port,
// the overview page at serviceBuildUrl, the exchange link, the deployed token as a Token like
// any other (holders of record), a memecoin's pool, idempotency, a failed deployment, and
// isolation between merchants. Every JSON response is checked against openapi.json and must
// never be a 5xx.
//
// It runs on both chains. With TOKENPAD_TEST_CHAIN=anvil the deployments are real
// transactions (a memecoin's second one opens its Uniswap v3 pool, and the deployment succeeds
// only once that is mined), tokens say network `local`, no exchange link is given (no public
// exchange reaches a local node), and the suite ends with ledger and chain reconciled. The
// overview page links to no exchange on either chain.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, fundRelayer, startWorker } from './harness.mjs';
import { checkedClient, minedReceipt, minedRecord, until } from './check.mjs';
import { assertMatches } from './openapi.mjs';
import { HASH, MISSING, UUID, addr, airdrop, chromiumPath, deployKit, memecoin, playwright } from './deploy_kit.mjs';
import { exact, units, usdc, valueAt } from './amounts.mjs';
import * as v3 from './v3.mjs';
import { codeAt, rpc } from '../chain/anvil.mjs';

let w;
const c = checkedClient(() => w);
const { call, evm, newMerchant, ok, fails } = c;
const { page, exchangeUrl, networkOf, networkName, hold, release, mined, statusForms, status, deploy } = deployKit(c, () => w);

let A;
let B;
before(async () => {
  w = await startWorker();
  A = await newMerchant('Deployer A');
  B = await newMerchant('Deployer B');
});
after(async () => {
  await w?.stop();
});

// ---- memecoin -------------------------------------------------------------------------------
test('memecoin: pending, then success in every status form once the token and its pool are on chain', async () => {
  await hold();
  let id;
  let pending;
  try {
    id = await deploy('memecoin', A, memecoin());
    pending = await status('memecoin', id, A.secretKey);
    assert.equal(pending.id, id);
    assert.equal(pending.status, 'pending');
    assert.match(pending.tokenAddress, /^0x[0-9a-fA-F]{40}$/);
    if (evm()) {
      // A hash only once there is a transaction, never an invented one.
      if (pending.transactionHash !== undefined) {
        assert.match(pending.transactionHash, HASH);
        assert.ok(await rpc(w.chain.rpcUrl, 'eth_getTransactionByHash', [pending.transactionHash]), 'the node knows the pending hash');
      }
    } else {
      assert.match(pending.transactionHash, HASH);
    }
    assert.equal(pending.serviceBuildUrl, undefined);
    assert.equal(pending.exchangeUrl, undefined);
    assert.equal(pending.error, undefined);
    // Status reads are secret-key routes: no CORS.
    const r = await call('GET', `/memecoin/status?id=${id}`, { key: A.secretKey });
    assert.equal(r.headers.get('access-control-allow-origin'), null);

    // The token does not exist until the transaction is mined.
    fails(await call('GET', `/token/${pending.tokenAddress}?publicKey=${A.publicKey}`), 404, 'token_not_found');
    const p = await page(`/deployments/${id}`);
    assert.equal(p.status, 200);
    assert.match(p.text, />pending</);
    assert.ok(p.text.includes(pending.tokenAddress));

    if (evm()) {
      // The token's deployment mined, its pool's opening not yet: still pending. Mine block by
      // block until the token has code and the market's opening transaction waits in the pool.
      const txTo = async (to) => {
        const pool = await rpc(w.chain.rpcUrl, 'txpool_content', []);
        return Object.values(pool.pending).flatMap((byNonce) => Object.values(byNonce)).some((tx) => tx.to?.toLowerCase() === to.toLowerCase());
      };
      await until('the token deployed, its pool\'s opening sent', async () => {
        if ((await codeAt(w.chain.rpcUrl, pending.tokenAddress)) === '0x') await rpc(w.chain.rpcUrl, 'evm_mine', []);
        return (await codeAt(w.chain.rpcUrl, pending.tokenAddress)) !== '0x' && txTo(w.chain.market);
      }, { timeoutMs: 30_000, every: 100 });
      assert.equal((await status('memecoin', id, A.secretKey)).status, 'pending', 'a memecoin succeeds only once its pool is open');
      const t = await call('GET', `/token/${pending.tokenAddress}?publicKey=${A.publicKey}`);
      if (t.status === 200) {
        assert.equal(t.json.pool.status, 'pending');
        assert.equal(t.json.pool.lpInfo.nftId, null);
      } else {
        fails(t, 404, 'token_not_found');
      }
    }
  } finally {
    await release();
  }

  await mined(['memecoin', id, A.secretKey]);
  const done = await status('memecoin', id, A.secretKey);
  assert.deepEqual(done, {
    id,
    status: 'success',
    tokenAddress: pending.tokenAddress,
    transactionHash: evm() ? done.transactionHash : pending.transactionHash,
    serviceBuildUrl: `${w.baseUrl}/deployments/${id}`,
    ...(evm() ? {} : { exchangeUrl: exchangeUrl('base', pending.tokenAddress) }),
  });
  if (evm()) {
    assert.match(done.transactionHash, HASH);
    const receipt = await minedReceipt(w, done.transactionHash);
    assert.equal(receipt.to.toLowerCase(), w.chain.factory.toLowerCase(), 'deployed through tokenpad\'s factory');
  }

  // The overview page at serviceBuildUrl.
  const o = await page(done.serviceBuildUrl);
  assert.equal(o.status, 200);
  assert.match(o.text, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
  assert.ok(o.text.includes('Pepe &lt;Two&gt; &amp; Co'), 'the name, escaped');
  assert.ok(!o.text.includes('<Two>'));
  assert.ok(o.text.includes('PEPE2'));
  assert.ok(o.text.includes(done.tokenAddress));
  assert.ok(o.text.includes(done.transactionHash));
  assert.ok(o.text.includes('1,000,000 PEPE2'), 'total supply');
  assert.ok(o.text.includes('$0.0001 per token'), 'price');
  assert.ok(o.text.includes(networkName('base')));
  assert.match(o.text, />success</);
  // No exchange link on either chain: a local node's token is on no public exchange, and the
  // embedded chain's exists only in the service's ledger, whatever network it names (the
  // API's exchangeUrl stays, as Metal answers it; the page a person follows does not send
  // them to trade a token that is not there).
  assert.ok(!o.text.includes('app.uniswap.org') && !o.text.includes('Uniswap'), 'no exchange link');
  if (!evm()) assert.match(o.text, /exists only in this service's own ledger \(its embedded\s+chain\), not on Base/);
  assert.match(o.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  assert.equal(o.headers.get('x-content-type-options'), 'nosniff');

  // A Token like any other.
  const tr = await call('GET', `/token/${done.tokenAddress}?publicKey=${A.publicKey}`);
  const t = ok(tr);
  const x = exact(tr);
  assert.equal(t.address, done.tokenAddress);
  assert.equal(t.name, 'Pepe <Two> & Co');
  assert.equal(t.symbol, 'PEPE2');
  assert.equal(t.network, networkOf('base'));
  assert.equal(t.totalSupply, 1000000);
  assert.equal(t.startingAppSupply, 0);
  assert.equal(t.remainingAppSupply, 0);
  assert.equal(t.merchantSupply, 0);
  // What the recipient did not get opened the memecoin's pool (a Uniswap v3 pool, open) at the
  // usable tick nearest its initial price; the few units the position could not take stay.
  assert.equal(t.pool.status, 'open');
  assert.match(t.pool.lpInfo.nftId, /^[0-9]+$/);
  assert.equal(t.pool.fee, 0.3);
  assert.ok(t.pool.tick % 60 === 0, `tick ${t.pool.tick}`);
  assert.equal(BigInt(t.pool.sqrtPriceX96), v3.sqrtAt(t.pool.tick));
  const reserve = units(x.pool.tokenReserve);
  assert.ok(reserve <= units(900000) && (units(900000) - reserve) * 10n ** 9n < units(900000), `pool ${reserve}`);
  assert.equal(units(x.liquiditySupply), units(900000) - reserve);
  assert.equal(usdc(x.pool.usdcReserve), 0n);
  const price = units(x.price);
  assert.equal(price, units(x.pool.price), 'the token\'s price is its pool\'s');
  const asked = units('0.0001');
  assert.ok((price > asked ? price - asked : asked - price) * 1000n <= asked * 3n, `${price}: within 0.3 % of the initial price`);
  if (evm()) {
    assert.notEqual(await codeAt(w.chain.rpcUrl, t.pool.address), '0x', 'the pool contract exists');
  }
  assert.equal(t.origin, 'memecoin');
  assert.equal(t.marketplace, true);
  assert.equal(t.holdersCount, 1);
  assert.equal(t.holders[0].address.toLowerCase(), addr(1));
  assert.equal(t.holders[0].balance, 100000);
  assert.equal(usdc(x.holders[0].value), valueAt(units(100000), price), '100000 at the pool\'s price');
  assert.ok(o.text.includes(t.holders[0].address), 'the holder is on the page');
  const all = ok(await call('GET', '/merchant/all-tokens', { key: A.secretKey }));
  assert.ok(all.some((y) => y.address === done.tokenAddress && y.origin === 'memecoin'));
});

test('memecoin noLp: the recipient holds the whole supply, no liquidity', async () => {
  const id = await deploy('memecoin', A, memecoin({
    symbol: 'NOLP', noLp: true, recipient: { address: addr(2), amount: '1000000' },
  }));
  await mined(['memecoin', id, A.secretKey]);
  const d = await status('memecoin', id, A.secretKey);
  assert.equal(d.status, 'success');
  const t = ok(await call('GET', `/token/${d.tokenAddress}`, { key: A.secretKey }));
  assert.equal(t.pool, undefined, 'no pool');
  assert.equal(t.price, 0.0001, 'the initial price');
  assert.equal(t.liquiditySupply, 0);
  assert.equal(t.canLP, false);
  assert.equal(t.holders[0].balance, 1000000);
});

// ---- airdrop --------------------------------------------------------------------------------
test('airdrop: holders of record, a custodial holder sees it, the page lists holders', async () => {
  const alice = ok(await call('PUT', '/holder/alice', { key: A.secretKey }), 201);
  const body = airdrop({
    airdrop: { addresses: [alice.address.toLowerCase(), addr(11), addr(12)], supply: 100 },
  });
  let id;
  await hold();
  try {
    id = await deploy('airdrop', A, body);
    assert.equal((await status('airdrop', id, A.secretKey)).status, 'pending');
  } finally {
    await release();
  }
  await mined(['airdrop', id, A.secretKey]);
  const d = await status('airdrop', id, A.secretKey);
  assert.equal(d.status, 'success');
  assert.equal(d.serviceBuildUrl, `${w.baseUrl}/deployments/${id}`);
  assert.equal(d.exchangeUrl, exchangeUrl('base-sepolia', d.tokenAddress));

  const t = ok(await call('GET', `/token/${d.tokenAddress}?publicKey=${A.publicKey}`));
  assert.equal(t.origin, 'airdrop');
  assert.equal(t.marketplace, false);
  assert.equal(t.network, networkOf('base-sepolia'));
  assert.equal(t.price, 0.5);
  assert.equal(t.holdersCount, 4);
  assert.equal(t.liquiditySupply, 650);
  const byAddress = Object.fromEntries(t.holders.map((h) => [h.address.toLowerCase(), h]));
  assert.equal(byAddress[alice.address.toLowerCase()].balance, 100);
  assert.equal(byAddress[alice.address.toLowerCase()].id, 'alice');
  assert.equal(byAddress[addr(11)].balance, 100);
  assert.equal(byAddress[addr(12)].balance, 100);
  assert.equal(byAddress[addr(1)].balance, 50);

  const bal = ok(await call('GET', `/holder/alice/token/${d.tokenAddress}`, { key: A.secretKey }));
  assert.equal(bal.balance, 100);
  assert.equal(bal.value, 50);
  // On a chain the airdrop's transfers are transactions of their own, after the deployment's.
  if (evm()) await minedRecord(w, A, 'alice', 'distribute');
  const hist = ok(await call('GET', `/holder/alice/transactions?tokenAddress=${d.tokenAddress}`, { key: A.secretKey }));
  assert.equal(hist.data.length, 1);
  assert.equal(hist.data[0].type, 'distribute');
  assert.equal(hist.data[0].context, 'Airdrop');
  if (!evm()) assert.equal(hist.data[0].transactionHash, d.transactionHash);
  assert.equal(hist.data[0].chainStatus, 'confirmed');
  assert.equal(hist.data[0].amount, 100);
  // The tokens move like any other token's.
  ok(await call('POST', '/holder/alice/spend', { key: A.secretKey, body: { tokenAddress: d.tokenAddress, amount: 10 } }));

  const o = await page(d.serviceBuildUrl);
  assert.equal(o.status, 200);
  assert.ok(o.text.includes('Holders (4)'));
  assert.ok(o.text.includes('Airdrop deployment'));
  assert.ok(o.text.includes(networkName('base-sepolia')));
  assert.ok(o.text.includes(alice.address));
  assert.ok(!o.text.includes('alice'), 'no userIds on the public page');
});

// ---- status forms, not found, isolation ----------------------------------------------------
test('status: wrong kind, unknown id, missing id, and another merchant are answered 404/400', async () => {
  const meme = await deploy('memecoin', A, memecoin({ symbol: 'ISO' }));
  const drop = await deploy('airdrop', A, airdrop({ symbol: 'ISO2' }));
  // A memecoin id on the airdrop routes, and the other way round.
  for (const r of await statusForms('airdrop', meme, A.secretKey)) fails(r, 404, 'deployment_not_found');
  for (const r of await statusForms('memecoin', drop, A.secretKey)) fails(r, 404, 'deployment_not_found');
  // Unknown ids.
  for (const id of [MISSING, 'not-a-uuid', '12345']) {
    for (const r of await statusForms('memecoin', id, A.secretKey)) fails(r, 404, 'deployment_not_found');
  }
  // The id as a JSON number (the interface calls it an integer once) is read as its text.
  fails(await call('POST', '/memecoin/status', { key: A.secretKey, body: { id: 12345 } }), 404, 'deployment_not_found');
  // Missing id.
  fails(await call('GET', '/memecoin/status', { key: A.secretKey }), 400, 'invalid_request', 'id');
  fails(await call('GET', '/airdrop/status?id=', { key: A.secretKey }), 400, 'invalid_request', 'id');
  fails(await call('POST', '/memecoin/status', { key: A.secretKey, body: {} }), 400, 'invalid_request', 'id');
  fails(await call('POST', '/airdrop/status', { key: A.secretKey }), 400, 'invalid_request', 'id');
  fails(await call('POST', '/memecoin/status', { key: A.secretKey, body: { id: { x: 1 } } }), 400, 'invalid_request', 'id');
  fails(await call('POST', '/memecoin/status', { key: A.secretKey, body: [meme] }), 400, 'invalid_request');
  fails(await call('POST', '/memecoin/status', { key: A.secretKey, rawBody: '{"id":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
  // Merchant B cannot see A's deployments, in any form, nor A's deployed token.
  await mined(['memecoin', meme, A.secretKey], ['airdrop', drop, A.secretKey]);
  for (const r of await statusForms('memecoin', meme, B.secretKey)) fails(r, 404, 'deployment_not_found');
  for (const r of await statusForms('airdrop', drop, B.secretKey)) fails(r, 404, 'deployment_not_found');
  const d = await status('memecoin', meme, A.secretKey);
  fails(await call('GET', `/token/${d.tokenAddress}?publicKey=${B.publicKey}`), 404, 'token_not_found');
  const allB = ok(await call('GET', '/merchant/all-tokens', { key: B.secretKey }));
  assert.ok(!allB.some((t) => t.address === d.tokenAddress));
  // Keys: none, public, secret in the URL.
  fails(await call('GET', `/template/memecoin/status/${meme}`), 401, 'missing_api_key');
  fails(await call('GET', `/memecoin/status?id=${meme}`, { key: A.publicKey }), 403, 'secret_key_required');
  fails(await call('POST', '/template/memecoin', { key: A.publicKey, body: memecoin() }), 403, 'secret_key_required');
  fails(await call('GET', `/memecoin/status?id=${meme}&k=${A.secretKey}`, { key: A.secretKey }), 400, 'secret_key_in_url');
  fails(await call('POST', '/template/airdrop', { key: 'sk_bogus', body: airdrop() }), 401, 'invalid_api_key');
  // Wrong methods.
  fails(await call('GET', '/template/memecoin', { key: A.secretKey }), 405, 'method_not_allowed');
  fails(await call('DELETE', '/memecoin/status', { key: A.secretKey }), 405, 'method_not_allowed');
});

test('overview page: unknown ids are an HTML 404; another merchant\'s link still opens (no key)', async () => {
  for (const id of [MISSING, 'nope', '%3Cscript%3E']) {
    const p = await page(`/deployments/${id}`);
    assert.equal(p.status, 404);
    assert.ok(p.text.includes('Deployment not found'));
    assert.ok(!p.text.includes('<script>'));
  }
  // The page is public: B's deployment opens without any key.
  const id = await deploy('memecoin', B, memecoin({ name: 'Bee', symbol: 'BEE' }));
  await mined(['memecoin', id, B.secretKey]);
  const d = await status('memecoin', id, B.secretKey);
  const p = await page(`/deployments/${id.toUpperCase()}`);
  assert.equal(p.status, 200);
  assert.ok(p.text.includes('Bee'));
  assert.ok(p.text.includes(d.tokenAddress));
});

// ---- validation -----------------------------------------------------------------------------
test('every validation error of the template endpoints', async () => {
  const set = (body, path, value) => {
    const copy = structuredClone(body);
    const parts = path.split('.');
    const last = parts.pop();
    let node = copy;
    for (const p of parts) node = node[p] ??= {};
    if (value === undefined) delete node[last];
    else node[last] = value;
    return copy;
  };
  const many = Array.from({ length: 1001 }, (_, i) => '0x' + (0x100000 + i).toString(16) + 'c'.repeat(34));
  // [kind, body, status, code, details.field]
  const table = [
    ['memecoin', set(memecoin(), 'name', undefined), 400, 'invalid_request', 'name'],
    ['airdrop', set(airdrop(), 'name', 42), 400, 'invalid_request', 'name'],
    ['memecoin', set(memecoin(), 'name', 'x'.repeat(65)), 400, 'invalid_request', 'name'],
    ['memecoin', set(memecoin(), 'symbol', undefined), 400, 'invalid_request', 'symbol'],
    ['airdrop', set(airdrop(), 'symbol', 'NOT OK'), 400, 'invalid_request', 'symbol'],
    ['memecoin', set(memecoin(), 'totalSupply', undefined), 400, 'invalid_request', 'totalSupply'],
    ['memecoin', set(memecoin(), 'totalSupply', 0), 400, 'invalid_amount', 'totalSupply'],
    ['airdrop', set(airdrop(), 'totalSupply', -1000), 400, 'invalid_amount', 'totalSupply'],
    ['memecoin', set(memecoin(), 'totalSupply', '1.0000000000000000001'), 400, 'invalid_amount', 'totalSupply'],
    ['memecoin', set(memecoin(), 'totalSupply', false), 400, 'invalid_amount', 'totalSupply'],
    ['memecoin', set(memecoin(), 'initialPrice', undefined), 400, 'invalid_request', 'initialPrice'],
    ['memecoin', set(memecoin(), 'initialPrice', 0), 400, 'invalid_amount', 'initialPrice'],
    ['airdrop', set(airdrop(), 'initialPrice', '-0.5'), 400, 'invalid_amount', 'initialPrice'],
    ['memecoin', set(memecoin(), 'network', undefined), 400, 'invalid_request', 'network'],
    ['memecoin', set(memecoin(), 'network', 'mainnet'), 400, 'invalid_network', 'network'],
    ['airdrop', set(airdrop(), 'network', 'polygon'), 400, 'invalid_network', 'network'],
    ['memecoin', set(memecoin(), 'marketplace', undefined), 400, 'invalid_request', 'marketplace'],
    ['airdrop', set(airdrop(), 'marketplace', 'yes'), 400, 'invalid_request', 'marketplace'],
    ['memecoin', set(memecoin(), 'recipient', 'me'), 400, 'invalid_request', 'recipient'],
    ['memecoin', set(memecoin(), 'recipient.address', '0x1234'), 400, 'invalid_address', 'recipient.address'],
    ['memecoin', set(memecoin(), 'recipient.address', undefined), 400, 'invalid_request', 'recipient.address'],
    ['memecoin', set(memecoin(), 'recipient.supply', undefined), 400, 'invalid_request', 'recipient.amount'],
    ['memecoin', set(memecoin(), 'recipient.supply', 0), 400, 'invalid_amount', 'recipient.supply'],
    ['memecoin', set(memecoin(), 'recipient.amount', 5), 400, 'invalid_request', 'recipient.amount'],
    ['memecoin', set(memecoin(), 'recipient.supply', 1000001), 400, 'allocation_exceeds_supply', 'recipient.amount'],
    ['airdrop', set(airdrop(), 'recipient.amount', 'lots'), 400, 'invalid_amount', 'recipient.amount'],
    ['memecoin', set(memecoin(), 'noLp', 1), 400, 'invalid_request', 'noLp'],
    ['memecoin', set(set(memecoin(), 'recipient', undefined), 'noLp', true), 400, 'invalid_request', 'recipient.address'],
    ['memecoin', set(memecoin(), 'noLp', true), 400, 'invalid_amount', 'recipient.amount'],
    ['airdrop', set(airdrop(), 'airdrop', undefined), 400, 'invalid_request', 'airdrop'],
    ['airdrop', set(airdrop(), 'airdrop.addresses', undefined), 400, 'invalid_request', 'airdrop.addresses'],
    ['airdrop', set(airdrop(), 'airdrop.addresses', addr(10)), 400, 'invalid_request', 'airdrop.addresses'],
    ['airdrop', set(airdrop(), 'airdrop.addresses', []), 400, 'invalid_request', 'airdrop.addresses'],
    ['airdrop', set(airdrop(), 'airdrop.addresses', many), 400, 'invalid_request', 'airdrop.addresses'],
    ['airdrop', set(airdrop(), 'airdrop.addresses', [addr(10), '0xzz']), 400, 'invalid_address', 'airdrop.addresses'],
    ['airdrop', set(airdrop(), 'airdrop.addresses', [addr(10), addr(10).toUpperCase().replace('0X', '0x')]), 400, 'invalid_request', 'airdrop.addresses'],
    ['airdrop', set(airdrop(), 'airdrop.supply', undefined), 400, 'invalid_request', 'airdrop.supply'],
    ['airdrop', set(airdrop(), 'airdrop.supply', 0), 400, 'invalid_amount', 'airdrop.supply'],
    ['airdrop', set(airdrop(), 'airdrop.supply', 317), 400, 'allocation_exceeds_supply', 'airdrop.supply'],
    // JSON numbers: a string takes only digits and a fraction (`"1e20"` is 400 invalid_amount).
    ['airdrop', set(set(airdrop(), 'totalSupply', 1e20), 'airdrop.supply', 1e20), 400, 'allocation_exceeds_supply', 'airdrop.supply'],
  ];
  for (const [kind, body, st, code, field] of table) {
    const r = await call('POST', `/template/${kind}`, { key: A.secretKey, body });
    const err = fails(r, st, code, field);
    if (code === 'invalid_network') assert.deepEqual(err.details.allowed, ['base', 'base-sepolia', 'sepolia', 'local']);
    if (code === 'allocation_exceeds_supply') assert.equal(typeof err.details.totalSupply, 'number');
  }
  const dup = fails(await call('POST', '/template/airdrop', {
    key: A.secretKey, body: set(airdrop(), 'airdrop.addresses', [addr(10), addr(11), addr(10)]),
  }), 400, 'invalid_request', 'airdrop.addresses');
  assert.equal(dup.details.index, 2);
  // Body-level errors.
  fails(await call('POST', '/template/memecoin', { key: A.secretKey, rawBody: '{', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
  fails(await call('POST', '/template/airdrop', { key: A.secretKey, rawBody: 'name=x', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
  fails(await call('POST', '/template/memecoin', { key: A.secretKey, body: [1] }), 400, 'invalid_request');
  fails(await call('POST', '/template/memecoin', { key: A.secretKey }), 400, 'invalid_request', 'name');
  // The maximum airdrop list and an allocation of exactly totalSupply are accepted.
  const max = many.slice(0, 1000);
  const id = await deploy('airdrop', A, set(set(set(airdrop(), 'airdrop.addresses', max), 'airdrop.supply', 1), 'totalSupply', 1050));
  await mined(['airdrop', id, A.secretKey]);
  const d = await status('airdrop', id, A.secretKey);
  const t = ok(await call('GET', `/token/${d.tokenAddress}?holdersLimit=1000`, { key: A.secretKey }));
  assert.equal(t.holdersCount, 1001);
  assert.equal(t.liquiditySupply, 0);
});

// ---- idempotency ----------------------------------------------------------------------------
test('idempotency: a create replays its id; status POSTs are reads and never replayed', async () => {
  const headers = { 'Idempotency-Key': `deploy-${Date.now()}` };
  const sh = { 'Idempotency-Key': `status-${Date.now()}` };
  let id;
  await hold();
  try {
    const first = await call('POST', '/template/memecoin', { key: A.secretKey, body: memecoin({ symbol: 'IDEM' }), headers });
    id = ok(first, 201).id;
    const again = await call('POST', '/template/memecoin', { key: A.secretKey, body: memecoin({ symbol: 'IDEM' }), headers });
    assert.equal(ok(again, 201).id, id);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    fails(await call('POST', '/template/memecoin', { key: A.secretKey, body: memecoin({ symbol: 'OTHER' }), headers }), 409, 'idempotency_key_reused');
    // The replayed id still opens its page.
    assert.equal((await page(`/deployments/${id}`)).status, 200);
    const s1 = ok(await call('POST', '/memecoin/status', { key: A.secretKey, body: { id }, headers: sh }));
    assert.equal(s1.data.status, 'pending');
  } finally {
    await release();
  }
  await mined(['memecoin', id, A.secretKey]);
  const s2 = await call('POST', '/memecoin/status', { key: A.secretKey, body: { id }, headers: sh });
  assert.equal(ok(s2).data.status, 'success');
  assert.equal(s2.headers.get('idempotent-replayed'), null);
});

// ---- failure --------------------------------------------------------------------------------
test('a deployment whose transaction fails is failed, with an error and no links', async (t) => {
  const faults = await api(w, 'POST', '/admin/chain/faults', { adminKey: w.adminKey, body: { merchantId: A.id, count: 1 } });
  if (faults.status === 404) {
    t.skip('POST /admin/chain/faults is not available in this build');
    return;
  }
  assert.equal(faults.status, 200, faults.text);
  const id = await deploy('airdrop', A, airdrop({ symbol: 'FAIL' }));
  const d = await status('airdrop', id, A.secretKey);
  assert.equal(d.status, 'failed');
  assert.equal(typeof d.error, 'string');
  assert.equal(d.transactionHash, undefined);
  assert.equal(d.serviceBuildUrl, undefined);
  assert.equal(d.exchangeUrl, undefined);
  await mined();
  if (evm()) await c.settled(A);
  assert.equal((await status('airdrop', id, A.secretKey)).status, 'failed');
  fails(await call('GET', `/token/${d.tokenAddress}`, { key: A.secretKey }), 404, 'token_not_found');
  const p = await page(`/deployments/${id}`);
  assert.equal(p.status, 200);
  assert.match(p.text, />failed</);
});

// ---- public base URL ------------------------------------------------------------------------
test('PUBLIC_BASE_URL sets serviceBuildUrl\'s base', async () => {
  const other = await startWorker({ env: { PUBLIC_BASE_URL: 'https://tokens.example.com/' } });
  try {
    const m = ok(await api(other, 'POST', '/admin/merchants', { adminKey: other.adminKey, body: { name: 'Based' } }), 201);
    await fundRelayer(other, m.merchantAddress);
    const created = ok(await api(other, 'POST', '/template/memecoin', { key: m.secretKey, body: memecoin() }), 201);
    let r;
    await until('the deployment mined', async () => {
      if (other.chain.kind !== 'evm') await api(other, 'POST', '/admin/time/advance', { adminKey: other.adminKey, body: { seconds: 5 } });
      r = ok(await api(other, 'GET', `/memecoin/status?id=${created.id}`, { key: m.secretKey }));
      return r.data.status !== 'pending';
    }, { timeoutMs: 60_000, every: 100 });
    assertMatches('GET', '/memecoin/status', 200, r);
    assert.equal(r.data.status, 'success');
    assert.equal(r.data.serviceBuildUrl, `https://tokens.example.com/deployments/${created.id}`);
  } finally {
    await other.stop();
  }
});

// ---- phone width (optional: playwright-core and a local Chromium, deploy_kit.mjs) -----------
test('the overview page fits a 375 px wide phone screen', { skip: !playwright && 'no Chromium/playwright-core' }, async () => {
  const addresses = Array.from({ length: 25 }, (_, i) => '0x' + (0x200000 + i).toString(16) + 'e'.repeat(34));
  const id = await deploy('airdrop', A, airdrop({
    name: 'A Rather Long Token Name That Has To Wrap', symbol: 'LONGSYMBOL1', totalSupply: '123456789012.5',
    airdrop: { addresses, supply: 1000 },
  }));
  const browser = await playwright.chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  try {
    const tab = await browser.newPage({ viewport: { width: 375, height: 812 } });
    for (const when of ['pending', 'success']) {
      if (when === 'success') await mined(['airdrop', id, A.secretKey]);
      const res = await tab.goto(`${w.baseUrl}/deployments/${id}`);
      assert.equal(res.status(), 200);
      const text = await tab.textContent('body');
      if (when === 'success') assert.ok(text.includes('Holders (26)'));
      const width = await tab.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 375, `${when}: the page is ${width} px wide at a 375 px viewport`);
    }
  } finally {
    await browser.close();
  }
});

// ---- ledger and chain -----------------------------------------------------------------------
test('the ledger reconciles with the chain: zero differences, every memecoin pool\'s state matching', async () => {
  const { pools } = await c.reconcilePools();
  // On anvil every successful memecoin with a pool (PEPE2, ISO, BEE, IDEM) has one on chain;
  // the embedded chain is the ledger itself.
  if (evm()) assert.ok(pools >= 4, `${pools} pools compared`);
  else assert.equal(pools, 0);
});
