// Node (ESM; and Deno and Bun, which resolve the `node` condition): the wasm read from the
// package's directory.
import { readFileSync } from 'node:fs';
import { initSync } from './wasm.js';
import { markReady } from './ready.js';
import { setFallbackWebSocket } from './live.js';

initSync({ module: readFileSync(new URL('./tokenpad_bg.wasm', import.meta.url)) });
markReady();

// Node 20 has no global WebSocket: live updates use the `ws` package when the app installed it
// (an optional peer dependency). The name is a variable so that bundlers leave it optional.
if (typeof (globalThis as { WebSocket?: unknown }).WebSocket !== 'function') {
  const ws = 'ws';
  try {
    const mod = (await import(ws)) as { WebSocket?: typeof WebSocket; default?: typeof WebSocket };
    setFallbackWebSocket(mod.WebSocket ?? mod.default);
  } catch {
    // Not installed: watches poll, and say so once (live.ts).
  }
}

export * from './lib.js';
