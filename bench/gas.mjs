#!/usr/bin/env node
// Gas per movement on a real node: the service on a local anvil (tests/http/harness.mjs), a
// merchant and a token, then rounds of movements, each waited for until settled, and the gas
// of every transaction the merchant's relayer sent in the round (receipts read from the node)
// divided by the round's movements:
//
//   - rewards to holders new to the token (the treasury's batchTransfer: a balance from zero);
//   - rewards to the same holders again (the target: at most 25 k gas each);
//   - holders' own transfers to each other (each one an EIP-3009 authorization its holder signs).
//
//   node bench/gas.mjs [--holders 200] [--json out.json]
//
// scripts/bench.sh runs it after the HTTP benchmark (--quick: 40 holders). Gas is a count, not a
// time: the figures are the same on any machine for the same code.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { api, createMerchant, createToken, startWorker } from '../tests/http/harness.mjs';
import { rpc } from '../tests/chain/anvil.mjs';

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
  const round = async (name, send) => {
    const from = BigInt(await rpc(w.chain.rpcUrl, 'eth_blockNumber')) + 1n;
    await Promise.all(ids.map((id, i) => send(id, i)));
    await settled(m);
    const to = BigInt(await rpc(w.chain.rpcUrl, 'eth_blockNumber'));
    let gas = 0n;
    let txs = 0;
    for (let b = from; b <= to; b++) {
      const block = await rpc(w.chain.rpcUrl, 'eth_getBlockByNumber', [`0x${b.toString(16)}`, true]);
      for (const tx of block.transactions) {
        if (tx.from.toLowerCase() !== m.merchantAddress.toLowerCase()) continue;
        const receipt = await rpc(w.chain.rpcUrl, 'eth_getTransactionReceipt', [tx.hash]);
        gas += BigInt(receipt.gasUsed);
        txs += 1;
      }
    }
    const perMovement = Number(gas / BigInt(N));
    rounds.push({ name, movements: N, transactions: txs, gas: gas.toString(), perMovement });
    log(`${name}: ${N} movements in ${txs} transactions, ${perMovement.toLocaleString('en')} gas each`);
  };

  const distribute = (id) => api(w, 'POST', `/token/${T}/distribute`, { key: m.secretKey, body: { sendToId: id, amount: 10 } })
    .then((r) => ok(r, `distribute to ${id}`));
  await round('reward to a holder new to the token', distribute);
  await round('reward to an existing holder', distribute);
  await round('holder transfer (signed by the holder)', (id, i) =>
    api(w, 'POST', `/holder/${id}/transfer`, { key: m.secretKey, body: { tokenAddress: T, amount: 1, toAddress: addresses[(i + 1) % N] } })
      .then((r) => ok(r, `transfer from ${id}`)));

  const existing = rounds[1].perMovement;
  process.stdout.write(`\ngas per movement (${N} holders, on anvil):\n`);
  for (const r of rounds) process.stdout.write(`  ${r.name.padEnd(42)} ${String(r.perMovement.toLocaleString('en')).padStart(8)}  (${r.transactions} transactions)\n`);
  process.stdout.write(`  target: a batched reward to an existing holder at most 25,000: ${existing <= 25_000 ? 'met' : 'MISSED'}\n`);
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ holders: N, rounds }, null, 2) + '\n');

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
