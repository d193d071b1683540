// The live push channel (GET /live, a WebSocket accepted by the merchant's object with the
// hibernation API) against the real worker in workerd: the current public answer at once,
// then every change (a distribution, a purchase, a faucet deposit, due work after time
// travel), nothing for a change that does not touch a topic, never the merchant form, and
// the refusals answered before any upgrade. A holder's session token (the subprotocols
// `tokenpad-session, <token>`) follows its own holder, in private mode too, until its session
// is revoked or expires. Also the service clock header and what CORS exposes to browsers.
// Needs a global WebSocket: Node 22+, or Node 20 with --experimental-websocket (scripts/test.sh
// adds it).
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, createMerchant, createToken, startWorker } from './harness.mjs';

let w;
let m;
let token;
before(async () => {
  assert.equal(typeof WebSocket, 'function', 'no global WebSocket: run node with --experimental-websocket');
  w = await startWorker();
  m = await createMerchant(w, 'Live Merchant');
  token = await createToken(w, m.secretKey, { name: 'Live Token', symbol: 'LIVE' });
  for (const u of ['alice', 'bob']) {
    const h = await api(w, 'PUT', `/holder/${u}`, { key: m.secretKey });
    assert.ok(h.status < 300, h.text);
  }
});
after(async () => {
  await w?.stop();
});

async function ok(res, what) {
  assert.ok(res.status >= 200 && res.status < 300, `${what}: HTTP ${res.status} ${res.text}`);
  return res.json;
}

/** A socket on /live with a queue of its parsed messages, and how it closed. */
async function connect(query, protocols) {
  const url = `${w.baseUrl.replace('http', 'ws')}/live?${query}`;
  const ws = new WebSocket(url, protocols);
  const queue = [];
  const waiters = [];
  const closed = new Promise((resolve) => ws.addEventListener('close', (ev) => resolve({ code: ev.code, reason: ev.reason })));
  ws.addEventListener('message', (ev) => {
    const msg = JSON.parse(ev.data);
    msg.data = JSON.parse(msg.body);
    queue.push(msg);
    while (waiters.length) waiters.shift()();
  });
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', () => reject(new Error(`could not open ${url}`)), { once: true });
  });
  return {
    ws,
    queue,
    /** How the socket closed, within `ms`. */
    async closed(ms = 10_000) {
      return Promise.race([closed, sleep(ms).then(() => assert.fail(`still open after ${ms} ms`))]);
    },
    /** The next message matching `pred`, within `ms`. */
    async next(pred = () => true, ms = 10_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const i = queue.findIndex(pred);
        if (i >= 0) return queue.splice(i, 1)[0];
        const left = deadline - Date.now();
        if (left <= 0) assert.fail(`no matching message within ${ms} ms; queue: ${JSON.stringify(queue).slice(0, 500)}`);
        await Promise.race([new Promise((r) => waiters.push(r)), sleep(left)]);
      }
    },
    close: () => ws.close(1000),
  };
}

