#!/usr/bin/env node
// Slither (Trail of Bits' static analyser, installed by scripts/setup-slither.sh) over the
// contracts tokenpad ships (contracts/*.sol, as scripts/build-contracts.mjs compiles them), with
// its findings triaged in contracts/slither-triage.json: every finding slither reports must be
// listed there with the reason it is accepted, and every entry there must still be reported.
// Exit 1 on a new finding (fix it, or triage it with a reason) or a stale entry (remove it).
//
//   node scripts/slither.mjs            run and compare with the triage file
//   node scripts/slither.mjs --print    print the findings as triage entries (reasons empty)
//
// Offline: slither compiles with scripts/solc-js.cjs (the npm solc-js, as the build). Findings in
// OpenZeppelin's code (node_modules) are left out. A finding is compared by its detector and its
// description with line numbers taken out (and its detail lines as a set), so moving code does
// not make a finding new.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TRIAGE = join(ROOT, 'contracts', 'slither-triage.json');
const OUT = join(ROOT, 'target', 'slither');
const SLITHER = process.env.SLITHER ?? join(ROOT, '.tools', 'slither-venv', 'bin', 'slither');

/** The standard-JSON input of the shipped contracts: contracts/*.sol, read by the compiler. */
function input() {
  const sources = {};
  for (const f of readdirSync(join(ROOT, 'contracts')).filter((x) => x.endsWith('.sol')).sort()) {
    sources[`contracts/${f}`] = { urls: [`contracts/${f}`] };
  }
  return {
    language: 'Solidity',
    sources,
    settings: {
      remappings: ['@openzeppelin/contracts/=node_modules/@openzeppelin/contracts/'],
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: {
        '*': { '*': ['abi', 'metadata', 'devdoc', 'userdoc', 'evm.bytecode', 'evm.deployedBytecode'], '': ['ast'] },
      },
    },
  };
}

/**
 * A finding as compared: its detector, the first line of its description and the set of its
 * other lines (slither lists a function's external calls in no fixed order), line numbers out.
 */
function normalize(d) {
  const [first, ...rest] = d.description
    .replace(/#\d+(-\d+)?/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return { check: d.check, finding: first, details: [...new Set(rest)].sort() };
}

function run() {
  if (!existsSync(SLITHER)) {
    console.error(`slither not found at ${SLITHER}: run scripts/setup.sh --slither (or scripts/setup-slither.sh)`);
    process.exit(1);
  }
  mkdirSync(OUT, { recursive: true });
  const inputFile = join(OUT, 'input.json');
  const resultFile = join(OUT, 'results.json');
  writeFileSync(inputFile, JSON.stringify(input(), null, 1));
  // crytic-compile asks the Foundry project (foundry.toml) for its settings through `forge config`.
  const env = { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}` };
  const args = [
    inputFile, '--compile-force-framework', 'solc-json', '--solc', join(ROOT, 'scripts', 'solc-js.cjs'),
    '--filter-paths', 'node_modules', '--json', resultFile, '--disable-color',
  ];
  execFileSync('rm', ['-f', resultFile]);
  const r = spawnSync(SLITHER, args, { cwd: ROOT, env, encoding: 'utf8' });
  // slither exits non-zero whenever it reports findings; the JSON says whether it ran.
  const out = existsSync(resultFile) ? JSON.parse(readFileSync(resultFile, 'utf8')) : null;
  if (!out?.success) {
    console.error(`slither failed (exit ${r.status}):\n${out?.error ?? ''}\n${(r.stderr ?? '').split('\n').slice(-30).join('\n')}`);
    process.exit(1);
  }
  return (out.results?.detectors ?? []).map(normalize);
}

const key = (f) => JSON.stringify([f.check, f.finding, f.details ?? []]);
const t0 = Date.now();
const found = run();

if (process.argv.includes('--print')) {
  console.log(JSON.stringify(found.map((f) => ({ ...f, reason: '' })), null, 2));
  process.exit(0);
}

const triage = JSON.parse(readFileSync(TRIAGE, 'utf8'));
const accepted = new Map(triage.accepted.map((f) => [key(f), f]));
for (const f of triage.accepted) {
  if (!f.reason?.trim()) {
    console.error(`contracts/slither-triage.json: ${f.check} has no reason`);
    process.exit(1);
  }
}
const reported = new Set(found.map(key));
const fresh = found.filter((f) => !accepted.has(key(f)));
const stale = triage.accepted.filter((f) => !reported.has(key(f)));
const show = (f) => `[${f.check}] ${f.finding}${(f.details ?? []).map((l) => `\n       ${l}`).join('')}`;
for (const f of fresh) console.error(`NEW  ${show(f)}`);
for (const f of stale) console.error(`GONE ${show(f)}\n     (remove it from contracts/slither-triage.json)`);
const seconds = ((Date.now() - t0) / 1000).toFixed(1);
if (fresh.length || stale.length) {
  console.error(`slither: ${fresh.length} new finding(s), ${stale.length} stale triage entr(y/ies) (${seconds} s). ` +
    'Fix a new finding, or add it to contracts/slither-triage.json with the reason it is accepted ' +
    '(node scripts/slither.mjs --print gives its entry).');
  process.exit(1);
}
console.log(`slither: ${found.length} findings, all triaged in contracts/slither-triage.json (${seconds} s)`);
