// Merchant accounts over HTTP (docs/accounts.md, issue 41): sign up, the verification mail in
// the local mailbox, verify, log in with the __Host- cookie, the account, a merchant it owns,
// the dashboard's credential (dt_) used as x-api-key, invitations and roles, logout,
// logout-all, the password reset, login throttling, and the bad inputs: the same answer
// for a wrong password and an unknown email, expired and reused links, weak and over-long
// passwords, a dt_ of another merchant, a viewer's write, a cross-origin POST, a dt_ in a URL.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, createMerchant, startWorker } from './harness.mjs';
import { assertMatches } from './openapi.mjs';

let w;
let origin;
/** A client address per test, so one test's failed logins never throttle another's. */
let nextAddress = 10;

before(async () => {
  w = await startWorker();
  origin = new URL(w.baseUrl).origin;
});
after(async () => {
  await w?.stop();
});

/** A POST or GET of the account API from the service's own pages. */
async function acct(method, path, { body, cookie, address, headers = {} } = {}) {
  const h = { ...headers };
  if (method === 'POST' && !('origin' in h)) h.origin = origin;
  if (cookie) h.cookie = `__Host-tp_login=${cookie}`;
  if (address) h['cf-connecting-ip'] = address;
  return api(w, method, path, { body: method === 'POST' ? (body ?? {}) : undefined, headers: h });
}

function documented(res, method, route, status) {
  assert.equal(res.status, status, `${method} ${route}: ${res.text}`);
  if (res.json !== undefined) assertMatches(method, route, status, res.json);
  return res.json;
}

function refused(res, status, code) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.json?.code, code, res.text);
}

/** The cookie a Set-Cookie sets, with its attributes checked. */
function cookieOf(res) {
  const line = res.headers.get('set-cookie');
  assert.ok(line, 'a Set-Cookie');
  assert.match(line, /^__Host-tp_login=[0-9a-f]{64}\.[0-9a-f]{64}; Path=\/; HttpOnly; Secure; SameSite=Lax; Max-Age=604800$/);
  return line.split(';')[0].split('=')[1];
}

/** The newest mail to `to` whose subject matches, waited for (the alarm sends it). */
async function mail(to, subject) {
  for (let i = 0; i < 100; i++) {
    const res = await acct('GET', `/account/dev-mailbox?to=${encodeURIComponent(to)}`);
    assert.equal(res.status, 200, res.text);
    const found = res.json.messages.find((m) => subject.test(m.subject));
    if (found) return found;
    await sleep(50);
  }
  throw new Error(`no mail "${subject}" to ${to}`);
}

const tokenIn = (message, page) => {
  const link = message.links.find((l) => l.includes(`#/${page}?token=`));
  assert.ok(link, `a #/${page} link in ${JSON.stringify(message.links)}`);
  assert.ok(link.startsWith(`${origin}/dashboard/#/${page}?token=`), link);
  return new URL(link.replace('#/', '')).searchParams.get('token');
};

let n = 0;
const freshEmail = (who = 'user') => `${who}${++n}.${Date.now()}@example.com`;
const PASSWORD = 'correct horse battery';

/** Signs up, verifies and logs in a new account: its email and cookie. */
async function account(who) {
  const email = freshEmail(who);
  documented(await acct('POST', '/account/signup', { body: { email, password: PASSWORD } }), 'POST', '/account/signup', 202);
  const token = tokenIn(await mail(email, /verify/i), 'verify');
  documented(await acct('POST', '/account/verify', { body: { token } }), 'POST', '/account/verify', 200);
  const res = await acct('POST', '/account/login', { body: { email, password: PASSWORD }, address: `10.9.0.${++nextAddress}` });
  documented(res, 'POST', '/account/login', 200);
  return { email, cookie: cookieOf(res) };
}

