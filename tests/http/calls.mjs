// The calls tests and benchmarks make to a worker under test (startWorker's handle, or a base
// URL): one HTTP call, a merchant, a token and the job that makes it, a relayer funded; and
// reading its log lines. Imported through harness.mjs.
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 100;

/**
 * One HTTP call. `target` is a base URL or a startWorker() handle (its current baseUrl is used).
 * `key` is sent as x-api-key, `adminKey` as x-admin-key; `body` is sent as JSON, `rawBody` as is.
 * @returns {Promise<{status: number, headers: Headers, json: any, text: string}>}
 */
export async function api(target, method, urlPath, { key, adminKey, body, headers = {}, rawBody } = {}) {
  const baseUrl = typeof target === 'string' ? target : target.baseUrl;
  const h = { ...headers };
  if (key !== undefined) h['x-api-key'] = key;
  if (adminKey !== undefined) h['x-admin-key'] = adminKey;
  let payload = rawBody;
  if (body !== undefined && rawBody === undefined) {
    payload = JSON.stringify(body);
    if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['content-type'] = 'application/json';
  }
  const res = await fetch(`${baseUrl}${urlPath}`, { method, headers: h, body: payload });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  // JSON.parse keeps the last of a repeated key silently; the service writes each object
  // straight from its wire type, where a flattened field could repeat its parent's name.
  const repeated = json === undefined ? null : repeatedKey(text);
  if (repeated !== null) throw new Error(`${method} ${urlPath}: the answer repeats the key "${repeated}": ${text.slice(0, 500)}`);
  return { status: res.status, headers: res.headers, json, text };
}

/** The JSON log lines (the request log among them) in a worker's or dev.sh's output. */
export function logLines(output) {
  return output.split('\n').map((l) => l.slice(l.indexOf('{"')))
    .flatMap((l) => { try { return [JSON.parse(l)]; } catch { return []; } });
}

/** The first key that one object of the JSON text `text` (well-formed) names twice, or null. */
export function repeatedKey(text) {
  const open = []; // per open container: its keys so far (an object) or null (an array)
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') open.push(new Set());
    else if (c === '[') open.push(null);
    else if (c === '}' || c === ']') open.pop();
    else if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      let next = end + 1;
      while (' \t\n\r'.includes(text[next])) next++;
      const keys = open.at(-1);
      if (text[next] === ':' && keys) {
        const key = JSON.parse(text.slice(i, end + 1));
        if (keys.has(key)) return key;
        keys.add(key);
      }
      i = end;
    }
  }
  return null;
}

function expectOk(res, what) {
  if (res.status < 200 || res.status > 299) {
    throw new Error(`${what}: HTTP ${res.status} ${res.text}`);
  }
  return res.json;
}

/**
 * Creates a merchant through the admin API: {id, name, secretKey, publicKey, merchantAddress}.
 * On an EVM chain its relayer is funded (fundRelayer), as every test merchant's must be.
 */
export async function createMerchant(w, name = 'Test Merchant') {
  const m = expectOk(await api(w, 'POST', '/admin/merchants', { adminKey: w.adminKey, body: { name } }), 'create merchant');
  await fundRelayer(w, m.merchantAddress);
  return m;
}

/**
 * On an EVM chain (a local anvil), gives the merchant wallet `address` 1000 test ETH: it is the
 * merchant's relayer and pays the gas of its settlement, which stalls without it. Does nothing
 * on the embedded chain.
 */
export async function fundRelayer(w, address) {
  if (w.chain?.kind !== 'evm') return;
  const { fund } = await import('../chain/anvil.mjs');
  await fund(w.chain.rpcUrl, address, 1000n * 10n ** 18n);
}

/**
 * Creates a token and waits for its job: polls GET /jobs/:id and, when the job is still pending,
 * moves the embedded chain forward with POST /admin/time/advance (time travel is on in the
 * harness); on an EVM chain it waits for the node to mine the deployment.
 * Returns the job's data, the Token object (with `address`).
 */
export async function createToken(w, secretKey, body = {}, { timeoutMs = 60_000, advanceSeconds = 5 } = {}) {
  const req = { name: 'Test Token', symbol: 'TEST', canDistribute: true, ...body };
  const job = expectOk(await api(w, 'POST', '/merchant/create-token', { key: secretKey, body: req }), 'create token');
  return waitForJob(w, secretKey, job.jobId, { timeoutMs, advanceSeconds });
}

/** Polls GET /jobs/:id until success (returns data) or failure (throws). */
export async function waitForJob(w, secretKey, jobId, { timeoutMs = 60_000, advanceSeconds = 5 } = {}) {
  if (!jobId) throw new Error('waitForJob: no jobId');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(w, 'GET', `/jobs/${encodeURIComponent(jobId)}`, { key: secretKey });
    const job = expectOk(res, `GET /jobs/${jobId}`);
    if (job.status === 'success') return job.data;
    if (['failed', 'failure', 'error'].includes(job.status)) {
      throw new Error(`job ${jobId} ${job.status}: ${res.text}`);
    }
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
    // The embedded chain mines on the service clock; a real one in its own time.
    if (advanceSeconds > 0 && w.adminKey && w.chain?.kind !== 'evm') {
      await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: advanceSeconds } });
    }
    await sleep(POLL_MS * 2);
  }
}
