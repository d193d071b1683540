// Black-box HTTP test harness: runs the already-built Worker (crates/worker/build, made by
// scripts/build-worker.sh) in local workerd through the repo's own wrangler, one instance per
// startWorker() call, on a free loopback port with its own persisted state.
//
// Each worker serves a private snapshot of the build and of www/ (copied at start into its own
// run directory), so a rebuild during a test run cannot make wrangler reload it mid-request
// (wrangler dev watches both, and answers in-flight writes of a reloading worker with its own
// plain-text 503). Secrets (ADMIN_API_KEY, WALLET_ENCRYPTION_KEY) reach wrangler through an env
// file of mode 600 in that run directory, never on a command line; other vars use `--var`.
//
//   import { startWorker, api, createMerchant, createToken } from './harness.mjs';
//   const w = await startWorker();
//   const m = await createMerchant(w, 'Acme');
//   const r = await api(w, 'GET', `/token/${addr}?publicKey=${m.publicKey}`);
//   await w.restart();   // same state dir, new process (baseUrl may change)
//   await w.stop();      // kills the whole process group, removes a temp state dir
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { groupAlive, groupListens, killGroup } from './procs.mjs';

// What the tests and benchmarks read of the processes a worker runs (Linux's /proc), and
// the calls they make to it: one import for a test.
export { groupProcesses, processes, proxyOf, runtimeOf, runtimeUrl } from './procs.mjs';
export { api, createMerchant, createToken, fundRelayer, logLines, repeatedKey, waitForJob } from './calls.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WORKER_DIR = path.join(ROOT, 'crates', 'worker');
const WRANGLER = path.join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const BUILT_SHIM = path.join(WORKER_DIR, 'build', 'worker', 'shim.mjs');
const BUILT_LEDGER = path.join(WORKER_DIR, 'build-ledger', 'worker', 'shim.mjs');
const WWW_DIR = path.join(ROOT, 'www');

/** Vars that are secrets: passed in the env file, never with `--var`. */
export const SECRET_VARS = ['ADMIN_API_KEY', 'WALLET_ENCRYPTION_KEY', 'SESSION_SIGNING_KEY', 'DASHBOARD_SIGNING_KEY', 'MAIL_PROVIDER_KEY', 'CHAIN_RPC_URL'];

/**
 * The chain the suites run on: the embedded one, or with TOKENPAD_TEST_CHAIN=anvil a real local
 * EVM node (anvil from npm) per worker, with tokenpad's contracts deployed on it.
 */
export const TEST_CHAIN = process.env.TOKENPAD_TEST_CHAIN === 'anvil' ? 'anvil' : 'embedded';

/**
 * Settlement tuned for tests: rounds every 100 ms, deposits looked for every 300 ms, receipts
 * final at once (the tests' anvil mines a block per transaction, so a finality of blocks would
 * keep a revert waiting until other transactions come; tests/chain/hostile_* set their own).
 */
export const FAST_CHAIN_VARS = Object.freeze({
  CHAIN_FINALITY: '0',
  CHAIN_POLL_MS: '100',
  CHAIN_SCAN_MS: '300',
  CHAIN_BATCH_WINDOW_MS: '50',
  CHAIN_REPLACE_AFTER_MS: '5000',
  CHAIN_RPC_TIMEOUT_MS: '3000',
});

/**
 * A local anvil with the base contracts (TestUSDC, the factory, Uniswap v3, TokenpadMarket and
 * TokenpadLocker): the worker's CHAIN vars.
 */
async function startChain() {
  const { startAnvil, deployBase, chainConfig } = await import('../chain/anvil.mjs');
  const anvil = await startAnvil();
  let base;
  try {
    base = await deployBase(anvil.rpcUrl);
  } catch (e) {
    // A node left running keeps this test file's process alive after its last test: the run
    // would wait for it for good instead of reporting the failure.
    await anvil.stop();
    throw e;
  }
  return {
    kind: 'evm', ...chainConfig(base, anvil.rpcUrl, anvil.chainId),
    stop: anvil.stop,
  };
}

/**
 * The worker vars of an EVM chain's Uniswap v3, TokenpadMarket and TokenpadLocker (those a chain
 * given without them lacks are left out, as every unset var is).
 */
