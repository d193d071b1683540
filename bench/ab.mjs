// Two builds of tokenpad side by side: another commit (A) against this checkout (B), each
// benchmarked by its own ./scripts/bench.sh, alternating A B A B so that the machine's drift
// falls on both alike, then one table of workerd's CPU ms per request and share of hello-world
// per route and run. The side-by-side runs of one release against the last in
// docs/performance-history.md come from it.
//
//   node bench/ab.mjs <commit> [--rounds 2] [--out dir] [bench.sh options: --only, --seconds, ...]
//   node bench/ab.mjs --table <dir>          the table of runs already made
//
// The other commit is checked out (detached) in target/ab/<commit>, with its own cargo target
// and this checkout's node_modules, and built there once; this checkout is built by bench.sh as
// usual. Launch, sizes and cold start are left out (--no-launch); everything else passes on.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../tests/http/harness.mjs';

const log = (m) => process.stderr.write(`[ab] ${m}\n`);
const run = (cmd, args, cwd, env = {}) =>
  execFileSync(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] }).toString();

/** One row per route, one column per run: "share % workerd-ms". */
export function table(dir) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  const rows = new Map();
  for (const f of files) {
    const j = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
    const base = (j.hello[0].reqPerSec + j.hello[1].reqPerSec) / 2;
    const put = (pass, r) => {
      // A history's length differs between runs: one row for the long history.
      const name = `${pass} ${r.route.replace(/\(\d+ records\)/, r.route.includes('(50 records)') ? '(50 records)' : '(long)')}`;
      if (!rows.has(name)) rows.set(name, {});
      rows.get(name)[f] = `${Math.round((100 * r.reqPerSec) / base)} % ${r.workerdMsPerRequest?.toFixed(2) ?? '-'}`;
    };
    for (const r of [j.hello[0], j.helloLog, ...j.results]) put('logged', r);
    for (const r of [...(j.quiet?.floors ?? []), ...(j.quiet?.results ?? [])]) put('no line', r);
  }
  const lines = [`| route | ${files.map((f) => f.replace(/\.json$/, '')).join(' | ')} |`, `|---|${files.map(() => '---:').join('|')}|`];
  for (const [name, v] of rows) lines.push(`| ${name} | ${files.map((f) => v[f] ?? '-').join(' | ')} |`);
  return lines.join('\n');
}

const argv = process.argv.slice(2);
if (argv[0] === '--table') {
  console.log(table(argv[1]));
  process.exit(0);
}
const commit = argv[0];
if (!commit || commit.startsWith('--')) throw new Error('usage: node bench/ab.mjs <commit> [--rounds 2] [--out dir] [bench.sh options]');
let rounds = 2;
let out;
const pass = [];
for (let i = 1; i < argv.length; i++) {
  if (argv[i] === '--rounds') rounds = Number(argv[++i]);
  else if (argv[i] === '--out') out = path.resolve(argv[++i]);
  else if (argv[i] !== '--no-launch') pass.push(argv[i]);
}
const sha = run('git', ['rev-parse', '--short=12', `${commit}^{commit}`], ROOT).trim();
const other = path.join(ROOT, 'target', 'ab', sha);
if (!existsSync(other)) {
  log(`checking out ${sha} in ${path.relative(ROOT, other)}`);
  run('git', ['worktree', 'add', '--detach', other, sha], ROOT);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(other, 'node_modules'));
}
log(`building ${sha} there (once; its own cargo target)`);
run(path.join(other, 'scripts', 'build-worker.sh'), [], other);
out ??= path.join(ROOT, 'target', 'ab', `runs-${sha}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
mkdirSync(out, { recursive: true });
for (let i = 1; i <= rounds; i++) {
  for (const [side, dir, build] of [['A', other, '1'], ['B', ROOT, i === 1 ? '0' : '1']]) {
    log(`round ${i}, ${side} (${side === 'A' ? sha : 'this checkout'})`);
    const json = path.join(out, `${i}-${side}.json`);
    const text = run(path.join(dir, 'scripts', 'bench.sh'), ['--no-launch', ...pass, '--json', json], dir, { SKIP_BUILD: build });
    writeFileSync(path.join(out, `${i}-${side}.txt`), text);
  }
}
console.log(`A = ${sha}, B = this checkout; each cell: share of hello-world, workerd CPU ms per request\n`);
console.log(table(out));
log(`runs in ${path.relative(ROOT, out)}`);
