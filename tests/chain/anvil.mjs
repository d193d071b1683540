// A local Ethereum node (anvil, from Foundry's npm package) and the few chain helpers
// that tokenpad's tests and dev tooling need: deploy the base contracts (TestUSDC,
// TokenpadFactory, TokenpadMarket and TokenpadLocker from contracts/build, and Uniswap v3 from
// Uniswap's npm artifacts), fund accounts, read balances, sign EIP-3009 authorizations, compute token
// addresses and swap nonces the way the Rust side does.
//
// Only anvil's public, well-known development keys appear here (the "test test ... junk"
// mnemonic every Foundry and Hardhat install prints); they guard nothing.
import { spawn } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  concat,
  decodeEventLog,
  toEventSelector,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeAbiParameters,
  encodeDeployData,
  getAddress,
  getContractAddress,
  http,
  keccak256,
  parseSignature,
  stringToHex,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

const require = createRequire(import.meta.url);
// What is computed off the chain (artifacts, CREATE2 addresses, signatures, swap nonces):
// offchain.mjs, re-exported so that one import serves a test.
export * from './offchain.mjs';
import { artifact, linkBytecode, tokenAddress, uniswapArtifact } from './offchain.mjs';

/** anvil's default accounts 0..3 (public dev keys). Account 0 deploys the base contracts. */
export const DEV_KEYS = Object.freeze([
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
]);
export const DEV_ACCOUNTS = Object.freeze(DEV_KEYS.map((k) => privateKeyToAccount(k)));
export const DEPLOYER = DEV_ACCOUNTS[0];
export const DEFAULT_CHAIN_ID = 31337;

// ------------------------------------------------------------------ the node

/**
 * The anvil binary, from Foundry's npm package for this platform (@foundry-rs/anvil-linux-amd64
 * is an optional dependency in package.json). We depend on the platform package rather than on
 * the @foundry-rs/anvil wrapper: the wrapper lists every platform's package as an optional
 * dependency, and where the registry lacks some of them (as here) npm writes a lockfile that
 * `npm ci` then refuses. The wrapper still works if someone installs it instead.
 */
export function anvilBinary() {
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch];
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    const bin = require.resolve(`${platformPackage}/bin/anvil`);
    if (existsSync(bin)) return { command: bin, args: [] };
  } catch {
    // fall through to the wrapper
  }
  try {
    return { command: process.execPath, args: [require.resolve('@foundry-rs/anvil/bin.mjs')] };
  } catch {
    throw new Error(
      `anvil not found: ${platformPackage} is not installed (npm ci installs it on linux x64; elsewhere ` +
        `npm install --no-save ${platformPackage} or @foundry-rs/anvil)`,
    );
  }
}

/**
 * Starts anvil on 127.0.0.1 and waits until it answers JSON-RPC.
 *   port       default 0: a free port chosen by the OS (read back from anvil's output)
 *   stateFile  load the chain from this file if it exists, and write it there on stop()
 *   chainId    default 31337
 *   blockTime  seconds between blocks; default: a block per transaction (automine)
 *   stateInterval  also write stateFile every N seconds (survives a hard kill)
 *   log        a function given every output line of anvil (default: kept in memory only)
 * Returns { rpcUrl, chainId, port, pid, stop(), output() }.
 */
