// Black-box HTTP test harness: runs the already-built Worker (crates/worker/build, made by
// scripts/build-worker.sh) in local workerd through the repo's own wrangler, one instance per
// startWorker() call, on a free loopback port with its own persisted state.
//
//   import { startWorker, api, createMerchant, createToken } from './harness.mjs';
//   const w = await startWorker();
//   const m = await createMerchant(w, 'Acme');
//   const r = await api(w, 'GET', `/token/${addr}?publicKey=${m.publicKey}`);
//   await w.restart();   // same state dir, new process (baseUrl may change)
//   await w.stop();      // kills the whole process group, removes a temp state dir
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WORKER_DIR = path.join(ROOT, 'crates', 'worker');
const WRANGLER = path.join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const BUILT_SHIM = path.join(WORKER_DIR, 'build', 'worker', 'shim.mjs');

/** Fixed wallet encryption key for tests (64 hex chars = 32 bytes). Never use it elsewhere. */
export const TEST_WALLET_ENCRYPTION_KEY = '0123456789abcdef'.repeat(4);

const POLL_MS = 100;
const LOG_LIMIT = 200_000;
const live = new Set(); // child processes still running, killed on exit as a last resort
const tempDirs = new Set(); // state dirs we created and have not removed yet

process.once('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is gone
  }
}

// True while a process of the group is still running. Zombies do not count: this machine's
// init reaps orphans late, and a zombie holds no port and no file.
function groupAlive(child) {
  if (!killGroup(child, 0)) return false;
  if (process.platform !== 'linux') return true;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue;
      }
      // pid (comm) state ppid pgrp ...; comm may contain spaces, so split after the last ')'.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === child.pid && state !== 'Z' && state !== 'X') return true;
    }
    return false;
  } catch {
    return true;
  }
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts the built worker under `wrangler dev` (local workerd).
 * @param {{persistDir?: string, env?: Record<string, string|null|undefined>, timeoutMs?: number, workerDir?: string}} [opts]
 *   env: extra/overriding `--var` bindings (null or undefined removes a default one).
 *   workerDir: another Worker project (its wrangler.toml) to run instead of tokenpad's.
 * @returns {Promise<{baseUrl: string, adminKey: string, persistDir: string, vars: object,
 *   logs: () => string, stop: () => Promise<void>, restart: () => Promise<void>}>}
 */
export async function startWorker({ persistDir, env = {}, timeoutMs = 60_000, workerDir = WORKER_DIR } = {}) {
  if (!existsSync(WRANGLER)) throw new Error(`wrangler not installed (${WRANGLER}): run scripts/setup.sh`);
  if (workerDir === WORKER_DIR && !existsSync(BUILT_SHIM)) throw new Error(`worker not built (${BUILT_SHIM}): run scripts/build-worker.sh`);

  const ownsPersistDir = !persistDir;
  const dir = persistDir ?? (await mkdtemp(path.join(tmpdir(), 'tokenpad-test-')));
  if (ownsPersistDir) tempDirs.add(dir);
  const adminKey = env.ADMIN_API_KEY ?? `test-admin-${randomBytes(16).toString('hex')}`;
  const vars = {
    ALLOW_TIME_TRAVEL: 'true',
    ENABLE_FAUCET: 'true',
    ADMIN_API_KEY: adminKey,
    WALLET_ENCRYPTION_KEY: TEST_WALLET_ENCRYPTION_KEY,
    ...env,
  };
  for (const [k, v] of Object.entries(vars)) if (v === null || v === undefined) delete vars[k];

  let child = null;
  let output = '';

  async function launch() {
    const port = await freePort();
    const inspectorPort = await freePort();
    const args = [
      WRANGLER, 'dev',
      '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspectorPort),
      '--persist-to', dir,
      '--show-interactive-dev-session=false', '--live-reload=false',
    ];
    for (const [k, v] of Object.entries(vars)) args.push('--var', `${k}:${v}`);
    output = '';
    const proc = spawn(process.execPath, args, {
      cwd: workerDir,
      detached: true, // own process group: stop() kills wrangler and workerd together
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        CI: 'true',
        NO_COLOR: '1',
        FORCE_COLOR: '0',
        WRANGLER_SEND_METRICS: 'false',
        CLOUDFLARE_CF_FETCH_ENABLED: 'false',
      },
    });
    child = proc;
    live.add(proc);
    proc.exited = new Promise((resolve) => proc.once('exit', (code, signal) => {
      proc.exitInfo = { code, signal };
      resolve(proc.exitInfo);
    }));
    const collect = (buf) => {
      output += buf.toString();
      if (output.length > LOG_LIMIT) output = output.slice(-LOG_LIMIT);
    };
    proc.stdout.on('data', collect);
    proc.stderr.on('data', collect);
    // Do not keep the test process alive for a forgotten worker; the exit hook kills it.
    proc.unref();
    proc.stdout.unref?.();
    proc.stderr.unref?.();

    const baseUrl = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (proc.exitInfo) {
        live.delete(proc);
        throw new Error(`wrangler exited during startup (${JSON.stringify(proc.exitInfo)}):\n${output}`);
      }
      try {
        await fetch(`${baseUrl}/`, { signal: AbortSignal.timeout(2_000) });
        break; // any HTTP answer means workerd is serving
      } catch {
        /* not yet */
      }
      if (Date.now() > deadline) {
        await kill();
        throw new Error(`worker did not answer on ${baseUrl} within ${timeoutMs} ms. wrangler output:\n${output}`);
      }
      await sleep(POLL_MS);
    }
    handle.baseUrl = baseUrl;
  }

  async function kill({ hard = false } = {}) {
    const proc = child;
    if (!proc) return;
    child = null;
    if (hard) {
      // A crash: wrangler and workerd die at once, with no chance to finish anything.
      proc.ref(); // keep this process alive while we wait for the exit
      killGroup(proc, 'SIGKILL');
    } else if (!proc.exitInfo) {
      proc.ref(); // keep this process alive while we wait for the exit
      try {
        process.kill(proc.pid, 'SIGINT'); // wrangler shuts workerd down cleanly on SIGINT
      } catch {
        /* already gone */
      }
      const timedOut = await Promise.race([proc.exited.then(() => false), sleep(5_000, true, { ref: false })]);
      if (timedOut) killGroup(proc, 'SIGTERM');
    }
    // Wait for the rest of the group (workerd), then make sure nothing is left.
    for (let i = 0; i < 30 && groupAlive(proc); i++) await sleep(POLL_MS);
    killGroup(proc, 'SIGKILL');
    await proc.exited;
    live.delete(proc);
  }

  const handle = {
    baseUrl: '',
    adminKey,
    persistDir: dir,
    vars,
    /** wrangler's stdout+stderr of the current process (tail). */
    logs: () => output,
    /** Stops the worker; removes the state dir when startWorker created it. */
    async stop() {
      await kill();
      if (ownsPersistDir) {
        await rm(dir, { recursive: true, force: true });
        tempDirs.delete(dir);
      }
    },
    /** Stops the process and starts a new one on the same state dir; baseUrl may change. */
    async restart() {
      await kill();
      await launch();
    },
    /** Kills wrangler and workerd with SIGKILL mid-flight, then starts anew on the same state. */
    async crashAndRestart() {
      await kill({ hard: true });
      await launch();
    },
  };

  await launch();
  return handle;
}

