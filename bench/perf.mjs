// Where workerd's CPU goes, outside JavaScript too. Linux `perf` samples both workerd
// processes `wrangler dev` runs (wrangler's own proxy Worker, which every request crosses
// locally, and the runtime that runs the Workers and their Durable Objects) while autocannon
// loads a route, for the object-write floor (bench/hello's /object-write-quiet) and for
// tokenpad's routes (REQUEST_LOG=off, API-only, the state profile.mjs seeds), and splits each
// request's CPU by what is on each sample's native stack. The V8 profiler (profile.mjs) sees
// one isolate's JavaScript and wasm only; this sees the runtime's own work around them too:
// the HTTP and RPC between the isolates, SQLite and its commit, the kernel, V8's background
// compiles. workerd is shipped with its symbols; JIT code (JavaScript, wasm) is one part here.
//
//   node bench/perf.mjs [spend distribute ...] [--seconds 5] [--top 0]
//
// Needs `perf` (linux-perf) allowed to sample the processes (root, or perf_event_paranoid
// <= 1). With strace there too, it also counts exactly what each request writes to storage:
// the pages SQLite's commit writes to its WAL, and the fsyncs. scripts/test.sh runs it for a
// second where perf may sample, so that it cannot rot; it checks no figure.
import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ROOT, startWorker } from '../tests/http/harness.mjs';
import { hasStrace, load, storageWrites, workerdPids } from './common.mjs';
import { ROUTE_NAMES, seedRoutes } from './state.mjs';

const opts = { routes: [], seconds: 5, connections: 32, top: 0, hz: 1999 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--seconds') opts.seconds = Number(argv[++i]);
  else if (a === '--top') opts.top = Number(argv[++i]);
  else if (a === '--connections') opts.connections = Number(argv[++i]);
  else if (!a.startsWith('-') && ROUTE_NAMES.includes(a)) opts.routes.push(a);
  else throw new Error(`unknown argument ${a}: routes are ${ROUTE_NAMES.join(', ')}`);
}
if (!opts.routes.length) opts.routes.push('spend');
const log = (m) => process.stderr.write(`[perf] ${m}\n`);
try {
  execFileSync('perf', ['--version'], { stdio: 'ignore' });
} catch {
  log('no `perf` on this machine (Debian: apt install linux-perf); nothing measured');
  process.exit(2);
}
opts.strace = hasStrace();
if (!opts.strace) log('no strace: the pages each request commits are not counted');

/**
 * The parts a sample is counted in, the first that matches: by process and thread, then by the
 * native frames on its stack (names as workerd's symbols spell them).
 */
const PARTS = [
  ['proxy', "wrangler's proxy Worker (local only)"],
  ['background', 'V8 background threads (compiles, GC)'],
  ['sql', 'SQLite: statements and commit'],
  ['object', "the object's call: its JS and wasm, bindings"],
  ['worker', "the Worker's request: its JS and wasm, bindings"],
  ['runtime', 'runtime outside JS: HTTP, RPC, event loop'],
];
const SQL = /sqlite3|SqliteDatabase|ActorSqlite|SqlStorage|walChecksum/;
const partOf = (sample, proxyPid) => {
  if (sample.pid === proxyPid) return 'proxy';
  if (sample.comm !== 'workerd') return 'background';
  if (sample.frames.some((f) => SQL.test(f))) return 'sql';
  // A Durable Object's RPC method runs under the runtime's RPC target; the Worker's fetch
  // handler (and what its promises resume) under its I/O context.
  if (sample.frames.some((f) => f.includes('JsRpcTargetBase'))) return 'object';
  if (sample.frames.some((f) => f.includes('IoContext::run'))) return 'worker';
  return 'runtime';
};

