// What the benchmark scripts share (bench.mjs, perf.mjs, profile.mjs, sqlite.mjs, watchers.mjs).
import { execFileSync, spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { api, groupProcesses, proxyOf, runtimeOf } from '../tests/http/harness.mjs';

// Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux).
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU time (user + system, ms) of the processes of `worker` (its wrangler's process group),
 * from /proc: all of them (wrangler and the workerd processes it runs), workerd's, and of those
 * the runtime's (the workerd that runs the Workers and their objects, what Cloudflare runs)
 * and wrangler's proxy's (a workerd of its own that every request crosses locally); null where
 * there is no /proc or no process.
 */
export function groupCpuMs(worker) {
  const pgid = worker.pid();
  if (!pgid) return null;
  try {
    const ms = (ps) => (ps.reduce((sum, p) => sum + p.ticks, 0) * 1000) / CLOCK_TICKS;
    const all = groupProcesses(pgid);
    const workerd = all.filter((p) => p.name === 'workerd');
    const { runtime } = workerdPids(worker);
    const [own, proxy] = [workerd.filter((p) => p.pid === runtime), workerd.filter((p) => p.pid !== runtime)];
    return { all: ms(all), workerd: ms(workerd), runtime: ms(own), proxy: ms(proxy) };
  } catch {
    return null;
  }
}

/**
 * The pids of the two workerd processes `wrangler dev` runs for `worker`, as the harness tells
 * them apart (tests/http/procs.mjs): wrangler's proxy Worker, listening on the port requests
 * are sent to, and the runtime behind it, which runs the Workers.
 */
export function workerdPids(worker) {
  const port = Number(new URL(worker.baseUrl).port);
  return { runtime: runtimeOf(port)?.pid, proxy: proxyOf(port)?.pid };
}

/** A seeding call's JSON answer; any other status than 2xx stops the run. */
export function ok(res, what) {
  if (res.status < 200 || res.status > 299) throw new Error(`${what}: HTTP ${res.status} ${res.text}`);
  return res.json;
}

/**
 * An open presale of the merchant with secret key `key`, from `now` (the service clock, unix
 * seconds) for 30 days, raising `targetUsdcAmount`, launched only when resolved: the one
 * presale every benchmark script buys into and reads.
 */
export async function openPresale(worker, key, now, name, targetUsdcAmount = 200_000) {
  return ok(await api(worker, 'POST', '/merchant/presale', { key, body: {
    name, description: 'bench', startTimestamp: now, endTimestamp: now + 30 * 86_400, targetUsdcAmount,
    tokenInfo: { name, symbol: name.toUpperCase().slice(0, 6), imageUrl: 'https://example.com/x.png' },
    lockDuration: 7, autoLaunch: false,
  } }), `presale ${name}`);
}

/**
 * Each of `holders` ({ id, address }) gets 1 test USDC and buys into presale `presaleId` with
 * it, ten at a time: a presale its events list in full (they list the first 100 buyers).
 */
export async function buyIn(worker, key, presaleId, holders) {
  for (let i = 0; i < holders.length; i += 10) {
    await Promise.all(holders.slice(i, i + 10).map(async (h) => {
      ok(await api(worker, 'POST', '/admin/faucet', { adminKey: worker.adminKey, body: { address: h.address, usdcAmount: 1 } }), 'faucet');
      ok(await api(worker, 'POST', `/holder/${h.id}/buy-presale`, { key, body: { presaleId, usdcAmount: 1 } }), `${h.id} buys`);
    }));
  }
}

/**
 * autocannon on one route of a started worker: `route` is { path, method?, headers?, body? }
 * (a body is sent as JSON), for `seconds`, or for `amount` requests when that is given.
 */
export function load(worker, route, connections, seconds, { amount } = {}) {
  return autocannon({
    url: worker.baseUrl + route.path,
    method: route.method ?? 'GET',
    headers: route.headers,
    body: route.body === undefined ? undefined : JSON.stringify(route.body),
    connections,
    ...(amount === undefined ? { duration: seconds } : { amount }),
  });
}

/** Whether strace is there to count a runtime's system calls (`storageWrites`). */
export function hasStrace() {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * What `amount` requests of `route` write to storage, counted exactly by strace on the worker's
 * runtime (bench/perf.mjs, bench/sqlite.mjs --pages): SQLite's WAL frames (a pwrite64 of each
 * frame's header and one of its page: the pages the commits wrote) and fsyncs, per request.
 * Where CPU figures move by tenths between runs, these do not move at all.
 */
export async function storageWrites(worker, route, { amount = 200 } = {}) {
  const { runtime } = workerdPids(worker);
  const strace = spawn('strace', ['-f', '-c', '-e', 'trace=pwrite64,fsync,fdatasync', '-p', String(runtime)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let summary = '';
  strace.stderr.on('data', (d) => {
    summary += d;
  });
  const stopped = new Promise((resolve) => strace.on('exit', resolve));
  await new Promise((resolve) => setTimeout(resolve, 500)); // attached
  const r = await load(worker, route, 4, undefined, { amount });
  strace.kill('SIGINT');
  await stopped;
  // strace -c's table: "% time, seconds, usecs/call, calls, [errors], syscall".
  const calls = (name) => summary.split('\n').map((l) => l.trim().split(/\s+/))
    .filter((f) => f.at(-1) === name).reduce((sum, f) => sum + Number(f[3]), 0);
  const n = Math.max(1, r['2xx']);
  if (r.non2xx || r.errors) throw new Error(`${route.path}: ${r.non2xx} non-2xx, ${r.errors} errors while counting writes`);
  return { frames: calls('pwrite64') / 2 / n, syncs: (calls('fsync') + calls('fdatasync')) / n };
}
