#!/usr/bin/env node
// Gas per movement on a real node: the service on a local anvil (tests/http/harness.mjs), a
// merchant and a token, then rounds of movements, each waited for until settled, and the gas
// of every transaction the merchant's relayer sent in the round (receipts read from the node)
// divided by the round's movements:
//
//   - rewards to holders new to the token (the treasury's batchTransfer: a balance from zero);
//   - rewards to the same holders again (the target: at most 25 k gas each);
//   - holders' own transfers to each other (each one an EIP-3009 authorization its holder signs),
//     each holder's first (its first counted nonce: a fresh word of the token's bitmap) and then
//     its second (the next nonce: the word is already written);
//   - a presale's launch with two buyers (the token's deployment, the pool's opening with the
//     raise, the lock batch) and, a day later, its releases; then a few buys from its pool.
//
// Each transaction's margin is reported too: the gas limit the settler sent it with (the
// chain's estimate with its margin, or the call's floor: crates/core/src/ops/settle/round/gas.rs)
// over the gas it used, the least per kind of call.
//
//   node bench/gas.mjs [--holders 200] [--json out.json]
//
// scripts/bench.sh runs it after the HTTP benchmark (--quick: 40 holders). Gas is a count, not a
// time: the figures are the same on any machine for the same code.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { toFunctionSelector } from 'viem';
import { api, createMerchant, createToken, startWorker } from '../tests/http/harness.mjs';
import { artifact, rpc } from '../tests/chain/anvil.mjs';

