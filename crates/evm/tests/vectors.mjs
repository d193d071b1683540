// Test vectors for tokenpad-evm, computed by an independent implementation (viem, on
// @noble/curves and @noble/hashes) from tokenpad's compiled contract ABIs. The Rust test
// `crates/evm/tests/vectors.rs` must reproduce every byte of crates/evm/tests/vectors.json.
//
// Regenerate (needs viem 2.57.20 in node_modules, and the contracts' build/*.json):
//
//   node crates/evm/tests/vectors.mjs                  # ABIs from <repo>/contracts/build
//   CONTRACTS_BUILD=/path/to/contracts/build node crates/evm/tests/vectors.mjs
//
// Everything here is deterministic (fixed keys, RFC 6979 signatures, no clock), so running it
// again must leave vectors.json unchanged; `--check` exits 1 if it would change.
//
// Only public, well-known keys appear: 1, n-1, and anvil's first two development keys.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  domainSeparator,
  encodeAbiParameters,
  encodeErrorResult,
  encodeFunctionData,
  encodeFunctionResult,
  getContractAddress,
  hashTypedData,
  keccak256,
  parseSignature,
  serializeTransaction,
  toEventSelector,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { AUTH_TYPES } from '../../../tests/chain/offchain.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..', '..');
const BUILD = process.env.CONTRACTS_BUILD ?? join(ROOT, 'contracts', 'build');
const OUT = join(HERE, 'vectors.json');

function artifact(name) {
  const path = join(BUILD, `${name}.json`);
  if (!existsSync(path)) throw new Error(`${path} missing: set CONTRACTS_BUILD to the contracts' build directory`);
  return JSON.parse(readFileSync(path, 'utf8'));
}
const TOKEN = artifact('TokenpadToken');
const FACTORY = artifact('TokenpadFactory');
const USDC = artifact('TestUSDC');
const MARKET = artifact('TokenpadMarket');
const LOCKER = artifact('TokenpadLocker');

const lower = (hex) => hex.toLowerCase();
const dec = (n) => BigInt(n).toString();
const MAX_U128 = (1n << 128n) - 1n;
const MAX_U64 = (1n << 64n) - 1n;

// ------------------------------------------------------------------ keys

const KEYS = [
  '0x0000000000000000000000000000000000000000000000000000000000000001',
  '0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140', // n - 1
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', // anvil #0
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d', // anvil #1
];
const ACCOUNTS = KEYS.map((k) => privateKeyToAccount(k));
const keys = KEYS.map((secret, i) => ({ secret, address: lower(ACCOUNTS[i].address) }));

// ------------------------------------------------------------------ EIP-3009 authorizations

