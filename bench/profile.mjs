// Where a route's time goes: a CPU profile of one of tokenpad's two isolates (the front, and
// the ledger where the merchant's object runs) while autocannon loads one route: the ledger's
// by default, the front's with `--isolate front`, through workerd's own inspector or, for the
// isolate wrangler's inspector proxy holds, through that proxy (bench/inspector.mjs). This
// checks which isolate it profiled and says so. Prints the functions with the most samples of
// their own and on their stack (shares of the samples), Rust functions under their own names;
// --callers and --callees the paths around a function, --tree a top-down breakdown under one.
// --from reports a profile written before with --json, starting nothing.
//
//   ./scripts/bench.sh --profile holder        (builds first when needed, then runs this)
//   node bench/profile.mjs [holder|token|history|spend|distribute|transfer|buy|buy-crowded|pool-buy|replay|health] [--seconds 5]
//                          [--top 40] [--json profile.cpuprofile] [--request-log all|errors|off]
//                          [--isolate ledger|front] [--callers <name>] [--callees <name>]
//                          [--tree <name> [--depth 3]]
//   node bench/profile.mjs --from profile.cpuprofile [--tree <name>] [--callees <name>] ...
//
// As the benchmark: a token with 100 holders, h0's history 50 records or more, every request
// logged unless --request-log says otherwise.
//
// The .cpuprofile written with --json opens in Chromium's DevTools (Performance panel). Wasm
// functions appear under their Rust names: the deployed wasm has no name section
// (./scripts/build-worker.sh takes it out, 11 % of the gzip size), so the runtime numbers them,
// and this reads their names from crates/worker/build-ledger-names.json (or build-names.json
// for the front), which the build writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { startWorker } from '../tests/http/harness.mjs';
import { load } from './common.mjs';
import { inspect, isGap, nameWasmFrames, retried } from './inspector.mjs';
import { ROUTE_NAMES, seedRoutes } from './state.mjs';

const argv = process.argv.slice(2);
// The profiler's sampling interval (µs).
const INTERVAL_US = 200;
const opts = { route: 'holder', seconds: 5, top: 40, json: '', connections: 32, requestLog: 'all', isolate: 'ledger', depth: 3 };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--seconds') opts.seconds = Number(argv[++i]);
  else if (a === '--top') opts.top = Number(argv[++i]);
  else if (a === '--json') opts.json = argv[++i];
  else if (a === '--callers') opts.callers = argv[++i];
  else if (a === '--callees') opts.callees = argv[++i];
  else if (a === '--tree') opts.tree = argv[++i];
  else if (a === '--depth') opts.depth = Number(argv[++i]);
  else if (a === '--from') opts.from = argv[++i];
  else if (a === '--connections') opts.connections = Number(argv[++i]);
  else if (a === '--request-log') opts.requestLog = argv[++i];
  else if (a === '--isolate') opts.isolate = argv[++i];
  else if (!a.startsWith('-')) opts.route = a;
  else throw new Error(`unknown option ${a}`);
}
if (!opts.from && !ROUTE_NAMES.includes(opts.route)) throw new Error(`unknown route ${opts.route}: one of ${ROUTE_NAMES.join(', ')}`);
if (!['ledger', 'front'].includes(opts.isolate)) throw new Error(`--isolate is ledger or front, not ${opts.isolate}`);
// Script sources by id, as lines, filled after the profile is taken: an anonymous JS function
// (the bundle's glue) is named by the source text around its start, which says what it is.
const sources = new Map();
/** A frame's name: Rust's without its hash suffix, or an anonymous JS function's code. */
const nameOf = (f) => (f.functionName || anonymous(f)).replace(/::h[0-9a-f]{16}$/, '');
const anonymous = (f) => {
  const where = `${f.url.split('/').pop()}:${f.lineNumber}:${f.columnNumber}`;
  const line = sources.get(f.scriptId)?.[f.lineNumber];
  if (!line) return `(anonymous ${where})`;
  // The glue is minified: the name it is stored under comes just before the function
  // (`__wbg_log_<hash>: __name(function(e) {`); else show the code itself.
  const before = line.slice(Math.max(0, f.columnNumber - 120), f.columnNumber);
  const key = [...before.matchAll(/([\w$]+)\s*[:=]/g)].pop()?.[1];
  return `(anonymous ${where}: ${key ?? line.slice(f.columnNumber, f.columnNumber + 50).replace(/\s+/g, ' ')})`;
};
const log = (m) => process.stderr.write(`[profile] ${m}\n`);

