#!/usr/bin/env node
// Seeds a local tokenpad with a demo account (docs/accounts.md) owning a demo merchant, and a
// demo token, once.
//   TOKENPAD_URL=http://127.0.0.1:8787 ADMIN_API_KEY=... node scripts/seed.mjs
// Saves {baseUrl, merchant, keys, tokenAddress, token} to .tokenpad/demo.json; on later runs it
// checks that token with GET /token/<address>?publicKey=<pk> and reuses it instead of creating a
// second merchant. Exit code 0 on success, 1 on any failure (with the failing call printed).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// TOKENPAD_DEMO_FILE lets a test seed a throwaway server without touching the developer's demo.
const DEMO_FILE = process.env.TOKENPAD_DEMO_FILE ?? path.join(ROOT, '.tokenpad', 'demo.json');
const baseUrl = (process.env.TOKENPAD_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`).replace(/\/$/, '');
const adminKey = process.env.ADMIN_API_KEY;
const JOB_TIMEOUT_MS = Number(process.env.SEED_JOB_TIMEOUT_MS ?? 90_000);

class CallError extends Error {}

/**
 * fetch, sent again (twice at most) when the connection broke under it and the request is one
 * that may be repeated. Node's fetch keeps connections alive and sends the next request on one
 * the server may be closing at that moment: it fails with ECONNRESET, and fetch does not retry.
 */
async function send(url, init, repeatable) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch (err) {
      const broken = ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'].includes(err?.cause?.code);
      if (!repeatable || !broken || attempt === 3) throw err;
      await sleep(100 * attempt);
    }
  }
}

/**
 * One call. GETs are repeated when the connection breaks, and so are writes made safe to
 * repeat: `idempotencyKey` (the service applies the write once) or `repeatable`.
 */
async function call(method, urlPath, { key, admin = false, body, idempotencyKey, repeatable = false } = {}) {
  const headers = {};
  if (key) headers['x-api-key'] = key;
  if (admin) headers['x-admin-key'] = adminKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const res = await send(`${baseUrl}${urlPath}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  }, method === 'GET' || Boolean(idempotencyKey) || repeatable);
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, json, text };
}

async function must(method, urlPath, opts) {
  const r = await call(method, urlPath, opts);
  if (r.status < 200 || r.status > 299 || r.json === undefined) {
    throw new CallError(`${method} ${urlPath} -> HTTP ${r.status}: ${r.text.slice(0, 500)}`);
  }
  return r.json;
}

/** The demo account (docs/accounts.md): it owns the demo merchant; log in to the dashboard with it. */
const DEMO_EMAIL = process.env.TOKENPAD_DEMO_EMAIL ?? 'demo@tokenpad.example';
const DEMO_PASSWORD = process.env.TOKENPAD_DEMO_PASSWORD ?? 'tokenpad-demo-password';

/** A POST of the account API, from the service's own origin (as its pages send it). */
async function accountPost(urlPath, body, cookie) {
  const headers = { 'content-type': 'application/json', origin: new URL(baseUrl).origin };
  if (cookie) headers.cookie = cookie;
  const res = await send(`${baseUrl}${urlPath}`, { method: 'POST', headers, body: JSON.stringify(body) }, false);
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, json, text, cookie: res.headers.get('set-cookie')?.split(';')[0] };
}

/**
 * The demo account's login cookie: signed up (202 whether or not it exists), verified with the
 * newest link in the local mailbox (read with the admin key) when it is not yet, logged in.
 */
async function demoLogin() {
  const creds = { email: DEMO_EMAIL, password: DEMO_PASSWORD };
  const signup = await accountPost('/account/signup', creds);
  if (signup.status !== 202) throw new CallError(`POST /account/signup -> HTTP ${signup.status}: ${signup.text.slice(0, 500)}`);
  let login = await accountPost('/account/login', creds);
  if (login.status === 403 && login.json?.code === 'email_not_verified') {
    let token;
    for (let i = 0; i < 100 && !token; i++) {
      const box = await must('GET', `/admin/mailbox?to=${encodeURIComponent(DEMO_EMAIL)}`, { admin: true });
      const link = box.messages.flatMap((m) => m.links).find((l) => l.includes('#/verify?token='));
      token = link?.split('token=')[1];
      if (!token) await sleep(100);
    }
    if (!token) throw new CallError(`no verification mail for ${DEMO_EMAIL} in the local mailbox (is MAIL_PROVIDER_URL set?)`);
    const verified = await accountPost('/account/verify', { token });
    if (verified.status !== 200) throw new CallError(`POST /account/verify -> HTTP ${verified.status}: ${verified.text.slice(0, 500)}`);
    login = await accountPost('/account/login', creds);
  }
  if (login.status !== 200 || !login.cookie) throw new CallError(`POST /account/login -> HTTP ${login.status}: ${login.text.slice(0, 500)}`);
  return login.cookie;
}

async function loadSaved() {
  try {
    return JSON.parse(await readFile(DEMO_FILE, 'utf8'));
  } catch {
    return null;
  }
}

async function stillThere(saved) {
  if (!saved?.tokenAddress || !saved?.keys?.publicKey) return false;
  const r = await call('GET', `/token/${saved.tokenAddress}?publicKey=${encodeURIComponent(saved.keys.publicKey)}`);
  return r.status === 200;
}