test('sign up, the mail, verify once, log in: the cookie is the session', async () => {
  const email = freshEmail('ann');
  const address = `10.1.0.${++nextAddress}`;
  const signup = documented(await acct('POST', '/account/signup', { body: { email: email.toUpperCase(), password: PASSWORD } }), 'POST', '/account/signup', 202);
  assert.deepEqual(signup, { status: 'verification_sent' });
  // Not verified yet: the right password says so; a wrong one says only that it is wrong.
  refused(await acct('POST', '/account/login', { body: { email, password: PASSWORD }, address }), 403, 'email_not_verified');
  refused(await acct('POST', '/account/login', { body: { email, password: 'wrong password!' }, address }), 401, 'invalid_credentials');
  const message = await mail(email, /verify/i);
  assert.equal(message.to, email);
  const token = tokenIn(message, 'verify');
  assert.deepEqual(documented(await acct('POST', '/account/verify', { body: { token } }), 'POST', '/account/verify', 200), { email });
  // A link works once.
  refused(await acct('POST', '/account/verify', { body: { token } }), 400, 'invalid_link');
  refused(await acct('POST', '/account/verify', { body: { token: 'nonsense' } }), 400, 'invalid_link');
  refused(await acct('POST', '/account/verify', { body: { token: `${'ab'.repeat(32)}.${'cd'.repeat(32)}` } }), 400, 'invalid_link');

  const login = await acct('POST', '/account/login', { body: { email, password: PASSWORD }, address });
  assert.deepEqual(documented(login, 'POST', '/account/login', 200), { email, merchants: [] });
  const cookie = cookieOf(login);
  assert.deepEqual(documented(await acct('GET', '/account', { cookie }), 'GET', '/account', 200), { email, merchants: [] });
  refused(await acct('GET', '/account'), 401, 'not_logged_in');
  const altered = `${cookie.slice(0, -1)}${cookie.endsWith('0') ? '1' : '0'}`;
  refused(await acct('GET', '/account', { cookie: altered }), 401, 'not_logged_in');
  refused(await acct('GET', '/account', { cookie: 'garbage' }), 401, 'not_logged_in');
  // No CORS on the account API.
  assert.equal(login.headers.get('access-control-allow-origin'), null);

  // Signing up again with the email: the same answer, and a mail saying there is an account.
  assert.deepEqual((await acct('POST', '/account/signup', { body: { email, password: 'another password' } })).json, { status: 'verification_sent' });
  await mail(email, /already have/i);
  // ...and the password did not change.
  documented(await acct('POST', '/account/login', { body: { email, password: PASSWORD }, address }), 'POST', '/account/login', 200);
});

test('a wrong password and an unknown email get the same answer', async () => {
  const { email } = await account('same');
  const address = `10.2.0.${++nextAddress}`;
  const wrong = await acct('POST', '/account/login', { body: { email, password: 'not the password' }, address });
  const unknown = await acct('POST', '/account/login', { body: { email: freshEmail('nobody'), password: 'not the password' }, address });
  const malformed = await acct('POST', '/account/login', { body: { email: 'not an email', password: 'not the password' }, address });
  for (const res of [wrong, unknown, malformed]) refused(res, 401, 'invalid_credentials');
  assert.equal(wrong.text, unknown.text);
  assert.equal(wrong.text, malformed.text);
  assert.equal(wrong.headers.get('set-cookie'), null);
});

test('weak, over-long passwords and bad emails are refused, nothing made', async () => {
  const email = freshEmail('weak');
  const weak = await acct('POST', '/account/signup', { body: { email, password: 'short' } });
  refused(weak, 400, 'weak_password');
  assert.equal(weak.json.details.field, 'password');
  refused(await acct('POST', '/account/signup', { body: { email, password: 'x'.repeat(129) } }), 400, 'weak_password');
  refused(await acct('POST', '/account/signup', { body: { email: 'nobody', password: PASSWORD } }), 400, 'invalid_request');
  refused(await acct('POST', '/account/signup', { body: { email } }), 400, 'invalid_request');
  const box = await acct('GET', `/account/dev-mailbox?to=${email}`);
  assert.deepEqual(box.json, { messages: [] });
});

test('a POST from another origin, or not JSON, is refused', async () => {
  const email = freshEmail('csrf');
  const body = { email, password: PASSWORD };
  refused(await acct('POST', '/account/signup', { body, headers: { origin: 'https://evil.example' } }), 403, 'cross_origin_request');
  // No Origin: only a same-origin fetch (Sec-Fetch-Site) passes.
  const bare = await api(w, 'POST', '/account/signup', { body });
  refused(bare, 403, 'cross_origin_request');
  refused(await api(w, 'POST', '/account/signup', { body, headers: { 'sec-fetch-site': 'cross-site' } }), 403, 'cross_origin_request');
  assert.equal((await api(w, 'POST', '/account/signup', { body, headers: { 'sec-fetch-site': 'same-origin' } })).status, 202);
  // A form post (text/plain) from the right origin: 415.
  const form = await api(w, 'POST', '/account/login', { rawBody: JSON.stringify(body), headers: { origin, 'content-type': 'text/plain' } });
  refused(form, 415, 'unsupported_media_type');
});

