// Local secrets never reach a command line (issue #15): the admin key and the wallet
// encryption key reach wrangler through an env file of mode 600, so `ps` shows them to no
// one. Checked for the test harness and for ./scripts/dev.sh, the command people run, which
// must still start, seed the demo merchant, print its keys and stop on Ctrl-C.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, freePort, logLines, processes, startWorker, ROOT, TEST_WALLET_ENCRYPTION_KEY } from './harness.mjs';

const cleanup = [];
after(async () => {
  for (const f of cleanup.reverse()) await f();
});

test('the harness passes secrets in a mode-600 env file, never on a command line', async () => {
  const w = await startWorker();
  cleanup.push(() => w.stop());
  // The secrets reached the worker: the admin key works, wallets can be sealed.
  const m = await api(w, 'POST', '/admin/merchants', { adminKey: w.adminKey, body: { name: 'Secrets' } });
  assert.equal(m.status, 201, m.text);
  assert.equal((await api(w, 'PUT', '/holder/h', { key: m.json.secretKey })).status, 201);

  const group = processes().filter((p) => p.pgrp === w.pid());
  assert.ok(group.some((p) => /wrangler/.test(p.cmdline)) && group.some((p) => /workerd/.test(p.cmdline)),
    `found wrangler and workerd: ${group.map((p) => p.cmdline.slice(0, 80)).join(' | ')}`);
  for (const p of group) {
    assert.ok(!p.cmdline.includes(TEST_WALLET_ENCRYPTION_KEY), `the wallet key is on the command line of ${p.pid}`);
  }
  // The admin key is random: on no command line on this machine.
  for (const p of processes()) assert.ok(!p.cmdline.includes(w.adminKey), `the admin key is on the command line of ${p.pid}: ${p.cmdline.slice(0, 200)}`);
  // They are in a file only this user can read, gone with the worker.
  assert.equal(statSync(w.envFile).mode & 0o777, 0o600);
  assert.match(readFileSync(w.envFile, 'utf8'), new RegExp(`ADMIN_API_KEY="${w.adminKey}"`));
  await w.stop();
  assert.ok(!existsSync(w.envFile), 'the env file is removed with the worker');
});

test('./scripts/dev.sh starts, seeds, prints keys, keeps secrets off command lines, and stops on Ctrl-C', {
  skip: !existsSync(path.join(ROOT, 'www', 'app', 'pkg', 'index.js')) && 'the browser package is not built (scripts/build-pkg.sh)',
}, async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'tokenpad-dev-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const port = await freePort();
  const child = spawn('bash', [path.join(ROOT, 'scripts', 'dev.sh')], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // A rate limit of 1 request a second after a burst of 400: seeding fits in the burst, and
    // the burst of reads below shows the limit reached the worker (the default refills 200/s).
    env: { ...process.env, PORT: String(port), TOKENPAD_DIR: dir, SKIP_BUILD: '1', NO_COLOR: '1', CI: 'true',
      RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '400', REQUEST_LOG: 'errors' },
  });
  let output = '';
  child.stdout.on('data', (b) => { output += b; });
  child.stderr.on('data', (b) => { output += b; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  cleanup.push(async () => {
    // If the test failed half-way: the script's own trap stops wrangler (its own session).
    if (child.exitCode !== null || child.signalCode !== null) return;
    try { process.kill(-child.pid, 'SIGTERM'); } catch { /* gone */ }
    await Promise.race([exited, sleep(15_000)]);
    try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
  });

  const deadline = Date.now() + 180_000;
  while (!/Press Ctrl-C to stop/.test(output)) {
    assert.ok(Date.now() < deadline, `dev.sh did not come up:\n${output}`);
    assert.equal(child.exitCode, null, `dev.sh exited:\n${output}`);
    await sleep(200);
  }
  // It printed the keys, ready to paste, and they work.
  const exportLine = output.split('\n').map((l) => l.trim()).find((l) => l.startsWith('export TP='));
  assert.ok(exportLine, output);
  const vars = Object.fromEntries([...exportLine.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
  assert.equal(vars.TP, `http://127.0.0.1:${port}`);
  const tokens = await api(vars.TP, 'GET', '/merchant/all-tokens', { key: vars.SK });
  assert.equal(tokens.status, 200, tokens.text);
  assert.equal(tokens.json[0].address, vars.TOKEN);
  assert.equal((await api(vars.TP, 'GET', '/admin/time', { adminKey: vars.ADMIN })).status, 200);

  // RATE_LIMIT_PER_SECOND and RATE_LIMIT_BURST passed through to the worker.
  // 450 reads (past the burst of 400, refilled 1 a second), 25 at a time: what is checked is
  // the budget, not how many sockets wrangler's proxy takes at once (450 at once failed to
  // connect on a loaded machine).
  const burst = [];
  try {
    while (burst.length < 450 && !burst.some((r) => r.status === 429)) {
      burst.push(...await Promise.all(Array.from({ length: 25 }, () => api(vars.TP, 'GET', '/merchant/all-tokens', { key: vars.SK }))));
    }
  } catch (e) {
    assert.fail(`a read of the burst failed (${e.cause?.code ?? e.message}); dev.sh said:\n${output.slice(-3000)}`);
  }
  const limited = burst.filter((r) => r.status === 429);
  assert.ok(limited.length > 0, `no 429 in ${burst.length} reads: ${JSON.stringify(burst.map((r) => r.status).slice(-5))}`);
  assert.equal(limited[0].json.code, 'rate_limited');
  // REQUEST_LOG passed through: the refusals wrote their lines, the successes none.
  const requestLines = () => logLines(output).filter((l) => l.type === 'request');
  for (let i = 0; i < 100 && !requestLines().some((l) => l.code === 'rate_limited'); i++) await sleep(100);
  assert.ok(requestLines().some((l) => l.status === 429 && l.code === 'rate_limited'), 'no line for a 429');
  assert.ok(!requestLines().some((l) => l.status < 400), 'a line for a success');

  // The secrets are on no command line, and in files only this user can read.
  for (const p of processes()) {
    assert.ok(!p.cmdline.includes(vars.ADMIN), `the admin key is on the command line of ${p.pid}: ${p.cmdline.slice(0, 300)}`);
  }
  const wallet = readFileSync(path.join(dir, 'local.env'), 'utf8').match(/^WALLET_ENCRYPTION_KEY=(\w+)$/m)[1];
  for (const p of processes()) assert.ok(!p.cmdline.includes(wallet), `the wallet key is on the command line of ${p.pid}`);
  for (const f of ['local.env', 'wrangler.env']) assert.equal(statSync(path.join(dir, f)).mode & 0o777, 0o600, f);

  // Ctrl-C: SIGINT to the script (a terminal sends it to the foreground group) stops it all.
  process.kill(-child.pid, 'SIGINT');
  const { code } = await Promise.race([exited, sleep(30_000).then(() => ({ code: 'timeout' }))]);
  assert.equal(code, 130, output.slice(-2000));
  for (let i = 0; i < 50 && (await fetch(vars.TP).then(() => true, () => false)); i++) await sleep(100);
  await assert.rejects(fetch(vars.TP), 'nothing answers on its port any more');
});