const { values: opts } = parseArgs({
  options: {
    holders: { type: 'string', default: '200' },
    quick: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
const N = opts.quick ? 40 : Number(opts.holders);
if (!Number.isInteger(N) || N < 2) throw new Error(`--holders must be a whole number >= 2, not ${opts.holders}`);
const log = (m) => process.stderr.write(`[gas] ${m}\n`);
const ok = (r, what) => {
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text}`);
  return r.json;
};

/** Every function of tokenpad's contracts and the test USDC, by selector. */
const selectors = new Map();
for (const [contract, label] of [['TokenpadToken', 'token'], ['TokenpadFactory', 'factory'], ['TokenpadMarket', 'market'], ['TokenpadLocker', 'locker'], ['TestUSDC', 'USDC']]) {
  for (const item of artifact(contract).abi.filter((x) => x.type === 'function')) {
    const sel = toFunctionSelector(item);
    if (!selectors.has(sel)) selectors.set(sel, `${label}.${item.name}`);
  }
}

const w = await startWorker({ chain: 'anvil', env: { CHAIN_POLL_MS: '100', CHAIN_SCAN_MS: '300', CHAIN_BATCH_WINDOW_MS: '200' } });
try {
  const m = await createMerchant(w, 'Gas');
  const token = await createToken(w, m.secretKey, { name: 'Gas', symbol: 'GAS' });
  const T = token.address;
  const ids = Array.from({ length: N }, (_, i) => `g${i}`);
  const addresses = [];
  for (const id of ids) addresses.push(ok(await api(w, 'PUT', `/holder/${id}`, { key: m.secretKey }), `holder ${id}`).address);
  await settled(m);

  const rounds = [];
  /** The relayer's transactions mined since block `from`: each one's kind, gas used and limit. */
  const sent = async (from) => {
    const to = BigInt(await rpc(w.chain.rpcUrl, 'eth_blockNumber'));
    const out = [];
    for (let b = from; b <= to; b++) {
      const block = await rpc(w.chain.rpcUrl, 'eth_getBlockByNumber', [`0x${b.toString(16)}`, true]);
      for (const tx of block.transactions) {
        if (tx.from.toLowerCase() !== m.merchantAddress.toLowerCase()) continue;
        const receipt = await rpc(w.chain.rpcUrl, 'eth_getTransactionReceipt', [tx.hash]);
        out.push({ kind: kind(tx), used: Number(receipt.gasUsed), limit: Number(tx.gas), ok: receipt.status === '0x1' });
      }
    }
    return out;
  };
  const round = async (name, send, movements = N) => {
    const from = BigInt(await rpc(w.chain.rpcUrl, 'eth_blockNumber')) + 1n;
    await send();
    await settled(m);
    const txs = await sent(from);
    const gas = txs.reduce((sum, t) => sum + t.used, 0);
    const perMovement = Math.round(gas / movements);
    rounds.push({ name, movements, transactions: txs.length, gas: String(gas), perMovement, txs });
    log(`${name}: ${movements} movements in ${txs.length} transactions, ${perMovement.toLocaleString('en')} gas each`);
  };
  const each = (f) => () => Promise.all(ids.map((id, i) => f(id, i)));

  const distribute = (id) => api(w, 'POST', `/token/${T}/distribute`, { key: m.secretKey, body: { sendToId: id, amount: 10 } })
    .then((r) => ok(r, `distribute to ${id}`));
  await round('reward to a holder new to the token', each(distribute));
  await round('reward to an existing holder', each(distribute));
  const pass = (id, i) => api(w, 'POST', `/holder/${id}/transfer`, { key: m.secretKey, body: { tokenAddress: T, amount: 1, toAddress: addresses[(i + 1) % N] } })
    .then((r) => ok(r, `transfer from ${id}`));
  await round('holder transfer (signed by the holder)', each(pass));
  await round("the holder's next transfer (its next nonce)", each(pass));

  // A presale of two buyers, launched: the deployment, the pool's opening, the lock batch.
  const now = ok(await api(w, 'GET', '/admin/time', { adminKey: w.adminKey }), 'clock').nowUnix;
  const presale = ok(await api(w, 'POST', '/merchant/presale', { key: m.secretKey, body: {
    name: 'Gas launch', description: 'Two buyers', startTimestamp: now - 10, endTimestamp: now + 3600,
    targetUsdcAmount: 20, lockDuration: 1, tokenInfo: { name: 'Launch', symbol: 'LNCH', imageUrl: 'https://example.com/l.png' },
  } }), 'presale');
  const buyers = ids.slice(0, 2);
  for (const id of buyers) {
    ok(await api(w, 'POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: addresses[ids.indexOf(id)], usdcAmount: 100, merchantId: m.id } }), 'faucet');
  }
  await settled(m);
  let launched;
  await round('a presale launch (2 buyers)', async () => {
    for (const id of buyers) ok(await api(w, 'POST', `/holder/${id}/buy-presale`, { key: m.secretKey, body: { presaleId: presale.id, usdcAmount: 10 } }), 'buy-presale');
    for (let i = 0; i < 600 && launched?.completionState?.step !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      launched = ok(await api(w, 'GET', `/merchant/presale/${presale.id}`, { key: m.secretKey }), 'presale');
    }
  }, 2);
  await round('its releases, a day later', async () => {
    ok(await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 86_400 + 60 } }), 'advance');
  }, 2);
  const L = launched.tokenDeploymentInfo.tokenAddress;
  const traders = ids.slice(2, 7);
  for (const id of traders) {
    ok(await api(w, 'POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: addresses[ids.indexOf(id)], usdcAmount: 10, merchantId: m.id } }), 'faucet');
  }
  await settled(m);
  await round('buys from the pool', () => Promise.all(traders.map((id) =>
    api(w, 'POST', `/holder/${id}/buy`, { key: m.secretKey, body: { tokenAddress: L, usdcAmount: 1 } }).then((r) => ok(r, `buy by ${id}`)))), traders.length);

  process.stdout.write(`\ngas per movement (${N} holders, on anvil):\n`);
  for (const r of rounds.slice(0, 4)) process.stdout.write(`  ${r.name.padEnd(44)} ${String(r.perMovement.toLocaleString('en')).padStart(8)}  (${r.transactions} transactions)\n`);
  // issue 40's targets: a batched reward at most 25,000 gas, a holder-signed transfer at most 35,000
  const met = (r, most) => `${r.perMovement <= most ? 'met' : 'MISSED'} (${r.perMovement.toLocaleString('en')})`;
  process.stdout.write(`  target: a batched reward at most 25,000: to a new holder ${met(rounds[0], 25_000)}, to an existing one ${met(rounds[1], 25_000)}\n`);
  process.stdout.write(`  target: a holder-signed transfer at most 35,000: a holder's first ${met(rounds[2], 35_000)}, its next ${met(rounds[3], 35_000)}\n`);
  // Margins: the gas limit each call was sent with over what it used, the least per kind.
  const kinds = new Map();
  for (const t of rounds.flatMap((r) => r.txs)) {
    const k = kinds.get(t.kind) ?? { n: 0, least: Infinity, used: 0, limit: 0, reverted: 0 };
    const margin = t.limit / t.used - 1;
    k.n += 1;
    k.reverted += t.ok ? 0 : 1;
    if (margin < k.least) Object.assign(k, { least: margin, used: t.used, limit: t.limit });
    kinds.set(t.kind, k);
  }
  process.stdout.write('\ngas limit over gas used, per call (the least margin of each; the limit: the estimate with its margin, or the floor):\n');
  for (const [name, k] of kinds) {
    process.stdout.write(`  ${name.padEnd(42)} ${(k.least * 100).toFixed(1).padStart(6)} %  (${k.used.toLocaleString('en')} used of ${k.limit.toLocaleString('en')}; ${k.n} transactions${k.reverted ? `, ${k.reverted} reverted` : ''})\n`);
  }
  const margins = Object.fromEntries([...kinds].map(([name, k]) => [name, { transactions: k.n, leastMargin: k.least, used: k.used, limit: k.limit, reverted: k.reverted }]));
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ holders: N, rounds: rounds.map(({ txs, ...r }) => r), margins }, null, 2) + '\n');

  /** What a transaction of the relayer's calls: the function its selector names. */
  function kind(tx) {
    const name = selectors.get(tx.input.slice(0, 10));
    return name ?? `${tx.input.slice(0, 10)} to ${tx.to}`;
  }

  async function settled(merchant) {
    const t0 = Date.now();
    for (;;) {
      const c = ok(await api(w, 'GET', `/admin/merchants/${merchant.id}/chain`, { adminKey: w.adminKey }), 'chain');
      if (c.openMovements === 0 && c.transactions.length === 0) return;
      if (Date.now() - t0 > 120_000) throw new Error(`not settled: ${JSON.stringify(c)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
} finally {
  await w.stop();
}
