// Runtimes where you pass the wasm in yourself (Deno Deploy, a service worker, a sandbox, a
// CDN): `await init({ module_or_path })` with a URL, a Response, bytes or a
// WebAssembly.Module, or `initSync({ module })`, before anything else is called. The wasm is
// `@tokenpad/client/tokenpad_bg.wasm`.
import initWasm, { initSync as initSyncWasm, type InitInput, type InitOutput, type SyncInitInput } from './wasm.js';
import { markReady, startLoading } from './ready.js';

export type { InitInput, InitOutput, SyncInitInput };

/** Instantiates the wasm from a URL, a Response, bytes or a WebAssembly.Module. */
export async function init(input: { module_or_path: InitInput | Promise<InitInput> }): Promise<InitOutput> {
  const out = initWasm(input);
  await startLoading(out);
  return out;
}

/** Instantiates the wasm at once from bytes or a WebAssembly.Module. */
export function initSync(input: { module: SyncInitInput }): InitOutput {
  const out = initSyncWasm(input);
  markReady();
  return out;
}

export * from './lib.js';
