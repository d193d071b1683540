// Cloudflare Workers and workerd (the `workerd` export condition, which wrangler sets): a
// Worker cannot compile wasm from bytes or find files by URL, it imports the `.wasm` as a
// module (wrangler and workerd do that for `.wasm` imports).
import wasmModule from './tokenpad_bg.wasm';
import { initSync } from './wasm.js';
import { markReady } from './ready.js';

initSync({ module: wasmModule });
markReady();

export * from './lib.js';
