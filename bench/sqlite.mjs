// What one SQL statement costs in a Durable Object under this runtime: bench/sqlite/ runs a
// statement of one kind n times in one transaction per request; autocannon loads each kind,
// and the difference in time per request from running none, divided by n, is the statement's
// cost (the isolate is saturated at 32 connections, so 1 / req/s is its busy time).
//
//   node bench/sqlite.mjs [--n 20] [--seconds 4] [--rounds 2] [--connections 32] [--only <substring of a kind>] [--each] [--group | --gate] [--pages]
//
// --group commits each request's n statements (a savepoint of their own) together with those
// of every request that arrived meanwhile, one commit a group (a group commit), and prints how
// many requests a group took on average. Run with --n 1 on a whole request's kind.
// --gate instead lets the requests that arrived meanwhile run their own transactions one after
// another in one task, which the runtime commits once (what the merchant object does:
// crates/worker/src/objects/merchant/gate.rs); it prints the same group sizes.
//
// --each runs every statement in a transaction of its own (and `none` n empty transactions):
// the price a request pays, which dirties and commits its pages alone; without it, n
// statements share one transaction and the pages they touch, the statement's marginal price.
//
// --pages counts instead, exactly (strace on the runtime, 200 requests a kind), the pages each
// request's commit writes to SQLite's WAL: a figure no noise moves, and what a commit's cost
// grows with.
//
// docs/performance.md's per-statement figures (a balance write, a history or event insert) come from it.
import path from 'node:path';
import { ROOT, startWorker } from '../tests/http/harness.mjs';
import { groupCpuMs, hasStrace, load, storageWrites } from './common.mjs';

const opts = { n: 20, seconds: 4, rounds: 2, connections: 32, only: '', each: false, group: false, gate: false, pages: false };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--n') opts.n = Number(argv[++i]);
  else if (a === '--seconds') opts.seconds = Number(argv[++i]);
  else if (a === '--rounds') opts.rounds = Number(argv[++i]);
  else if (a === '--connections') opts.connections = Number(argv[++i]);
  else if (a === '--only') opts.only = argv[++i];
  else if (a === '--each') opts.each = true;
  else if (a === '--group') opts.group = true;
  else if (a === '--gate') opts.gate = opts.group = true;
  else if (a === '--pages') opts.pages = true;
  else throw new Error(`unknown option ${a}`);
}

const w = await startWorker({ workerDir: path.join(ROOT, 'bench', 'sqlite') });
try {
  const kinds = await (await fetch(`${w.baseUrl}/none`)).json();
  const chosen = kinds.filter((k) => k === 'none' || !opts.only || opts.only.split('|').some((o) => k.includes(o)));
  await load(w, { path: '/none' }, 32, 1); // warm
  if (opts.pages) {
    if (!hasStrace()) throw new Error('--pages counts with strace, which is not on this machine');
    console.log(`| kind (${opts.n} a request${opts.each ? ', each in its own transaction' : opts.group ? ', group commits' : ', in one transaction'}) | pages a request commits | a statement's share | fsyncs a request |${opts.group ? ' requests a group |' : ''}`);
    console.log(`|---|---:|---:|---:|${opts.group ? '---:|' : ''}`);
    for (const kind of chosen) {
      const route = { path: `/${encodeURIComponent(kind)}?n=${opts.n}${mode()}` };
      await load(w, route, 4, undefined, { amount: 20 }); // its tables' pages in the cache
      await groupSize();
      const { frames, syncs } = await storageWrites(w, route);
      console.log(`| ${kind} | ${frames.toFixed(2)} | ${(frames / opts.n).toFixed(2)} | ${syncs.toFixed(2)} |${opts.group ? ` ${(await groupSize()).toFixed(1)} |` : ''}`);
    }
  } else {
    await timed(chosen);
  }
} finally {
  await w.stop();
}

/** The route's options for the mode asked. */
function mode() {
  return `${opts.each ? '&each' : ''}${opts.gate ? '&gate' : opts.group ? '&group' : ''}`;
}

/** Requests a group commit took on average since the last call (0 without --group). */
async function groupSize() {
  return opts.group ? (await fetch(`${w.baseUrl}/group-size`)).json() : 0;
}

/** Each chosen kind's time and CPU per statement, --rounds times over. */
async function timed(chosen) {
  const ms = new Map();
  const cpu = new Map();
  const sizes = new Map();
  for (let round = 0; round < opts.rounds; round++) {
    for (const kind of chosen) {
      const n = kind === 'none' && !opts.each ? 0 : opts.n;
      // The Workers' runtime's CPU from /proc (wrangler's proxy left out: its share is the same
      // for every kind, and only adds noise), steadier than req/s on a shared machine (null
      // without /proc).
      const before = groupCpuMs(w)?.runtime ?? null;
      await groupSize();
      const r = await load(w, { path: `/${encodeURIComponent(kind)}?n=${n}${mode()}` }, opts.connections, opts.seconds);
      const after = groupCpuMs(w)?.runtime ?? null;
      if (opts.group) sizes.set(kind, [...(sizes.get(kind) ?? []), await groupSize()]);
      if (r.non2xx || r.errors) throw new Error(`${kind}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      ms.set(kind, [...(ms.get(kind) ?? []), 1000 / (r['2xx'] / r.duration)]);
      if (before !== null && after !== null) cpu.set(kind, [...(cpu.get(kind) ?? []), (after - before) / r['2xx']]);
    }
  }
  const none = ms.get('none');
  console.log(`| statement (${opts.each ? `each in its own transaction, ${opts.n} a request` : `${opts.n} per transaction`}) | ${none.map((_, i) => `µs each, round ${i + 1}`).join(' | ')} |`);
  console.log(`|---|${none.map(() => '---:').join('|')}|`);
  for (const kind of chosen.filter((k) => k !== 'none')) {
    const us = ms.get(kind).map((m, i) => (((m - none[i]) * 1000) / opts.n).toFixed(1));
    console.log(`| ${kind} | ${us.join(' | ')} |`);
  }
  if (cpu.has('none')) {
    console.log(`\n| statement, by the runtime's CPU (workerd, wrangler's proxy apart) | ${none.map((_, i) => `µs each, round ${i + 1}`).join(' | ')} |`);
    console.log(`|---|${none.map(() => '---:').join('|')}|`);
    for (const kind of chosen.filter((k) => k !== 'none')) {
      const us = cpu.get(kind).map((m, i) => (((m - cpu.get('none')[i]) * 1000) / opts.n).toFixed(1));
      console.log(`| ${kind} | ${us.join(' | ')} |`);
    }
  }
  if (opts.group) {
    console.log('\n| requests a group commit took, on average | rounds |\n|---|---|');
    for (const kind of chosen) console.log(`| ${kind} | ${sizes.get(kind).map((x) => x.toFixed(1)).join(', ')} |`);
  }
  console.log('\n(a "two rows" kind runs one statement for two rows: its figure is per row)');
  console.log(`none: ${none.map((m) => `${(1000 / m).toFixed(0)} req/s`).join(', ')}${cpu.has('none') ? `; the runtime's CPU ${cpu.get('none').map((m) => `${(m * 1000).toFixed(0)} µs`).join(', ')} a request` : ''}`);
}