test('an account makes a merchant it owns; the dashboard credential is its secret key', async () => {
  const { email, cookie } = await account('owner');
  refused(await acct('POST', '/account/merchants', { body: { name: 'Shop' } }), 401, 'not_logged_in');
  const made = documented(await acct('POST', '/account/merchants', { body: { name: 'Shop' }, cookie }), 'POST', '/account/merchants', 201);
  const id = made.merchant.merchantId;
  assert.deepEqual(made.merchant, { merchantId: id, name: 'Shop', role: 'owner' });
  assert.match(made.secretKey, new RegExp(`^sk_${id}_`));
  assert.match(made.publicKey, new RegExp(`^pk_${id}_`));
  assert.match(made.merchantAddress, /^0x[0-9a-fA-F]{40}$/);
  assert.deepEqual((await acct('GET', '/account', { cookie })).json, { email, merchants: [made.merchant] });
  // The keys work.
  assert.equal((await api(w, 'GET', '/merchant/settings', { key: made.secretKey })).status, 200);

  const t = documented(await acct('POST', `/account/merchants/${id}/token`, { cookie }), 'POST', '/account/merchants/{merchantId}/token', 200);
  assert.equal(t.role, 'owner');
  assert.match(t.token, new RegExp(`^dt_${id}_[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
  assert.ok(t.expiresAt > Date.now() && t.expiresAt <= Date.now() + 5 * 60_000 + 5_000, String(t.expiresAt));
  // Sent as a secret key: reads and writes.
  assert.equal((await api(w, 'GET', '/merchant/settings', { key: t.token })).status, 200);
  const put = await api(w, 'PUT', '/holder/dash-alice', { key: t.token });
  assert.equal(put.status, 201, put.text);
  assert.equal((await api(w, 'GET', '/keys', { key: t.token })).status, 200);
  // As Authorization: Bearer too, like a key.
  assert.equal((await api(w, 'GET', '/merchant/settings', { headers: { authorization: `Bearer ${t.token}` } })).status, 200);

  // Never in a URL.
  refused(await api(w, 'GET', `/holder/dash-alice?publicKey=${t.token}`), 400, 'secret_key_in_url');
  refused(await api(w, 'GET', `/holder/${t.token}`, { key: made.secretKey }), 400, 'secret_key_in_url');
  // Truncated after the merchant id, in a query: still refused. A userId like dt_bob is not one.
  refused(await api(w, 'GET', `/holder/dash-alice?x=${t.token.slice(0, 35)}`, { key: made.secretKey }), 400, 'secret_key_in_url');
  assert.equal((await api(w, 'GET', '/holder/dash-alice?x=dt_bob', { key: made.secretKey })).status, 200);
  // Forged or tampered: 401 invalid_api_key.
  const [head, mac] = t.token.split('.');
  refused(await api(w, 'GET', '/merchant/settings', { key: `${head}.${mac.slice(0, -2)}AA` }), 401, 'invalid_api_key');
  refused(await api(w, 'GET', '/merchant/settings', { key: `${head}x.${mac}` }), 401, 'invalid_api_key');
  // Another merchant's dt_ renamed, or sent to another merchant: 401.
  const other = await createMerchant(w, 'Other');
  refused(await api(w, 'GET', '/merchant/settings', { key: t.token.replace(id, other.id) }), 401, 'invalid_api_key');
  // Not a member of `other`: no credential for it.
  refused(await acct('POST', `/account/merchants/${other.id}/token`, { cookie }), 404, 'merchant_not_found');
  refused(await acct('POST', '/account/merchants/nonsense/token', { cookie }), 404, 'merchant_not_found');
  // POST /admin/merchants keeps working (createMerchant above), with no owner.
  assert.match(other.secretKey, /^sk_/);
});

test('invitations: an owner invites, only the invited email accepts, a viewer only reads', async () => {
  const owner = await account('boss');
  const { merchant } = (await acct('POST', '/account/merchants', { body: { name: 'Team Shop' }, cookie: owner.cookie })).json;
  const id = merchant.merchantId;
  const viewer = await account('viewer');
  const stranger = await account('stranger');

  const invite = documented(await acct('POST', `/account/merchants/${id}/invites`, { body: { email: viewer.email.toUpperCase(), role: 'viewer' }, cookie: owner.cookie }), 'POST', '/account/merchants/{merchantId}/invites', 201);
  assert.equal(invite.email, viewer.email);
  assert.equal(invite.role, 'viewer');
  refused(await acct('POST', `/account/merchants/${id}/invites`, { body: { email: viewer.email, role: 'admin' }, cookie: owner.cookie }), 400, 'invalid_request');
  const token = tokenIn(await mail(viewer.email, /invite/i), 'invite');
  const listed = documented(await acct('GET', `/account/merchants/${id}/members`, { cookie: owner.cookie }), 'GET', '/account/merchants/{merchantId}/members', 200);
  assert.deepEqual(listed.members.map((m) => [m.email, m.role]), [[owner.email, 'owner']]);
  assert.deepEqual(listed.invites.map((i) => [i.email, i.role]), [[viewer.email, 'viewer']]);
  // Not a member yet: nothing of the merchant.
  refused(await acct('GET', `/account/merchants/${id}/members`, { cookie: stranger.cookie }), 404, 'merchant_not_found');

  // Another account cannot use the link, and its attempt does not spend it.
  refused(await acct('POST', '/account/invites/accept', { body: { token }, cookie: stranger.cookie }), 403, 'invite_for_another_email');
  refused(await acct('POST', '/account/invites/accept', { body: { token } }), 401, 'not_logged_in');
  const joined = documented(await acct('POST', '/account/invites/accept', { body: { token }, cookie: viewer.cookie }), 'POST', '/account/invites/accept', 200);
  assert.deepEqual(joined, { merchantId: id, name: 'Team Shop', role: 'viewer' });
  refused(await acct('POST', '/account/invites/accept', { body: { token }, cookie: viewer.cookie }), 400, 'invalid_link');
  assert.deepEqual((await acct('GET', '/account', { cookie: viewer.cookie })).json.merchants, [joined]);
  const after = (await acct('GET', `/account/merchants/${id}/members`, { cookie: viewer.cookie })).json;
  assert.deepEqual(after.members.map((m) => [m.email, m.role]), [[owner.email, 'owner'], [viewer.email, 'viewer']]);
  assert.deepEqual(after.invites, []);

  // The viewer's credential reads; every write is 403 forbidden_role, and nothing changes.
  const dt = (await acct('POST', `/account/merchants/${id}/token`, { cookie: viewer.cookie })).json;
  assert.equal(dt.role, 'viewer');
  assert.equal((await api(w, 'GET', '/merchant/settings', { key: dt.token })).status, 200);
  refused(await api(w, 'PUT', '/holder/viewer-bob', { key: dt.token }), 403, 'forbidden_role');
  refused(await api(w, 'POST', '/keys', { key: dt.token, body: { kind: 'secret', name: 'x' } }), 403, 'forbidden_role');
  const ownerDt = (await acct('POST', `/account/merchants/${id}/token`, { cookie: owner.cookie })).json;
  refused(await api(w, 'GET', '/holder/viewer-bob', { key: ownerDt.token }), 404, 'holder_not_found');
  // Only an owner invites, and removes.
  refused(await acct('POST', `/account/merchants/${id}/invites`, { body: { email: stranger.email, role: 'owner' }, cookie: viewer.cookie }), 403, 'forbidden_role');
  refused(await acct('POST', `/account/merchants/${id}/members/remove`, { body: { email: owner.email }, cookie: viewer.cookie }), 403, 'forbidden_role');
  // The last owner stays.
  refused(await acct('POST', `/account/merchants/${id}/members/remove`, { body: { email: owner.email }, cookie: owner.cookie }), 400, 'invalid_request');

  // A removed member's credential stops at once, well inside its 5 minutes.
  assert.equal((await api(w, 'GET', '/merchant/settings', { key: dt.token })).status, 200);
  const left = documented(await acct('POST', `/account/merchants/${id}/members/remove`, { body: { email: viewer.email }, cookie: owner.cookie }), 'POST', '/account/merchants/{merchantId}/members/remove', 200);
  assert.deepEqual(left.members.map((m) => m.email), [owner.email]);
  refused(await api(w, 'GET', '/merchant/settings', { key: dt.token }), 401, 'invalid_api_key');
  refused(await acct('POST', `/account/merchants/${id}/token`, { cookie: viewer.cookie }), 404, 'merchant_not_found');
  assert.deepEqual((await acct('GET', '/account', { cookie: viewer.cookie })).json.merchants, []);
  // The owner's own credential is untouched.
  assert.equal((await api(w, 'GET', '/merchant/settings', { key: ownerDt.token })).status, 200);
});

test('logout ends this session, logout-all every one; a login rotates the cookie', async () => {
  const { email, cookie: first } = await account('out');
  const address = `10.3.0.${++nextAddress}`;
  // A new login from the browser with `first`: a new cookie, and `first` ends.
  const again = await acct('POST', '/account/login', { body: { email, password: PASSWORD }, cookie: first, address });
  const second = cookieOf(again);
  assert.notEqual(second, first);
  refused(await acct('GET', '/account', { cookie: first }), 401, 'not_logged_in');
  // Another device.
  const third = cookieOf(await acct('POST', '/account/login', { body: { email, password: PASSWORD }, address }));
  const out = await acct('POST', '/account/logout', { cookie: second });
  assert.equal(out.status, 204, out.text);
  assert.match(out.headers.get('set-cookie'), /^__Host-tp_login=; Path=\/; HttpOnly; Secure; SameSite=Lax; Max-Age=0$/);
  refused(await acct('GET', '/account', { cookie: second }), 401, 'not_logged_in');
  assert.equal((await acct('GET', '/account', { cookie: third })).status, 200);
  const fourth = cookieOf(await acct('POST', '/account/login', { body: { email, password: PASSWORD }, address }));
  assert.equal((await acct('POST', '/account/logout-all', { cookie: third })).status, 204);
  refused(await acct('GET', '/account', { cookie: third }), 401, 'not_logged_in');
  refused(await acct('GET', '/account', { cookie: fourth }), 401, 'not_logged_in');
});

test('password reset: a mailed link, once, within the hour; every session ends', async () => {
  const { email, cookie } = await account('reset');
  const address = `10.4.0.${++nextAddress}`;
  // An unknown email: the same answer, no mail.
  const unknown = freshEmail('ghost');
  const asked = documented(await acct('POST', '/account/password-reset', { body: { email: unknown } }), 'POST', '/account/password-reset', 202);
  const known = documented(await acct('POST', '/account/password-reset', { body: { email } }), 'POST', '/account/password-reset', 202);
  assert.deepEqual(asked, known);
  const token = tokenIn(await mail(email, /reset/i), 'reset');
  assert.deepEqual((await acct('GET', `/account/dev-mailbox?to=${unknown}`)).json, { messages: [] });
  refused(await acct('POST', '/account/password-reset/confirm', { body: { token, password: 'short' } }), 400, 'weak_password');
  const NEW = 'a brand new password';
  const done = await acct('POST', '/account/password-reset/confirm', { body: { token, password: NEW } });
  assert.deepEqual(documented(done, 'POST', '/account/password-reset/confirm', 200), { email });
  refused(await acct('POST', '/account/password-reset/confirm', { body: { token, password: NEW } }), 400, 'invalid_link');
  refused(await acct('GET', '/account', { cookie }), 401, 'not_logged_in');
  refused(await acct('POST', '/account/login', { body: { email, password: PASSWORD }, address }), 401, 'invalid_credentials');
  documented(await acct('POST', '/account/login', { body: { email, password: NEW }, address }), 'POST', '/account/login', 200);

  // A link past its hour: invalid_link, the password unchanged.
  await acct('POST', '/account/password-reset', { body: { email } });
  await sleep(100);
  const box = (await acct('GET', `/account/dev-mailbox?to=${email}`)).json.messages.filter((m) => /reset/i.test(m.subject));
  assert.equal(box.length, 2);
  const late = tokenIn(box[0], 'reset');
  const moved = await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 3601 } });
  assert.equal(moved.status, 200, moved.text);
  refused(await acct('POST', '/account/password-reset/confirm', { body: { token: late, password: 'yet another password' } }), 400, 'invalid_link');
});

test('a verification link past its 24 hours is refused', async () => {
  const email = freshEmail('late');
  await acct('POST', '/account/signup', { body: { email, password: PASSWORD } });
  const token = tokenIn(await mail(email, /verify/i), 'verify');
  const moved = await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 24 * 3600 + 1 } });
  assert.equal(moved.status, 200, moved.text);
  refused(await acct('POST', '/account/verify', { body: { token } }), 400, 'invalid_link');
});

test('logins are throttled per account and per client address', async () => {
  const { email } = await account('throttle');
  const address = `10.5.0.${++nextAddress}`;
  for (let i = 0; i < 5; i++) {
    refused(await acct('POST', '/account/login', { body: { email, password: `wrong password ${i}` }, address }), 401, 'invalid_credentials');
  }
  // The account is closed for the window, to the right password too, from any address.
  const closed = await acct('POST', '/account/login', { body: { email, password: PASSWORD }, address: `10.6.0.${++nextAddress}` });
  refused(closed, 429, 'too_many_attempts');
  assert.ok(Number(closed.headers.get('retry-after')) > 0);

  // One address guessing many accounts: closed after 20 failures.
  const guesser = `10.7.0.${++nextAddress}`;
  let last;
  for (let i = 0; i < 21; i++) {
    last = await acct('POST', '/account/login', { body: { email: freshEmail('guess'), password: 'guessing password' }, address: guesser });
  }
  refused(last, 429, 'too_many_attempts');
  assert.ok(Number(last.headers.get('retry-after')) > 0);
  const other = await account('elsewhere');
  refused(await acct('POST', '/account/login', { body: { email: other.email, password: PASSWORD }, address: guesser }), 429, 'too_many_attempts');
});

test('the local mailbox: the admin route, and the dev route only in local runs', async () => {
  const email = freshEmail('box');
  await acct('POST', '/account/signup', { body: { email, password: PASSWORD } });
  await mail(email, /verify/i);
  const admin = await api(w, 'GET', `/admin/mailbox?to=${email}`, { adminKey: w.adminKey });
  const box = documented(admin, 'GET', '/admin/mailbox', 200);
  assert.equal(box.messages.length, 1);
  assert.equal(box.messages[0].to, email);
  refused(await api(w, 'GET', `/admin/mailbox?to=${email}`), 401, 'invalid_admin_key');
  refused(await acct('GET', '/account/dev-mailbox?to=nobody'), 400, 'invalid_request');
});

test('with a mail provider, mail goes to it (retried when it fails), and the dev mailbox is not there', async () => {
  // A provider on this machine: the first mail it is sent fails with 500, then it takes them.
  const received = [];
  let failFirst = true;
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => { text += c; });
    req.on('end', () => {
      if (failFirst) {
        failFirst = false;
        res.writeHead(500).end('busy');
        return;
      }
      received.push({ auth: req.headers.authorization, type: req.headers['content-type'], body: JSON.parse(text) });
      res.writeHead(202).end('{}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const provider = `http://127.0.0.1:${server.address().port}/send`;
  const withProvider = await startWorker({ env: {
    LOCAL_MAILBOX: 'false', MAIL_PROVIDER_URL: provider, MAIL_PROVIDER_KEY: 'mail-key-123', MAIL_FROM: 'Shop <no-reply@shop.example>',
  } });
  try {
    const o = new URL(withProvider.baseUrl).origin;
    const email = freshEmail('provider');
    const res = await api(withProvider, 'POST', '/account/signup', { body: { email, password: PASSWORD }, headers: { origin: o } });
    assert.equal(res.status, 202, res.text);
    // The provider's 500 keeps the mail in the outbox; it is sent again about 10 s later.
    for (let i = 0; i < 300 && received.length === 0; i++) await sleep(100);
    assert.equal(received.length, 1, 'the mail reached the provider after its failure');
    const [mailed] = received;
    assert.equal(mailed.auth, 'Bearer mail-key-123');
    assert.match(mailed.type, /^application\/json/);
    assert.deepEqual(Object.keys(mailed.body).sort(), ['from', 'subject', 'text', 'to']);
    assert.equal(mailed.body.from, 'Shop <no-reply@shop.example>');
    assert.equal(mailed.body.to, email);
    assert.match(mailed.body.text, new RegExp(`${o}/dashboard/#/verify\\?token=[0-9a-f]{64}\\.[0-9a-f]{64}`));
    // Nothing in the local mailbox, and the dev route is not there.
    const admin = await api(withProvider, 'GET', `/admin/mailbox?to=${email}`, { adminKey: withProvider.adminKey });
    assert.deepEqual(admin.json, { messages: [] });
    assert.equal((await api(withProvider, 'GET', `/account/dev-mailbox?to=${email}`)).status, 404);
  } finally {
    await withProvider.stop();
    server.close();
  }
});
