#!/usr/bin/env node
// Gas per item of the token's batch calls, on a local anvil, with nothing of the service in
// between: the contract's own cost, to see what a change to contracts/EIP3009.sol saves.
// bench/gas.mjs measures the same movements through the Worker (what a merchant pays).
//
// For each form of the calls (the plain ones any EIP-3009 caller knows, and the packed ones
// tokenpad's settler sends), on a token of its own, one batch of N items per round (what the
// settler signs: validAfter 0, validBefore 2^64 - 1), its gas over N, the transaction's 21,000
// included:
//   - batchTransfer from the treasury to N addresses new to the token, then to the same again;
//   - batchTransferWithAuthorization: N holders each sign one transfer to the next holder (a
//     ring, as bench/gas.mjs makes them), with a random nonce; then with each holder's nonce 0
//     (a holder's first with consecutive nonces), then nonce 1 (a later one, in a later
//     transaction: its word of the bitmap is already set); then K transfers per holder in one
//     batch (of N items at most: N / K holders).
//
//   node bench/token-gas.mjs [--n 40] [--per-holder 4] [--json out.json]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { keccak256, toBytes, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEPLOYER, DEV_ACCOUNTS, artifact, deployBase, deployToken, send, signAuthorization, startAnvil } from '../tests/chain/anvil.mjs';

const { values: opts } = parseArgs({
  options: {
    n: { type: 'string', default: '40' },
    'per-holder': { type: 'string', default: '4' },
    json: { type: 'string' },
  },
});
const N = Number(opts.n);
const K = Number(opts['per-holder']);
if (!Number.isInteger(N) || N < 2 || !Number.isInteger(K) || K < 1) throw new Error('--n >= 2 and --per-holder >= 1, whole numbers');

const ABI = artifact('TokenpadToken').abi;
const RELAYER = DEV_ACCOUNTS[1];
const VALID_BEFORE = 2n ** 64n - 1n;
const TOKEN = 10n ** 18n;
const FORMS = {
  plain: {
    transfers: (to, values) => ['batchTransfer', [to, values]],
    auths: (auths) => ['batchTransferWithAuthorization', [auths]],
  },
  packed: {
    transfers: (to, values) => ['batchTransferPacked', [to.map((a, i) => (BigInt(a) << 96n) | values[i])]],
    auths: (auths) => ['batchTransferWithAuthorizationPacked', [auths.map((a) => ({
      fromAndValue: (BigInt(a.from) << 96n) | a.value,
      toValidBeforeAndV: (BigInt(a.to) << 96n) | (a.validBefore << 8n) | BigInt(a.v),
      nonce: a.nonce,
      r: a.r,
      s: a.s,
    }))]],
  },
};

const node = await startAnvil();
const rows = [];
try {
  const base = await deployBase(node.rpcUrl);
  for (const [form, calls] of Object.entries(FORMS)) {
    const { token } = await deployToken(node.rpcUrl, base.factory, {
      salt: keccak256(toBytes(form)), name: 'Gas', symbol: 'GAS', supply: 10n ** 9n * TOKEN, treasury: DEPLOYER.address,
    });
    const holders = Array.from({ length: N }, () => {
      const key = generatePrivateKey();
      return { key, address: privateKeyToAccount(key).address };
    });
    const call = async (name, [functionName, args], items, account = DEPLOYER) => {
      const receipt = await send(node.rpcUrl, { address: token, abi: ABI, functionName, args, account, gas: 25_000_000n });
      const gas = Number(receipt.gasUsed);
      rows.push({ form, name, items, gas, perItem: Math.round(gas / items) });
      process.stderr.write(`[token-gas] ${functionName} (${name}): ${gas.toLocaleString('en')} for ${items}\n`);
    };
    const to = holders.map((h) => h.address);
    await call('to new holders', calls.transfers(to, to.map(() => 10n * TOKEN)), N);
    await call('to existing holders', calls.transfers(to, to.map(() => 10n * TOKEN)), N);

    const authorize = async (h, recipient, nonce) => {
      const message = { from: h.address, to: recipient, value: TOKEN, validAfter: 0n, validBefore: VALID_BEFORE, nonce };
      const { v, r, s } = await signAuthorization({ privateKey: h.key, token, chainId: node.chainId, name: 'Gas', version: '1', message });
      return { ...message, v, r, s };
    };
    const ring = (nonceOf, among = holders) =>
      Promise.all(among.map((h, i) => authorize(h, among[(i + 1) % among.length].address, nonceOf(i))));
    const random = () => toHex(crypto.getRandomValues(new Uint8Array(32)));
    const counter = (c) => toHex(BigInt(c), { size: 32 });
    await call('random nonces', calls.auths(await ring(random)), N, RELAYER);
    await call("each holder's nonce 0", calls.auths(await ring(() => counter(0))), N, RELAYER);
    await call("each holder's nonce 1", calls.auths(await ring(() => counter(1))), N, RELAYER);
    const some = holders.slice(0, Math.max(2, Math.floor(N / K)));
    const several = [];
    for (let k = 0; k < K; k++) several.push(...(await ring(() => counter(2 + k), some)));
    await call(`${K} per holder (nonces 2..${K + 1})`, calls.auths(several), several.length, RELAYER);
  }
} finally {
  await node.stop();
}
process.stdout.write(`\ngas per item (batches of ${N}, the transaction's 21,000 included, on anvil):\n`);
process.stdout.write(`  ${''.padEnd(44)} ${'plain'.padStart(8)} ${'packed'.padStart(8)}\n`);
const names = [...new Set(rows.map((r) => r.name))];
for (const name of names) {
  const kind = rows.indexOf(rows.find((r) => r.name === name)) % 6 < 2 ? 'batchTransfer' : 'auths';
  const cell = (form) => (rows.find((r) => r.form === form && r.name === name)?.perItem ?? 0).toLocaleString('en').padStart(8);
  process.stdout.write(`  ${`${kind}, ${name}`.padEnd(44)} ${cell('plain')} ${cell('packed')}\n`);
}
if (opts.json) writeFileSync(opts.json, JSON.stringify({ n: N, perHolder: K, rows }, null, 2) + '\n');