const DOMAINS = [
  { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913' },
  { name: 'Moon', version: '1', chainId: 31337, verifyingContract: '0x5484f34f6cd409c86492a5038f5cce18e81cd493' },
  { name: 'Ünïcödé ☕ token', version: '1', chainId: 84532, verifyingContract: '0x036cbd53842c5426634e7929541ec2318f3dcf7e' },
];
// EIP-3009's typed data, as the chain tests sign it.
const TYPES = { TransferWithAuthorization: AUTH_TYPES.TransferWithAuthorization };
const PAYEES = ['0x000000000000000000000000000000000000dead', '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'];
const AMOUNTS = [0n, 1n, 1_000_000n * 10n ** 18n, MAX_U128];
const WINDOWS = [
  [0n, MAX_U64],
  [1_700_000_000n, 1_700_003_600n],
];

const authorizations = [];
let n = 0;
for (const [d, domain] of DOMAINS.entries()) {
  for (const [k, key] of keys.entries()) {
    for (let j = 0; j < 2; j++, n++) {
      const [validAfter, validBefore] = WINDOWS[(n + j) % WINDOWS.length];
      const nonce = keccak256(new TextEncoder().encode(`tokenpad vector nonce ${n}`));
      const message = {
        from: key.address,
        to: PAYEES[(d + j) % PAYEES.length],
        value: AMOUNTS[n % AMOUNTS.length],
        validAfter,
        validBefore,
        nonce,
      };
      const typed = { domain, types: TYPES, primaryType: 'TransferWithAuthorization', message };
      const signature = await ACCOUNTS[k].signTypedData(typed);
      const { r, s, v } = parseSignature(signature);
      authorizations.push({
        domain: { ...domain, chainId: dec(domain.chainId) },
        key: k,
        authorization: {
          from: message.from,
          to: message.to,
          value: dec(message.value),
          validAfter: dec(validAfter),
          validBefore: dec(validBefore),
          nonce,
        },
        domainSeparator: domainSeparator({ domain }),
        signingHash: hashTypedData(typed),
        v: Number(v),
        r: lower(r),
        s: lower(s),
      });
    }
  }
}

// ------------------------------------------------------------------ calldata

const signed = (a) => ({
  from: a.authorization.from,
  to: a.authorization.to,
  value: BigInt(a.authorization.value),
  validAfter: BigInt(a.authorization.validAfter),
  validBefore: BigInt(a.authorization.validBefore),
  nonce: a.authorization.nonce,
  v: a.v,
  r: a.r,
  s: a.s,
});
/** The packed form of a signed authorization (contracts/EIP3009.sol, PackedAuthorization). */
const packed = (a) => ({
  fromAndValue: (BigInt(a.from) << 96n) | a.value,
  toValidBeforeAndV: (BigInt(a.to) << 96n) | (a.validBefore << 8n) | BigInt(a.v),
  nonce: a.nonce,
  r: a.r,
  s: a.s,
});
const packable = authorizations
  .map((a, i) => (BigInt(a.authorization.validAfter) === 0n && BigInt(a.authorization.value) < 1n << 96n ? i : -1))
  .filter((i) => i >= 0);
const TRANSFERS = [
  [],
  [[PAYEES[0], 0n]],
  [[PAYEES[1], 1n], ['0x000000000000000000000000000000000000dead', 10n ** 24n], [PAYEES[0], (1n << 96n) - 1n]],
];
const salt = '0x0000000000000000000000000000000000000000000000000000000000000001';
const treasury = '0x000000000000000000000000000000000000dead';

const calls = {
  factoryDeploy: [
    { salt, name: 'Moon', symbol: 'MOON', supply: 10n ** 24n, treasury },
    { salt: keccak256('0x01'), name: 'Ünïcödé ☕ token with a name longer than thirty-two bytes', symbol: '', supply: MAX_U128, treasury },
  ].map((x) => ({
    ...x,
    supply: dec(x.supply),
    data: encodeFunctionData({ abi: FACTORY.abi, functionName: 'deploy', args: [x.salt, x.name, x.symbol, x.supply, x.treasury] }),
  })),
  batchTransferWithAuthorization: [[], [0], [0, 1, 2, 5, 9]].map((indices) => ({
    authorizations: indices,
    data: encodeFunctionData({
      abi: TOKEN.abi,
      functionName: 'batchTransferWithAuthorization',
      args: [indices.map((i) => signed(authorizations[i]))],
    }),
  })),
  // The packed form: only authorizations valid from 0 with a value below 2^96 fit it; the Rust
  // encoder answers None for the others (`unpackable`).
  batchTransferWithAuthorizationPacked: [[], packable.slice(0, 1), packable.slice(0, 4)].map((indices) => ({
    authorizations: indices,
    data: encodeFunctionData({
      abi: TOKEN.abi,
      functionName: 'batchTransferWithAuthorizationPacked',
      args: [indices.map((i) => packed(signed(authorizations[i])))],
    }),
  })),
  batchTransferWithAuthorizationUnpackable: authorizations.map((_, i) => i).filter((i) => !packable.includes(i)).slice(0, 4),
  batchTransfer: TRANSFERS.map((transfers) => ({
    transfers: transfers.map(([to, amount]) => ({ to, amount: dec(amount) })),
    data: encodeFunctionData({ abi: TOKEN.abi, functionName: 'batchTransfer', args: [transfers.map(([to]) => to), transfers.map(([, a]) => a)] }),
  })),
  batchTransferPacked: TRANSFERS.map((transfers) => ({
    transfers: transfers.map(([to, amount]) => ({ to, amount: dec(amount) })),
    data: encodeFunctionData({ abi: TOKEN.abi, functionName: 'batchTransferPacked', args: [transfers.map(([to, a]) => (BigInt(to) << 96n) | a)] }),
  })),
  batchTransferUnpackable: [[[PAYEES[0], 1n], [PAYEES[1], 1n << 96n]]].map((transfers) => ({
    transfers: transfers.map(([to, amount]) => ({ to, amount: dec(amount) })),
  })),
  transferWithAuthorization: [0, 7].map((i) => {
    const a = signed(authorizations[i]);
    return {
      authorization: i,
      data: encodeFunctionData({
        abi: USDC.abi,
        functionName: 'transferWithAuthorization',
        args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, a.v, a.r, a.s],
      }),
    };
  }),
  transfer: [
    { to: treasury, amount: 0n },
    { to: PAYEES[1], amount: MAX_U128 },
  ].map((x) => ({ to: x.to, amount: dec(x.amount), data: encodeFunctionData({ abi: TOKEN.abi, functionName: 'transfer', args: [x.to, x.amount] }) })),
  mint: [{ to: PAYEES[1], amount: 60_000_000n }].map((x) => ({
    to: x.to,
    amount: dec(x.amount),
    data: encodeFunctionData({ abi: USDC.abi, functionName: 'mint', args: [x.to, x.amount] }),
  })),
  balanceOf: [{ owner: PAYEES[1] }].map((x) => ({ ...x, data: encodeFunctionData({ abi: TOKEN.abi, functionName: 'balanceOf', args: [x.owner] }) })),
  authorizationState: [{ authorizer: keys[2].address, nonce: authorizations[3].authorization.nonce }].map((x) => ({
    ...x,
    data: encodeFunctionData({ abi: TOKEN.abi, functionName: 'authorizationState', args: [x.authorizer, x.nonce] }),
  })),
};