function marketVars(chain) {
  return {
    CHAIN_UNISWAP_FACTORY: chain.uniswapFactory,
    CHAIN_UNISWAP_POSITIONS: chain.positionManager,
    CHAIN_UNISWAP_ROUTER: chain.swapRouter,
    CHAIN_UNISWAP_QUOTER: chain.quoter,
    CHAIN_MARKET: chain.market,
    CHAIN_LOCKER: chain.locker,
  };
}

/**
 * Copies the two built Workers (the front and the ledger) and www/ into `runDir` with wrangler
 * configs pointing at the copies; returns the configs' paths, the front's first (wrangler dev
 * serves the first and runs the others beside it). Without `assets`, the front's config has no
 * [assets] table: the API alone, with no assets router in front (what scripts/bench.sh
 * measures).
 */
async function snapshot(runDir, withAssets = true) {
  const workerDir = path.join(runDir, 'worker');
  for (const part of ['build', 'build-ledger', 'entry.mjs', 'durable.mjs', 'ledger']) {
    await cp(path.join(WORKER_DIR, part), path.join(workerDir, part), { recursive: true });
  }
  await rm(path.join(workerDir, 'ledger', '.dev.vars'), { force: true });
  await cp(WWW_DIR, path.join(runDir, 'www'), { recursive: true });
  const config = await readFile(path.join(WORKER_DIR, 'wrangler.toml'), 'utf8');
  const assets = /^directory = "\.\.\/\.\.\/www"$/m;
  if (!assets.test(config)) throw new Error('harness: wrangler.toml no longer has directory = "../../www"');
  let written = config.replace(assets, 'directory = "../www"');
  if (!withAssets) {
    const table = /^\[assets\]\n(?:[^[\n].*\n)*/m;
    if (!table.test(written)) throw new Error('harness: wrangler.toml has no [assets] table to leave out');
    written = written.replace(table, '');
  }
  await writeFile(path.join(workerDir, 'wrangler.toml'), written);
  return [path.join(workerDir, 'wrangler.toml'), path.join(workerDir, 'ledger', 'wrangler.toml')];
}

/** Writes the secrets as a dotenv file readable by this user only. */
async function writeSecrets(file, secrets) {
  const lines = Object.entries(secrets).map(([k, v]) => {
    if (/["\n\r\\$]/.test(v)) throw new Error(`harness: ${k} has a character the env file cannot carry`);
    return `${k}="${v}"`;
  });
  await writeFile(file, lines.join('\n') + '\n', { mode: 0o600 });
}

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
// A signal (timeout(1), Ctrl-C, a cancelled test file) ends the process without 'exit'
// handlers unless it is handled: exit on it, so the hook above stops the workers. A script
// with its own handler (bench.mjs stops its workers gracefully) keeps its own way.
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  process.on(signal, () => {
    if (process.listenerCount(signal) === 1) process.exit(code);
  });
}

// True when a process of `proc`'s group listens on `port` (Linux's /proc); elsewhere, or when
// /proc cannot be read, any answer is taken as the worker's, as before.
function ownsPort(proc, port) {
  if (process.platform !== 'linux') return true;
  try {
    return groupListens(proc.pid, port);
  } catch {
    return true;
  }
}

/** A TCP port free on 127.0.0.1 now (another process may take it before the caller binds it). */
export async function freePort() {
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
 * @param {{persistDir?: string, env?: Record<string, string|null|undefined>, timeoutMs?: number,
 *   logLevel?: string, workerDir?: string, assets?: boolean, port?: number}} [opts]
 *   env: extra/overriding bindings (null or undefined removes a default one); SECRET_VARS go
 *   in the env file, the others with `--var`. logLevel: wrangler's (default warn).
 *   workerDir: another Worker project (its wrangler.toml) to run instead of tokenpad's (as is,
 *   without a snapshot). assets: false runs tokenpad without its [assets] table (the demo
 *   frontend): locally an assets router worker runs in front of every request otherwise.
 *   chain: 'embedded', 'anvil' (a fresh local node, stopped with the worker; the default when
 *   TOKENPAD_TEST_CHAIN=anvil), or an EVM chain already running ({ rpcUrl, chainId, usdc,
 *   factory, and uniswapFactory, positionManager, swapRouter, quoter, market, locker where it
 *   has them: deployBase's addresses }). The handle's `chain` says which ({ kind: 'embedded' } or
 *   { kind: 'evm', ... }).
 *   port: the port to try first, instead of a free one (the harness's own test gives it a taken one).
 * @returns {Promise<{baseUrl: string, adminKey: string, persistDir: string, vars: object,
 *   envFile: string, pid: () => number|undefined,
 *   logs: () => string, stop: () => Promise<void>, restart: () => Promise<void>}>}
 */
export async function startWorker({ persistDir, env = {}, timeoutMs = 60_000, logLevel = 'warn', workerDir = WORKER_DIR, chain = TEST_CHAIN, assets = true, port: firstPort } = {}) {
  if (!existsSync(WRANGLER)) throw new Error(`wrangler not installed (${WRANGLER}): run scripts/setup.sh`);
  if (workerDir === WORKER_DIR && !(existsSync(BUILT_SHIM) && existsSync(BUILT_LEDGER))) throw new Error(`worker not built (${BUILT_SHIM}, ${BUILT_LEDGER}): run scripts/build-worker.sh`);

  const ownsPersistDir = !persistDir;
  const dir = persistDir ?? (await mkdtemp(path.join(tmpdir(), 'tokenpad-test-')));
  if (ownsPersistDir) tempDirs.add(dir);
  const adminKey = env.ADMIN_API_KEY ?? `test-admin-${randomBytes(16).toString('hex')}`;
  const ownsChain = chain === 'anvil';
  const onChain = ownsChain ? await startChain() : typeof chain === 'object' ? { kind: 'evm', ...chain } : { kind: 'embedded' };
  const chainVars = onChain.kind === 'evm' ? {
    CHAIN: 'evm', CHAIN_RPC_URL: onChain.rpcUrl, CHAIN_ID: String(onChain.chainId),
    CHAIN_USDC: onChain.usdc, CHAIN_FACTORY: onChain.factory, ...marketVars(onChain), ...FAST_CHAIN_VARS,
  } : {};
  const vars = {
    ...chainVars,
    ALLOW_TIME_TRAVEL: 'true',
    ENABLE_FAUCET: 'true',
    // Webhook receivers in the tests listen on 127.0.0.1.
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    // The accounts' mail goes to the local mailbox, readable at GET /account/dev-mailbox.
    LOCAL_MAILBOX: 'true',
    // Off by default: the auth tests send bad keys by the dozen from one address. The guard's
    // own tests (bad_keys.test.mjs) turn it on.
    BAD_KEY_LIMIT_PER_SECOND: '0',
    ADMIN_API_KEY: adminKey,
    WALLET_ENCRYPTION_KEY: TEST_WALLET_ENCRYPTION_KEY,
    ...env,
  };
  for (const [k, v] of Object.entries(vars)) if (v === null || v === undefined) delete vars[k];

  // The run directory (mode 700): the snapshot, its wrangler config, the secrets file.
  const runDir = await mkdtemp(path.join(tmpdir(), 'tokenpad-run-'));
  tempDirs.add(runDir);
  const configs = workerDir === WORKER_DIR ? await snapshot(runDir, assets) : [path.join(workerDir, 'wrangler.toml')];
  const configPath = configs[0];
  const envFile = path.join(runDir, 'secrets.env');
  // wrangler dev gives `--var` and `--env-file` to the first Worker only; the ledger reads its
  // vars, the secrets among them, from the .dev.vars beside its config (mode 600, in the run
  // directory of mode 700, removed with it).
  const ledgerVars = configs[1] && path.join(path.dirname(configs[1]), '.dev.vars');
  async function writeVars() {
    await writeSecrets(envFile, Object.fromEntries(Object.entries(vars).filter(([k]) => SECRET_VARS.includes(k))));
    if (ledgerVars) await writeSecrets(ledgerVars, vars);
  }
  await writeVars();

  let child = null;
  let output = '';

  // wrangler dev now and then exits at once with "The Workers runtime failed to start" and
  // nothing else said, or with "Address already in use" for the port freePort had just found
  // free (seen once each in full runs: another process, wrangler's or workerd's own ports
  // among them, may take it between the check and the bind). Such a start is tried again on
  // fresh ports, twice at most; every other failure is reported as it came.
  async function launch(attempt = 1) {
    try {
      await launchOnce();
    } catch (e) {
      if (attempt >= 3 || !/runtime failed to start|Address already in use/.test(String(e?.message))) throw e;
      process.stderr.write(`[harness] workerd failed to start; trying again (${attempt} of 2)\n`);
      await launch(attempt + 1);
    }
  }

  async function launchOnce() {
    const port = firstPort ?? (await freePort());
    firstPort = undefined;
    const inspectorPort = await freePort();
    const args = [
      WRANGLER, 'dev', ...configs.flatMap((c) => ['--config', c]), '--env-file', envFile,
      '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspectorPort),
      '--persist-to', dir,
      '--show-interactive-dev-session=false', '--live-reload=false',
      // No per-request access log: it costs CPU under load and would print every URL.
      '--log-level', logLevel,
    ];
    for (const [k, v] of Object.entries(vars)) if (!SECRET_VARS.includes(k)) args.push('--var', `${k}:${v}`);
    output = '';
    const proc = spawn(process.execPath, args, {
      cwd: path.dirname(configPath),
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
      // Keep the last LOG_LIMIT characters at least, trimming only at twice that: trimming
      // at every chunk copied the whole tail per log line (under load, hundreds a second,
      // on the cores the benchmark measures).
      if (output.length > 2 * LOG_LIMIT) output = output.slice(-LOG_LIMIT);
    };
    proc.stdout.on('data', collect);
    proc.stderr.on('data', collect);
    // Do not keep the test process alive for a forgotten worker; the exit hook kills it.
    proc.unref();
    proc.stdout.unref?.();
    proc.stderr.unref?.();

    const baseUrl = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + timeoutMs;
    let foreignSince = 0;
    for (;;) {
      if (proc.exitInfo) {
        live.delete(proc);
        throw new Error(`wrangler exited during startup (${JSON.stringify(proc.exitInfo)}):\n${output}`);
      }
      let answered = false;
      try {
        await fetch(`${baseUrl}/`, { signal: AbortSignal.timeout(2_000) });
        answered = true;
      } catch {
        /* not yet */
      }
      // Any HTTP answer means a server listens on the port, but not that it is ours: another
      // process may have taken the port between freePort and wrangler's bind (one CI run had
      // every request of a file answered 404 with an empty body by such a stranger). So the
      // port must also be one a process of this wrangler's group listens on; a stranger that
      // keeps it for 5 s makes this start one that failed to bind, tried again on fresh ports.
      if (answered && ownsPort(proc, port)) break;
      if (answered) {
        foreignSince ||= Date.now();
        if (Date.now() - foreignSince > 5_000) {
          await kill();
          throw new Error(`Address already in use: another process answers on port ${port}`);
        }
      }
      if (Date.now() > deadline) {
        await kill();
        throw new Error(`worker did not answer on ${baseUrl} within ${timeoutMs} ms. wrangler output:\n${output}`);
      }
      await sleep(POLL_MS);
    }
    handle.baseUrl = baseUrl;
    handle.inspectorPort = inspectorPort;
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
    /** workerd's inspector, through wrangler (bench/profile.mjs profiles through it). */
    inspectorPort: 0,
    adminKey,
    persistDir: dir,
    vars,
    envFile,
    /** The current wrangler process's pid (its process group's id), if it runs. */
    pid: () => child?.pid,
    /** wrangler's stdout+stderr of the current process (tail). */
    logs: () => output,
    /**
     * The chain it settles on: { kind: 'embedded' } or { kind: 'evm', rpcUrl, chainId, usdc,
     * factory, uniswapFactory, positionManager, swapRouter, quoter, market, locker }.
     */
    chain: onChain,
    /** Stops the worker (and the anvil it started); removes the state dir when startWorker created it. */
    async stop() {
      await kill();
      if (ownsChain) await onChain.stop();
      await rm(runDir, { recursive: true, force: true });
      tempDirs.delete(runDir);
      if (ownsPersistDir) {
        await rm(dir, { recursive: true, force: true });
        tempDirs.delete(dir);
      }
    },
    /**
     * Stops the process and starts a new one on the same state dir; baseUrl may change. `env`
     * changes vars for the new process and those after it (null removes one), as a deploy
     * with new vars would.
     */
    async restart({ env: changed = {} } = {}) {
      await kill();
      for (const [k, v] of Object.entries(changed)) {
        if (v === null || v === undefined) delete vars[k];
        else vars[k] = v;
      }
      await writeVars();
      await launch();
    },
    /** Kills wrangler and workerd with SIGKILL mid-flight, then starts anew on the same state. */
    async crashAndRestart() {
      await kill({ hard: true });
      await launch();
    },
  };

  try {
    await launch();
  } catch (e) {
    // Nothing of a start that failed is left behind: not the node it started, not its dirs.
    await handle.stop().catch(() => {});
    throw e;
  }
  return handle;
}
