// The package in an edge Worker: the packed package installed into a fresh Worker project
// whose code is docs/package.md's edge example as printed, served by wrangler in workerd (which
// resolves the package's `workerd` build: the .wasm imported as a module), calling the local
// tokenpad (also in workerd) with the server client and the public-key client.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { api, createMerchant, createToken, startWorker } from '../http/harness.mjs';
import { installPacked, readmeExample } from './pack.mjs';

let tokenpad;
let edge;
let pack;
let m;
let token;

before(async () => {
  [tokenpad, pack] = await Promise.all([startWorker(), installPacked()]);
  m = await createMerchant(tokenpad, 'Edge Merchant');
  token = await createToken(tokenpad, m.secretKey, { name: 'Edge Token', symbol: 'EDGE' });
  await writeFile(path.join(pack.app, 'worker.mjs'), await readmeExample('edge'));
  await writeFile(path.join(pack.app, 'wrangler.toml'), 'name = "edge-consumer"\nmain = "worker.mjs"\ncompatibility_date = "2025-06-01"\n');
  edge = await startWorker({
    workerDir: pack.app,
    env: {
      TOKENPAD_URL: tokenpad.baseUrl, TOKENPAD_SECRET_KEY: m.secretKey, TOKENPAD_PUBLIC_KEY: m.publicKey, TOKEN: token.address,
      ADMIN_API_KEY: null, WALLET_ENCRYPTION_KEY: null, ALLOW_TIME_TRAVEL: null, ENABLE_FAUCET: null,
    },
  });
}, { timeout: 180_000 });

after(async () => {
  await edge?.stop();
  await tokenpad?.stop();
  await pack?.cleanup();
});

test('docs: the edge example runs in workerd as printed', { timeout: 60_000 }, async () => {
  const first = await api(edge, 'GET', '/?userId=carol');
  assert.equal(first.status, 200, `${first.text}\n${edge.logs().slice(-3000)}`);
  assert.equal(first.json.balance, '1.5');
  const second = await api(edge, 'GET', '/?userId=carol');
  assert.equal(second.json.balance, '3');
  // The supply view: 1.5 more distributed (the harness's readiness probe called it too).
  const n = (s) => Number(s.replaceAll(',', ''));
  assert.equal(n(second.json.distributed) - n(first.json.distributed), 1.5);
  // The wrangler bundle took the workerd build (no `Invalid URL string` at start-up).
  assert.doesNotMatch(edge.logs(), /Invalid URL/);
  const h = await api(tokenpad, 'GET', `/holder/carol?publicKey=${m.publicKey}`);
  assert.equal(h.json.tokens[0].balance, 3);
});