/**
 * One HTTP call. `target` is a base URL or a startWorker() handle (its current baseUrl is used).
 * `key` is sent as x-api-key, `adminKey` as x-admin-key; `body` is sent as JSON, `rawBody` as is.
 * @returns {Promise<{status: number, headers: Headers, json: any, text: string}>}
 */
export async function api(target, method, urlPath, { key, adminKey, body, headers = {}, rawBody } = {}) {
  const baseUrl = typeof target === 'string' ? target : target.baseUrl;
  const h = { ...headers };
  if (key !== undefined) h['x-api-key'] = key;
  if (adminKey !== undefined) h['x-admin-key'] = adminKey;
  let payload = rawBody;
  if (body !== undefined && rawBody === undefined) {
    payload = JSON.stringify(body);
    if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['content-type'] = 'application/json';
  }
  const res = await fetch(`${baseUrl}${urlPath}`, { method, headers: h, body: payload });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

function expectOk(res, what) {
  if (res.status < 200 || res.status > 299) {
    throw new Error(`${what}: HTTP ${res.status} ${res.text}`);
  }
  return res.json;
}

/** Creates a merchant through the admin API: {id, name, secretKey, publicKey}. */
export async function createMerchant(w, name = 'Test Merchant') {
  return expectOk(await api(w, 'POST', '/admin/merchants', { adminKey: w.adminKey, body: { name } }), 'create merchant');
}

/**
 * Creates a token and waits for its job: polls GET /jobs/:id and, when the job is still pending,
 * moves the chain forward with POST /admin/time/advance (time travel is on in the harness).
 * Returns the job's data, the Token object (with `address`).
 */
export async function createToken(w, secretKey, body = {}, { timeoutMs = 60_000, advanceSeconds = 5 } = {}) {
  const req = { name: 'Test Token', symbol: 'TEST', canDistribute: true, ...body };
  const job = expectOk(await api(w, 'POST', '/merchant/create-token', { key: secretKey, body: req }), 'create token');
  return waitForJob(w, secretKey, job.jobId, { timeoutMs, advanceSeconds });
}

/** Polls GET /jobs/:id until success (returns data) or failure (throws). */
export async function waitForJob(w, secretKey, jobId, { timeoutMs = 60_000, advanceSeconds = 5 } = {}) {
  if (!jobId) throw new Error('waitForJob: no jobId');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(w, 'GET', `/jobs/${encodeURIComponent(jobId)}`, { key: secretKey });
    const job = expectOk(res, `GET /jobs/${jobId}`);
    if (job.status === 'success') return job.data;
    if (['failed', 'failure', 'error'].includes(job.status)) {
      throw new Error(`job ${jobId} ${job.status}: ${res.text}`);
    }
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
    if (advanceSeconds > 0 && w.adminKey) {
      await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: advanceSeconds } });
    }
    await sleep(POLL_MS * 2);
  }
}
