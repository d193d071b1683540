// Node's CommonJS build (`require('@tokenpad/client')`): scripts/build-pkg.sh bundles this
// file with everything it imports into node.cjs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initSync } from './wasm.js';
import { markReady } from './ready.js';

declare const __dirname: string;
initSync({ module: readFileSync(join(__dirname, 'tokenpad_bg.wasm')) });
markReady();

export * from './lib.js';
