#!/usr/bin/env node
// Deploys tokenpad's contracts to an EVM chain, for an operator setting tokenpad up on Base
// Sepolia or Base: the factory (and, on a test chain if asked, the test USDC), the market
// (TokenpadMarket) on the chain's Uniswap v3, and the locker (TokenpadLocker, which needs nothing
// of the chain's). Prints the CHAIN_* lines for wrangler.toml. The deployer pays the gas; it
// needs no other role (no contract has an owner).
//
//   CHAIN_RPC_URL=https://... DEPLOYER_PRIVATE_KEY=0x... node scripts/deploy-contracts.mjs [--test-usdc] [--market-only | --locker-only]
//
// Both come from the environment, never the command line (an RPC URL may carry an API key, and
// any local user can read a command line). --test-usdc deploys TestUSDC too (anyone can mint it:
// never on a chain with real money; it refuses chain 8453, Base). --market-only deploys only the
// market, --locker-only only the locker (a chain's factory stays the same for good: token
// addresses depend on it; a chain set up before the locker existed gets one this way).
// --locker-only needs no Uniswap.
//
// The market uses Uniswap's own deployments: on Base (8453) and Base Sepolia (84532) the
// canonical ones below. Any other chain is refused unless all four are given in the environment:
// CHAIN_UNISWAP_FACTORY (UniswapV3Factory), CHAIN_UNISWAP_POSITIONS (NonfungiblePositionManager),
// CHAIN_UNISWAP_ROUTER (a swap router) and CHAIN_UNISWAP_QUOTER (QuoterV2); given on Base or
// Base Sepolia, they replace the canonical ones. Before deploying, the script checks that the
// position manager, router and quoter all name that factory and that the factory has the 0.3 %
// tier.
import { parseArgs } from 'node:util';
import { getAddress } from 'viem';
import { artifact, clients, codeAt, deployArtifact, read, uniswapArtifact } from '../tests/chain/anvil.mjs';

/**
 * Uniswap v3 on Base and Base Sepolia (Uniswap's deployment docs; check on a block explorer
 * before putting money through them). The router there is SwapRouter02 (no deadline in its
 * exactInputSingle params, unlike the v3-periphery SwapRouter a local node runs).
 */
const UNISWAP = {
  8453: {
    factory: '0x33128a8fC17869897dcE68Ed026d694621f6FDfD',
    positions: '0x03a520b32C04BF3bEEf7BEb72E919cf822Ed34f1',
    router: '0x2626664c2603336E57B271c5C0b26F421741e481',
    quoter: '0x3d4e44Eb1374240CE5F1B871ab261CD16335B76a',
  },
  84532: {
    factory: '0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24',
    positions: '0x27F971cb582BF9E50F397e4d29a5C7A34f11faA2',
    router: '0x94cC0AaC535CCDB3C01d6787D6413C739ae12bc4',
    quoter: '0xC5290058841028F1614F3A6F0F5816cAd0df5E27',
  },
};
const ENV_NAMES = {
  factory: 'CHAIN_UNISWAP_FACTORY',
  positions: 'CHAIN_UNISWAP_POSITIONS',
  router: 'CHAIN_UNISWAP_ROUTER',
  quoter: 'CHAIN_UNISWAP_QUOTER',
};
const FACTORY_OF = [{ type: 'function', name: 'factory', stateMutability: 'view', inputs: [], outputs: [{ type: 'address' }] }];

const log = (msg) => process.stderr.write(`[deploy] ${msg}\n`);
const die = (msg) => {
  log(msg);
  process.exit(1);
};
const { values: opts } = parseArgs({
  options: {
    'test-usdc': { type: 'boolean', default: false },
    'market-only': { type: 'boolean', default: false },
    'locker-only': { type: 'boolean', default: false },
  },
});
const rpcUrl = process.env.CHAIN_RPC_URL;
const key = process.env.DEPLOYER_PRIVATE_KEY;
if (!rpcUrl) die('set CHAIN_RPC_URL');
if (!/^0x[0-9a-fA-F]{64}$/.test(key ?? '')) die('set DEPLOYER_PRIVATE_KEY (0x + 64 hex)');
if (opts['test-usdc'] && opts['market-only']) die('--test-usdc and --market-only do not go together');
if (opts['locker-only'] && (opts['test-usdc'] || opts['market-only'])) die('--locker-only goes with neither --test-usdc nor --market-only');

const { publicClient } = await clients(rpcUrl, key);
const chainId = await publicClient.getChainId();
if (opts['test-usdc'] && chainId === 8453) die('refusing to deploy the test USDC (anyone can mint it) on Base mainnet');

