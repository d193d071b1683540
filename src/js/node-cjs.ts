// Node's CommonJS build (`require('@tokenpad/client')`): scripts/build-pkg.sh bundles this
// file with everything it imports into node.cjs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initSync } from './wasm.js';
import { markReady } from './ready.js';
import { setFallbackWebSocket } from './live.js';

declare const __dirname: string;
declare const require: (id: string) => { WebSocket?: typeof WebSocket };
initSync({ module: readFileSync(join(__dirname, 'tokenpad_bg.wasm')) });
markReady();

// Node 20 has no global WebSocket: live updates use the `ws` package when it is installed
// (scripts/build-pkg.sh keeps it out of the bundle).
if (typeof (globalThis as { WebSocket?: unknown }).WebSocket !== 'function') {
  try {
    setFallbackWebSocket(require('ws').WebSocket);
  } catch {
    // Not installed: watches poll, and say so once (live.ts).
  }
}

export * from './lib.js';
