// Workers under workerd as Miniflare runs them alone: no `wrangler dev` in front (its proxy
// Worker and middleware). bench/plain.mjs measures without it, and the tests that need a real
// crowd (bad_keys_crowd.test.mjs) send theirs here: 60 requests sent at once through
// `wrangler dev` did not reach the Worker at once (a guard that refused 40 of 60 sent straight
// to workerd refused none of them through it).
//
//   const w = await startPlain(TOKENPAD_DIRS, { ADMIN_API_KEY: PLAIN_ADMIN, ...vars });
//   ... api(w, 'GET', '/health') ...
//   await w.mf.dispose();
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT } from './harness.mjs';

const require = createRequire(import.meta.url);
const { Miniflare } = require('miniflare');
const { unstable_getMiniflareWorkerOptions: workerOptions } = require('wrangler');

/** The admin key of a plain worker. */
export const PLAIN_ADMIN = 'plain-admin-key';
/** tokenpad's two Workers: the front, and the ledger whose Durable Objects it binds. */
export const TOKENPAD_DIRS = [path.join(ROOT, 'crates/worker'), path.join(ROOT, 'crates/worker/ledger')];

/**
 * Workers from their directories' wrangler.toml, their JavaScript and wasm as modules, in one
 * Miniflare: the first serves, the others run beside it (tokenpad's ledger, whose Durable
 * Objects the front binds by script name). `bindings` add to or replace each one's vars.
 * Returns a handle the harness's helpers take (api, createMerchant, createToken), with `mf`.
 */
export async function startPlain(dirs, bindings = {}) {
  const workers = dirs.map((dir) => {
    const { workerOptions: o } = workerOptions(path.join(dir, 'wrangler.toml'));
    delete o.assets;
    const config = readFileSync(path.join(dir, 'wrangler.toml'), 'utf8');
    const main = config.match(/^main = "(.+)"/m)[1];
    return {
      ...o,
      name: config.match(/^name = "(.+)"/m)[1],
      modules: true,
      scriptPath: path.join(dir, main),
      // The ledger's entry (crates/worker/ledger) imports ../build-ledger: the modules' root
      // is the first Worker's directory, the crate, for both.
      modulesRoot: dirs[0],
      modulesRules: [{ type: 'ESModule', include: ['**/*.js', '**/*.mjs'] }, { type: 'CompiledWasm', include: ['**/*.wasm'] }],
      bindings: { ...o.bindings, ...bindings },
    };
  });
  const mf = new Miniflare({
    workers,
    port: 0,
    // Each log line is read and dropped, as a deployment's log pipeline takes it away; printed
    // here it would cost this process, and flood the terminal.
    handleRuntimeStdio: (stdout, stderr) => { stdout.resume(); stderr.resume(); },
  });
  return { mf, url: await mf.ready, get baseUrl() { return this.url.origin; }, adminKey: bindings.ADMIN_API_KEY ?? PLAIN_ADMIN };
}
