// scripts/deploy-contracts.mjs, the operator's deployment to a real chain, run against anvil:
// the market goes on the chain's Uniswap v3 (canonical on Base and Base Sepolia, else given),
// checked before anything is deployed; the locker needs nothing of the chain's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DEV_KEYS, ROOT, artifact, codeAt, deployBase, read, startAnvil } from './anvil.mjs';

let node; // chain 31337 with deployBase's contracts
let base;

/** Runs the script with `env` (and the given args); resolves to { code, out, err }. */
function deploy(env, args = []) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts', 'deploy-contracts.mjs'), ...args], {
      env: { PATH: process.env.PATH, DEPLOYER_PRIVATE_KEY: DEV_KEYS[3], ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('exit', (code) => resolve({ code, out, err }));
  });
}
const parse = (out) => Object.fromEntries(out.trim().split('\n').map((l) => /^(\w+) = "(.*)"$/.exec(l).slice(1)));
const uniswapEnv = () => ({
  CHAIN_UNISWAP_FACTORY: base.uniswapFactory,
  CHAIN_UNISWAP_POSITIONS: base.positionManager,
  CHAIN_UNISWAP_ROUTER: base.swapRouter,
  CHAIN_UNISWAP_QUOTER: base.quoter,
});

before(async () => {
  node = await startAnvil();
  base = await deployBase(node.rpcUrl);
});
after(async () => {
  await node?.stop();
});

test('another chain needs its Uniswap addresses, all four, and they must be one deployment', async () => {
  const env = { CHAIN_RPC_URL: node.rpcUrl };
  const [none, some, wrong] = await Promise.all([
    deploy(env),
    deploy({ ...env, CHAIN_UNISWAP_FACTORY: base.uniswapFactory }),
    // tokenpad's factory is no Uniswap factory: the position manager names another one
    deploy({ ...env, ...uniswapEnv(), CHAIN_UNISWAP_FACTORY: base.factory }),
  ]);
  assert.equal(none.code, 1);
  assert.match(none.err, /chain 31337 is neither Base \(8453\) nor Base Sepolia \(84532\)/);
  assert.equal(some.code, 1);
  assert.match(some.err, /also set CHAIN_UNISWAP_POSITIONS, CHAIN_UNISWAP_ROUTER, CHAIN_UNISWAP_QUOTER/);
  assert.equal(wrong.code, 1);
  assert.match(wrong.err, /CHAIN_UNISWAP_POSITIONS 0x\w+ belongs to the factory 0x\w+, not 0x\w+/);
  assert.equal(none.out + some.out + wrong.out, '', 'no lines printed, nothing deployed');
});

test('with them: the factory, the market on that Uniswap, the locker (and --test-usdc), and the lines to configure', async () => {
  const { code, out, err } = await deploy({ CHAIN_RPC_URL: node.rpcUrl, ...uniswapEnv() }, ['--test-usdc']);
  assert.equal(code, 0, err);
  const lines = parse(out);
  assert.deepEqual(Object.keys(lines), [
    'CHAIN_ID', 'CHAIN_FACTORY', 'CHAIN_UNISWAP_FACTORY', 'CHAIN_UNISWAP_POSITIONS', 'CHAIN_UNISWAP_ROUTER',
    'CHAIN_UNISWAP_QUOTER', 'CHAIN_MARKET', 'CHAIN_LOCKER', 'CHAIN_USDC',
  ]);
  assert.equal(lines.CHAIN_ID, '31337');
  assert.deepEqual(
    [lines.CHAIN_UNISWAP_FACTORY, lines.CHAIN_UNISWAP_POSITIONS, lines.CHAIN_UNISWAP_ROUTER, lines.CHAIN_UNISWAP_QUOTER],
    Object.values(uniswapEnv()),
  );
  const market = (fn) => read(node.rpcUrl, { address: lines.CHAIN_MARKET, abi: artifact('TokenpadMarket').abi, functionName: fn });
  assert.equal(await market('factory'), base.uniswapFactory);
  assert.equal(await market('positionManager'), base.positionManager);
  assert.equal(
    await read(node.rpcUrl, { address: lines.CHAIN_FACTORY, abi: artifact('TokenpadFactory').abi, functionName: 'TOKEN_CREATION_CODE_HASH' }),
    artifact('TokenpadToken').creationCodeHash,
  );
  assert.notEqual(await codeAt(node.rpcUrl, lines.CHAIN_USDC), '0x');
  assert.equal(await codeAt(node.rpcUrl, lines.CHAIN_LOCKER), artifact('TokenpadLocker').deployedBytecode);

  const only = await deploy({ CHAIN_RPC_URL: node.rpcUrl, ...uniswapEnv() }, ['--market-only']);
  assert.equal(only.code, 0, only.err);
  const again = parse(only.out);
  assert.deepEqual(Object.keys(again), [
    'CHAIN_ID', 'CHAIN_UNISWAP_FACTORY', 'CHAIN_UNISWAP_POSITIONS', 'CHAIN_UNISWAP_ROUTER', 'CHAIN_UNISWAP_QUOTER', 'CHAIN_MARKET',
  ], '--market-only leaves the factory and the locker alone');
  assert.notEqual(again.CHAIN_MARKET, lines.CHAIN_MARKET);
});

test('--locker-only deploys the locker alone, on any chain (no Uniswap needed); it takes no other flag', async () => {
  const bare = await startAnvil({ chainId: 84532 }); // Base Sepolia's id, but none of Uniswap's contracts
  try {
    const { code, out, err } = await deploy({ CHAIN_RPC_URL: bare.rpcUrl }, ['--locker-only']);
    assert.equal(code, 0, err);
    const lines = parse(out);
    assert.deepEqual(Object.keys(lines), ['CHAIN_ID', 'CHAIN_LOCKER']);
    assert.equal(lines.CHAIN_ID, '84532');
    assert.equal(await codeAt(bare.rpcUrl, lines.CHAIN_LOCKER), artifact('TokenpadLocker').deployedBytecode);
  } finally {
    await bare.stop();
  }
  for (const other of ['--market-only', '--test-usdc']) {
    const { code, out, err } = await deploy({ CHAIN_RPC_URL: node.rpcUrl, ...uniswapEnv() }, ['--locker-only', other]);
    assert.equal(code, 1);
    assert.equal(out, '');
    assert.match(err, /--locker-only goes with neither --test-usdc nor --market-only/);
  }
});

test('on Base Sepolia it takes Uniswap\'s canonical addresses, and checks they are there', async () => {
  const sepolia = await startAnvil({ chainId: 84532 });
  try {
    const { code, out, err } = await deploy({ CHAIN_RPC_URL: sepolia.rpcUrl });
    assert.equal(code, 1);
    assert.equal(out, '');
    // a bare local node with Base Sepolia's chain id: nothing of Uniswap's at those addresses
    assert.match(err, /no contract at CHAIN_UNISWAP_FACTORY 0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24 on chain 84532/);
  } finally {
    await sepolia.stop();
  }
});
