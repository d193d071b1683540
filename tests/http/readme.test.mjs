// The README's walkthroughs, run exactly as printed: seed a fresh worker the way
// scripts/dev.sh does, paste the `export ...` line seed.mjs prints, and run every ```sh block
// of the "Walkthrough" sections in one bash with `set -euo pipefail`. And docs/deploy.md's
// smoke check, as printed, against a worker with the deployed configuration's vars.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startWorker, ROOT, TEST_CHAIN } from './harness.mjs';
import { withoutBuild } from './release.mjs';

const run = promisify(execFile);
let w;
let tmp;

before(async () => {
  w = await startWorker();
  tmp = await mkdtemp(path.join(tmpdir(), 'tokenpad-readme-'));
});
after(async () => {
  await w?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

function walkthroughBlocks(readme) {
  return readme
    .split(/\n## /)
    .filter((section) => section.startsWith('Walkthrough'))
    .flatMap((section) => [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]));
}

test('every README walkthrough works as printed against a freshly seeded service', async () => {
  const seeded = await run('node', ['scripts/seed.mjs'], {
    cwd: ROOT,
    env: {
      ...process.env, TOKENPAD_URL: w.baseUrl, ADMIN_API_KEY: w.adminKey, TOKENPAD_DEMO_FILE: path.join(tmp, 'demo.json'),
      // On a real chain (TOKENPAD_TEST_CHAIN=anvil), as ./scripts/dev.sh --chain anvil does: fund the demo relayer.
      ...(w.chain.kind === 'evm' ? { TOKENPAD_FUND_RPC: w.chain.rpcUrl } : {}),
    },
  });
  const exportLine = seeded.stdout.split('\n').map((l) => l.trim()).find((l) => l.startsWith('export TP='));
  assert.ok(exportLine, `seed printed no export line:\n${seeded.stdout}`);
  for (const name of ['TP', 'SK', 'PK', 'TOKEN', 'ADMIN']) assert.match(exportLine, new RegExp(`\\b${name}=\\S+`));

  const blocks = walkthroughBlocks(await readFile(path.join(ROOT, 'README.md'), 'utf8'));
  assert.ok(blocks.length >= 3, `found ${blocks.length} walkthrough blocks`);
  // curl prints bodies without a newline; add one after each so the output reads as lines.
  const script = ['set -euo pipefail', 'curl() { command curl "$@"; echo; }', exportLine, ...blocks].join('\n');
  const { stdout } = await run('bash', ['-c', script], { cwd: ROOT, timeout: 120_000, maxBuffer: 16 << 20 });
  const bodies = stdout.split('\n').filter((l) => l.startsWith('{') || l.startsWith('['));
  assert.ok(bodies.length > 20, `only ${bodies.length} JSON answers`);
  const failures = bodies.filter((b) => b.includes('"success":false'));
  assert.deepEqual(failures, [], 'a walkthrough step answered an error');

  // The flows reached their ends.
  assert.ok(bodies.some((b) => b.includes('"id":"alice"') && b.includes('"symbol":"DEMO"')), 'alice holds DEMO');
  assert.ok(bodies.some((b) => b.includes('"type":"spend"')), 'alice\'s history shows the spend');
  assert.ok(bodies.some((b) => b.includes('"step":"completed"')), 'the presale launched');
  assert.ok(bodies.some((b) => hasObject(b, (o) => o.symbol === 'MOON' && o.type === 'lock')), 'bob\'s MOON was locked');
  assert.ok(bodies.some((b) => hasObject(b, (o) => o.symbol === 'MOON' && o.type === 'token')), 'and then unlocked');
  assert.ok(bodies.some((b) => b.includes('"serviceBuildUrl"')), 'a deployment succeeded');
  assert.ok(bodies.some((b) => hasObject(b, (o) => Array.isArray(o.data) && o.data.some((e) => e.type === 'presale.launched'))),
    'the event log tells the launch');
  assert.ok(bodies.some((b) => b.includes('"eventType":"webhook.ping"')), 'the ping is a delivery');
  assert.ok(bodies.some((b) => b.includes('"deleted":true')), 'the webhook was deleted');

  // On a real chain, everything the walkthroughs did (rewards, spends, a withdrawal, a presale's
  // buys, launch and allocations, a memecoin, an airdrop, trades) settled: ledger == chain.
  if (w.chain.kind === 'evm') {
    const { merchant } = JSON.parse(await readFile(path.join(tmp, 'demo.json'), 'utf8'));
    const admin = { headers: { 'x-admin-key': w.adminKey } };
    let view;
    for (let i = 0; i < 600; i++) {
      view = await (await fetch(`${w.baseUrl}/admin/merchants/${merchant.id}/chain`, admin)).json();
      if (view.openMovements === 0 && view.transactions.length === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(view.openMovements, 0, JSON.stringify(view));
    assert.deepEqual(view.failed, [], 'no movement failed');
    const report = await (await fetch(`${w.baseUrl}/admin/merchants/${merchant.id}/reconcile`, admin)).json();
    assert.ok(report.checked > 5, JSON.stringify(report));
    assert.deepEqual(report.differences, [], JSON.stringify(report));
  }
});

/** Whether the JSON text `text` holds, at any depth, an object for which `pred` is true. */
function hasObject(text, pred) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  const walk = (v) => v !== null && typeof v === 'object' && ((!Array.isArray(v) && pred(v)) || Object.values(v).some(walk));
  return walk(value);
}

/** The ```sh blocks marked `<!-- smoke-check -->` in docs/deploy.md, in order. */
function smokeCheckBlocks(doc) {
  return [...doc.matchAll(/<!-- smoke-check -->\s*```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

test('docs/deploy.md: the smoke check works as printed against the deployed configuration', {
  skip: TEST_CHAIN === 'anvil' && 'it runs on the embedded chain, in the plain HTTP step',
}, async () => {
  const blocks = smokeCheckBlocks(await readFile(path.join(ROOT, 'docs', 'deploy.md'), 'utf8'));
  assert.equal(blocks.length, 2, 'docs/deploy.md has two smoke-check blocks');
  // wrangler.toml's own vars: no time travel, no faucet, no private webhook URLs, the bad-key
  // budget on. The secrets as an operator sets them.
  const deployed = await startWorker({
    chain: 'embedded',
    env: { ALLOW_TIME_TRAVEL: null, ENABLE_FAUCET: null, ALLOW_PRIVATE_WEBHOOK_URLS: null, BAD_KEY_LIMIT_PER_SECOND: null },
  });
  try {
    const script = ['set -euo pipefail', 'curl() { command curl "$@"; echo; }', ...blocks].join('\n');
    const { stdout } = await run('bash', ['-c', script], {
      cwd: ROOT, timeout: 180_000, maxBuffer: 16 << 20,
      env: { ...process.env, TP: deployed.baseUrl, ADMIN: deployed.adminKey },
    });
    const lines = stdout.split('\n').map((l) => l.trim()).filter(Boolean);
    const bodies = lines.filter((l) => l.startsWith('{'));
    assert.deepEqual(bodies.filter((b) => b.includes('"success":false')), [], 'a smoke-check step answered an error');
    assert.deepEqual(withoutBuild(JSON.parse(bodies[0])), { ok: true, chain: { kind: 'embedded' } }, 'health first');
    assert.deepEqual(lines.filter((l) => /^\d{3}$/.test(l)), ['404', '404'], 'time travel and the faucet are off');
    assert.ok(lines.some((l) => /^0x[0-9a-fA-F]{40}$/.test(l)), 'the merchant\'s relayer address is printed');
    assert.ok(bodies.some((b) => hasObject(b, (o) => o.status === 'success' && o.data?.symbol === 'SMOKE')), 'the token job succeeded');
    const wallet = JSON.parse(bodies.at(-1));
    assert.equal(wallet.id, 'smoke');
    assert.deepEqual(wallet.tokens.map((x) => [x.symbol, String(x.balance)]), [['SMOKE', '1']], 'the holder holds the reward');
  } finally {
    await deployed.stop();
  }
});
