// What the benchmark scripts share (bench.mjs, profile.mjs, sqlite.mjs, watchers.mjs).
import { execFileSync } from 'node:child_process';
import autocannon from 'autocannon';
import { api, groupProcesses } from '../tests/http/harness.mjs';

// Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux).
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU time (user + system, ms) of the processes in process group `pgid`: all of them
 * (wrangler and the workerd it runs) and workerd's alone, from /proc; null where there is
 * no /proc.
 */
export function groupCpuMs(pgid) {
  if (!pgid) return null;
  try {
    const ms = (ps) => (ps.reduce((sum, p) => sum + p.ticks, 0) * 1000) / CLOCK_TICKS;
    const all = groupProcesses(pgid);
    return { all: ms(all), workerd: ms(all.filter((p) => p.name === 'workerd')) };
  } catch {
    return null;
  }
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
 * (a body is sent as JSON).
 */
export function load(worker, route, connections, seconds) {
  return autocannon({
    url: worker.baseUrl + route.path,
    method: route.method ?? 'GET',
    headers: route.headers,
    body: route.body === undefined ? undefined : JSON.stringify(route.body),
    connections,
    duration: seconds,
  });
}
