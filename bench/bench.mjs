// tokenpad's benchmark (run it with ./scripts/bench.sh, which builds first when needed).
//
// Starts a hello-world Worker (bench/hello) and tokenpad (without its demo frontend's assets:
// the API alone) side by side, both under the repo's own
// wrangler and workerd (tests/http/harness.mjs: free ports, private state, rate limiting off for
// tokenpad), loads each route with autocannon and prints, per route, successful req/s, p50, p99
// and the share of hello-world's req/s measured in the same run (hello-world is loaded first and
// last; the share is against the mean of both), and the CPU time wrangler and workerd spent per
// request (from /proc: steadier than req/s on a shared machine). hello-world is also loaded
// writing one JSON log line per request, as tokenpad does: what the local runtime charges for
// the line (wrangler carries each one from workerd's inspector to its terminal), and writing
// that line after one RPC call to a SQLite-backed Durable Object that reads a row or updates it:
// the floor this runtime sets for a route that reaches a merchant's ledger, against which each
// read and write is also shown. Then it times a presale launch with --buyers
// buyers (resolve -> `completed`), reports the gzip sizes of the two Workers and of the npm package,
// and the cold start (V8 compiling each Worker's wasm, in Chromium; the first answers of a freshly started
// worker: /health, then a merchant read that has to create its Durable Object). Every route
// is loaded a second time with tokenpad restarted under REQUEST_LOG=off, against floors
// without the log line: what the line costs in this runtime. Each route, the yardsticks' too,
// is loaded for --warm seconds before it is measured: V8 compiles a Worker's wasm lazily and
// tiers its hot functions up on background threads for some seconds, which a long-lived
// object pays once, not on every request (bench/perf.mjs: 0.17 ms a spend in its first 5 s
// under load, 0.03 ms after 20 s).
//
//   node bench/bench.mjs [--seconds 3] [--warm 2] [--connections 32] [--buyers 10000] [--crowd 100] [--quick]
//                        [--only <substring of a route name, or several joined by |>] [--no-launch] [--cold 5] [--json <file>]
//
// --quick: 1 second per route and no warming, 200 buyers, one cold start (a smoke run: the
// figures mean little).
// --cold N: restarts for the cold start's medians.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { ROOT, api, createMerchant, createToken, startWorker } from '../tests/http/harness.mjs';
import { buyIn, groupCpuMs, load, ok, openPresale } from './common.mjs';
import { coldStart } from './cold.mjs';

// --- options ----------------------------------------------------------------------------------
const opts = { seconds: 3, warm: 2, connections: 32, buyers: 10_000, crowd: 100, only: '', json: '', launch: true, cold: 5 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const value = () => {
    const v = argv[++i];
    if (v === undefined) fail(`${a} needs a value`);
    return v;
  };
  if (a === '--quick') Object.assign(opts, { seconds: 1, warm: 0, buyers: 200, cold: 1 });
  else if (a === '--seconds') opts.seconds = Number(value());
  else if (a === '--warm') opts.warm = Number(value());
  else if (a === '--connections') opts.connections = Number(value());
  else if (a === '--buyers') opts.buyers = Number(value());
  else if (a === '--crowd') opts.crowd = Number(value());
  else if (a === '--only') opts.only = value();
  else if (a === '--json') opts.json = value();
  else if (a === '--no-launch') opts.launch = false;
  else if (a === '--cold') opts.cold = Math.max(1, Number(value()));
  else if (a === '-h' || a === '--help') {
    console.log(readFileSync(new URL(import.meta.url), 'utf8').split('\n').slice(0, 25).join('\n'));
    process.exit(0);
  } else fail(`unknown argument ${a}`);
}
for (const k of ['seconds', 'connections', 'buyers', 'crowd']) {
  if (!Number.isInteger(opts[k]) || opts[k] < 1) fail(`--${k} takes a whole number >= 1`);
}
if (!Number.isInteger(opts.warm) || opts.warm < 0) fail('--warm takes a whole number >= 0');

/** Whether `--only` picks the route named `name` (any of its |-separated parts in the name). */
function picked(name) {
  return !opts.only || opts.only.split('|').some((part) => name.includes(part));
}

