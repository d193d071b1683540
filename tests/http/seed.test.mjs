// scripts/seed.mjs (what ./scripts/dev.sh runs) survives a connection the server breaks under a
// request: a GET is sent again. Node's fetch sends a request on a kept-alive connection the
// server may be closing, which fails with ECONNRESET; the README walkthrough test met it once.
// A Node server stands in for tokenpad: it breaks the first request's connection, then answers
// the saved demo token's check, so the seed reuses it. Last, against the real Worker: the demo
// merchant is made by a demo account that logs in and owns it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './harness.mjs';

const run = promisify(execFile);

async function seedAgainst(breakFirst) {
  const seen = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (seen.length <= breakFirst) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"address":"0x0000000000000000000000000000000000000001"}');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const tmp = await mkdtemp(path.join(tmpdir(), 'tokenpad-seed-'));
  try {
    const demoFile = path.join(tmp, 'demo.json');
    await writeFile(demoFile, JSON.stringify({
      baseUrl: 'x', merchant: { id: 'm', name: 'Demo' }, keys: { secretKey: 'sk_x', publicKey: 'pk_x' },
      tokenAddress: '0x0000000000000000000000000000000000000001',
    }));
    const env = { ...process.env, TOKENPAD_URL: `http://127.0.0.1:${server.address().port}`, ADMIN_API_KEY: 'admin', TOKENPAD_DEMO_FILE: demoFile };
    const out = await run('node', ['scripts/seed.mjs'], { cwd: ROOT, env }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
    return { ...out, seen };
  } finally {
    server.close();
    await rm(tmp, { recursive: true, force: true });
  }
}

test('a GET whose connection breaks is sent again, and the seed goes on', async () => {
  const r = await seedAgainst(1);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Demo merchant \(reused from/);
  assert.deepEqual(r.seen, Array(2).fill('GET /token/0x0000000000000000000000000000000000000001?publicKey=pk_x'));
});

test('a connection broken on every try fails the seed with the cause, after three', async () => {
  const r = await seedAgainst(Infinity);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /seed: FAILED: fetch failed/);
  assert.equal(r.seen.length, 3);
});

// Against the real Worker (local mailbox on, as dev.sh runs it): the demo merchant is made by a
// demo account, which logs in and owns it; a second run reuses both.
test('the seed makes the demo merchant through a demo account that owns it', { timeout: 120_000 }, async () => {
  const { readFile } = await import('node:fs/promises');
  const { startWorker } = await import('./harness.mjs');
  const w = await startWorker();
  const tmp = await mkdtemp(path.join(tmpdir(), 'tokenpad-seed-'));
  try {
    const demoFile = path.join(tmp, 'demo.json');
    const env = { ...process.env, TOKENPAD_URL: w.baseUrl, ADMIN_API_KEY: w.adminKey, TOKENPAD_DEMO_FILE: demoFile };
    const first = await run('node', ['scripts/seed.mjs'], { cwd: ROOT, env });
    const demo = JSON.parse(await readFile(demoFile, 'utf8'));
    assert.equal(demo.account.email, 'demo@tokenpad.example');
    assert.ok(demo.account.password.length >= 10);
    assert.ok(first.stdout.includes(`log in as ${demo.account.email} / ${demo.account.password}`), first.stdout);
    const login = await fetch(`${w.baseUrl}/account/login`, {
      method: 'POST', headers: { 'content-type': 'application/json', origin: w.baseUrl }, body: JSON.stringify(demo.account),
    });
    assert.equal(login.status, 200);
    const cookie = login.headers.get('set-cookie').split(';')[0];
    const account = await (await fetch(`${w.baseUrl}/account`, { headers: { cookie } })).json();
    assert.deepEqual(account.merchants, [{ merchantId: demo.merchant.id, name: 'Demo Merchant', role: 'owner' }]);
    const token = await fetch(`${w.baseUrl}/token/${demo.tokenAddress}?publicKey=${demo.keys.publicKey}`);
    assert.equal(token.status, 200);
    const again = await run('node', ['scripts/seed.mjs'], { cwd: ROOT, env });
    assert.match(again.stdout, /reused/);
    assert.equal(JSON.parse(await readFile(demoFile, 'utf8')).merchant.id, demo.merchant.id);
  } finally {
    await w.stop();
    await rm(tmp, { recursive: true, force: true });
  }
});
