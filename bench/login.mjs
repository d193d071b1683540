// Times logins in the local worker (workerd, through tests/http/harness.mjs): a right password,
// an unknown email, a wrong password (one argon2id each), and the same hops without a hash.
// docs/accounts.md, "Password hashing", has the figures. Run: node bench/login.mjs (after
// scripts/build-worker.sh).
import { api, startWorker } from '../tests/http/harness.mjs';
const w = await startWorker();
const origin = new URL(w.baseUrl).origin;
const post = (path, body, ip) => api(w, 'POST', path, { body, headers: { origin, 'cf-connecting-ip': ip } });
const email = `m${Date.now()}@example.com`;
const password = 'correct horse battery';
await post('/account/signup', { email, password }, '10.0.0.1');
let token;
for (let i = 0; i < 100 && !token; i++) {
  const box = await api(w, 'GET', `/account/dev-mailbox?to=${email}`);
  token = box.json.messages[0]?.links[0]?.split('token=')[1];
  if (!token) await new Promise((r) => setTimeout(r, 50));
}
await post('/account/verify', { token }, '10.0.0.1');
async function time(label, body, n, ipBase) {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await post('/account/login', body, `10.${ipBase}.0.${i}`);
    ms.push(performance.now() - t);
    if (i === 0) console.log(label, r.status);
  }
  ms.sort((a, b) => a - b);
  console.log(label, 'n', n, 'median', ms[n >> 1].toFixed(1), 'min', ms[0].toFixed(1), 'max', ms[n - 1].toFixed(1));
}
// Warm the isolate first.
await post('/account/login', { email, password }, '10.0.9.9');
await time('right', { email, password }, 15, 1);
await time('unknown', { email: `nobody${Date.now()}@example.com`, password }, 4, 2);
await time('wrong', { email, password: 'wrong password!' }, 4, 3);
// The same hops without argon2: a login throttled at the address (429 before any hash), and GET /account.
for (let i = 0; i < 21; i++) await post('/account/login', { email: `g${i}x@example.com`, password: 'x'.repeat(10) }, '10.8.8.8');
async function timeFloor(label, f, n) {
  const ms = [];
  for (let i = 0; i < n; i++) { const t = performance.now(); const r = await f(); ms.push(performance.now() - t); if (i === 0) console.log(label, r.status); }
  ms.sort((a, b) => a - b);
  console.log(label, 'n', n, 'median', ms[n >> 1].toFixed(1), 'min', ms[0].toFixed(1), 'max', ms[n - 1].toFixed(1));
}
await timeFloor('throttled (no hash)', () => post('/account/login', { email, password }, '10.8.8.8'), 15);
const login = await post('/account/login', { email, password }, '10.0.7.7');
const cookie = login.headers.get('set-cookie').split(';')[0];
await timeFloor('GET /account', () => api(w, 'GET', '/account', { headers: { cookie } }), 15);
await w.stop();
