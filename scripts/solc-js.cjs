#!/usr/bin/env node
// A `solc` executable for tools that want a native compiler binary (forge, slither's
// crytic-compile), answered by solc-js: the npm `solc` package pinned in package.json, which
// bundles its compiler (nothing is downloaded, so it works offline, and every tool compiles with
// the one compiler scripts/build-contracts.mjs uses).
//
//   scripts/solc-js.cjs --version                 as solc: "Version: 0.8.37+commit.f401782d..."
//   scripts/solc-js.cjs --standard-json [flags]   standard-JSON input on stdin, output on stdout
//
// Sources given by "urls" (crytic-compile does this) and imports are read from disk: a path as
// given, else relative to the working directory, --base-path and each --include-path. Any other
// flag (--allow-paths, ...) is accepted and ignored: solc-js reads only through this callback.
// CommonJS (.cjs) so that it runs as an executable whatever package.json's "type" says.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const solc = require('solc');

const args = process.argv.slice(2);

if (args.includes('--version') || args.includes('-v')) {
  process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${solc.version()}\n`);
  process.exit(0);
}

if (!args.includes('--standard-json')) {
  process.stderr.write(`solc-js.cjs: only --version and --standard-json are supported (got: ${args.join(' ')})\n`);
  process.exit(2);
}

/** The values of a flag given as `--flag value` or `--flag=value`, in order. */
function flagValues(name) {
  const out = [];
  args.forEach((a, i) => {
    if (a === name && i + 1 < args.length) out.push(args[i + 1]);
    else if (a.startsWith(`${name}=`)) out.push(a.slice(name.length + 1));
  });
  return out;
}

const roots = [process.cwd(), ...flagValues('--base-path'), ...flagValues('--include-path')];

function findImport(file) {
  const candidates = path.isAbsolute(file) ? [file] : roots.map((r) => path.resolve(r, file));
  for (const c of candidates) {
    try {
      return { contents: fs.readFileSync(c, 'utf8') };
    } catch {
      // try the next root
    }
  }
  return { error: `File not found: ${file} (looked in ${roots.join(', ')})` };
}

const input = fs.readFileSync(0, 'utf8');
process.stdout.write(solc.compile(input, { import: findImport }));