export async function startAnvil({ port = 0, stateFile, chainId = DEFAULT_CHAIN_ID, blockTime, stateInterval, log } = {}) {
  const { command, args } = anvilBinary();
  const argv = [...args, '--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId)];
  if (stateFile) argv.push('--state', stateFile);
  if (stateInterval) argv.push('--state-interval', String(stateInterval));
  if (blockTime) argv.push('--block-time', String(blockTime));
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });

  const tail = [];
  let listening;
  const lineWaiters = [];
  const onLine = (line) => {
    tail.push(line);
    if (tail.length > 200) tail.shift();
    if (log) log(line);
    const m = /Listening on ([0-9.]+):(\d+)/.exec(line);
    if (m && !listening) {
      listening = { host: m[1], port: Number(m[2]) };
      for (const w of lineWaiters.splice(0)) w.resolve(listening);
    }
  };
  for (const stream of [child.stdout, child.stderr]) {
    let buf = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      buf += chunk;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        onLine(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
  }
  const exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));
  exited.then(({ code, signal }) => {
    const err = new Error(`anvil exited (code ${code}, signal ${signal}) before listening:\n${tail.slice(-20).join('\n')}`);
    for (const w of lineWaiters.splice(0)) w.reject(err);
  });
  child.once('error', (e) => {
    for (const w of lineWaiters.splice(0)) w.reject(e);
  });

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT'); // anvil writes --state on SIGINT
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };

  try {
    let timer;
    const where = await Promise.race([
      new Promise((res, rej) => (listening ? res(listening) : lineWaiters.push({ resolve: res, reject: rej }))),
      new Promise((_, rej) => {
        timer = setTimeout(() => rej(new Error(`anvil did not start in 30 s:\n${tail.join('\n')}`)), 30_000);
      }),
    ]).finally(() => clearTimeout(timer));
    const rpcUrl = `http://127.0.0.1:${where.port}`;
    // "Listening" comes right before the server accepts; make sure it answers.
    for (let i = 0; ; i++) {
      try {
        const id = Number(await rpc(rpcUrl, 'eth_chainId'));
        if (id !== chainId) throw new Error(`anvil answers chain id ${id}, expected ${chainId}`);
        break;
      } catch (e) {
        if (i >= 100 || /expected/.test(e.message)) throw e;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    return { rpcUrl, chainId, port: where.port, pid: child.pid, stop, exited, output: () => tail.join('\n') };
  } catch (e) {
    await stop();
    throw e;
  }
}

// ------------------------------------------------------------------ JSON-RPC and clients

let rpcId = 0;
/** One raw JSON-RPC call; throws on a JSON-RPC error. */
export async function rpc(rpcUrl, method, params = []) {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
  });
  const body = await res.json();
  if (body.error) {
    const e = new Error(`${method}: ${body.error.message}`);
    e.rpcError = body.error;
    throw e;
  }
  return body.result;
}

const chainCache = new Map();
async function chainFor(rpcUrl) {
  if (!chainCache.has(rpcUrl)) {
    const id = Number(await rpc(rpcUrl, 'eth_chainId'));
    chainCache.set(
      rpcUrl,
      defineChain({
        id,
        name: `local-${id}`,
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [rpcUrl] } },
      }),
    );
  }
  return chainCache.get(rpcUrl);
}

/** viem clients for rpcUrl; `account` (a viem account or a private key) signs transactions. */
export async function clients(rpcUrl, account = DEPLOYER) {
  const chain = await chainFor(rpcUrl);
  const acct = typeof account === 'string' ? privateKeyToAccount(account) : account;
  const transport = http(rpcUrl, { retryCount: 0 });
  return {
    chain,
    account: acct,
    publicClient: createPublicClient({ chain, transport, pollingInterval: 50 }),
    walletClient: createWalletClient({ chain, transport, account: acct }),
  };
}

/** Sends a contract call and waits for its receipt; throws if it reverted. */
export async function send(rpcUrl, { address, abi, functionName, args = [], account = DEPLOYER, gas }) {
  const { publicClient, walletClient } = await clients(rpcUrl, account);
  const hash = await walletClient.writeContract({ address, abi, functionName, args, gas });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success') throw new Error(`${functionName} reverted in ${hash}`);
  return receipt;
}

/** eth_call of a view function. */
export async function read(rpcUrl, { address, abi, functionName, args = [] }) {
  const { publicClient } = await clients(rpcUrl);
  return publicClient.readContract({ address, abi, functionName, args });
}