/** A raw upgrade request, to see how /live refuses before any upgrade. */
function upgrade(query, headers = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(`${w.baseUrl}/live?${query}`);
    const req = request({
      host: u.hostname, port: u.port, path: `${u.pathname}${u.search}`,
      headers: {
        Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode });
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function presale(target = 100) {
  const now = (await ok(await api(w, 'GET', '/admin/time', { adminKey: w.adminKey }), 'time')).nowUnix;
  return ok(await api(w, 'POST', '/merchant/presale', {
    key: m.secretKey,
    body: {
      name: 'Live presale', description: 'Pushed', startTimestamp: now, endTimestamp: now + 3600,
      targetUsdcAmount: target, tokenInfo: { name: 'Star', symbol: 'STAR', imageUrl: 'https://example.com/s.png' },
    },
  }), 'presale');
}

describe('GET /live', () => {
  test('pushes the public answers at once, then each change, and only changes', async () => {
    const p = await presale();
    const live = await connect(`publicKey=${m.publicKey}&presale=${p.id}&holder=alice`);
    try {
      const first = await live.next((x) => x.type === 'presale');
      const holder = await live.next((x) => x.type === 'holder');
      assert.equal(first.id, p.id);
      assert.equal(holder.id, 'alice');
      assert.ok(Number.isInteger(first.serviceTime) && first.serviceTime > 1.7e12, String(first.serviceTime));
      // Exactly the public reads, byte for byte, and never the merchant form.
      const pub = await api(w, 'GET', `/token/presales/${p.id}?publicKey=${m.publicKey}`);
      assert.equal(first.body, pub.text);
      for (const secret of ['completionState', 'presaleInfo', 'tokenDeploymentInfo', 'signerAddress', 'lockDuration']) {
        assert.ok(!(secret in first.data), `the push carries ${secret}`);
      }
      assert.equal(holder.body, (await api(w, 'GET', `/holder/alice?publicKey=${m.publicKey}`)).text);

      // A distribution to alice: her wallet is pushed with the exact amount; the presale
      // did not change and is not sent again.
      await ok(await api(w, 'POST', `/token/${token.address}/distribute`, {
        key: m.secretKey, body: { sendToId: 'alice', amount: '1.000000000000000001' },
      }), 'distribute');
      const after = await live.next((x) => x.type === 'holder');
      assert.match(after.body, /"balance":1\.000000000000000001\b/);
      // bob buys into the presale: the presale is pushed; alice's wallet did not change.
      const bob = await ok(await api(w, 'GET', '/holder/bob', { key: m.secretKey }), 'bob');
      await ok(await api(w, 'POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: bob.address, usdcAmount: 50 } }), 'faucet');
      await ok(await api(w, 'POST', '/holder/bob/buy-presale', { key: m.secretKey, body: { presaleId: p.id, usdcAmount: 12.5 } }), 'buy');
      const bought = await live.next((x) => x.type === 'presale');
      assert.equal(bought.data.purchasedUsdcAmount, 12.5);
      assert.equal(bought.data.participants.length, 1);
      await sleep(300);
      assert.deepEqual(live.queue.map((x) => x.type), [], 'a message for a topic that did not change');
    } finally {
      live.close();
    }
  });

  test('due work and time travel are pushed, with the service clock', async () => {
    const p = await presale(10);
    const bob = await ok(await api(w, 'GET', '/holder/bob', { key: m.secretKey }), 'bob');
    await ok(await api(w, 'POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: bob.address, usdcAmount: 10 } }), 'faucet');
    const live = await connect(`publicKey=${m.publicKey}&presale=${p.id}`);
    try {
      const first = await live.next();
      assert.equal(first.data.status, 'active');
      // Two hours later (time travel) with nothing bought, the presale has ended.
      await ok(await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 7200 } }), 'advance');
      const ended = await live.next((x) => x.data.status === 'ended');
      assert.ok(ended.serviceTime - first.serviceTime >= 7_200_000, `${ended.serviceTime - first.serviceTime} ms`);
    } finally {
      live.close();
    }
  });

  test('refusals come before any upgrade, as JSON errors', async () => {
    const p = await presale();
    assert.equal((await upgrade(`publicKey=${m.publicKey}&presale=${p.id}`)).status, 101);
    const cases = [
      [`presale=${p.id}`, 401, 'public_key_not_found'],
      [`publicKey=pk_nope&presale=${p.id}`, 401, 'invalid_api_key'],
      [`publicKey=${m.publicKey.slice(0, -4)}0000&presale=${p.id}`, 401, 'invalid_api_key'],
      [`publicKey=${m.secretKey}&presale=${p.id}`, 400, 'secret_key_in_url'],
      [`publicKey=${m.publicKey}`, 400, 'invalid_request'],
      [`publicKey=${m.publicKey}&presale=no-such-presale`, 404, 'presale_not_found'],
      [`publicKey=${m.publicKey}&holder=nobody`, 404, 'holder_not_found'],
      [`publicKey=${m.publicKey}&${Array.from({ length: 9 }, (_, i) => `holder=u${i}`).join('&')}`, 400, 'invalid_request'],
    ];
    for (const [query, status, code] of cases) {
      const r = await upgrade(query);
      assert.equal(r.status, status, query);
      assert.equal(r.json.code, code, query);
    }
    // Another merchant's presale is not found, exactly as if it did not exist.
    const other = await createMerchant(w, 'Other');
    assert.equal((await upgrade(`publicKey=${other.publicKey}&presale=${p.id}`)).json.code, 'presale_not_found');
    // A secret key in the header is accepted (a server following a presale).
    assert.equal((await upgrade(`presale=${p.id}`, { 'x-api-key': m.secretKey })).status, 101);
    // A plain GET is not an upgrade.
    const plain = await api(w, 'GET', `/live?publicKey=${m.publicKey}&presale=${p.id}`);
    assert.equal(plain.status, 400);
    assert.equal(plain.json.code, 'invalid_request');
  });
});

describe('GET /live with a holder session token', () => {
  // A merchant in private mode: its holders are followed only with their own session token.
  let pm;
  let pmToken;
  before(async () => {
    pm = await createMerchant(w, 'Private Live');
    pmToken = await createToken(w, pm.secretKey, { name: 'Private Token', symbol: 'PRIV' });
    for (const u of ['carol', 'dave']) await ok(await api(w, 'PUT', `/holder/${u}`, { key: pm.secretKey }), u);
    await ok(await api(w, 'PATCH', '/merchant/settings', { key: pm.secretKey, body: { privateMode: true } }), 'private mode');
  });
  const session = async (userId, body = {}) =>
    ok(await api(w, 'POST', `/holder/${userId}/session`, { key: pm.secretKey, body }), 'session');
  const offer = (token) => ({ 'Sec-WebSocket-Protocol': `tokenpad-session, ${token}` });
  const distribute = async (to, amount = '1') => ok(await api(w, 'POST', `/token/${pmToken.address}/distribute`, {
    key: pm.secretKey, body: { sendToId: to, amount },
  }), 'distribute');

  test('follows its own holder in private mode, pushed, with the token out of the URL', async () => {
    const s = await session('carol');
    const live = await connect('holder=carol', ['tokenpad-session', s.token]);
    try {
      // The service selected the protocol (a browser fails the socket otherwise).
      assert.equal(live.ws.protocol, 'tokenpad-session');
      assert.ok(!live.ws.url.includes(s.token));
      const first = await live.next((x) => x.type === 'holder');
      const read = await api(w, 'GET', '/holder/carol', { headers: { authorization: `Bearer ${s.token}` } });
      assert.equal(read.status, 200, read.text);
      assert.equal(first.body, read.text);
      await distribute('carol', '2.5');
      const after = await live.next((x) => x.type === 'holder');
      assert.match(after.body, /"balance":2\.5\b/);
      // dave's changes are not carol's.
      await distribute('dave');
      await sleep(300);
      assert.deepEqual(live.queue, [], 'a push for another holder');
    } finally {
      live.close();
    }
  });

  test('refusals: another holder, no read scope, a forged token, the public key in private mode', async () => {
    const carol = await session('carol');
    const spendOnly = await session('carol', { scopes: ['spend'] });
    const [h, , sig] = carol.token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ aud: pm.id, sub: 'carol', jti: 'x' })).toString('base64url')}.${sig}`;
    const cases = [
      ['holder=dave', offer(carol.token), 403, 'session_holder_mismatch'],
      ['holder=carol', offer(spendOnly.token), 403, 'insufficient_scope'],
      ['holder=carol', offer(forged), 401, 'invalid_session_token'],
      ['holder=carol', offer('eyJnot-a-token'), 401, 'invalid_session_token'],
      [`publicKey=${pm.publicKey}&holder=carol`, {}, 403, 'session_token_required'],
      ['holder=nobody', offer(carol.token), 403, 'session_holder_mismatch'],
    ];
    for (const [query, headers, status, code] of cases) {
      const r = await upgrade(query, headers);
      assert.equal(r.status, status, `${query} ${JSON.stringify(headers)}`);
      assert.equal(r.json.code, code, `${query} ${JSON.stringify(headers)}`);
    }
    // A session token wins over a public key in the query, as on reads; a server may send it
    // as a Bearer header instead of the subprotocol.
    assert.equal((await upgrade(`publicKey=${pm.publicKey}&holder=carol`, offer(carol.token))).status, 101);
    assert.equal((await upgrade('holder=carol', { authorization: `Bearer ${carol.token}` })).status, 101);
    // Another merchant's token is for another merchant's holders.
    const other = await createMerchant(w, 'Other Live');
    await ok(await api(w, 'PUT', '/holder/carol', { key: other.secretKey }), 'other carol');
    const theirs = await ok(await api(w, 'POST', '/holder/carol/session', { key: other.secretKey, body: {} }), 'their session');
    const r = await upgrade('holder=carol', offer(theirs.token));
    assert.equal(r.status, 101, 'their carol, on their merchant');
  });

  test('a socket that may no longer receive is closed: its session revoked or expired, a public key in private mode', async () => {
    // Locally the close frame (its code and reason) arrives at once, and the connection ends
    // about 10 s later (workerd's, not ours): the three closes are awaited together.
    const revoked = await connect('holder=carol', ['tokenpad-session', (await session('carol')).token]);
    const expiring = await connect('holder=dave', ['tokenpad-session', (await session('dave', { ttlSeconds: 60 })).token]);
    const open = await createMerchant(w, 'Turning Private');
    await ok(await api(w, 'PUT', '/holder/erin', { key: open.secretKey }), 'erin');
    const now = Math.floor(Date.now() / 1000);
    const p = await ok(await api(w, 'POST', '/merchant/presale', {
      key: open.secretKey,
      body: {
        name: 'Open', description: 'Stays followed', startTimestamp: now + 86_400 * 365, endTimestamp: now + 86_400 * 366,
        targetUsdcAmount: 10, tokenInfo: { name: 'Open', symbol: 'OPEN', imageUrl: 'https://example.com/o.png' },
      },
    }), 'presale');
    const publicHolder = await connect(`publicKey=${open.publicKey}&holder=erin`);
    const presaleOnly = await connect(`publicKey=${open.publicKey}&presale=${p.id}`);
    try {
      for (const live of [revoked, expiring, publicHolder, presaleOnly]) await live.next();
      const closing = async (live, what, ms = 3_000) => {
        const deadline = Date.now() + ms;
        while (live.ws.readyState < WebSocket.CLOSING) {
          if (Date.now() > deadline) assert.fail(`${what}: still open ${ms} ms later`);
          await sleep(50);
        }
      };
      // The merchant's server revokes carol's sessions: her socket is closed at once.
      await ok(await api(w, 'DELETE', '/holder/carol/sessions', { key: pm.secretKey }), 'revoke');
      await closing(revoked, 'revoked');
      // dave's session ends with no change to publish: the object's alarm, set for the
      // expiry when the socket was accepted, closes it on time. The clock is moved to a few
      // seconds before it (the session expires on a whole second, 60 s after it was made).
      await ok(await api(w, 'POST', '/admin/time/advance', { adminKey: w.adminKey, body: { seconds: 56 } }), 'advance');
      assert.equal(expiring.ws.readyState, WebSocket.OPEN, 'closed before its session expired');
      await closing(expiring, 'expired', 10_000);
      // The other merchant turns private mode on: erin's public-key socket is closed; a presale
      // stays public (its participants named by address).
      await ok(await api(w, 'PATCH', '/merchant/settings', { key: open.secretKey, body: { privateMode: true } }), 'private');
      await closing(publicHolder, 'public holder');
      assert.deepEqual(await Promise.all([revoked.closed(20_000), expiring.closed(20_000), publicHolder.closed(20_000)]), [
        { code: 4401, reason: 'session_revoked' },
        { code: 4401, reason: 'session_expired' },
        { code: 4403, reason: 'session_token_required' },
      ]);
      assert.equal(presaleOnly.ws.readyState, WebSocket.OPEN);
      // Nothing was sent to them after.
      await distribute('carol');
      await distribute('dave');
      assert.deepEqual([...revoked.queue, ...expiring.queue, ...publicHolder.queue], []);
    } finally {
      presaleOnly.close();
    }
  });
});

describe('what browsers can read', () => {
  test('answers carry the service clock, and CORS exposes it with Retry-After and the request id', async () => {
    const before = Date.now();
    const r = await api(w, 'GET', `/token/${token.address}?publicKey=${m.publicKey}`);
    assert.equal(r.status, 200);
    const t = Number(r.headers.get('x-service-time'));
    // Earlier tests moved the clock two hours forward.
    assert.ok(t >= before + 7_200_000 - 5_000, `x-service-time ${t} vs local ${before}`);
    const exposed = (r.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
    for (const h of ['retry-after', 'x-request-id', 'x-service-time', 'etag', 'x-tokenpad-cache']) assert.ok(exposed.includes(h), `${h} not exposed: ${exposed}`);
    const pre = await api(w, 'OPTIONS', `/token/${token.address}`);
    assert.equal(pre.status, 204);
  });
});
