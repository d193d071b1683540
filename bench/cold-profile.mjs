// Where a Worker's first merchant read after a restart spends its time: CPU profiles of both
// isolates (the front's and the ledger's, bench/inspector.mjs) over that one request, each
// restart's written as .cpuprofile files (Rust names on the wasm frames) and the functions
// with the most samples printed (by samples, not by their time deltas: see below), and the gaps
// without a sample named with the frame after them. At a first call V8 compiles a wasm function (lazily, one
// at a time), and the compile's time falls on the caller's frame: a large self time here on
// a function that is cheap warm names a large function it calls for the first time.
//
//   node bench/cold-profile.mjs [--runs 3] [--out /tmp] [--top 15]
//
// Needs the built Workers (./scripts/build-worker.sh). Figures are one request each: compare
// runs, and time the cold start with ./scripts/bench.sh --cold (medians of restarts).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { api, createMerchant, startWorker } from '../tests/http/harness.mjs';
import { inspect, isGap, nameWasmFrames, retried } from './inspector.mjs';

// The profiler's sampling interval (µs).
const INTERVAL_US = 50;
const opts = { runs: 3, out: '/tmp', top: 15 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') opts.runs = Number(argv[++i]);
  else if (argv[i] === '--out') opts.out = argv[++i];
  else if (argv[i] === '--top') opts.top = Number(argv[++i]);
  else throw new Error(`unknown option ${argv[i]}`);
}

const w = await startWorker({ env: { REQUEST_LOG: 'off' }, assets: false });
try {
  const m = await createMerchant(w, 'Cold');
  await api(w, 'PUT', '/holder/h0', { key: m.secretKey });
  for (let run = 0; run < opts.runs; run++) {
    // A run whose inspector closed under it is taken again, from a restart (`retried`).
    await retried(() => profileRun(w, m, run), (why) => console.error(`run ${run}: ${why}; restarting to take it again`));
  }
} finally {
  await w.stop();
}

/** One restart and the first merchant read after it, both isolates profiled. */
async function profileRun(w, m, run) {
  await w.restart();
  await (await fetch(`${w.baseUrl}/health`)).arrayBuffer(); // the front's isolate, started
  const sessions = {};
  try {
    for (const isolate of ['front', 'ledger']) {
      // The front through workerd's own inspector, the ledger through wrangler's proxy, which
      // usually holds it (`inspect`); when it holds the front instead, the front's profiler is
      // silent and the run is taken again.
      sessions[isolate] = await inspect(w, isolate, isolate === 'front' ? 'own' : 'proxy');
      await sessions[isolate].send('Profiler.setSamplingInterval', { interval: INTERVAL_US });
      await sessions[isolate].send('Profiler.start');
    }
    const t = performance.now();
    const r = await fetch(`${w.baseUrl}/holder/h0?publicKey=${m.publicKey}`);
    await r.arrayBuffer();
    const took = performance.now() - t;
    const profiles = {};
    for (const [isolate, s] of Object.entries(sessions)) profiles[isolate] = (await s.send('Profiler.stop')).profile;
    console.log(`run ${run}: the first merchant read took ${took.toFixed(1)} ms (${r.status})`);
    for (const [isolate, profile] of Object.entries(profiles)) {
      nameWasmFrames(profile, isolate);
      const file = path.join(opts.out, `cold-${isolate}-${run}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      const self = new Map();
      const byId = new Map(profile.nodes.map((n) => [n.id, n]));
      const nameAt = (id) => {
        const f = byId.get(id).callFrame;
        return (f.functionName || `(anonymous ${f.url.split('/').pop()}:${f.lineNumber})`).replace(/::h[0-9a-f]{16}$/, '');
      };
      // By samples: a sample's delta is no measure of its frame, since the isolate is not
      // sampled while it does not run and the delta after such a gap holds the gap (in a cold
      // read, 27 ms charged to one "(program)" sample). The gaps are named apart.
      const gaps = [];
      profile.samples.forEach((id, i) => {
        self.set(nameAt(id), (self.get(nameAt(id)) ?? 0) + 1);
        const d = profile.timeDeltas[i] ?? 0;
        if (isGap(d, INTERVAL_US)) gaps.push(`${(d / 1000).toFixed(1)} ms before ${nameAt(id).slice(0, 60)}`);
      });
      console.log(`  ${isolate} (${file}): ${profile.samples.length} samples over ${((profile.endTime - profile.startTime) / 1000).toFixed(1)} ms; ` +
        `gaps without samples: ${gaps.join('; ') || 'none'}; samples by function:`);
      for (const [name, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, opts.top)) {
        console.log(`    ${String(n).padStart(5)}  ${name.slice(0, 130)}`);
      }
    }
  } finally {
    for (const s of Object.values(sessions)) s.close();
  }
}
