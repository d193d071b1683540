// The Worker's wasm without its name section, and the names kept beside it.
//
// The name section (each function's Rust name) is no part of what runs, and it was 11 % of the
// Worker's gzip size (138 KiB of 1,259 at 16a8fb7), so scripts/build-worker.sh takes it out of
// the deployed build/index_bg.wasm and writes the function names to a JSON file beside the
// build (`<build>/../build-names.json`, never uploaded), which bench/profile.mjs reads to put
// Rust names on a CPU profile's wasm frames again.
//
//   node scripts/wasm-names.mjs strip <file.wasm> <names.json>
import { readFileSync, writeFileSync } from 'node:fs';

/** Reads an unsigned LEB128 at `at`: [value, next offset]. */
export function leb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [value, at];
  }
}

/**
 * The module without its `name` custom section, and the function names that section held
 * (by function index, imports counted first, as a profile numbers them).
 */
export function stripNames(bytes) {
  const kept = [bytes.subarray(0, 8)];
  const names = {};
  let at = 8;
  while (at < bytes.length) {
    const start = at;
    const id = bytes[at++];
    let size;
    [size, at] = leb(bytes, at);
    const end = at + size;
    let isNames = false;
    if (id === 0) {
      const [len, p] = leb(bytes, at);
      isNames = Buffer.from(bytes.subarray(p, p + len)).toString('utf8') === 'name';
      if (isNames) readFunctionNames(bytes, p + len, end, names);
    }
    if (!isNames) kept.push(bytes.subarray(start, end));
    at = end;
  }
  return { wasm: Buffer.concat(kept), names };
}

function readFunctionNames(bytes, at, end, names) {
  while (at < end) {
    const sub = bytes[at++];
    let size;
    [size, at] = leb(bytes, at);
    const next = at + size;
    if (sub === 1) {
      let count;
      [count, at] = leb(bytes, at);
      for (let i = 0; i < count; i++) {
        let index;
        let len;
        [index, at] = leb(bytes, at);
        [len, at] = leb(bytes, at);
        names[index] = Buffer.from(bytes.subarray(at, at + len)).toString('utf8');
        at += len;
      }
    }
    at = next;
  }
}

/**
 * A profile frame's Rust name from the names file, for a wasm frame the runtime could only
 * number (`$func123`, `wasm-function[123]`); undefined otherwise.
 */
export function nameFromIndex(names, functionName) {
  const m = /^(?:\$func(\d+)|wasm-function\[(\d+)\])$/.exec(functionName ?? '');
  return m ? names[m[1] ?? m[2]] : undefined;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [cmd, file, out] = process.argv.slice(2);
  if (cmd !== 'strip' || !file || !out) {
    process.stderr.write('usage: node scripts/wasm-names.mjs strip <file.wasm> <names.json>\n');
    process.exit(2);
  }
  const { wasm, names } = stripNames(readFileSync(file));
  writeFileSync(file, wasm);
  writeFileSync(out, JSON.stringify(names));
}
