// ./scripts/dev.sh supervises itself (issues #36, #43): wrangler runs two workerds, its proxy on
// the port and the runtime that runs the Worker; when either dies under a wrangler that stays up,
// dev.sh notices and restarts it on the same state, or, past its restart budget, stops with a
// clear message; and it stops cleanly on SIGINT and SIGTERM, also when started in the background
// by a script (where bash starts with SIGINT ignored).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, freePort, processes, proxyOf, ROOT, runtimeOf } from './harness.mjs';

const skip = !existsSync(path.join(ROOT, 'www', 'app', 'pkg', 'index.js')) && 'the browser package is not built (scripts/build-pkg.sh)';

const cleanup = [];
after(async () => {
  for (const f of cleanup.reverse()) await f();
});

/**
 * Starts dev.sh in a fresh directory. `background`: as a script's `./scripts/dev.sh &` starts
 * it, with SIGINT ignored (what bash does to a background job without job control).
 */
async function startDev({ background = false, env = {} } = {}) {
  const dir = await mkdtemp(path.join(tmpdir(), 'tokenpad-dev-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const port = await freePort();
  const script = path.join(ROOT, 'scripts', 'dev.sh');
  const args = background ? ['-c', `trap '' INT; exec bash ${JSON.stringify(script)}`] : [script];
  const child = spawn('bash', args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: String(port), TOKENPAD_DIR: dir, SKIP_BUILD: '1', NO_COLOR: '1', CI: 'true', REQUEST_LOG: 'errors', ...env },
  });
  const dev = { child, port, output: '', url: `http://127.0.0.1:${port}` };
  child.stdout.on('data', (b) => { dev.output += b; });
  child.stderr.on('data', (b) => { dev.output += b; });
  dev.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  cleanup.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    const rt = proxyOf(port);
    if (rt) try { process.kill(-rt.pgrp, 'SIGKILL'); } catch { /* gone */ }
  });
  const deadline = Date.now() + 180_000;
  while (!/Press Ctrl-C to stop/.test(dev.output)) {
    assert.ok(Date.now() < deadline, `dev.sh did not come up:\n${dev.output}`);
    assert.equal(child.exitCode, null, `dev.sh exited:\n${dev.output}`);
    await sleep(200);
  }
  const exportLine = dev.output.split('\n').map((l) => l.trim()).find((l) => l.startsWith('export TP='));
  dev.vars = Object.fromEntries([...exportLine.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
  return dev;
}

/** Waits for dev.sh to exit; asserts that nothing of its wrangler or runtime is left. */
async function exitsCleanly(dev, group, expected) {
  const { code } = await Promise.race([dev.exited, sleep(30_000).then(() => ({ code: 'timeout' }))]);
  assert.equal(code, expected, dev.output.slice(-2000));
  for (let i = 0; i < 50 && processes().some((p) => p.pgrp === group); i++) await sleep(100);
  assert.deepEqual(processes().filter((p) => p.pgrp === group).map((p) => p.cmdline.slice(0, 100)), []);
  await assert.rejects(fetch(dev.url), 'nothing answers on its port any more');
}

test('started in the background, dev.sh restarts a Worker runtime that died, keeps its state, and stops on SIGINT', { skip }, async () => {
  const dev = await startDev({ background: true });
  const proxy = proxyOf(dev.port);
  const first = runtimeOf(dev.port);
  assert.ok(proxy, 'a workerd serves the port');
  assert.ok(first, 'another workerd runs the Worker');
  // The Worker's runtime dies; wrangler and its proxy stay up, and the port answers nothing
  // but the proxy's plain-text 503.
  process.kill(first.pid, 'SIGKILL');
  for (let i = 0; i < 50 && processes().some((p) => p.pid === first.pid); i++) await sleep(100);
  // Until dev.sh looks again (every 2 s) the proxy answers 503 itself; by then it may already
  // be restarting wrangler (the port refuses connections for a moment) or be done.
  const orphaned = await fetch(`${dev.url}/health`).catch(() => null);
  if (orphaned?.status === 503) {
    assert.equal(orphaned.headers.get('x-request-id'), null, 'the proxy answered, not the Worker');
  }
  await orphaned?.text();
  const deadline = Date.now() + 60_000;
  while (!/worker answers again/.test(dev.output)) {
    assert.ok(Date.now() < deadline, `dev.sh did not restart the runtime:\n${dev.output.slice(-3000)}`);
    assert.equal(dev.child.exitCode, null, dev.output.slice(-3000));
    await sleep(200);
  }
  assert.match(dev.output, /workerd\) serving .* died while wrangler stayed up: restarting it/);
  const second = runtimeOf(dev.port);
  assert.ok(second && second.pid !== first.pid, 'a new runtime runs the Worker');
  assert.notEqual(proxyOf(dev.port).pid, proxy.pid, 'behind a new proxy');
  const health = await fetch(`${dev.url}/health`);
  assert.equal(health.status, 200);
  assert.ok(health.headers.get('x-request-id'), 'the Worker answers');
  await health.text();
  // Same state: the demo merchant and its token are still there.
  const tokens = await api(dev.url, 'GET', '/merchant/all-tokens', { key: dev.vars.SK });
  assert.equal(tokens.status, 200, tokens.text);
  assert.equal(tokens.json[0].address, dev.vars.TOKEN);
  // Ctrl-C's signal, sent to the script alone (as `kill -INT <pid>` does to a background job).
  process.kill(dev.child.pid, 'SIGINT');
  await exitsCleanly(dev, second.pgrp, 130);
  assert.match(dev.output, /SIGINT: stopping/);
});

test('dev.sh stops cleanly on SIGTERM', { skip }, async () => {
  const dev = await startDev();
  const rt = proxyOf(dev.port);
  process.kill(dev.child.pid, 'SIGTERM');
  await exitsCleanly(dev, rt.pgrp, 143);
});

test('past its restart budget, dev.sh stops and says why (here wrangler\'s proxy died)', { skip }, async () => {
  const dev = await startDev({ env: { DEV_MAX_RESTARTS: '0' } });
  const rt = proxyOf(dev.port);
  process.kill(rt.pid, 'SIGKILL');
  await exitsCleanly(dev, rt.pgrp, 1);
  assert.match(dev.output, /STOPPED: the Workers runtime \(workerd\) serving .* died while wrangler stayed up/);
  assert.match(dev.output, /start \.\/scripts\/dev\.sh again once it is fixed/);
});
