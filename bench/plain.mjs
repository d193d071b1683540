// The benchmark's yardsticks and a few of tokenpad's routes under workerd as Miniflare runs it
// alone: no `wrangler dev` in front (its proxy worker and middleware) and no inspector client
// (through which wrangler carries every console line to its terminal). bench.mjs measures
// under wrangler dev, as the issue asks; this shows what of that is the development tooling's.
//
//   node bench/plain.mjs [--seconds 3] [--connections 32] [--warm 1]
//
// --warm is each route's unmeasured run first, in seconds (JIT, the object, connections): the
// smoke in scripts/test.sh runs with 0, as it checks that the tool works, not its figures.
//
// Each worker is configured from its own wrangler.toml (wrangler's
// unstable_getMiniflareWorkerOptions), tokenpad API-only as bench.mjs runs it, rate limiting
// off, twice: with every request logged (the default) and with REQUEST_LOG=off. CPU is that of
// this process's workerd children, from /proc.
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT, TEST_WALLET_ENCRYPTION_KEY, api, createMerchant, createToken } from '../tests/http/harness.mjs';
import { TOKENPAD_DIRS, startPlain as start } from '../tests/http/miniflare.mjs';
import { ok } from './common.mjs';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');

const opts = { seconds: 3, connections: 32, warm: 1 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--seconds') opts.seconds = Number(argv[++i]);
  else if (argv[i] === '--connections') opts.connections = Number(argv[++i]);
  else if (argv[i] === '--warm') opts.warm = Number(argv[++i]);
  else throw new Error(`unknown argument ${argv[i]}`);
}
const log = (m) => process.stderr.write(`[plain] ${m}\n`);
const ADMIN = 'plain-bench-admin-key';

/** tokenpad with a token, 100 holders holding it, as bench.mjs seeds it. */
async function tokenpad(requestLog) {
  const w = await start(TOKENPAD_DIRS, {
    ADMIN_API_KEY: ADMIN, WALLET_ENCRYPTION_KEY: TEST_WALLET_ENCRYPTION_KEY,
    RATE_LIMIT_PER_SECOND: '0', PUBLIC_RATE_LIMIT_PER_SECOND: '0', SESSION_RATE_LIMIT_PER_SECOND: '0', REQUEST_LOG: requestLog, ALLOW_TIME_TRAVEL: 'true',
  });
  const m = await createMerchant(w, 'Plain');
  w.token = (await createToken(w, m.secretKey, { name: 'Plain', symbol: 'PLN', totalSupply: 1_000_000_000_000 })).address;
  w.holders = [];
  for (let i = 0; i < 100; i++) {
    w.holders.push(ok(await api(w, 'PUT', `/holder/h${i}`, { key: m.secretKey }), 'holder').address);
    ok(await api(w, 'POST', `/token/${w.token}/distribute`, { key: m.secretKey, body: { sendToId: `h${i}`, amount: 1_000_000_000 } }), 'distribute');
  }
  w.m = m;
  return w;
}

const ticks = () => readdirSync('/proc').filter((p) => /^\d+$/.test(p)).reduce((sum, p) => {
  try {
    const [name, rest] = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ');
    const f = rest.split(' ');
    // Only this process's workerd children (Miniflare spawns one per instance).
    return name.endsWith('(workerd') && Number(f[1]) === process.pid ? sum + Number(f[11]) + Number(f[12]) : sum;
  } catch {
    return sum;
  }
}, 0);

async function measure(name, url, route) {
  const run = (seconds) => new Promise((resolve, reject) => autocannon({
    url: new URL(route.path, url).href, method: route.method ?? 'GET', connections: opts.connections, duration: seconds,
    headers: { 'content-type': 'application/json', ...route.headers }, body: route.body && JSON.stringify(route.body),
  }, (e, r) => (e ? reject(e) : resolve(r))));
  if (opts.warm > 0) await run(opts.warm);
  const t0 = ticks();
  const r = await run(opts.seconds);
  const ms = ((ticks() - t0) * 10) / Math.max(1, r.requests.total); // USER_HZ: 100
  const failed = r.non2xx + r.errors;
  // Which statuses, when any failed: a run in CI cannot be asked again.
  const statuses = Object.entries(r.statusCodeStats ?? {}).filter(([s]) => !s.startsWith('2')).map(([s, { count }]) => `${count} x ${s}`);
  const why = [...statuses, ...(r.errors ? [`${r.errors} errors (${r.timeouts} timeouts)`] : [])].join(', ');
  log(`${name}: ${Math.round(r.requests.average)} req/s, workerd ${ms.toFixed(3)} ms/request${failed ? `, ${failed} failed: ${why}` : ''}`);
  return { name, rps: r.requests.average, ms, p99: r.latency.p99, failed };
}

const hello = await start([path.join(ROOT, 'bench/hello')]);
const [logged, quiet] = [await tokenpad('all'), await tokenpad('off')];
const rows = [];
try {
  for (const [name, p] of [['hello-world Worker', '/'], ['hello-world + one log line per request', '/log'],
    ['hello-world + object read (1 SQL row), no log line', '/object-quiet'], ['hello-world + log line + object read', '/object'],
    ['hello-world + object write (1 SQL update), no log line', '/object-write-quiet'], ['hello-world + log line + object write', '/object-write']]) {
    rows.push(await measure(name, hello.url, { path: p }));
  }
  for (const [label, w] of [['', logged], [', REQUEST_LOG=off', quiet]]) {
    const key = { 'x-api-key': w.m.secretKey };
    for (const [name, route] of [
      ['GET /holder/:id (public key)', { path: `/holder/h0?publicKey=${w.m.publicKey}` }],
      ['GET /token/:address (100 holders)', { path: `/token/${w.token}?publicKey=${w.m.publicKey}` }],
      ['POST distribute', { method: 'POST', path: `/token/${w.token}/distribute`, headers: key, body: { sendToId: 'h0', amount: 1 } }],
      ['POST spend', { method: 'POST', path: '/holder/h1/spend', headers: key, body: { tokenAddress: w.token, amount: 1 } }],
      ['POST transfer', { method: 'POST', path: '/holder/h2/transfer', headers: key, body: { tokenAddress: w.token, amount: 1, toAddress: w.holders[3] } }],
    ]) rows.push(await measure(name + label, w.url, route));
  }
  rows.push(await measure('hello-world Worker (again, last)', hello.url, { path: '/' }));
} finally {
  for (const w of [hello, logged, quiet]) await w.mf.dispose();
}
const base = rows.filter((r) => r.name.startsWith('hello-world Worker'));
const [rps, ms] = [base.reduce((s, r) => s + r.rps, 0) / base.length, base.reduce((s, r) => s + r.ms, 0) / base.length];
console.log(`tokenpad under Miniflare alone (no wrangler dev, no inspector): ${opts.seconds} s per route, ${opts.connections} connections`);
console.log('| route | req/s | share of hello-world | workerd CPU ms per request (x hello-world) | p99 ms | failed |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.name} | ${Math.round(r.rps)} | ${Math.round((100 * r.rps) / rps)} % | ${r.ms.toFixed(2)} (${(r.ms / ms).toFixed(1)}x) | ${r.p99} | ${r.failed} |`);
}
if (rows.some((r) => r.failed)) process.exitCode = 1;