// A profile written before (--json), reported again (its wasm frames already named).
if (opts.from) {
  report(JSON.parse(readFileSync(opts.from, 'utf8')));
  process.exit(0);
}

// As the benchmark runs it: the API alone, no assets router in front (bench.mjs says why).
const w = await startWorker({ env: { RATE_LIMIT_PER_SECOND: '0', PUBLIC_RATE_LIMIT_PER_SECOND: '0', SESSION_RATE_LIMIT_PER_SECOND: '0', REQUEST_LOG: opts.requestLog }, assets: false });
try {
  const routes = await seedRoutes(w, { crowded: opts.route === 'buy-crowded' });
  const route = routes[opts.route];
  await load(w, route, opts.connections, 1); // warm

  // The profile under load, with the sources of its scripts. Taken again if its inspector
  // closes under it or profiled the other isolate, the other way the second time: wrangler's
  // proxy usually holds the ledger's isolate (workerd's own inspector then answers for the
  // front alone), but not always (`inspect`).
  const ways = opts.isolate === 'ledger' ? ['proxy', 'own'] : ['own', 'proxy'];
  let attempt = 0;
  const take = async () => {
    const via = ways[attempt++ % 2];
    const { send, close } = await inspect(w, opts.isolate, via);
    try {
      await send('Profiler.setSamplingInterval', { interval: INTERVAL_US });
      await send('Profiler.start');
      const r = await load(w, route, opts.connections, opts.seconds);
      const { profile } = await send('Profiler.stop');
      sources.clear();
      await send('Debugger.enable').catch(() => {});
      for (const id of new Set(profile.nodes.map((n) => n.callFrame.scriptId))) {
        if (id === '0') continue;
        const got = await send('Debugger.getScriptSource', { scriptId: id }).catch(() => null);
        if (got) sources.set(id, got.scriptSource.split('\n'));
      }
      // Which Worker's isolate this is: the ledger's glue constructs the merchant's object,
      // the front's never does.
      const ledger = [...sources.values()].some((lines) => lines.some((l) => l.includes('merchantobject_new')));
      if (ledger !== (opts.isolate === 'ledger')) throw new Error(`asked for the ${opts.isolate}'s isolate, the ${via} inspector profiled the other`);
      log(`profiled the ${ledger ? 'ledger Worker\'s isolate (the merchant\'s object)' : 'front Worker\'s isolate'} through the ${via} inspector; the other is not profiled`);
      return { r, profile };
    } finally {
      close();
    }
  };
  const { r, profile } = await retried(take, (why) => log(`${why}; profiling again`));
  // Rust names on the wasm frames, in the tables below and in the file --json writes.
  nameWasmFrames(profile, opts.isolate);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const idleUs = profile.samples.reduce((sum, id, i) => sum + (byId.get(id).callFrame.functionName === '(idle)' ? profile.timeDeltas[i] ?? 0 : 0), 0);
  const spanUs = profile.endTime - profile.startTime;
  // The time the isolate was sampled running: the deltas before its non-idle samples, less the
  // gaps (deltas of more than ten intervals), when it was not sampled at all. workerd samples
  // an isolate only while it runs; meanwhile the thread serves the other isolate, the event
  // loop and storage, or the machine runs something else. Earlier passes counted the gaps as
  // busy (the span less idle samples), which the first figure repeats for comparison.
  const runningUs = profile.samples.reduce((sum, id, i) => {
    const d = profile.timeDeltas[i] ?? 0;
    return sum + (byId.get(id).callFrame.functionName !== '(idle)' && !isGap(d, INTERVAL_US) ? d : 0);
  }, 0);
  const perRequest = (us) => (us / 1000 / r.requests.total).toFixed(2);
  log(`${opts.route}: ${Math.round(r['2xx'] / r.duration)} req/s while profiled (${r.non2xx} non-2xx); ` +
    `the isolate busy ${perRequest(spanUs - idleUs)} ms per request counting the gaps without samples ` +
    `(as the passes before issue 44's sixth did), sampled running ${perRequest(runningUs)} ms`);
  if (opts.json) writeFileSync(opts.json, JSON.stringify(profile));

  report(profile);
} finally {
  await w.stop();
}