const returns = {
  u128: [0n, 123_456_789n, MAX_U128].map((v) => ({
    value: dec(v),
    data: encodeFunctionResult({ abi: TOKEN.abi, functionName: 'balanceOf', result: v }),
  })),
  // Above u128: the Rust side must refuse these rather than truncate.
  tooLarge: [MAX_U128 + 1n, (1n << 256n) - 1n].map((v) => encodeFunctionResult({ abi: TOKEN.abi, functionName: 'balanceOf', result: v })),
  bool: [true, false].map((v) => ({ value: v, data: encodeFunctionResult({ abi: TOKEN.abi, functionName: 'authorizationState', result: v }) })),
  address: [{ value: '0x5484f34f6cd409c86492a5038f5cce18e81cd493' }].map((x) => ({
    ...x,
    data: encodeFunctionResult({ abi: FACTORY.abi, functionName: 'deploy', result: x.value }),
  })),
};

// ------------------------------------------------------------------ revert data

// Every custom error in the five ABIs, with sample arguments; the Rust side must name each.
const sample = { address: '0x000000000000000000000000000000000000dead', uint256: 42n, bytes32: `0x${'ab'.repeat(32)}` };
const errorsByName = new Map();
for (const { abi } of [TOKEN, FACTORY, USDC, MARKET, LOCKER]) {
  for (const item of abi) if (item.type === 'error') errorsByName.set(item.name, item);
}
const errors = [...errorsByName.values()]
  .sort((a, b) => a.name.localeCompare(b.name))
  .map((item) => ({
    name: item.name,
    data: encodeErrorResult({ abi: [item], errorName: item.name, args: item.inputs.map((i) => sample[i.type]) }),
  }));
const builtin = [
  { type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] },
  { type: 'error', name: 'Panic', inputs: [{ name: 'code', type: 'uint256' }] },
];
const reverts = {
  errorString: { reason: 'ERC20: transfer amount exceeds balance', data: encodeErrorResult({ abi: builtin, errorName: 'Error', args: ['ERC20: transfer amount exceeds balance'] }) },
  panic: { code: 17, data: encodeErrorResult({ abi: builtin, errorName: 'Panic', args: [17n] }) },
  custom: errors,
};

// ------------------------------------------------------------------ transactions

const TXS = [
  // A contract creation (to: None) with TestUSDC's real creation code: long data, long RLP.
  { chainId: 31337, nonce: 0n, maxPriorityFeePerGas: 1_000_000_000n, maxFeePerGas: 2_000_000_000n, gas: 3_000_000n, to: null, value: 0n, data: USDC.bytecode, key: 2 },
  // A batch settlement call on Base.
  { chainId: 8453, nonce: 7n, maxPriorityFeePerGas: 1_000_000n, maxFeePerGas: 12_000_000n, gas: 250_000n, to: DOMAINS[1].verifyingContract, value: 0n, data: calls.batchTransferWithAuthorization[2].data, key: 3 },
  // Zeros everywhere a zero is allowed, and no data.
  { chainId: 1, nonce: 0n, maxPriorityFeePerGas: 0n, maxFeePerGas: 0n, gas: 21_000n, to: PAYEES[0], value: 0n, data: '0x', key: 0 },
  // Maxima of the Rust field types.
  { chainId: Number.MAX_SAFE_INTEGER, nonce: MAX_U64 - 1n, maxPriorityFeePerGas: MAX_U128, maxFeePerGas: MAX_U128, gas: MAX_U64, to: PAYEES[1], value: MAX_U128, data: '0x00', key: 1 },
  // One short data byte above 0x7f (RLP string header), a value transfer.
  { chainId: 84532, nonce: 128n, maxPriorityFeePerGas: 127n, maxFeePerGas: 128n, gas: 56n, to: PAYEES[1], value: 10n ** 18n, data: '0x80', key: 2 },
];

