#!/usr/bin/env node
// Compiles contracts/*.sol offline with solc-js (the exact version pinned in package.json; the
// package bundles its compiler, nothing is downloaded) and writes one artifact per deployable
// contract: contracts/build/<Contract>.json = { contractName, abi, bytecode, deployedBytecode,
// creationCodeHash }.
//
//   node scripts/build-contracts.mjs           write contracts/build/*.json
//   node scripts/build-contracts.mjs --check   rebuild in memory; exit 1 if the committed files differ
//
// The settings are fixed so that the same sources give the same bytes on every machine:
// - optimizer on, 200 runs;
// - evmVersion "cancun": the newest fork whose opcodes (PUSH0, MCOPY, TLOAD/TSTORE) both Base
//   (since its Ecotone upgrade) and anvil (whose default is a later fork, which runs cancun code)
//   support; solc 0.8.37's default is newer than what we want to promise Base runs;
// - metadata.bytecodeHash "none": no hash of the metadata (which includes source paths and
//   comments) in the bytecode, so editing a comment does not change the creation code, hence not
//   TokenpadToken's creationCodeHash, hence not a single token address. The CBOR tail then only
//   names the compiler version.
import { readFileSync, writeFileSync, mkdirSync, readdirSync, existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keccak256 } from 'viem';

const require = createRequire(import.meta.url);
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CONTRACTS_DIR = join(ROOT, 'contracts');
export const BUILD_DIR = join(CONTRACTS_DIR, 'build');
const OZ_DIR = join(ROOT, 'node_modules', '@openzeppelin', 'contracts');

export const SETTINGS = Object.freeze({
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'none' },
  outputSelection: {
    '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
  },
});

/** The version of solc-js in node_modules, which must equal the one pinned in package.json. */
export function solcVersions() {
  const pinned = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies.solc;
  const installed = require('solc/package.json').version;
  return { pinned, installed };
}

/** Reads an import: our own sources under contracts/, OpenZeppelin from node_modules. */
function findImport(path) {
  let file;
  if (path.startsWith('@openzeppelin/contracts/')) {
    file = join(OZ_DIR, path.slice('@openzeppelin/contracts/'.length));
  } else if (path.startsWith('contracts/')) {
    file = join(ROOT, path);
  } else {
    return { error: `import not allowed: ${path} (only contracts/ and @openzeppelin/contracts/)` };
  }
  if (!existsSync(file)) return { error: `not found: ${path} (${file})` };
  return { contents: readFileSync(file, 'utf8') };
}

/**
 * Compiles every contracts/*.sol and returns Map(file name -> file text) of the artifacts, in
 * the exact bytes they are written with.
 */
export function buildContracts() {
  const { pinned, installed } = solcVersions();
  if (pinned !== installed) {
    throw new Error(`solc ${installed} is installed but package.json pins ${pinned}: run npm ci`);
  }
  const solc = require('solc');
  const files = readdirSync(CONTRACTS_DIR).filter((f) => f.endsWith('.sol')).sort();
  const sources = {};
  for (const f of files) sources[`contracts/${f}`] = { content: readFileSync(join(CONTRACTS_DIR, f), 'utf8') };
  const input = { language: 'Solidity', sources, settings: SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport }));

  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  const warnings = (output.errors ?? []).filter((e) => e.severity !== 'error');
  if (errors.length) {
    throw new Error('solc failed:\n' + errors.map((e) => e.formattedMessage).join('\n'));
  }

  const artifacts = new Map();
  for (const f of files) {
    for (const [contractName, c] of Object.entries(output.contracts[`contracts/${f}`] ?? {})) {
      const bytecode = '0x' + c.evm.bytecode.object;
      if (bytecode === '0x') continue; // abstract contracts and interfaces: nothing to deploy
      const artifact = {
        contractName,
        abi: c.abi,
        bytecode,
        deployedBytecode: '0x' + c.evm.deployedBytecode.object,
        creationCodeHash: keccak256(bytecode),
      };
      artifacts.set(`${contractName}.json`, JSON.stringify(artifact, null, 2) + '\n');
    }
  }
  return { artifacts, warnings: warnings.map((w) => w.formattedMessage), solcVersion: solc.version() };
}

function main() {
  const check = process.argv.includes('--check');
  const t0 = Date.now();
  const { artifacts, warnings, solcVersion } = buildContracts();
  for (const w of warnings) process.stderr.write(w + '\n');
  if (check) {
    const committed = existsSync(BUILD_DIR) ? readdirSync(BUILD_DIR).filter((f) => f.endsWith('.json')).sort() : [];
    const built = [...artifacts.keys()].sort();
    let ok = JSON.stringify(committed) === JSON.stringify(built);
    if (!ok) process.stderr.write(`artifact files differ: committed ${committed} vs built ${built}\n`);
    for (const [name, text] of artifacts) {
      const path = join(BUILD_DIR, name);
      if (!existsSync(path) || readFileSync(path, 'utf8') !== text) {
        process.stderr.write(`contracts/build/${name} is stale: run node scripts/build-contracts.mjs\n`);
        ok = false;
      }
    }
    process.stderr.write(`${ok ? 'up to date' : 'STALE'} (solc ${solcVersion}, ${Date.now() - t0} ms)\n`);
    process.exit(ok ? 0 : 1);
  }
  rmSync(BUILD_DIR, { recursive: true, force: true });
  mkdirSync(BUILD_DIR, { recursive: true });
  for (const [name, text] of artifacts) writeFileSync(join(BUILD_DIR, name), text);
  process.stderr.write(
    `wrote ${[...artifacts.keys()].map((n) => 'contracts/build/' + n).join(', ')} (solc ${solcVersion}, ${Date.now() - t0} ms)\n`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