/**
 * The tables of `profile` (its wasm frames already named): the functions with the most samples
 * of their own and on their stack, and what --callers, --callees and --tree ask for.
 */
function report(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // Shares by samples, each standing for one interval. A sample's time delta is no measure of
  // its frame: workerd samples an isolate only while it runs, so the delta before a request's
  // first sample holds the idle gap before it (a 64 ms delta on the first frame after idle in a
  // spend's profile), and weighting by it put hop::parse at 8.4 % of a spend where it was
  // 3.1 % of the samples, and the transaction at 35 % where it was 52 %.
  const self = new Map();
  const total = profile.samples.length;
  profile.samples.forEach((id) => {
    const name = nameOf(byId.get(id).callFrame);
    self.set(name, (self.get(name) ?? 0) + 1);
  });
  // Total per function: a sample counts once for every function on its stack.
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map();
  profile.samples.forEach((id) => {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const name = nameOf(byId.get(at).callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + 1);
    }
  });
  const table = (title, map) => {
    console.log(`\n| ${title} % | samples | function |\n|---:|---:|---|`);
    for (const [name, n] of [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, opts.top)) {
      console.log(`| ${((100 * n) / total).toFixed(1)} | ${n} | ${name.slice(0, 140)} |`);
    }
  };
  table('self', self);
  table('total', inclusive);
  // Time per call path around the functions whose name contains `part`: `pick(stack)` takes
  // the frames to name (the stack runs from the sampled frame to the root).
  const paths = (part, pick) => {
    const found = new Map();
    profile.samples.forEach((id) => {
      const stack = [];
      for (let at = id; at !== undefined; at = parent.get(at)) stack.push(nameOf(byId.get(at).callFrame));
      const frames = pick(stack, part);
      if (!frames) return;
      const path = frames.reverse().map((n) => n.slice(0, 70)).join(' > ');
      found.set(path, (found.get(path) ?? 0) + 1);
    });
    return found;
  };
  if (opts.callers) {
    // Who calls the functions whose name contains --callers: five frames up.
    table(`callers of ${opts.callers}`, paths(opts.callers, (stack, part) => {
      const k = stack.findIndex((n) => n.includes(part));
      return k < 0 ? null : stack.slice(k, k + 6);
    }));
  }
  if (opts.callees) {
    // What the functions whose name contains --callees spend their time in: two calls deep.
    table(`under ${opts.callees}`, paths(opts.callees, (stack, part) => {
      const k = stack.findLastIndex((n) => n.includes(part));
      return k < 0 ? null : stack.slice(Math.max(0, k - 2), k + 1);
    }));
  }
  if (opts.tree) {
    // Top-down under the outermost frames whose name contains --tree: each level's callees by
    // name, their samples (themselves and below) as shares of all samples, --depth levels.
    const below = new Map();
    const count = (n) => {
      if (!below.has(n.id)) below.set(n.id, (n.hitCount ?? 0) + (n.children ?? []).reduce((sum, c) => sum + count(byId.get(c)), 0));
      return below.get(n.id);
    };
    const tops = [];
    const find = (n, inside) => {
      const is = nameOf(n.callFrame).includes(opts.tree);
      if (is && !inside) tops.push(n);
      for (const c of n.children ?? []) find(byId.get(c), inside || is);
    };
    find(profile.nodes[0], false);
    const pct = (k) => `${((100 * k) / total).toFixed(1)} %`;
    console.log(`\nunder ${opts.tree}: ${pct(tops.reduce((sum, n) => sum + count(n), 0))} of ${total} samples`);
    const level = (nodes, depth, indent) => {
      const own = nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
      if (own) console.log(`${indent}${pct(own)}  (its own)`);
      const byName = new Map();
      for (const n of nodes) for (const c of n.children ?? []) {
        const child = byId.get(c);
        const name = nameOf(child.callFrame);
        byName.set(name, [...(byName.get(name) ?? []), child]);
      }
      const rows = [...byName].map(([name, ns]) => [name, ns, ns.reduce((sum, n) => sum + count(n), 0)]).sort((x, y) => y[2] - x[2]);
      for (const [name, ns, k] of rows) {
        if (k / total < 0.004) continue; // below 0.4 %
        console.log(`${indent}${pct(k)}  ${name.slice(0, 140)}`);
        if (depth > 1) level(ns, depth - 1, `${indent}   `);
      }
    };
    level(tops, opts.depth, '  ');
  }
}