function fail(message) {
  console.error(`[bench] ${message}`);
  process.exit(2);
}
const log = (m) => console.error(`[bench] ${m}`);


/** Runs `f(i)` for i in 0..n with `width` calls in flight. */
async function pool(n, width, f) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) await f(next++);
  }));
}

const loadBefore = (() => {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
})();

// --- the workers ------------------------------------------------------------------------------
log(`starting hello-world and tokenpad (wrangler dev, workerd); ${opts.seconds} s per route, ${opts.connections} connections`);
// Neither yardstick reads tokenpad's vars.
const bare = { ALLOW_TIME_TRAVEL: null, ENABLE_FAUCET: null, BAD_KEY_LIMIT_PER_SECOND: null, ADMIN_API_KEY: null, WALLET_ENCRYPTION_KEY: null };
const hello = await startWorker({ workerDir: path.join(ROOT, 'bench', 'hello'), env: bare });
const helloRs = await startWorker({ workerDir: path.join(ROOT, 'bench', 'hello-rs'), env: bare });
// tokenpad as an API-only deployment: without its [assets] table (the demo frontend), whose
// router worker would otherwise answer every request first. On Cloudflare that router is the
// platform's and its time is not the Worker's; locally it runs in the same workerd and its CPU
// would count as tokenpad's. One row below measures it.
const tp = await startWorker({ env: { RATE_LIMIT_PER_SECOND: '0', PUBLIC_RATE_LIMIT_PER_SECOND: '0', SESSION_RATE_LIMIT_PER_SECOND: '0' }, assets: false });
const stopAll = async () => {
  await Promise.allSettled([hello.stop(), helloRs.stop(), tp.stop()]);
};
process.once('SIGINT', () => stopAll().then(() => process.exit(130)));

try {
  await main();
} finally {
  await stopAll();
}

