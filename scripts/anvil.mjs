#!/usr/bin/env node
// A local chain for tokenpad: anvil (npm @foundry-rs/anvil-*) on 127.0.0.1 with its state on disk,
// and tokenpad's base contracts and Uniswap v3 deployed on it. For local development only.
//
//   node scripts/anvil.mjs [--port 8545] [--block-time SECONDS] [--fresh] [--env-out PATH] [--dir .tokenpad]
//
// - State: .tokenpad/anvil-state.json (loaded on start, written every few seconds and on exit),
//   anvil's own log in .tokenpad/anvil.log. --dir picks another folder; --port 0 a free port.
// - On first start it deploys, from anvil's dev account 0, TestUSDC, TokenpadFactory, Uniswap v3
//   from Uniswap's npm artifacts (WETH9, UniswapV3Factory, NonfungiblePositionManager with its
//   descriptor, SwapRouter, QuoterV2), TokenpadMarket and TokenpadLocker, and remembers them in
//   .tokenpad/chain.json. Later starts deploy again only what is missing from the chain, a new
//   factory when TokenpadToken's creation code changed, a new market when TokenpadMarket's
//   code changed (or Uniswap had to be deployed again), and a new locker when TokenpadLocker's
//   code changed (the old one keeps its locks, releasable there).
// - stdout gets exactly the environment lines the worker needs, one per line, once the chain is
//   ready (CHAIN, CHAIN_RPC_URL, CHAIN_ID, CHAIN_USDC, CHAIN_FACTORY, CHAIN_UNISWAP_FACTORY,
//   CHAIN_UNISWAP_POSITIONS, CHAIN_UNISWAP_ROUTER, CHAIN_UNISWAP_QUOTER, CHAIN_MARKET,
//   CHAIN_LOCKER);
//   everything else goes to stderr. --env-out also writes them to PATH (replaced atomically, so a
//   reader can wait for it to appear).
// - Runs until SIGINT or SIGTERM, then stops anvil, which writes its state.
// - --fresh deletes the saved chain first.
//
// ANVIL_PORT=8546 works like --port 8546.
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { encodeDeployData } from 'viem';
import {
  BASE_CONTRACTS,
  DEFAULT_CHAIN_ID,
  DEPLOYER,
  artifact,
  codeAt,
  deployContracts,
  read,
  rpc,
  startAnvil,
} from '../tests/chain/anvil.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const log = (msg) => process.stderr.write(`[anvil] ${msg}\n`);
const die = (msg) => {
  process.stderr.write(`[anvil] ERROR: ${msg}\n`);
  process.exit(1);
};

const { values: opts } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.ANVIL_PORT || '8545' },
    'block-time': { type: 'string' },
    fresh: { type: 'boolean', default: false },
    'env-out': { type: 'string' },
    dir: { type: 'string', default: join(ROOT, '.tokenpad') },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  const text = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
  const end = text.findIndex((l, i) => i > 0 && !l.startsWith('//')); // the header comment, after the #! line
  process.stderr.write(text.slice(1, end).map((l) => l.replace(/^\/\/ ?/, '')).join('\n') + '\n');
  process.exit(0);
}
const DIR = resolve(opts.dir);
const STATE_FILE = join(DIR, 'anvil-state.json');
const CHAIN_FILE = join(DIR, 'chain.json');
const LOG_FILE = join(DIR, 'anvil.log');
const port = Number(opts.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) die(`bad port: ${opts.port}`);

mkdirSync(DIR, { recursive: true });
chmodSync(DIR, 0o700);
if (opts.fresh) {
  for (const f of [STATE_FILE, CHAIN_FILE]) rmSync(f, { force: true });
  log('--fresh: removed the saved chain');
}
writeFileSync(LOG_FILE, '');

log(`starting anvil on 127.0.0.1:${port} (state: ${existsSync(STATE_FILE) ? 'loading ' : 'new '}${STATE_FILE}, log: ${LOG_FILE})`);
let node;
try {
  node = await startAnvil({
    port,
    chainId: DEFAULT_CHAIN_ID,
    stateFile: STATE_FILE,
    stateInterval: 5,
    blockTime: opts['block-time'] ? Number(opts['block-time']) : undefined,
    log: (line) => appendFileSync(LOG_FILE, line + '\n'),
  });
} catch (e) {
  die(`${e.message}${port ? `\n(is port ${port} in use? try --port <other> or ANVIL_PORT=<other>)` : ''}`);
}

