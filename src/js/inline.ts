// Bundlers with no asset handling for `new URL(..., import.meta.url)` (esbuild, by the
// `browser` export condition): the wasm comes inside the bundle (wasm-gz.js, gzip + base64),
// so the bundle works wherever it is served, with no file to copy.
import init from './wasm.js';
import { markReady } from './ready.js';
import { wasmBytes } from './inline-wasm.js';

await init({ module_or_path: await wasmBytes() });
markReady();

export * from './lib.js';
