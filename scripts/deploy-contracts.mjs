#!/usr/bin/env node
// Deploys tokenpad's factory (and, on a test chain if asked, the test USDC) to an EVM chain, for
// an operator setting tokenpad up on Base Sepolia or Base. Prints the CHAIN_* lines for
// wrangler.toml. The deployer pays the gas; it needs no other role (the factory has no owner).
//
//   CHAIN_RPC_URL=https://... DEPLOYER_PRIVATE_KEY=0x... node scripts/deploy-contracts.mjs [--test-usdc]
//
// Both come from the environment, never the command line (an RPC URL may carry an API key, and
// any local user can read a command line). --test-usdc deploys TestUSDC too (anyone can mint it:
// never on a chain with real money; it refuses chain 8453, Base).
import { parseArgs } from 'node:util';
import { artifact, clients, deployArtifact, read } from '../tests/chain/anvil.mjs';

const die = (msg) => {
  process.stderr.write(`[deploy] ${msg}\n`);
  process.exit(1);
};
const { values: opts } = parseArgs({ options: { 'test-usdc': { type: 'boolean', default: false } } });
const rpcUrl = process.env.CHAIN_RPC_URL;
const key = process.env.DEPLOYER_PRIVATE_KEY;
if (!rpcUrl) die('set CHAIN_RPC_URL');
if (!/^0x[0-9a-fA-F]{64}$/.test(key ?? '')) die('set DEPLOYER_PRIVATE_KEY (0x + 64 hex)');

const { publicClient } = await clients(rpcUrl, key);
const chainId = await publicClient.getChainId();
if (opts['test-usdc'] && chainId === 8453) die('refusing to deploy the test USDC (anyone can mint it) on Base mainnet');
const factory = await deployArtifact(rpcUrl, 'TokenpadFactory', key);
const expected = artifact('TokenpadToken').creationCodeHash;
const onChain = await read(rpcUrl, { address: factory, abi: artifact('TokenpadFactory').abi, functionName: 'TOKEN_CREATION_CODE_HASH' });
if (onChain !== expected) die(`the factory's token code hash ${onChain} is not ${expected}: rebuild the contracts`);
const lines = [`CHAIN_ID = "${chainId}"`, `CHAIN_FACTORY = "${factory}"`];
if (opts['test-usdc']) lines.push(`CHAIN_USDC = "${await deployArtifact(rpcUrl, 'TestUSDC', key)}"`);
process.stdout.write(`${lines.join('\n')}\n`);
