// Bundlers with no asset handling for `new URL(..., import.meta.url)` (esbuild, by the
// `browser` export condition): the wasm comes inside the bundle (wasm-gz.js, gzip + base64),
// so the bundle works wherever it is served, with no file to copy. No top-level await: esbuild
// also bundles this entry into CommonJS, IIFE and classic-script output (a project whose
// package.json says "type": "commonjs", for one), where an await at the top is a syntax error.
// The wasm loads in the background; every call that returns a promise waits for it, and
// `await ready` before the first synchronous call (view models, formatting).
import init from './wasm.js';
import { startLoading } from './ready.js';
import { wasmBytes } from './inline-wasm.js';

void startLoading(wasmBytes().then((bytes) => init({ module_or_path: bytes })));

export * from './lib.js';
