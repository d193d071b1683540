// scripts/anvil.mjs, the local chain for ./scripts/dev.sh --chain anvil: env lines on stdout,
// base contracts deployed once, state kept across a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, artifact, balanceOf, codeAt, mintUsdc, read } from './anvil.mjs';

/** Starts the CLI; resolves once it printed its five env lines. */
function startCli(args) {
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'anvil.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));
  const ready = new Promise((res, rej) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (out.split('\n').length > 5) res();
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
  assert.deepEqual(Object.keys(env), ['CHAIN', 'CHAIN_RPC_URL', 'CHAIN_ID', 'CHAIN_USDC', 'CHAIN_FACTORY']);
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
  const saved = JSON.parse(readFileSync(join(dir, 'chain.json'), 'utf8'));
  assert.equal(saved.usdc, env.CHAIN_USDC);
  assert.equal(saved.factory, env.CHAIN_FACTORY);
  const dead = '0x000000000000000000000000000000000000dEaD';
  await mintUsdc(env.CHAIN_RPC_URL, env.CHAIN_USDC, dead, 42n);
  assert.match(first.stderr(), /deployed TestUSDC/);
  assert.deepEqual(await first.stop(), { code: 0, signal: null });
  assert.ok(existsSync(join(dir, 'anvil-state.json')), 'state written on SIGINT');

  const second = startCli(['--dir', dir, '--port', '0']);
  const again = await second.ready;
  try {
    assert.equal(again.env.CHAIN_USDC, env.CHAIN_USDC);
    assert.equal(again.env.CHAIN_FACTORY, env.CHAIN_FACTORY);
    assert.doesNotMatch(second.stderr(), /deployed/, 'nothing redeployed');
    assert.equal(await balanceOf(again.env.CHAIN_RPC_URL, env.CHAIN_USDC, dead), 42n, 'balances survive a restart');
  } finally {
    assert.deepEqual(await second.stop(), { code: 0, signal: null });
  }
});
