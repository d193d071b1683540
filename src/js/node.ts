// Node (ESM; and Deno and Bun, which resolve the `node` condition): the wasm read from the
// package's directory.
import { readFileSync } from 'node:fs';
import { initSync } from './wasm.js';
import { markReady } from './ready.js';

initSync({ module: readFileSync(new URL('./tokenpad_bg.wasm', import.meta.url)) });
markReady();

export * from './lib.js';