const transactions = [];
for (const t of TXS) {
  const tx = {
    type: 'eip1559',
    chainId: t.chainId,
    // viem types the nonce as a number; past 2^53 it takes (and encodes) a bigint as well.
    nonce: t.nonce <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(t.nonce) : t.nonce,
    maxPriorityFeePerGas: t.maxPriorityFeePerGas,
    maxFeePerGas: t.maxFeePerGas,
    gas: t.gas,
    to: t.to ?? undefined,
    value: t.value,
    data: t.data,
    accessList: [],
  };
  const unsigned = serializeTransaction(tx);
  const raw = await ACCOUNTS[t.key].signTransaction(tx);
  transactions.push({
    key: t.key,
    tx: {
      chainId: dec(t.chainId),
      nonce: dec(t.nonce),
      maxPriorityFeePerGas: dec(t.maxPriorityFeePerGas),
      maxFeePerGas: dec(t.maxFeePerGas),
      gasLimit: dec(t.gas),
      to: t.to,
      value: dec(t.value),
      data: lower(t.data),
    },
    signingHash: keccak256(unsigned),
    raw: lower(raw),
    hash: keccak256(raw),
  });
}

// ------------------------------------------------------------------ events and addresses

const transferEvent = TOKEN.abi.find((x) => x.type === 'event' && x.name === 'Transfer');
const deployer = keys[2].address;
const factoryAddress = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512';
const tokenAddresses = [salt, keccak256('0x02')].map((s) => ({
  factory: factoryAddress,
  deployer,
  salt: s,
  creationCodeHash: TOKEN.creationCodeHash,
  token: lower(
    getContractAddress({
      opcode: 'CREATE2',
      from: factoryAddress,
      salt: keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [deployer, s])),
      bytecodeHash: TOKEN.creationCodeHash,
    }),
  ),
}));

// TokenpadLocker's lock keys: keccak256(abi.encode(owner, id)) (the contract's lockKey).
const lockKeys = [
  [keys[2].address, salt],
  [keys[3].address, salt],
  ['0x0000000000000000000000000000000000000000', `0x${'00'.repeat(32)}`],
  [PAYEES[0], keccak256(new TextEncoder().encode('presale-1/buyer-0'))],
].map(([owner, id]) => ({ owner, id, key: keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [owner, id])) }));

const vectors = {
  generatedBy: 'crates/evm/tests/vectors.mjs (viem 2.57.20); do not edit by hand',
  keys,
  authorizations,
  calls,
  returns,
  reverts,
  transactions,
  transferTopic: toEventSelector(transferEvent),
  tokenAddresses,
  lockKeys,
};
// One line per vector (keeps the file short and its diffs readable): objects and arrays are
// broken into lines down to the second level, and written compactly below it.
function format(value, depth = 0) {
  const pad = ' '.repeat(depth + 1);
  const close = ' '.repeat(depth);
  if (depth >= 2 || value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    return value.length === 0 ? '[]' : `[\n${value.map((x) => pad + format(x, depth + 1)).join(',\n')}\n${close}]`;
  }
  const entries = Object.entries(value).map(([k, v]) => `${pad}${JSON.stringify(k)}: ${format(v, depth + 1)}`);
  return `{\n${entries.join(',\n')}\n${close}}`;
}
const text = `${format(vectors)}\n`;
if (process.argv.includes('--check')) {
  const current = existsSync(OUT) ? readFileSync(OUT, 'utf8') : '';
  if (current !== text) {
    console.error(`${OUT} is stale: run node crates/evm/tests/vectors.mjs`);
    process.exit(1);
  }
  console.log(`${OUT} is current`);
} else {
  writeFileSync(OUT, text);
  console.log(`wrote ${OUT}: ${authorizations.length} authorizations, ${transactions.length} transactions, ${errors.length} custom errors`);
}