/** Deploys contracts/build/<name>.json with constructor arguments `args` and returns its address. */
export async function deployArtifact(rpcUrl, name, account = DEPLOYER, args = []) {
  const { abi, bytecode } = artifact(name);
  const { publicClient, walletClient } = await clients(rpcUrl, account);
  const hash = await walletClient.deployContract({ abi, bytecode, args });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying ${name} failed in ${hash}`);
  return getAddress(receipt.contractAddress);
}

/** NonfungibleTokenPositionDescriptor's native currency label: bytes32("ETH"). */
export const NATIVE_CURRENCY_LABEL = stringToHex('ETH', { size: 32 });

/**
 * The base contracts, in deployment order: [key, contract, creation code given the addresses of
 * the earlier ones, gas limit]. usdc and factory come first, so that on a fresh anvil they keep
 * the addresses of account 0's nonces 0 and 1 (documented in contracts/README.md). The gas
 * limits are fixed (so the transactions can be signed before the contracts they name exist):
 * about 1.5 times what each deployment uses.
 */
export const BASE_CONTRACTS = Object.freeze([
  ['usdc', 'TestUSDC', () => artifact('TestUSDC').bytecode, 3_000_000n],
  ['factory', 'TokenpadFactory', () => artifact('TokenpadFactory').bytecode, 4_000_000n],
  ['weth', 'WETH9', () => uniswapArtifact('WETH9').bytecode, 1_000_000n],
  ['uniswapFactory', 'UniswapV3Factory', () => uniswapArtifact('UniswapV3Factory').bytecode, 8_000_000n],
  ['nftDescriptor', 'NFTDescriptor', () => uniswapArtifact('NFTDescriptor').bytecode, 8_000_000n],
  [
    'positionDescriptor',
    'NonfungibleTokenPositionDescriptor',
    (a) => {
      const art = uniswapArtifact('NonfungibleTokenPositionDescriptor');
      const bytecode = linkBytecode(art, { NFTDescriptor: a.nftDescriptor });
      return encodeDeployData({ abi: art.abi, bytecode, args: [a.weth, NATIVE_CURRENCY_LABEL] });
    },
    2_500_000n,
  ],
  [
    'positionManager',
    'NonfungiblePositionManager',
    (a) => uniswapDeployData('NonfungiblePositionManager', [a.uniswapFactory, a.weth, a.positionDescriptor]),
    8_000_000n,
  ],
  ['swapRouter', 'SwapRouter', (a) => uniswapDeployData('SwapRouter', [a.uniswapFactory, a.weth]), 4_500_000n],
  ['quoter', 'QuoterV2', (a) => uniswapDeployData('QuoterV2', [a.uniswapFactory, a.weth]), 3_000_000n],
  [
    'market',
    'TokenpadMarket',
    (a) => encodeDeployData({ abi: artifact('TokenpadMarket').abi, bytecode: artifact('TokenpadMarket').bytecode, args: [a.uniswapFactory, a.positionManager] }),
    2_500_000n,
  ],
  ['locker', 'TokenpadLocker', () => artifact('TokenpadLocker').bytecode, 1_000_000n],
]);

function uniswapDeployData(name, args) {
  const { abi, bytecode } = uniswapArtifact(name);
  return encodeDeployData({ abi, bytecode, args });
}

/** Several JSON-RPC calls in one HTTP request (a JSON-RPC batch); throws on the first error. */
export async function rpcBatch(rpcUrl, calls) {
  if (calls.length === 0) return [];
  const first = rpcId + 1;
  const body = calls.map(([method, params = []]) => ({ jsonrpc: '2.0', id: ++rpcId, method, params }));
  const res = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answers = await res.json();
  if (!Array.isArray(answers)) throw new Error(`batch: ${JSON.stringify(answers).slice(0, 300)}`);
  const byId = new Map(answers.map((a) => [a.id, a]));
  return calls.map(([method], i) => {
    const a = byId.get(first + i);
    if (!a) throw new Error(`${method}: no answer in the batch`);
    if (a.error) {
      const e = new Error(`${method}: ${a.error.message}`);
      e.rpcError = a.error;
      throw e;
    }
    return a.result;
  });
}

/**
 * Deploys the BASE_CONTRACTS named in `keys` (in BASE_CONTRACTS' order) from `account`, and
 * returns every address: `known` (addresses of base contracts already on the chain, which the
 * new ones may need) plus the new ones. Fast: the addresses follow from the account's nonces, so
 * every transaction is made up front (explicit nonces, fixed gas limits and fees) and all of them
 * go to the node in one JSON-RPC batch; one more batch per poll reads the receipts. anvil's dev
 * accounts are unlocked on the node, so the node signs for them (eth_sendTransaction: signing
 * and hashing ~100 KB of creation code in JS would take longer than all the rest); any other
 * account signs here (eth_sendRawTransaction).
 */
export async function deployContracts(rpcUrl, keys, { known = {}, account = DEPLOYER } = {}) {
  const acct = typeof account === 'string' ? privateKeyToAccount(account) : account;
  const nodeSigns = DEV_ACCOUNTS.some((a) => a.address === acct.address);
  const wanted = new Set(keys);
  for (const k of wanted) if (!BASE_CONTRACTS.some(([key]) => key === k)) throw new Error(`no base contract ${k}`);
  const [chainIdHex, nonceHex, block] = await rpcBatch(rpcUrl, [
    ['eth_chainId'],
    ['eth_getTransactionCount', [acct.address, 'pending']],
    ['eth_getBlockByNumber', ['latest', false]],
  ]);
  const maxPriorityFeePerGas = 1_000_000_000n;
  const maxFeePerGas = 2n * BigInt(block.baseFeePerGas ?? 0) + maxPriorityFeePerGas;
  let nonce = Number(nonceHex);
  const addresses = { ...known };
  const txs = [];
  for (const [key, name, data, gas] of BASE_CONTRACTS) {
    if (!wanted.has(key)) continue;
    addresses[key] = getContractAddress({ from: acct.address, nonce: BigInt(nonce) });
    const tx = { type: 'eip1559', chainId: Number(chainIdHex), nonce, gas, maxFeePerGas, maxPriorityFeePerGas, data: data(addresses) };
    if (nodeSigns) {
      txs.push({
        key,
        name,
        call: ['eth_sendTransaction', [{
          from: acct.address, nonce: toHex(nonce), gas: toHex(gas), maxFeePerGas: toHex(maxFeePerGas),
          maxPriorityFeePerGas: toHex(maxPriorityFeePerGas), data: tx.data,
        }]],
      });
    } else {
      txs.push({ key, name, call: ['eth_sendRawTransaction', [await acct.signTransaction(tx)]] });
    }
    nonce++;
  }
  // One call at a time, in nonce order. anvil answers a batch's calls concurrently, and with
  // automine a transaction that arrives before the one whose nonce precedes it can stay in the
  // pool's queue for good: the block that takes its predecessor does not promote it, and no
  // later block (evm_mine included) takes it (foundry-rs/foundry#10122). Seen in CI: the
  // batch's last, TokenpadLocker, waited the whole 120 s.
  const hashes = [];
  for (const t of txs) hashes.push((await rpcBatch(rpcUrl, [t.call]))[0]);
  // automine: mined at once; with a block time (scripts/anvil.mjs --block-time), at the next block
  const sent = Date.now();
  const deadline = sent + 120_000;
  let receipts;
  let nudged = sent;
  for (let wait = 10; ; wait = Math.min(wait * 2, 250)) {
    receipts = await rpcBatch(rpcUrl, hashes.map((h) => ['eth_getTransactionReceipt', [h]]));
    if (receipts.every(Boolean)) break;
    if (Date.now() > deadline) {
      // What the node holds says why: queued behind a nonce (the pool's bug above) or pending.
      const pool = await rpcBatch(rpcUrl, [['txpool_inspect']]).catch((e) => [String(e)]);
      throw new Error(`deployments not mined in 120 s: ${txs.filter((_, i) => !receipts[i]).map((t) => t.name)}; the pool: ${JSON.stringify(pool[0]).slice(0, 2000)}`);
    }
    // automine mines a block when a transaction comes in, with what fits of the pool: one left
    // out of a full block would wait for the next arrival. A block now and then mines it.
    if (Date.now() - nudged > 2000) {
      nudged = Date.now();
      await rpcBatch(rpcUrl, [['evm_mine']]);
    }
    await new Promise((r) => setTimeout(r, wait));
  }
  txs.forEach((t, i) => {
    const r = receipts[i];
    if (r.status !== '0x1' || getAddress(r.contractAddress) !== addresses[t.key]) {
      throw new Error(`deploying ${t.name} failed in ${hashes[i]} (status ${r.status}, gas used ${BigInt(r.gasUsed)})`);
    }
  });
  return addresses;
}

/**
 * Deploys every base contract from anvil's account 0: TestUSDC and TokenpadFactory, then Uniswap
 * v3 (WETH9, UniswapV3Factory, the NFTDescriptor library and NonfungibleTokenPositionDescriptor,
 * NonfungiblePositionManager, SwapRouter, QuoterV2), TokenpadMarket on it, and TokenpadLocker.
 * On a fresh anvil these land at the same addresses every time (account 0's nonces 0 to 10).
 * Returns { usdc, factory, uniswapFactory, positionManager, swapRouter, quoter, market, locker,
 * weth, nftDescriptor, positionDescriptor, deployer }.
 */
export async function deployBase(rpcUrl) {
  const addresses = await deployContracts(rpcUrl, BASE_CONTRACTS.map(([key]) => key));
  return { ...addresses, deployer: DEPLOYER.address };
}

/**
 * What the worker needs to know of a chain with `base`'s contracts (startWorker's `chain`), its
 * node at `rpcUrl` (the node itself, or a proxy in front of it).
 */
export function chainConfig(base, rpcUrl, chainId) {
  return {
    rpcUrl, chainId, usdc: base.usdc, factory: base.factory,
    uniswapFactory: base.uniswapFactory, positionManager: base.positionManager, swapRouter: base.swapRouter,
    quoter: base.quoter, market: base.market, locker: base.locker,
  };
}

// ------------------------------------------------------------------ anvil cheat calls and reads

/** Sets `address`'s ETH balance to `ethWei` (anvil_setBalance). */
export async function fund(rpcUrl, address, ethWei) {
  await rpc(rpcUrl, 'anvil_setBalance', [address, toHex(BigInt(ethWei))]);
}

/** Mines `blocks` blocks (default 1). */
export async function mine(rpcUrl, blocks = 1) {
  await rpc(rpcUrl, 'anvil_mine', [toHex(blocks)]);
}

/** The next block's timestamp will be `unixSeconds`. */
export async function setNextBlockTimestamp(rpcUrl, unixSeconds) {
  await rpc(rpcUrl, 'evm_setNextBlockTimestamp', [toHex(BigInt(unixSeconds))]);
}

/** The latest block's timestamp, as a bigint. */
export async function latestTimestamp(rpcUrl) {
  const block = await rpc(rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
  return BigInt(block.timestamp);
}

export async function ethBalance(rpcUrl, address) {
  return BigInt(await rpc(rpcUrl, 'eth_getBalance', [address, 'latest']));
}

export async function codeAt(rpcUrl, address) {
  return rpc(rpcUrl, 'eth_getCode', [address, 'latest']);
}

/** ERC-20 balanceOf(owner) on `token`, by a plain eth_call, as a bigint. */
export async function balanceOf(rpcUrl, token, owner) {
  const data = '0x70a08231' + encodeAbiParameters([{ type: 'address' }], [owner]).slice(2);
  return BigInt(await rpc(rpcUrl, 'eth_call', [{ to: token, data }, 'latest']));
}

/**
 * The lock `locker` (TokenpadLocker) holds for `beneficiary` of `token`, as anyone can find it
 * on a block explorer: its latest Locked event (token and beneficiary are indexed; the data names
 * the owner who locked it and the owner's id), then locks(key).
 * Resolves to { key, owner, id, token, amount, beneficiary, unlockAt, released } or null.
 */
export async function lockOf(rpcUrl, locker, token, beneficiary) {
  const abi = artifact('TokenpadLocker').abi;
  const pad = (a) => '0x' + a.slice(2).toLowerCase().padStart(64, '0');
  const topic0 = toEventSelector(abi.find((x) => x.type === 'event' && x.name === 'Locked'));
  const logs = await rpc(rpcUrl, 'eth_getLogs', [{ address: locker, fromBlock: '0x0', toBlock: 'latest', topics: [topic0, null, pad(token), pad(beneficiary)] }]);
  if (logs.length === 0) return null;
  const { args } = decodeEventLog({ abi, data: logs.at(-1).data, topics: logs.at(-1).topics });
  const [tok, amount, who, unlockAt, released] = await read(rpcUrl, { address: locker, abi, functionName: 'locks', args: [args.key] });
  return { key: args.key, owner: args.owner, id: args.id, token: tok, amount, beneficiary: who, unlockAt, released };
}

/** TestUSDC.mint(to, amount) (anyone may call it; amount in 6-decimal base units). */
export async function mintUsdc(rpcUrl, usdc, to, amount, account = DEPLOYER) {
  return send(rpcUrl, { address: usdc, abi: artifact('TestUSDC').abi, functionName: 'mint', args: [to, BigInt(amount)], account });
}

// ------------------------------------------------------------------ tokens

/** TokenpadFactory.deploy from `account`; returns { token, receipt }. supply in base units (18 decimals). */
export async function deployToken(rpcUrl, factory, { salt, name, symbol, supply, treasury, account = DEPLOYER }) {
  const receipt = await send(rpcUrl, {
    address: factory,
    abi: artifact('TokenpadFactory').abi,
    functionName: 'deploy',
    args: [salt, name, symbol, BigInt(supply), treasury],
    account,
  });
  const acct = typeof account === 'string' ? privateKeyToAccount(account) : account;
  return { token: tokenAddress(factory, acct.address, salt), receipt };
}
