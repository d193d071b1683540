// Browsers and bundlers that understand `new URL('./file', import.meta.url)` (vite, webpack,
// parcel, and browsers loading the files as they are): the wasm is fetched beside this file
// and compiled while it downloads. Where that URL does not lead to it (a dev server that moved
// this file), the copy inside wasm-gz.js is used instead, loaded only then.
import init from './wasm.js';
import { markReady } from './ready.js';

try {
  await init({ module_or_path: new URL('./tokenpad_bg.wasm', import.meta.url) });
} catch {
  const { wasmBytes } = await import('./inline-wasm.js');
  await init({ module_or_path: await wasmBytes() });
}

markReady();

export * from './lib.js';