/** perf's samples of `file`: each one's process, thread name, period (ns) and frames, leaf first. */
function samplesOf(file) {
  const text = execFileSync('perf', ['script', '-i', file, '-F', 'comm,pid,tid,period,ip,sym,dso'], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  return text.split('\n\n').map((block) => block.trim().split('\n')).filter((lines) => lines.length > 1).map(([head, ...frames]) => {
    // "workerd 123/125   500000:" or "V8 DefaultWorke 123/130 500000:": the name may hold spaces.
    const m = /^(.*\S)\s+(\d+)\/(\d+)\s+(\d+):?$/.exec(head.trim());
    return m && { comm: m[1], pid: Number(m[2]), period: Number(m[4]), frames: frames.map((f) => f.trim().replace(/^[0-9a-f]+ /, '')) };
  }).filter(Boolean);
}

/**
 * Loads `route` on `w` for the set seconds while perf samples both its workerd processes; the
 * request count, each part's CPU ms per request, the kernel's share and the hottest leaves.
 */
async function measure(w, route, name) {
  await load(w, route, opts.connections, 1); // warm
  const { runtime, proxy } = workerdPids(w);
  if (!runtime) throw new Error(`${name}: no Workers runtime found in wrangler's process group`);
  const file = path.join(ROOT, 'target', `perf-${process.pid}.data`);
  const pids = [runtime, proxy].filter(Boolean).join(',');
  const perf = spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', String(opts.hz), '-g', '-p', pids, '-o', file], { stdio: 'ignore' });
  const stopped = new Promise((resolve) => perf.on('exit', resolve));
  await new Promise((resolve) => setTimeout(resolve, 300)); // perf attached
  const r = await load(w, route, opts.connections, opts.seconds);
  perf.kill('SIGINT');
  await stopped;
  const requests = r.requests.total;
  const ms = (ns) => ns / 1e6 / Math.max(1, requests);
  const parts = Object.fromEntries(PARTS.map(([k]) => [k, 0]));
  const leaves = new Map();
  let kernel = 0;
  const samples = samplesOf(file);
  rmSync(file, { force: true });
  for (const s of samples) {
    parts[partOf(s, proxy)] += s.period;
    if (s.frames[0]?.includes('kernel.kallsyms')) kernel += s.period;
    if (s.pid !== proxy) {
      // A frame is "symbol (object file)"; JIT code (JavaScript, wasm) has no symbol.
      const leaf = (s.frames[0] ?? '?').replace(/\(anonymous namespace\)/g, 'anon').replace(/\s*\([^()]*\)$/, '').replace(/^\[unknown\]$/, '(JIT code: JavaScript, wasm)').slice(0, 110);
      leaves.set(leaf, (leaves.get(leaf) ?? 0) + s.period);
    }
  }
  log(`${name}: ${requests} requests, ${Math.round(r['2xx'] / r.duration)} req/s while sampled (${r.non2xx} non-2xx)`);
  return {
    name, requests, failed: r.non2xx + r.errors,
    parts: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, ms(v)])),
    kernel: ms(kernel),
    leaves: [...leaves].sort((a, b) => b[1] - a[1]).slice(0, opts.top).map(([leaf, v]) => [leaf, ms(v)]),
  };
}

const quiet = { RATE_LIMIT_PER_SECOND: '0', PUBLIC_RATE_LIMIT_PER_SECOND: '0', SESSION_RATE_LIMIT_PER_SECOND: '0', REQUEST_LOG: 'off' };
const hello = await startWorker({ workerDir: path.join(ROOT, 'bench', 'hello'), env: { REQUEST_LOG: 'off' } });
const tp = await startWorker({ env: quiet, assets: false });
const rows = [];
try {
  const floor = { method: 'POST', path: '/object-write-quiet' };
  rows.push({ ...await measure(hello, floor, 'the write floor (bench/hello)'), writes: opts.strace ? await storageWrites(hello, floor) : null });
  const routes = await seedRoutes(tp, { crowded: opts.routes.includes('buy-crowded') });
  for (const name of opts.routes) rows.push({ ...await measure(tp, routes[name], name), writes: opts.strace ? await storageWrites(tp, routes[name]) : null });
  rows.push({ ...await measure(hello, floor, 'the write floor, again'), writes: null });
} finally {
  await Promise.allSettled([hello.stop(), tp.stop()]);
}

// The table: each part in ms per request; each route's excess over the mean of the two floors.
const floors = [rows[0], rows.at(-1)];
const mean = (k) => (floors[0].parts[k] + floors[1].parts[k]) / 2;
const total = (row) => Object.values(row.parts).reduce((a, b) => a + b, 0);
const f2 = (x) => x.toFixed(2);
console.log(`\nworkerd CPU per request, ms, by part (perf cpu-clock at ${opts.hz} Hz, ${opts.seconds} s a route, ${opts.connections} connections; ${new Date().toISOString()})\n`);
console.log(`| part | ${rows.map((r) => r.name).join(' | ')} |`);
console.log(`|---|${rows.map(() => '---:').join('|')}|`);
for (const [k, label] of PARTS) {
  console.log(`| ${label} | ${rows.map((r, i) => (i === 0 || i === rows.length - 1 ? f2(r.parts[k]) : `${f2(r.parts[k])} (${r.parts[k] >= mean(k) ? '+' : ''}${f2(r.parts[k] - mean(k))})`)).join(' | ')} |`);
}
const floorTotal = (total(floors[0]) + total(floors[1])) / 2;
const floorRuntime = floorTotal - mean('proxy');
console.log(`| **all** | ${rows.map((r) => f2(total(r))).join(' | ')} |`);
console.log(`| x the floor | ${rows.map((r) => `${(total(r) / floorTotal).toFixed(2)}x`).join(' | ')} |`);
console.log(`| x the floor, without wrangler's proxy | ${rows.map((r) => `${((total(r) - r.parts.proxy) / floorRuntime).toFixed(2)}x`).join(' | ')} |`);
console.log(`| of all: the kernel's | ${rows.map((r) => f2(r.kernel)).join(' | ')} |`);
if (opts.strace) {
  const w = (r, k) => (r.writes ? r.writes[k].toFixed(1) : '');
  console.log(`| pages a request commits (WAL frames, strace) | ${rows.map((r) => w(r, 'frames')).join(' | ')} |`);
  console.log(`| fsyncs a request | ${rows.map((r) => w(r, 'syncs')).join(' | ')} |`);
}
if (opts.top) {
  for (const r of rows) {
    console.log(`\n${r.name}: the runtime's hottest leaves (ms per request)`);
    for (const [leaf, v] of r.leaves) console.log(`  ${v.toFixed(3)}  ${leaf}`);
  }
}
if (rows.some((r) => r.failed)) process.exit(1);
