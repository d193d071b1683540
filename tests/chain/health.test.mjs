// GET /health on a real EVM node tells the truth (issue #36): when the node stops answering,
// /health says so (ok: false, 503, node unreachable), from the settlers' own rounds, without a
// call to the node per request and without the RPC URL; it says when the node last answered
// and how the merchants' relayers stand (one out of gas), and recovers when the node does.
// The worker talks to anvil through a proxy (rpc_proxy.mjs) the test can make fail or hang.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chainConfig, deployBase, rpc, startAnvil } from './anvil.mjs';
import { startProxy } from './rpc_proxy.mjs';
import { api, fundRelayer, startWorker } from '../http/harness.mjs';
import { assertMatches } from '../http/openapi.mjs';
import { checkedClient, until as waitFor } from '../http/check.mjs';

let anvil;
let proxy;
let w;
const c = checkedClient(() => w);
const { call, ok, newMerchant, newToken } = c;

const until = (what, check) => waitFor(what, check, { timeoutMs: 45_000, every: 200 });
/** /health as it answers (its 503 included), checked against openapi.json, never naming the node. */
async function health() {
  const r = await api(w, 'GET', '/health');
  assertMatches('GET', '/health', r.status, r.json);
  assert.ok(!r.text.includes(proxy.url) && !r.text.includes(anvil.rpcUrl), `/health names the node: ${r.text}`);
  assert.ok(!/127\.0\.0\.1|localhost/.test(r.text), r.text);
  assert.equal(r.status, r.json.ok ? 200 : 503, r.text);
  return r.json;
}

before(async () => {
  anvil = await startAnvil();
  const base = await deployBase(anvil.rpcUrl);
  proxy = await startProxy(anvil.rpcUrl);
  w = await startWorker({
    chain: chainConfig(base, proxy.url, anvil.chainId),
    env: { CHAIN_RPC_TIMEOUT_MS: '1000' },
  });
});
after(async () => {
  await w?.stop();
  await proxy?.stop();
  await anvil?.stop();
});

test('with no merchant yet, the node is unknown: nothing has tried it', async () => {
  const h = await health();
  assert.equal(h.ok, true);
  assert.equal(h.chain.kind, 'evm');
  assert.equal(h.chain.chainId, anvil.chainId);
  assert.equal(h.chain.node.status, 'unknown');
  assert.equal(h.chain.relayers.reporting, 0);
});

test('the node unreachable: /health says so from the settlers\' last contact, and recovers with it', async () => {
  const m = await newMerchant('Health');
  await newToken(m, { name: 'Healthy', symbol: 'HLT' });
  let h = await until('the settler reports the node reachable', async () => {
    const x = await health();
    return x.chain.node.status === 'reachable' && x.chain.relayers.ready >= 1 && x;
  });
  assert.equal(h.ok, true);
  const contact = Date.parse(h.chain.node.lastContactAt);
  assert.ok(Number.isFinite(contact));

  // The node stops answering (HTTP errors from its endpoint): the next rounds fail.
  proxy.mode = 'fail';
  try {
    h = await until('/health to report the node unreachable', async () => {
      const x = await health();
      return x.chain.node.status === 'unreachable' && x;
    });
    assert.equal(h.ok, false);
    assert.match(h.error, /did not answer/);
    assert.ok(Date.parse(h.chain.node.lastContactAt) >= contact, 'the last contact is still told');
    assert.ok(Date.parse(h.chain.node.checkedAt) > Date.parse(h.chain.node.lastContactAt));

    // It hangs: /health answers at once all the same (it never calls the node itself).
    proxy.mode = 'hang';
    const calls = proxy.calls.length;
    const t0 = Date.now();
    for (let i = 0; i < 20; i++) assert.equal((await health()).ok, false);
    assert.ok(Date.now() - t0 < 5_000, `20 /health took ${Date.now() - t0} ms with the node hanging`);
    // (The settler's own rounds, one every few seconds while it fails, are all the node saw.)
    assert.ok(proxy.calls.length - calls < 20, `${proxy.calls.length - calls} calls reached the node`);
  } finally {
    proxy.mode = 'pass';
  }
  h = await until('/health to report the node reachable again', async () => {
    const x = await health();
    return x.chain.node.status === 'reachable' && x;
  });
  assert.equal(h.ok, true);
  assert.equal(h.error, undefined);
  assert.ok(Date.parse(h.chain.node.lastContactAt) > contact);
});

test('a relayer out of gas shows in /health; the node is fine, so /health stays ok', async () => {
  const m = await newMerchant('Broke');
  const t = await newToken(m, { name: 'Broke', symbol: 'BRK', canDistribute: true });
  ok(await call('PUT', '/holder/ann', { key: m.secretKey }), 201);
  await rpc(anvil.rpcUrl, 'anvil_setBalance', [m.merchantAddress, '0x0']);
  ok(await call('POST', `/token/${t.address}/distribute`, { key: m.secretKey, body: { sendToId: 'ann', amount: 1 } }));
  let h = await until('/health to count a relayer out of gas', async () => {
    const x = await health();
    return x.chain.relayers.outOfGas >= 1 && x;
  });
  assert.equal(h.ok, true);
  assert.equal(h.chain.node.status, 'reachable');
  await fundRelayer(w, m.merchantAddress);
  h = await until('the relayer to be ready once funded', async () => {
    const x = await health();
    return x.chain.relayers.outOfGas === 0 && x;
  });
  assert.ok(h.chain.relayers.ready >= 2, JSON.stringify(h.chain.relayers));
  // What the admin route says of it names the relayer (the operator's view), /health never does.
  assert.ok(!JSON.stringify(h).toLowerCase().includes(m.merchantAddress.toLowerCase()));
});