/** Deploys TokenpadLocker and checks its code is the build's; returns the CHAIN_LOCKER line. */
async function deployLocker() {
  const locker = await deployArtifact(rpcUrl, 'TokenpadLocker', key);
  // no constructor arguments, no immutables: the code on chain is the build's runtime code
  if ((await codeAt(rpcUrl, locker)) !== artifact('TokenpadLocker').deployedBytecode) die(`the code at ${locker} is not TokenpadLocker's build`);
  log(`deployed TokenpadLocker at ${locker}`);
  return `CHAIN_LOCKER = "${locker}"`;
}
if (opts['locker-only']) {
  process.stdout.write(`CHAIN_ID = "${chainId}"\n${await deployLocker()}\n`);
  process.exit(0);
}

// Uniswap on this chain: the canonical deployment, or all four from the environment.
const given = Object.fromEntries(Object.entries(ENV_NAMES).map(([k, env]) => [k, process.env[env]]).filter(([, v]) => v));
let uniswap;
if (Object.keys(given).length > 0) {
  const missing = Object.entries(ENV_NAMES).filter(([k]) => !given[k]).map(([, env]) => env);
  if (missing.length) die(`also set ${missing.join(', ')} (all four Uniswap addresses, or none)`);
  for (const [k, v] of Object.entries(given)) if (!/^0x[0-9a-fA-F]{40}$/.test(v)) die(`${ENV_NAMES[k]} is not an address: ${v}`);
  uniswap = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, getAddress(v)]));
  if (UNISWAP[chainId]) log(`chain ${chainId}: using the Uniswap addresses from the environment, not the canonical ones`);
} else if (UNISWAP[chainId]) {
  uniswap = UNISWAP[chainId];
} else {
  die(
    `chain ${chainId} is neither Base (8453) nor Base Sepolia (84532): set ${Object.values(ENV_NAMES).join(', ')} ` +
      'to its Uniswap v3 deployment',
  );
}

// The four must be one Uniswap deployment: each periphery contract names the factory, and the
// factory has the market's fee tier (3000, tick spacing 60).
for (const [k, address] of Object.entries(uniswap)) {
  if ((await codeAt(rpcUrl, address)) === '0x') die(`no contract at ${ENV_NAMES[k]} ${address} on chain ${chainId}`);
}
for (const k of ['positions', 'router', 'quoter']) {
  const f = await read(rpcUrl, { address: uniswap[k], abi: FACTORY_OF, functionName: 'factory' }).catch((e) => die(`${ENV_NAMES[k]} ${uniswap[k]}: factory() failed: ${e.shortMessage ?? e.message}`));
  if (f !== uniswap.factory) die(`${ENV_NAMES[k]} ${uniswap[k]} belongs to the factory ${f}, not ${uniswap.factory}`);
}
const spacing = await read(rpcUrl, { address: uniswap.factory, abi: uniswapArtifact('UniswapV3Factory').abi, functionName: 'feeAmountTickSpacing', args: [3000] });
if (spacing !== 60) die(`the Uniswap factory ${uniswap.factory} has no 0.3 % tier (tick spacing ${spacing})`);

const lines = [`CHAIN_ID = "${chainId}"`];
if (!opts['market-only']) {
  const factory = await deployArtifact(rpcUrl, 'TokenpadFactory', key);
  const expected = artifact('TokenpadToken').creationCodeHash;
  const onChain = await read(rpcUrl, { address: factory, abi: artifact('TokenpadFactory').abi, functionName: 'TOKEN_CREATION_CODE_HASH' });
  if (onChain !== expected) die(`the factory's token code hash ${onChain} is not ${expected}: rebuild the contracts`);
  log(`deployed TokenpadFactory at ${factory}`);
  lines.push(`CHAIN_FACTORY = "${factory}"`);
}
const market = await deployArtifact(rpcUrl, 'TokenpadMarket', key, [uniswap.factory, uniswap.positions]);
const r = (functionName) => read(rpcUrl, { address: market, abi: artifact('TokenpadMarket').abi, functionName });
if ((await r('factory')) !== uniswap.factory || (await r('positionManager')) !== uniswap.positions) die(`the market at ${market} does not name this Uniswap`);
log(`deployed TokenpadMarket at ${market}`);
lines.push(
  `CHAIN_UNISWAP_FACTORY = "${uniswap.factory}"`,
  `CHAIN_UNISWAP_POSITIONS = "${uniswap.positions}"`,
  `CHAIN_UNISWAP_ROUTER = "${uniswap.router}"`,
  `CHAIN_UNISWAP_QUOTER = "${uniswap.quoter}"`,
  `CHAIN_MARKET = "${market}"`,
);
if (!opts['market-only']) lines.push(await deployLocker());
if (opts['test-usdc']) {
  const usdc = await deployArtifact(rpcUrl, 'TestUSDC', key);
  log(`deployed TestUSDC at ${usdc}`);
  lines.push(`CHAIN_USDC = "${usdc}"`);
}
process.stdout.write(`${lines.join('\n')}\n`);
