// What one secp256k1 signature costs in V8's wasm: the settler signs every movement a holder
// authorizes (an EIP-3009 authorization) on the merchant object's one thread, so on a real chain
// a holder's spend or transfer costs its object a signature besides the request. bench/sign (a
// crate of the workspace) is built for wasm32 with the Worker's release profile in four ways,
// and each is instantiated here, in Node's V8, and timed in turn, round by round (the machine's
// drift falls on all alike):
//   - z:         k256 as the Worker built it before issue 44's twelfth pass: at the profile's
//                opt-level "z", the generator's multiples computed point by point;
//   - z+tables:  with k256's `precomputed-tables` (the generator's multiples from tables
//                computed once);
//   - s+tables:  and k256 at opt-level "s": the Worker's build now (Cargo.toml's profile
//                override, crates/worker/Cargo.toml's features);
//   - 3+tables:  k256 at opt-level 3, to price it against "s".
// In each, two exports: `sign_authorizations` (tokenpad_evm::auth::sign, the settler's way: the
// secret scalar signs) and `sign_with_signing_keys` (a k256 SigningKey built for each
// signature, as tokenpad_evm signed before: building it derives the public key). All eight
// must give the same signatures (their digests are compared); the run fails otherwise.
//
//   node bench/sign.mjs [--rounds 7] [--n 200]      about half a minute, the builds included
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const rounds = opt('--rounds', 7);
const n = opt('--n', 200);
const TARGET = path.join(ROOT, 'target/bench-sign');
const OUT = path.join(TARGET, 'variants');

const k256At = (level) => ['--config', `profile.release.package.k256.opt-level=${JSON.stringify(level)}`];
const VARIANTS = [
  { name: 'z', args: k256At('z') },
  { name: 'z+tables', args: ['--features', 'tables', ...k256At('z')] },
  { name: 's+tables', args: ['--features', 'tables'] },
  { name: '3+tables', args: ['--features', 'tables', ...k256At(3)] },
];

mkdirSync(OUT, { recursive: true });
for (const v of VARIANTS) {
  execFileSync('cargo', ['build', '--release', '--offline', '--locked', '--target', 'wasm32-unknown-unknown', '-p', 'bench-sign', '--target-dir', TARGET, ...v.args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  copyFileSync(path.join(TARGET, 'wasm32-unknown-unknown/release/bench_sign.wasm'), path.join(OUT, `${v.name}.wasm`));
}

/** The module's exports; every import (wasm-bindgen's placeholders, never called by these exports) a no-op. */
async function instantiate(file) {
  const module = await WebAssembly.compile(readFileSync(file));
  const imports = {};
  for (const i of WebAssembly.Module.imports(module)) {
    if (i.kind !== 'function') throw new Error(`${file}: an import that is not a function: ${i.module}.${i.name}`);
    (imports[i.module] ??= {})[i.name] = () => {
      throw new Error(`${i.module}.${i.name} called`);
    };
  }
  return (await WebAssembly.instantiate(module, imports)).exports;
}

const ways = [];
for (const v of VARIANTS) {
  const exports = await instantiate(path.join(OUT, `${v.name}.wasm`));
  for (const fn of ['sign_authorizations', 'sign_with_signing_keys']) {
    // wasm-bindgen names the raw export with a suffix (its glue, not used here, renames it).
    const name = Object.keys(exports).find((e) => e === fn || e.startsWith(`${fn}_`));
    if (!name) throw new Error(`${v.name}: no export ${fn}`);
    ways.push({ variant: v.name, fn, run: exports[name], ms: [] });
  }
}

// Warm: V8 compiles wasm lazily and tiers hot functions up in the background.
const digests = new Set();
for (const w of ways) {
  for (let i = 0; i < 3; i++) digests.add(w.run(n));
}
if (digests.size !== 1) throw new Error(`the ways signed differently (digests ${[...digests].join(', ')})`);

for (let r = 0; r < rounds; r++) {
  for (const w of ways) {
    const t0 = performance.now();
    w.run(n);
    w.ms.push((performance.now() - t0) / n);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(ways.find((w) => w.variant === 'z' && w.fn === 'sign_with_signing_keys').ms);
console.log(`one signature in Node ${process.version}'s V8, wasm32, ${n} a round, median of ${rounds} rounds (every way signed alike)\n`);
console.log('| k256 built | signed | ms a signature | x before |');
console.log('|---|---|---:|---:|');
for (const w of ways) {
  const how = w.fn === 'sign_authorizations' ? 'with the secret scalar (tokenpad_evm now)' : 'through a SigningKey (before)';
  const m = median(w.ms);
  console.log(`| ${w.variant} | ${how} | ${m.toFixed(3)} | ${(m / base).toFixed(2)}x |`);
}
