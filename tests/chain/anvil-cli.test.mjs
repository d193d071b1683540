// scripts/anvil.mjs, the local chain for ./scripts/dev.sh --chain anvil: env lines on stdout,
// base contracts (and Uniswap v3) deployed once, state kept across a restart, a changed market
// and a changed locker deployed again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, artifact, balanceOf, codeAt, mintUsdc, read, uniswapArtifact } from './anvil.mjs';

const ENV_KEYS = [
  'CHAIN', 'CHAIN_RPC_URL', 'CHAIN_ID', 'CHAIN_USDC', 'CHAIN_FACTORY',
  'CHAIN_UNISWAP_FACTORY', 'CHAIN_UNISWAP_POSITIONS', 'CHAIN_UNISWAP_ROUTER', 'CHAIN_UNISWAP_QUOTER', 'CHAIN_MARKET',
  'CHAIN_LOCKER',
];

/** Starts the CLI; resolves once it printed all its env lines. */
function startCli(args) {
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'anvil.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));
  const ready = new Promise((res, rej) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (out.split('\n').length > ENV_KEYS.length) res();
    });
    exited.then(({ code }) => rej(new Error(`scripts/anvil.mjs exited (${code}) before printing its env:\n${err}`)));
  });
  return {
    ready: ready.then(() => ({ env: Object.fromEntries(out.trim().split('\n').map((l) => l.split(/=(.*)/s).slice(0, 2))), lines: out.trim().split('\n') })),
    stderr: () => err,
    stop: async () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

test('scripts/anvil.mjs prints the env, deploys once and keeps its chain across restarts', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tokenpad-anvil-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const envOut = join(dir, 'chain.env');

  const first = startCli(['--dir', dir, '--port', '0', '--env-out', envOut]);
  const { env, lines } = await first.ready;
  assert.deepEqual(Object.keys(env), ENV_KEYS);
  for (const l of lines) assert.match(l, /^[A-Z_]+=\S+$/, 'stdout holds only KEY=value lines');
  assert.equal(env.CHAIN, 'evm');
  assert.match(env.CHAIN_RPC_URL, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(env.CHAIN_ID, '31337');
  assert.equal(readFileSync(envOut, 'utf8'), lines.join('\n') + '\n');
  // on a fresh chain, account 0's first two contracts
  assert.equal(env.CHAIN_USDC, '0x5FbDB2315678afecb367f032d93F642f64180aa3');
  assert.equal(env.CHAIN_FACTORY, '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512');
  assert.notEqual(await codeAt(env.CHAIN_RPC_URL, env.CHAIN_USDC), '0x');
  assert.equal(
    await read(env.CHAIN_RPC_URL, { address: env.CHAIN_FACTORY, abi: artifact('TokenpadFactory').abi, functionName: 'TOKEN_CREATION_CODE_HASH' }),
    artifact('TokenpadToken').creationCodeHash,
  );
  // Uniswap v3, the market on it and the locker, after them (account 0's nonces 2 to 10)
  assert.equal(env.CHAIN_UNISWAP_FACTORY, '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9');
  assert.equal(env.CHAIN_UNISWAP_POSITIONS, '0x0165878A594ca255338adfa4d48449f69242Eb8F');
  assert.equal(env.CHAIN_UNISWAP_ROUTER, '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853');
  assert.equal(env.CHAIN_UNISWAP_QUOTER, '0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6');
  assert.equal(env.CHAIN_MARKET, '0x8A791620dd6260079BF849Dc5567aDC3F2FdC318');
  const market = (fn) => read(env.CHAIN_RPC_URL, { address: env.CHAIN_MARKET, abi: artifact('TokenpadMarket').abi, functionName: fn });
  assert.equal(await market('factory'), env.CHAIN_UNISWAP_FACTORY);
  assert.equal(await market('positionManager'), env.CHAIN_UNISWAP_POSITIONS);
  assert.equal(env.CHAIN_LOCKER, '0x610178dA211FEF7D417bC0e6FeD39F05609AD788');
  assert.equal(await codeAt(env.CHAIN_RPC_URL, env.CHAIN_LOCKER), artifact('TokenpadLocker').deployedBytecode);
  for (const [address, name] of [[env.CHAIN_UNISWAP_ROUTER, 'SwapRouter'], [env.CHAIN_UNISWAP_QUOTER, 'QuoterV2'], [env.CHAIN_UNISWAP_POSITIONS, 'NonfungiblePositionManager']]) {
    assert.equal(await read(env.CHAIN_RPC_URL, { address, abi: uniswapArtifact(name).abi, functionName: 'factory' }), env.CHAIN_UNISWAP_FACTORY, name);
  }
  const saved = JSON.parse(readFileSync(join(dir, 'chain.json'), 'utf8'));
  assert.equal(saved.usdc, env.CHAIN_USDC);
  assert.equal(saved.factory, env.CHAIN_FACTORY);
  assert.equal(saved.positionManager, env.CHAIN_UNISWAP_POSITIONS);
  assert.equal(saved.market, env.CHAIN_MARKET);
  assert.equal(saved.locker, env.CHAIN_LOCKER);
  const dead = '0x000000000000000000000000000000000000dEaD';
  await mintUsdc(env.CHAIN_RPC_URL, env.CHAIN_USDC, dead, 42n);
  assert.match(first.stderr(), /deployed TestUSDC/);
  assert.deepEqual(await first.stop(), { code: 0, signal: null });
  assert.ok(existsSync(join(dir, 'anvil-state.json')), 'state written on SIGINT');

  const second = startCli(['--dir', dir, '--port', '0']);
  const again = await second.ready;
  try {
    for (const k of ENV_KEYS.slice(2)) assert.equal(again.env[k], env[k], k);
    assert.doesNotMatch(second.stderr(), /deployed/, 'nothing redeployed');
    assert.equal(await balanceOf(again.env.CHAIN_RPC_URL, env.CHAIN_USDC, dead), 42n, 'balances survive a restart');
  } finally {
    assert.deepEqual(await second.stop(), { code: 0, signal: null });
  }

  // A market and a locker whose code is not the current build's (here: chain.json names other
  // contracts) are replaced by new ones, the market on the same Uniswap; nothing else moves.
  const chainFile = join(dir, 'chain.json');
  writeFileSync(chainFile, JSON.stringify({ ...JSON.parse(readFileSync(chainFile, 'utf8')), market: env.CHAIN_USDC, locker: env.CHAIN_MARKET }));
  const third = startCli(['--dir', dir, '--port', '0']);
  const changed = await third.ready;
  try {
    assert.match(third.stderr(), /TokenpadMarket changed/);
    assert.match(third.stderr(), /deployed TokenpadMarket at /);
    assert.match(third.stderr(), /TokenpadLocker changed/);
    assert.match(third.stderr(), /deployed TokenpadLocker at /);
    assert.doesNotMatch(third.stderr(), /deployed (TestUSDC|TokenpadFactory|UniswapV3Factory)/);
    assert.notEqual(changed.env.CHAIN_MARKET, env.CHAIN_MARKET);
    assert.notEqual(changed.env.CHAIN_LOCKER, env.CHAIN_LOCKER);
    assert.notEqual(changed.env.CHAIN_LOCKER, changed.env.CHAIN_MARKET);
    assert.equal(await codeAt(changed.env.CHAIN_RPC_URL, changed.env.CHAIN_LOCKER), artifact('TokenpadLocker').deployedBytecode);
    for (const k of ENV_KEYS.slice(2)) if (k !== 'CHAIN_MARKET' && k !== 'CHAIN_LOCKER') assert.equal(changed.env[k], env[k], k);
    assert.equal(await read(changed.env.CHAIN_RPC_URL, { address: changed.env.CHAIN_MARKET, abi: artifact('TokenpadMarket').abi, functionName: 'positionManager' }), env.CHAIN_UNISWAP_POSITIONS);
    assert.equal(JSON.parse(readFileSync(chainFile, 'utf8')).market, changed.env.CHAIN_MARKET);
    assert.equal(JSON.parse(readFileSync(chainFile, 'utf8')).locker, changed.env.CHAIN_LOCKER);
  } finally {
    assert.deepEqual(await third.stop(), { code: 0, signal: null });
  }
});
