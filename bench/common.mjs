// What the benchmark (bench.mjs) and the profiler (profile.mjs) share.
import autocannon from 'autocannon';
import { api } from '../tests/http/harness.mjs';

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