async function waitForJob(jobId, secretKey) {
  const deadline = Date.now() + JOB_TIMEOUT_MS;
  let advance = true;
  for (;;) {
    const job = await must('GET', `/jobs/${encodeURIComponent(jobId)}`, { key: secretKey });
    if (job.status === 'success') return job.data;
    if (['failed', 'failure', 'error'].includes(job.status)) {
      throw new CallError(`token job ${jobId} ${job.status}: ${JSON.stringify(job)}`);
    }
    if (Date.now() > deadline) throw new CallError(`token job ${jobId} still ${job.status} after ${JOB_TIMEOUT_MS} ms`);
    if (advance) {
      // Time travel is on in dev; if it is not, just keep polling (blocks come every few seconds).
      // Repeatable: a second advance only moves the clock further, which a seed does not mind.
      const r = await call('POST', '/admin/time/advance', { admin: true, body: { seconds: 5 }, repeatable: true });
      advance = r.status >= 200 && r.status < 300;
    }
    await sleep(500);
  }
}

/**
 * On the local chain (./scripts/dev.sh --chain anvil passes TOKENPAD_FUND_RPC), the demo
 * merchant's wallet is its relayer: it pays the gas of settlement. Give it test ETH.
 */
async function fundRelayer(address) {
  const rpcUrl = process.env.TOKENPAD_FUND_RPC;
  if (!rpcUrl) return;
  // Setting a balance may be repeated.
  const res = await send(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [address, '0x3635c9adc5dea00000'] }),
  }, true);
  const body = await res.json();
  if (body.error) throw new CallError(`funding the relayer ${address}: ${body.error.message}`);
}

async function main() {
  if (!adminKey) throw new CallError('ADMIN_API_KEY is not set');
  let demo = await loadSaved();
  let reused = false;
  if (demo && (await stillThere(demo))) {
    reused = true;
  } else {
    if (demo) console.log('seed: saved demo token not found on this server; creating a new demo merchant');
    // The demo merchant belongs to the demo account, as one made in the dashboard does.
    const cookie = await demoLogin();
    const made = await accountPost('/account/merchants', { name: 'Demo Merchant' }, cookie);
    if (made.status !== 201) throw new CallError(`POST /account/merchants -> HTTP ${made.status}: ${made.text.slice(0, 500)}`);
    const merchant = {
      id: made.json.merchant.merchantId, name: made.json.merchant.name, merchantAddress: made.json.merchantAddress,
      secretKey: made.json.secretKey, publicKey: made.json.publicKey,
    };
    if (!merchant.secretKey || !merchant.publicKey) throw new CallError(`merchant response lacks keys: ${made.text.slice(0, 500)}`);
    await fundRelayer(merchant.merchantAddress);
    const job = await must('POST', '/merchant/create-token', {
      key: merchant.secretKey,
      body: { name: 'Demo Token', symbol: 'DEMO', canDistribute: true, canLP: true },
      idempotencyKey: `seed-demo-token-${merchant.id}`,
    });
    const token = await waitForJob(job.jobId, merchant.secretKey);
    if (!token?.address) throw new CallError(`token job finished without an address: ${JSON.stringify(token)}`);
    demo = {
      baseUrl,
      merchant: { id: merchant.id, name: merchant.name },
      keys: { secretKey: merchant.secretKey, publicKey: merchant.publicKey },
      account: { email: DEMO_EMAIL, password: DEMO_PASSWORD },
      tokenAddress: token.address,
      token,
      createdAt: new Date().toISOString(),
    };
    await mkdir(path.dirname(DEMO_FILE), { recursive: true });
    await writeFile(DEMO_FILE, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  }

  const { secretKey, publicKey } = demo.keys;
  const shownFile = path.relative(process.cwd(), DEMO_FILE).startsWith('..') ? DEMO_FILE : path.relative(process.cwd(), DEMO_FILE);
  const addr = demo.tokenAddress;
  console.log(`
Demo merchant ${reused ? `(reused from ${shownFile})` : `(new, saved to ${shownFile})`}
  merchant id   ${demo.merchant.id}
  secret key    ${secretKey}      (x-api-key, server side only)
  public key    ${publicKey}      (safe for browsers)
  DEMO token    ${addr}
${demo.account ? `  dashboard     ${baseUrl}/dashboard/   log in as ${demo.account.email} / ${demo.account.password}\n` : ''}
Try it:
  export TP=${baseUrl} SK=${secretKey} PK=${publicKey} TOKEN=${addr} ADMIN=${adminKey}
  curl -sX PUT $TP/holder/alice -H "x-api-key: $SK"
  curl -sX POST $TP/token/$TOKEN/distribute -H "x-api-key: $SK" -H 'content-type: application/json' \\
       -d '{"sendToId":"alice","amount":100}'
  curl -s "$TP/holder/alice/token/$TOKEN?publicKey=$PK"
  curl -s "$TP/token/$TOKEN?publicKey=$PK"
`);
}

main().catch((err) => {
  const msg = err instanceof CallError ? err.message : err?.cause ? `${err.message}: ${err.cause.message ?? err.cause}` : String(err?.stack ?? err);
  console.error(`seed: FAILED: ${msg}`);
  process.exit(1);
});
