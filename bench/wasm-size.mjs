// What the Worker's size comes from: the built wasm's code by crate (from the function names
// scripts/build-worker.sh keeps beside the build), its data, and each group gzipped on its own
// (so the groups add up to more than the whole, which gzip compresses across them).
//
//   node bench/wasm-size.mjs                 crates/worker/build as built
//   node bench/wasm-size.mjs --top 30        and the 30 largest functions
//   node bench/wasm-size.mjs --json out.json every figure
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { leb } from '../scripts/wasm-names.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const opt = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const wasmPath = opt('--wasm') ?? path.join(ROOT, 'crates/worker/build/index_bg.wasm');
const namesPath = opt('--names') ?? path.join(ROOT, 'crates/worker/build-names.json');
const top = Number(opt('--top') ?? 0);

/** The module's sections by id, and its imported functions (they come first in numbering). */
function sections(bytes) {
  const out = new Map();
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at++];
    let size;
    [size, at] = leb(bytes, at);
    if (id !== 0) out.set(id, bytes.subarray(at, at + size));
    at += size;
  }
  return out;
}

function importedFunctions(imports) {
  if (!imports) return 0;
  let [n, at] = leb(imports, 0);
  let funcs = 0;
  const skipName = () => {
    let len;
    [len, at] = leb(imports, at);
    at += len;
  };
  for (; n > 0; n--) {
    skipName();
    skipName();
    const kind = imports[at++];
    if (kind === 0) {
      [, at] = leb(imports, at);
      funcs++;
    } else if (kind === 1) {
      at++;
      const flags = imports[at++];
      [, at] = leb(imports, at);
      if (flags & 1) [, at] = leb(imports, at);
    } else if (kind === 2) {
      const flags = imports[at++];
      [, at] = leb(imports, at);
      if (flags & 1) [, at] = leb(imports, at);
    } else if (kind === 3) {
      at += 2;
    } else if (kind === 4) {
      at++;
      [, at] = leb(imports, at);
    } else {
      throw new Error(`import kind ${kind} not read`);
    }
  }
  return funcs;
}

/** Each function body of the code section: [index, bytes]. */
function bodies(code, first) {
  let [n, at] = leb(code, 0);
  const out = [];
  for (let i = 0; i < n; i++) {
    let size;
    [size, at] = leb(code, at);
    out.push([first + i, code.subarray(at, at + size)]);
    at += size;
  }
  return out;
}

// Groups, first match wins: the table docs/performance.md shows.
const GROUPS = [
  ['async futures inlined into js_sys / wasm-bindgen closures', /^(js_sys::futures|wasm_bindgen_futures|<?wasm_bindgen::convert::closures)/],
  ['serde derives of tokenpad\'s types', /tokenpad_\w+::.*(Serialize|Deserialize|Visitor|__Field|__Seed)|(Serialize|Deserialize)[^>]*for tokenpad_|PhantomData<T> as serde_core::de::DeserializeSeed/],
  ['serde_json', /serde_json/],
  ['serde_core, serde, serde_path_to_error', /serde_core|serde::|serde_path_to_error|serde_wasm_bindgen/],
  ['tokenpad_worker', /tokenpad_worker/],
  ['tokenpad_core', /tokenpad_core/],
  ['tokenpad_evm, ruint, uniswap_v3_math, alloy', /tokenpad_evm|ruint|uniswap_v3_math|alloy/],
  ['k256, sha2, sha3, keccak, aes-gcm, hmac, argon2, blake2, jwt_compact', /k256|elliptic_curve|ecdsa|sha2|sha3|keccak|aes|ghash|polyval|hmac|hkdf|argon2|blake2|jwt_compact|crypto_bigint|primeorder|signature/],
  ['url, idna, form_urlencoded, percent_encoding', /url::|idna|form_urlencoded|percent_encoding/],
  ['worker, js_sys, web_sys, wasm_bindgen, dlmalloc, hashbrown, futures_util', /^<?(&\w+ )?(worker|js_sys|web_sys|wasm_bindgen|dlmalloc|hashbrown|futures_util|futures_core|futures_channel)/],
  ['core, alloc, std (formatting, iterators, collections, sorting, integer math)', /^<?(&\w+ )?(core|alloc|std)[[:]/],
];

const bytes = readFileSync(wasmPath);
const names = JSON.parse(readFileSync(namesPath, 'utf8'));
const secs = sections(bytes);
const code = secs.get(10);
const data = secs.get(11) ?? new Uint8Array();
const funcs = bodies(code, importedFunctions(secs.get(2)));
const groups = new Map(GROUPS.map(([g]) => [g, []]).concat([['the rest', []]]));
for (const [i, body] of funcs) {
  const name = names[i] ?? `function ${i}`;
  const group = GROUPS.find(([, re]) => re.test(name))?.[0] ?? 'the rest';
  groups.get(group).push([name, body]);
}
const gz = (parts) => gzipSync(Buffer.concat(parts), { level: 9 }).length;
const kib = (n) => (n / 1024).toFixed(0);
const rows = [...groups].map(([group, fns]) => ({
  group,
  functions: fns.length,
  raw: fns.reduce((s, [, b]) => s + b.length, 0),
  gzip: fns.length ? gz(fns.map(([, b]) => b)) : 0,
}));
rows.sort((a, b) => b.raw - a.raw);
const whole = { raw: bytes.length, gzip: gz([bytes]) };
console.log(`${path.relative(ROOT, wasmPath)}: ${kib(whole.raw)} KiB raw, ${kib(whole.gzip)} KiB gzipped (zlib level 9; gzip -9 makes a little less); ` +
  `code ${kib(code.length)} KiB raw (${funcs.length} functions) ${kib(gz([code]))} KiB gzip; data ${kib(data.length)} KiB raw ${kib(gz([data]))} KiB gzip\n`);
console.log('| what | functions | code KiB | gzip KiB (alone) |\n|---|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.group} | ${r.functions} | ${kib(r.raw)} | ${kib(r.gzip)} |`);
if (top > 0) {
  console.log(`\nthe ${top} largest functions (bytes):`);
  const all = funcs.map(([i, b]) => [b.length, names[i] ?? `function ${i}`]).sort((a, b) => b[0] - a[0]);
  for (const [n, name] of all.slice(0, top)) console.log(`${String(n).padStart(7)}  ${name.slice(0, 160)}`);
}
const json = opt('--json');
if (json) writeFileSync(json, JSON.stringify({ whole, code: code.length, data: data.length, rows }, null, 2));
