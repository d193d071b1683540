#!/usr/bin/env node
// Funds a merchant's relayer wallet on the local chain, so it can pay the gas of its settlement:
//
//   node scripts/fund.mjs <merchantAddress> [ETH, default 1000]
//
// The relayer is the merchant's own wallet (`merchantAddress` in POST /admin/merchants's answer).
// This sets its balance on the anvil that ./scripts/dev.sh --chain anvil runs (its RPC URL is in
// .tokenpad/chain.env, or CHAIN_RPC_URL). It refuses any other chain: on Base Sepolia or Base,
// send ETH to the address from a wallet of yours (see docs/deploy.md, "Funding relayers").
import { readFileSync, existsSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [address, eth = '1000'] = process.argv.slice(2);
const die = (msg) => {
  process.stderr.write(`[fund] ${msg}\n`);
  process.exit(1);
};
if (!/^0x[0-9a-fA-F]{40}$/.test(address ?? '')) die('usage: node scripts/fund.mjs <merchantAddress> [ETH]');
if (!/^[0-9]+$/.test(eth)) die('ETH must be a whole number');
let rpcUrl = process.env.CHAIN_RPC_URL;
const envFile = join(process.env.TOKENPAD_DIR ?? join(ROOT, '.tokenpad'), 'chain.env');
if (!rpcUrl && existsSync(envFile)) rpcUrl = /^CHAIN_RPC_URL=(.*)$/m.exec(readFileSync(envFile, 'utf8'))?.[1];
if (!rpcUrl) die('no local chain: start ./scripts/dev.sh --chain anvil, or set CHAIN_RPC_URL');

async function rpc(method, params) {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
const chainId = Number(await rpc('eth_chainId', []));
if (chainId !== 31337) die(`chain ${chainId} is not a local anvil: send ETH to ${address} from a wallet instead`);
await rpc('anvil_setBalance', [address, `0x${(BigInt(eth) * 10n ** 18n).toString(16)}`]);
process.stdout.write(`[fund] ${address} has ${eth} ETH on the local chain\n`);
