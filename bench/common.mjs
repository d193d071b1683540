// What the benchmark (bench.mjs) and the profiler (profile.mjs) share.
import autocannon from 'autocannon';

/** A seeding call's JSON answer; any other status than 2xx stops the run. */
export function ok(res, what) {
  if (res.status < 200 || res.status > 299) throw new Error(`${what}: HTTP ${res.status} ${res.text}`);
  return res.json;
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