async function main() {
  // --- fixtures -------------------------------------------------------------------------------
  log(`seeding: a merchant, a token with 100 holders, two presales (one with ${opts.crowd} buyers)`);
  const m = await createMerchant(tp, 'Bench');
  const sk = m.secretKey;
  const pk = m.publicKey;
  const token = await createToken(tp, sk, { name: 'Bench', symbol: 'BNCH', totalSupply: 1_000_000_000_000, canLP: true });
  const T = token.address;
  const holders = [];
  await pool(100, 16, async (i) => {
    const id = `h${i}`;
    const h = ok(await api(tp, 'PUT', `/holder/${id}`, { key: sk }), `PUT holder ${id}`);
    holders[i] = { id, address: h.address };
    // h1 spends and h2 transfers for the whole run: they get plenty.
    const amount = i === 1 || i === 2 ? 1_000_000_000 : 1_000;
    ok(await api(tp, 'POST', `/token/${T}/distribute`, { key: sk, body: { sendToId: id, amount } }), `distribute to ${id}`);
  });
  // h5's history: exactly one page (50 records, the default page), to compare with h0's, which
  // the distribute run below makes as long as it makes it.
  for (let i = 0; i < 49; i++) {
    ok(await api(tp, 'POST', `/token/${T}/distribute`, { key: sk, body: { sendToId: 'h5', amount: 1 } }), 'distribute to h5');
  }
  const now = ok(await api(tp, 'GET', '/admin/time', { adminKey: tp.adminKey }), 'time').nowUnix;
  const open = await openPresale(tp, sk, now, 'Open');
  const buyer = ok(await api(tp, 'PUT', '/holder/pb', { key: sk }), 'PUT holder pb');
  ok(await api(tp, 'POST', '/admin/faucet', { adminKey: tp.adminKey, body: { address: buyer.address, usdcAmount: 200_000 } }), 'faucet');
  // A presale 100 holders bought into first: each purchase's event lists them all (an event
  // lists a presale's first 100), which a presale with one buyer does not show.
  // --crowd N: N buyers first (the token's 100 holders, then holders made for it), to show
  // a purchase costs the same after 100 buyers as after 1,000.
  const crowded = await openPresale(tp, sk, now, 'Crowded');
  const crowd = holders.slice(0, Math.min(opts.crowd, holders.length));
  await pool(Math.max(0, opts.crowd - holders.length), 16, async (i) => {
    const h = ok(await api(tp, 'PUT', `/holder/c${i}`, { key: sk }), `PUT holder c${i}`);
    crowd.push({ id: `c${i}`, address: h.address });
  });
  await buyIn(tp, sk, crowded.id, crowd);
  // The token's Uniswap v3 pool: pb buys from it with USDC (each trade walks the pool's ticks).
  ok(await api(tp, 'POST', `/token/${T}/liquidity`, { key: sk, body: { initialStartingPrice: '0.01', amount: 100_000_000 } }), 'open pool');

  const json = { 'content-type': 'application/json' };
  const skh = { 'x-api-key': sk };
  const routes = [
    { name: 'GET /health (no Durable Object)', path: '/health' },
    { name: 'GET /holder/:id (public key)', path: `/holder/h0?publicKey=${pk}`, kind: 'read' },
    { name: 'GET /holder/:id/token/:address', path: `/holder/h0/token/${T}?publicKey=${pk}`, kind: 'read' },
    { name: 'GET /token/:address (100 holders)', path: `/token/${T}?publicKey=${pk}`, kind: 'read' },
    { name: 'GET /token/presales/:id', path: `/token/presales/${open.id}?publicKey=${pk}`, kind: 'read' },
    { name: 'POST distribute', method: 'POST', path: `/token/${T}/distribute`, headers: { ...skh, ...json }, body: { sendToId: 'h0', amount: 1 }, kind: 'write' },
    { name: 'POST spend', method: 'POST', path: '/holder/h1/spend', headers: { ...skh, ...json }, body: { tokenAddress: T, amount: 1 }, kind: 'write' },
    { name: 'POST transfer', method: 'POST', path: '/holder/h2/transfer', headers: { ...skh, ...json }, body: { tokenAddress: T, amount: 1, toAddress: holders[3].address }, kind: 'write' },
    { name: 'POST buy-presale', method: 'POST', path: '/holder/pb/buy-presale', headers: { ...skh, ...json }, body: { presaleId: open.id, usdcAmount: 1 }, kind: 'write' },
    { name: `POST buy-presale (${opts.crowd} buyers before)`, method: 'POST', path: '/holder/pb/buy-presale', headers: { ...skh, ...json }, body: { presaleId: crowded.id, usdcAmount: 1 }, kind: 'write' },
    { name: 'GET /holder/:id/buy/quote', path: `/holder/pb/buy/quote?tokenAddress=${T}&usdcAmount=1`, headers: skh, kind: 'read' },
    { name: 'POST buy (pool)', method: 'POST', path: '/holder/pb/buy', headers: { ...skh, ...json }, body: { tokenAddress: T, usdcAmount: 0.01 }, kind: 'write' },
    { name: 'POST spend, idempotent replay', method: 'POST', path: '/holder/h1/spend', headers: { ...skh, ...json, 'idempotency-key': 'bench-replay' }, body: { tokenAddress: T, amount: 1 }, kind: 'replay' },
    { name: 'GET /holder/:id/transactions (50 records)', path: '/holder/h5/transactions', headers: skh, kind: 'history' },
    // h0 received every distribute above: its history is as long as that run made it. Both
    // answer the default page of 50 records.
    { name: 'GET /holder/:id/transactions (long history)', path: '/holder/h0/transactions', headers: skh, kind: 'history' },
  ];

  const results = [];
  // Every route, the yardsticks' too, is loaded for --warm seconds first (the top of this file
  // says why).
  const measure = async (target, route) => {
    const warmed = opts.warm > 0 ? (await load(target, route, opts.connections, opts.warm))['2xx'] : 0;
    const cpuBefore = groupCpuMs(target);
    const r = await load(target, route, opts.connections, opts.seconds);
    const okCount = r['2xx'];
    const cpuAfter = groupCpuMs(target);
    const perRequest = (part) => (cpuBefore === null || cpuAfter === null ? null : (cpuAfter[part] - cpuBefore[part]) / Math.max(1, r.requests.total));
    const row = {
      // CPU time the runtime (wrangler and workerd) spent per request: steadier than req/s
      // on a shared machine, where other work takes cores away. Of it, the Workers' runtime
      // (the workerd that runs them) is what Cloudflare runs; wrangler's (its node process,
      // every console line it carries from the inspector to the terminal, and its proxy
      // Worker, a workerd of its own every request crosses) exists only locally. The issue's
      // targets were set on workerd's CPU, the proxy's included.
      cpuMsPerRequest: perRequest('all'),
      workerdMsPerRequest: perRequest('workerd'),
      runtimeMsPerRequest: perRequest('runtime'),
      route: route.name,
      kind: route.kind ?? 'other',
      reqPerSec: Math.round(okCount / r.duration),
      p50: r.latency.p50,
      p99: r.latency.p99,
      ok: okCount,
      // Successful requests while warming (a distribute's add records to h0's history).
      warmed,
      failed: r.non2xx + r.errors + r.timeouts,
    };
    log(`${row.route}: ${row.reqPerSec} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, CPU ${row.cpuMsPerRequest?.toFixed(2) ?? '?'} ms/request ` +
      `(workerd ${row.workerdMsPerRequest?.toFixed(2) ?? '?'}, its runtime ${row.runtimeMsPerRequest?.toFixed(2) ?? '?'})${row.failed ? `, ${row.failed} failed` : ''}`);
    return row;
  };
  // Warm both up (JIT, connections, the merchant's object).
  await load(hello, { path: '/' }, opts.connections, 1);
  await load(hello, { path: '/object' }, opts.connections, 1);
  await load(helloRs, { path: '/object' }, opts.connections, 1);
  await load(tp, { path: `/holder/h0?publicKey=${pk}` }, opts.connections, 1);

  const helloRoute = { name: 'hello-world Worker', path: '/' };
  const helloFirst = await measure(hello, helloRoute);
  // The same, writing one console line per request as tokenpad does: the runtime's own share.
  const helloLog = await measure(hello, { name: 'hello-world + one log line per request', path: '/log' });
  // The same line after one RPC call to a SQLite-backed Durable Object (bench/hello): the
  // floor for a route that reaches a merchant's ledger, reading one row or updating it.
  const helloObject = await measure(hello, { name: 'hello-world + log line + object read (1 SQL row)', path: '/object', kind: 'floor' });
  const helloObjectWrite = await measure(hello, { name: 'hello-world + log line + object write (1 SQL update)', method: 'POST', path: '/object-write', kind: 'floor' });
  // The same four as a Rust Worker built as tokenpad is (bench/hello-rs): what the wasm,
  // its bindings and worker-build's shim add to the runtime's floor.
  const rust = [];
  for (const [name, p] of [['', '/'], [' + log line', '/log'], [' + log line + object read', '/object'], [' + log line + object write', '/object-write']]) {
    rust.push(await measure(helloRs, { name: `Rust hello-world${name}`, method: p === '/object-write' ? 'POST' : 'GET', path: p, kind: 'floor' }));
  }
  for (const route of routes) {
    if (!picked(route.name)) continue;
    results.push(await measure(tp, route));
  }
  const withAssets = { name: 'GET /health, with the demo frontend (assets router in front)', path: '/health' };
  if (picked(withAssets.name)) {
    const tpAssets = await startWorker({ env: { RATE_LIMIT_PER_SECOND: '0', PUBLIC_RATE_LIMIT_PER_SECOND: '0', SESSION_RATE_LIMIT_PER_SECOND: '0' } });
    try {
      await load(tpAssets, { path: '/health' }, opts.connections, 1);
      results.push(await measure(tpAssets, withAssets));
    } finally {
      await tpAssets.stop();
    }
  }
  // The same routes with REQUEST_LOG=off (no request log line), against floors without the
  // line: what the line costs tokenpad in this runtime, where each line crosses wrangler's
  // inspector. The default (every request logged) is what the table above measures.
  const quiet = { floors: [], results: [] };
  const quietRoutes = routes.filter((route) => picked(route.name));
  if (quietRoutes.length) {
    await tp.restart({ env: { REQUEST_LOG: 'off' } });
    try {
      await load(tp, { path: `/holder/h0?publicKey=${pk}` }, opts.connections, 1);
      quiet.floors.push(await measure(hello, { name: 'hello-world + object read (1 SQL row), no log line', path: '/object-quiet', kind: 'floor' }));
      quiet.floors.push(await measure(hello, { name: 'hello-world + object write (1 SQL update), no log line', method: 'POST', path: '/object-write-quiet', kind: 'floor' }));
      for (const route of quietRoutes) quiet.results.push(await measure(tp, route));
    } finally {
      await tp.restart({ env: { REQUEST_LOG: null } });
    }
  }
  const helloLast = await measure(hello, { ...helloRoute, name: 'hello-world Worker (again, last)' });
  // h0 received every distribute: its history is as long as both runs made it.
  let records = 1;
  for (const rows of [results, quiet.results]) {
    const distributed = rows.find((r) => r.route === 'POST distribute');
    const long = rows.find((r) => r.route.includes('long history'));
    records += (distributed?.ok ?? 0) + (distributed?.warmed ?? 0);
    if (long) long.route = `GET /holder/:id/transactions (${records} records)`;
  }

  // --- a presale launch with --buyers buyers ----------------------------------------------------
  let launch = null;
  if (opts.launch && (!opts.only || opts.only.split('|').some((part) => 'launch'.includes(part)))) launch = await timeLaunch(tp, sk, pk, now);

  // --- sizes and cold start ---------------------------------------------------------------------
  const sizes = measureSizes();
  const cold = await coldStart(tp, pk, { floors: [hello, helloRs], runs: opts.cold, log });

  // --- report -----------------------------------------------------------------------------------
  const base = (helloFirst.reqPerSec + helloLast.reqPerSec) / 2;
  const baseP99 = Math.max(helloFirst.p99, helloLast.p99);
  const pct = (x) => `${Math.round((100 * x) / base)} %`;
  // Each route against the runtime's floor for its kind: a write against the object write, a
  // read against the object read, a route without an object against the log line alone.
  const floorOf = (r, [read, write, none] = [helloObject, helloObjectWrite, helloLog]) => (
    r.kind === 'write' || r.kind === 'replay' ? write : r.kind === 'read' || r.kind === 'history' ? read : none);
  const pctFloor = (r, floors) => (r.kind === 'floor' || r.route.includes('hello-world') ? ''
    : `${Math.round((100 * r.reqPerSec) / floorOf(r, floors).reqPerSec)} %`);
  const cpu = (key) => {
    const baseCpu = (helloFirst[key] + helloLast[key]) / 2;
    return (r) => (r[key] === null ? '?' : `${r[key].toFixed(2)} (${(r[key] / baseCpu).toFixed(1)}x)`);
  };
  const [cpuAll, cpuWorkerd, cpuRuntime] = [cpu('cpuMsPerRequest'), cpu('workerdMsPerRequest'), cpu('runtimeMsPerRequest')];
  // The issue's targets: a route's workerd CPU against its floor's; beside it the same of the
  // Workers' runtime alone, without wrangler's proxy (which flatters every ratio).
  const cpuFloor = (r, floors) => {
    if (r.kind === 'floor' || r.route.includes('hello-world')) return '';
    const f = floorOf(r, floors);
    const x = (key) => (r[key] === null || !f[key] ? '?' : `${(r[key] / f[key]).toFixed(2)}x`);
    return `${x('workerdMsPerRequest')} (${x('runtimeMsPerRequest')})`;
  };
  const lines = [];
  lines.push(`tokenpad benchmark: ${opts.seconds} s per route, ${opts.connections} connections, autocannon ${autocannonVersion()}, ${new Date().toISOString()}`);
  lines.push(`machine: ${cpuInfo()}; load average before the run: ${loadBefore}`);
  lines.push('');
  const head = ['| route | req/s | share of hello-world | share of its floor | CPU ms per request (x hello-world) | of which workerd | of which the Workers\' runtime | workerd x its floor (the runtime\'s x its floor\'s) | p50 ms | p99 ms | p99 / hello-world p99 | failed |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
  lines.push(...head);
  const row = (r, floors) => `| ${r.route} | ${r.reqPerSec} | ${pct(r.reqPerSec)} | ${pctFloor(r, floors)} | ${cpuAll(r)} | ${cpuWorkerd(r)} | ${cpuRuntime(r)} | ${cpuFloor(r, floors)} | ${r.p50} | ${r.p99} | ${(r.p99 / baseP99).toFixed(1)}x | ${r.failed} |`;
  for (const r of [helloFirst, helloLog, helloObject, helloObjectWrite, ...rust, ...results, helloLast]) lines.push(row(r));
  lines.push('');
  if (quiet.results.length) {
    lines.push('With REQUEST_LOG=off (no request log line; shares against the same hello-world, floors without the line):');
    lines.push('');
    lines.push(...head);
    const [read, write] = quiet.floors;
    for (const r of [...quiet.floors, ...quiet.results]) lines.push(row(r, [read, write, helloFirst]));
    lines.push('');
  }
  if (launch) {
    lines.push(`presale launch, ${launch.buyers} buyers: resolve -> completed in ${(launch.ms / 1000).toFixed(1)} s ` +
      `(${launch.steps} chain steps of ${launch.blockMs / 1000} s each: target ${((launch.steps * launch.blockMs) / 1000 + 2).toFixed(0)} s); ` +
      `the token's holder list then: GET /token/:address (${launch.buyers} holders) ${launch.read.reqPerSec} req/s (${pct(launch.read.reqPerSec)}), p99 ${launch.read.p99} ms; seeding took ${(launch.seedMs / 1000).toFixed(0)} s`);
    const pr = launch.presaleRead;
    lines.push(`before it, the presale's public read: GET /token/presales/:id (${launch.buyers} participants, ${kib(pr.bytes)}) ${pr.reqPerSec} req/s (${pct(pr.reqPerSec)}), p99 ${pr.p99} ms`);
  }
  lines.push(`front Worker: ${kib(sizes.worker.raw)} raw, ${kib(sizes.worker.gzip)} gzip (${sizes.worker.files} files in crates/worker/build; budget 900 KiB)`);
  lines.push(`ledger Worker: ${kib(sizes.ledger.raw)} raw, ${kib(sizes.ledger.gzip)} gzip (${sizes.ledger.files} files in crates/worker/build-ledger; budget 900 KiB)`);
  if (sizes.pkg) lines.push(`npm package @tokenpad/client: ${kib(sizes.pkg.gzip)} packed tarball (gzip), ${kib(sizes.pkg.unpacked)} unpacked`);
  else lines.push('npm package: pkg/ not built (./scripts/build-pkg.sh)');
  lines.push(`cold start: V8 compiles the front's wasm in ${cold.compileMs.toFixed(1)} ms and the ledger's in ${cold.ledgerCompileMs.toFixed(1)} ms (Chromium); after a restart, ` +
    `medians of ${cold.runs}: first GET /health ${cold.healthMs.toFixed(0)} ms, first merchant read (new Durable Object) ${cold.objectMs.toFixed(0)} ms, ` +
    `a second merchant's first read after it ${cold.otherMs.toFixed(0)} ms, then ${cold.warmMs.toFixed(1)} ms warm; ` +
    `the runtime's floor, restarted the same way: first object read ${cold.floorMs.toFixed(0)} ms (bench/hello, JavaScript), ${cold.floorRsMs.toFixed(0)} ms (bench/hello-rs, Rust)`);
  console.log(lines.join('\n'));
  if (opts.json) {
    writeFileSync(opts.json, JSON.stringify({ opts, hello: [helloFirst, helloLast], helloLog, helloObject, helloObjectWrite, rust, results, quiet, launch, sizes, cold }, null, 2));
  }
  const failed = [helloFirst, helloLog, helloObject, helloObjectWrite, ...rust, ...results, ...quiet.floors, ...quiet.results, helloLast].filter((r) => r.failed > 0);
  if (failed.length) {
    console.log(`\n${failed.length} route(s) had failed requests: ${failed.map((r) => r.route).join(', ')}`);
    process.exitCode = 1;
  }
}

async function timeLaunch(w, sk, pk, now) {
  const n = opts.buyers;
  log(`launch: seeding ${n} buyers (a holder, test USDC, a purchase each)`);
  const t0 = Date.now();
  const p = await openPresale(w, sk, now, 'Launch', n);
  await pool(n, 32, async (i) => {
    const id = `b${i}`;
    const h = ok(await api(w, 'PUT', `/holder/${id}`, { key: sk }), `PUT holder ${id}`);
    ok(await api(w, 'POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: h.address, usdcAmount: 1 } }), 'faucet');
    ok(await api(w, 'POST', `/holder/${id}/buy-presale`, { key: sk, body: { presaleId: p.id, usdcAmount: 1 } }), 'buy');
    if ((i + 1) % 1000 === 0) log(`  ${i + 1} buyers`);
  });
  const seedMs = Date.now() - t0;
  // The presale's public read lists every participant (the interface's form): its cost grows
  // with the buyers, unlike a token's holder page.
  const presalePath = `/token/presales/${p.id}?publicKey=${pk}`;
  const bytes = Buffer.byteLength((await api(w, 'GET', presalePath)).text);
  const pr = await load(w, { path: presalePath }, opts.connections, opts.seconds);
  const presaleRead = { reqPerSec: Math.round(pr['2xx'] / pr.duration), p50: pr.latency.p50, p99: pr.latency.p99, failed: pr.non2xx + pr.errors, bytes };
  log(`GET /token/presales/:id (${n} participants, ${bytes} bytes): ${presaleRead.reqPerSec} req/s, p99 ${presaleRead.p99} ms`);
  log(`launch: resolving (${n} buyers)`);
  const start = performance.now();
  ok(await api(w, 'POST', '/merchant/presale/resolve', { key: sk, body: { presaleId: p.id } }), 'resolve');
  let presale;
  for (;;) {
    presale = ok(await api(w, 'GET', `/merchant/presale/${p.id}`, { key: sk }), 'presale');
    if (presale.completionState?.step === 'completed') break;
    if (performance.now() - start > 300_000) throw new Error(`launch not completed after 300 s: ${JSON.stringify(presale.completionState)}`);
    // A read of this presale lists all its participants: polled every 50 ms, as it was, the
    // reads (tens of ms each before the object kept their text) took a large part of the
    // object's time from the launch they were timing. A quarter second is within a step's 2 s.
    await sleep(250);
  }
  const ms = performance.now() - start;
  const address = presale.tokenAddress ?? presale.token?.address ?? presale.tokenInfo?.address;
  let read = { reqPerSec: 0, p99: 0 };
  if (address) {
    const r = await load(w, { path: `/token/${address}?publicKey=${pk}` }, opts.connections, opts.seconds);
    read = { reqPerSec: Math.round(r['2xx'] / r.duration), p50: r.latency.p50, p99: r.latency.p99, failed: r.non2xx + r.errors };
    log(`GET /token/:address (${n} holders): ${read.reqPerSec} req/s, p99 ${read.p99} ms`);
  } else {
    log(`launch: no token address in ${JSON.stringify(presale).slice(0, 300)}`);
  }
  return { buyers: n, ms, seedMs, steps: 5, blockMs: 2000, read, presaleRead };
}

function measureSizes() {
  // Each Worker's build directory: the front's (crates/worker/build) and the ledger's
  // (crates/worker/build-ledger), every file gzipped alone.
  const measure = (build) => {
    const files = [];
    const walk = (dir) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(path.join(ROOT, 'crates', 'worker', build));
    let raw = 0;
    let gzip = 0;
    for (const f of files) {
      const bytes = readFileSync(f);
      raw += bytes.length;
      gzip += gzipSync(bytes, { level: 9 }).length;
    }
    return { raw, gzip, files: files.length };
  };
  const worker = measure('build');
  const ledger = measure('build-ledger');
  let pkg = null;
  try {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', path.join(ROOT, 'pkg')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    const [info] = JSON.parse(out.toString());
    pkg = { gzip: info.size, unpacked: info.unpackedSize };
  } catch {
    /* pkg/ not built */
  }
  return { worker, ledger, pkg };
}

function kib(bytes) {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

function autocannonVersion() {
  return JSON.parse(readFileSync(path.join(ROOT, 'node_modules', 'autocannon', 'package.json'), 'utf8')).version;
}

function cpuInfo() {
  try {
    const cpu = readFileSync('/proc/cpuinfo', 'utf8');
    const model = /model name\s*:\s*(.*)/.exec(cpu)?.[1] ?? 'unknown cpu';
    const n = (cpu.match(/^processor/gm) ?? []).length;
    return `${n} x ${model}`;
  } catch {
    return 'unknown';
  }
}