let stopping = false;
async function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping anvil (writing ${STATE_FILE})`);
  await node.stop();
  process.exit(0);
}
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
node.exited.then(({ code, signal }) => {
  if (!stopping) die(`anvil exited on its own (code ${code}, signal ${signal}); see ${LOG_FILE}`);
});

try {
  const chain = await ensureBaseContracts(node.rpcUrl);
  const lines = [
    'CHAIN=evm',
    `CHAIN_RPC_URL=${node.rpcUrl}`,
    `CHAIN_ID=${node.chainId}`,
    `CHAIN_USDC=${chain.usdc}`,
    `CHAIN_FACTORY=${chain.factory}`,
    `CHAIN_UNISWAP_FACTORY=${chain.uniswapFactory}`,
    `CHAIN_UNISWAP_POSITIONS=${chain.positionManager}`,
    `CHAIN_UNISWAP_ROUTER=${chain.swapRouter}`,
    `CHAIN_UNISWAP_QUOTER=${chain.quoter}`,
    `CHAIN_MARKET=${chain.market}`,
    `CHAIN_LOCKER=${chain.locker}`,
  ];
  if (opts['env-out']) {
    const tmp = `${opts['env-out']}.tmp-${process.pid}`;
    writeFileSync(tmp, lines.join('\n') + '\n');
    renameSync(tmp, opts['env-out']);
  }
  process.stdout.write(lines.join('\n') + '\n');
  log(`ready: chain ${node.chainId} at ${node.rpcUrl}, TestUSDC ${chain.usdc}, TokenpadFactory ${chain.factory}, TokenpadMarket ${chain.market}, TokenpadLocker ${chain.locker}. Ctrl-C stops.`);
} catch (e) {
  stopping = true; // anvil's exit is ours: report the error, not the exit
  await node.stop();
  die(e.stack || e.message);
}

/**
 * Makes sure TestUSDC, a TokenpadFactory for the current TokenpadToken build, Uniswap v3, a
 * TokenpadMarket of the current build on that Uniswap and a TokenpadLocker of the current build
 * are on the chain, deploying what is missing (in one batch), and returns (and saves) their
 * addresses.
 */
async function ensureBaseContracts(rpcUrl) {
  // The Uniswap v3 contracts: deployed together, as they refer to each other.
  const UNISWAP_KEYS = ['weth', 'uniswapFactory', 'nftDescriptor', 'positionDescriptor', 'positionManager', 'swapRouter', 'quoter'];
  let saved = {};
  try {
    saved = JSON.parse(readFileSync(CHAIN_FILE, 'utf8'));
  } catch {
    // first start
  }
  if (saved.chainId !== undefined && saved.chainId !== node.chainId) saved = {};
  const hasCode = async (a) => Boolean(a) && (await codeAt(rpcUrl, a)) !== '0x';
  const creationCodeHash = artifact('TokenpadToken').creationCodeHash;
  const deploy = new Set();

  if (!(await hasCode(saved.usdc))) deploy.add('usdc');
  if (!(await hasCode(saved.factory))) {
    deploy.add('factory');
  } else {
    const onChain = await read(rpcUrl, { address: saved.factory, abi: artifact('TokenpadFactory').abi, functionName: 'TOKEN_CREATION_CODE_HASH' });
    if (onChain !== creationCodeHash) {
      log(`TokenpadToken changed since the factory at ${saved.factory} was deployed: deploying a new factory`);
      deploy.add('factory');
    }
  }
  const uniswapThere = (await Promise.all(UNISWAP_KEYS.map((k) => hasCode(saved[k])))).every(Boolean);
  if (!uniswapThere) for (const k of UNISWAP_KEYS) deploy.add(k);
  if (!uniswapThere || !(await hasCode(saved.market))) {
    deploy.add('market');
  } else {
    // The code the current build would deploy on this Uniswap (immutables included), by eth_call
    // of the creation code, against the code at the saved address.
    const { abi, bytecode } = artifact('TokenpadMarket');
    const data = encodeDeployData({ abi, bytecode, args: [saved.uniswapFactory, saved.positionManager] });
    const wanted = await rpc(rpcUrl, 'eth_call', [{ from: DEPLOYER.address, data }, 'latest']);
    if (wanted !== (await codeAt(rpcUrl, saved.market))) {
      log(`TokenpadMarket changed since the market at ${saved.market} was deployed: deploying a new market`);
      deploy.add('market');
    }
  }
  // The locker has no constructor arguments and no immutables: its code on chain is the build's
  // runtime code, byte for byte.
  if (!(await hasCode(saved.locker))) {
    deploy.add('locker');
  } else if ((await codeAt(rpcUrl, saved.locker)) !== artifact('TokenpadLocker').deployedBytecode) {
    log(`TokenpadLocker changed since the locker at ${saved.locker} was deployed: deploying a new locker`);
    deploy.add('locker');
  }

  const known = Object.fromEntries(BASE_CONTRACTS.map(([k]) => [k, saved[k]]).filter(([k]) => !deploy.has(k)));
  const addresses = await deployContracts(rpcUrl, [...deploy], { known });
  for (const [key, name] of BASE_CONTRACTS) if (deploy.has(key)) log(`deployed ${name} at ${addresses[key]}`);

  const chain = {
    chainId: node.chainId,
    ...Object.fromEntries(BASE_CONTRACTS.map(([k]) => [k, addresses[k]])),
    tokenCreationCodeHash: creationCodeHash,
    deployer: DEPLOYER.address,
  };
  writeFileSync(CHAIN_FILE, JSON.stringify(chain, null, 2) + '\n');
  return chain;
}
