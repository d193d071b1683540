// The packed package under Node against the real worker (workerd): README.md's quick start and
// docs/package.md's Node and server examples as printed, the server client through every kind
// of operation with exact amounts, and watchHolder / watchPresale pushed over the WebSocket.
// Needs the built worker and pkg/; Node 20 runs the scripts with --experimental-websocket.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { api, createMerchant, createToken, startWorker } from '../http/harness.mjs';
import { ROOT, WS_FLAG, installPacked, node, readmeExample } from './pack.mjs';

describe('@tokenpad/client against the worker', { timeout: 240_000 }, () => {
  let w;
  let m;
  let token;
  let pack;
  const js = async (name, code, env = {}) => {
    await writeFile(path.join(pack.app, name), code);
    return node(pack.app, name, { BASE_URL: w.baseUrl, SK: m.secretKey, PK: m.publicKey, TOKEN: token.address, ...env }, WS_FLAG);
  };

  before(async () => {
    [w, pack] = await Promise.all([startWorker(), installPacked()]);
    m = await createMerchant(w, 'Consumer Merchant');
    token = await createToken(w, m.secretKey, { name: 'Demo Token', symbol: 'DEMO' });
    for (const u of ['alice', 'bob']) await api(w, 'PUT', `/holder/${u}`, { key: m.secretKey });
    await api(w, 'POST', `/token/${token.address}/distribute`, { key: m.secretKey, body: { sendToId: 'alice', amount: '1234.567890123456789012' } });
  });
  after(async () => {
    await w?.stop();
    await pack?.cleanup();
  });

  test('README: the JavaScript quick start runs as printed, with the export line dev.sh prints', async () => {
    // Its holder renamed, so that what it prints does not depend on the other tests.
    const code = (await readmeExample('quick-start')).replaceAll("'alice'", "'newcomer'");
    assert.ok(code.trim().split('\n').length <= 5, 'five lines at most');
    const out = await js('readme-quick-start.mjs', code, { TP: w.baseUrl, SK: m.secretKey, TOKEN: token.address });
    assert.equal(out.trim(), "[ '100 DEMO' ]");
  });

  test('docs: the Node example runs as printed', async () => {
    const code = (await readmeExample('node'))
      .replaceAll('http://127.0.0.1:8787', w.baseUrl)
      .replaceAll("'pk_...'", `'${m.publicKey}'`);
    const out = await js('readme-node.mjs', code);
    assert.match(out, /Total \$0\.00/);
    assert.match(out, /token: 1,234\.56789 DEMO/);
    assert.match(out, /holder_not_found 404 No holder with id nobody/);
  });

  test('docs: the server example runs as printed, spending once under its idempotency key', async () => {
    const code = (await readmeExample('server'))
      .replaceAll('http://127.0.0.1:8787', w.baseUrl)
      .replaceAll("'TOKEN_ADDRESS'", `'${token.address}'`);
    const env = { TOKENPAD_SECRET_KEY: m.secretKey };
    const out = await js('readme-server.mjs', code, env);
    assert.match(out, /^spent 0\.000000000000000001$/m);
    assert.match(out, /^spend 0\.000000000000000001$/m);
    assert.match(out, /^distribute 100$/m);
    assert.match(out, /^insufficient_balance 422$/m);
    // The same key again: the service replays the first spend, nothing more is spent.
    await js('readme-server.mjs', code, env);
    const history = await api(w, 'GET', '/holder/alice/transactions?limit=200', { key: m.secretKey });
    assert.equal(history.json.data.filter((t) => t.type === 'spend').length, 1);
  });

  test('docs: the webhook receiver verifies real deliveries; the server client manages webhooks', async () => {
    // The receiver of docs/events.md as printed, on a free port, fed by the worker's deliveries.
    const port = await new Promise((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = probe.address();
        probe.close(() => resolve(p));
      });
    });
    const hook = JSON.parse(await js('hook-create.mjs', `
      import { TokenpadServer } from '@tokenpad/client/server';
      const tp = new TokenpadServer({ baseUrl: process.env.BASE_URL, secretKey: process.env.SK });
      console.log(JSON.stringify(await tp.createWebhook({ url: 'http://127.0.0.1:${port}/hook', events: ['holder.*'] })));
    `));
    assert.match(hook.secret, /^whsec_/);
    const code = (await readmeExample('webhook-receiver')).replace('.listen(8789)', `.listen(${port}, '127.0.0.1')`);
    await writeFile(path.join(pack.app, 'receiver.mjs'), code);
    const child = spawn(process.execPath, ['receiver.mjs'], {
      cwd: pack.app, env: { ...process.env, TOKENPAD_WEBHOOK_SECRET: hook.secret }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c) => { out += c; });
    try {
      const flow = JSON.parse(await js('hook-flow.mjs', `
        import { TokenpadServer } from '@tokenpad/client/server';
        const tp = new TokenpadServer({ baseUrl: process.env.BASE_URL, secretKey: process.env.SK });
        await new Promise((r) => setTimeout(r, 300)); // the receiver starts listening
        await tp.putHolder('webhook-carol');
        const ping = await tp.testWebhook('${hook.id}');
        let page;
        for (let i = 0; i < 100; i++) {
          page = await tp.deliveries('${hook.id}');
          if (page.data.length === 2 && page.data.every((d) => d.status === 'succeeded')) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        const events = await tp.events({ types: ['holder.*'] });
        const list = await tp.listWebhooks();
        // A DELETE is a write: retried under its key it replays its answer; a new call is a 404.
        const deleted = await tp.deleteWebhook('${hook.id}', { idempotencyKey: 'delete-hook-1' });
        const retried = await tp.deleteWebhook('${hook.id}', { idempotencyKey: 'delete-hook-1' });
        const again = await tp.deleteWebhook('${hook.id}').then(() => 'deleted', (e) => e.code);
        console.log(JSON.stringify({ ping: ping.eventType, statuses: page.data.map((d) => [d.eventType, d.status, d.attempts.at(-1)?.responseStatus]),
          logged: events.data.map((e) => e.data.object.id), listed: list.map((x) => x.id), deleted: deleted.deleted,
          retried: retried.deleted, again }));
      `));
      assert.equal(flow.ping, 'webhook.ping');
      assert.deepEqual(flow.statuses.sort(), [['holder.created', 'succeeded', 204], ['webhook.ping', 'succeeded', 204]]);
      assert.ok(flow.logged.includes('webhook-carol'));
      assert.ok(flow.listed.includes(hook.id));
      assert.equal(flow.deleted, true);
      assert.equal(flow.retried, true);
      assert.equal(flow.again, 'webhook_not_found');
      // The receiver verified both signatures (a refusal answers 400 and prints nothing).
      assert.match(out, /^holder\.created holder:webhook-carol$/m);
      assert.match(out, new RegExp(`^webhook\\.ping webhook:${hook.id}$`, 'm'));
    } finally {
      child.kill();
    }
  });

  test('the server client: tokens, jobs, presales and templates, typed and exact', async () => {
    const out = JSON.parse(await js('server-flow.mjs', `
      import { TokenpadServer, serviceNow } from '@tokenpad/client/server';
      const tp = new TokenpadServer({ baseUrl: process.env.BASE_URL, secretKey: process.env.SK });
      const job = await tp.createToken({ name: 'Second', symbol: 'TWO' });
      const advance = () => fetch(process.env.BASE_URL + '/admin/time/advance', { method: 'POST', headers: { 'x-admin-key': process.env.ADMIN, 'content-type': 'application/json' }, body: '{"seconds":5}' });
      const ticking = setInterval(advance, 300);
      const two = await tp.waitForJob(job.jobId, { intervalMs: 200 });
      const all = await tp.allTokens();
      const off = await tp.setRewardAllocation(two.address, false);
      const bob = await tp.putHolder('bob');
      await fetch(process.env.BASE_URL + '/admin/faucet', { method: 'POST', headers: { 'x-admin-key': process.env.ADMIN, 'content-type': 'application/json' }, body: JSON.stringify({ address: bob.address, usdcAmount: 50 }) });
      // The service's clock (time travel moved it while the job ran), learned from its answers.
      const now = Math.floor(serviceNow() / 1000);
      const presale = await tp.createPresale({ name: 'Moon', description: 'The MOON presale', startTimestamp: now - 60, endTimestamp: now + 3600 * 24,
        targetUsdcAmount: 100, tokenInfo: { name: 'Moon', symbol: 'MOON', imageUrl: 'https://example.com/m.png' } });
      const bought = await tp.buyPresale('bob', { presaleId: presale.id, usdcAmount: '12.345678' });
      const merchantForm = await tp.getMerchantPresale(presale.id);
      const listed = await tp.listPresales();
      const meme = await tp.createMemecoin({ name: 'Pepe Two', symbol: 'PEPE2', totalSupply: 1000000, initialPrice: '0.0001', network: 'base', marketplace: true });
      const status = await tp.memecoinStatus(meme.id);
      const sent = await tp.transfer('alice', { tokenAddress: process.env.TOKEN, amount: '0.5', toAddress: bob.address });
      const page = await tp.transactions('bob', { limit: 1 });
      // An overdraw's details keep every digit: alice holds 1234.567890123456789012 - 0.5 DEMO.
      const overdraw = await tp.spend('alice', { tokenAddress: process.env.TOKEN, amount: 100000 }).catch((e) => [e.code, e.details]);
      clearInterval(ticking);
      console.log(JSON.stringify({ two: two.symbol, count: all.length, off: off.canDistribute, bought: bought.usdcAmount,
        purchased: merchantForm.purchasedUsdcAmount, step: merchantForm.completionState?.step ?? null, listed: listed.length,
        meme: status.data.tokenAddress.startsWith('0x'), sent: sent.amount, page: page.data.length, more: page.has_more, overdraw }));
    `, { ADMIN: w.adminKey }));
    // alice's balance has 18 fractional digits (1234.567890123456789012 distributed, less
    // what the tests above moved): every one of them is in the refusal's details.
    const [code, details] = out.overdraw;
    assert.equal(code, 'insufficient_balance');
    assert.match(details.available, /^\d+\.\d{18}$/);
    assert.equal(details.locked, '0');
    delete out.overdraw;
    assert.deepEqual(out, { two: 'TWO', count: 2, off: false, bought: '12.345678', purchased: '12.345678', step: 'pending', listed: 1, meme: true, sent: '0.5', page: 1, more: true });
  });

  test('watchHolder and watchPresale are pushed over the WebSocket', async () => {
    const now = (await api(w, 'GET', '/admin/time', { adminKey: w.adminKey })).json.nowUnix;
    const presale = (await api(w, 'POST', '/merchant/presale', {
      key: m.secretKey,
      body: { name: 'Star', description: 'Star', startTimestamp: now, endTimestamp: now + 3600, targetUsdcAmount: 100, tokenInfo: { name: 'Star', symbol: 'STAR', imageUrl: 'https://example.com/s.png' } },
    })).json;
    const out = JSON.parse(await js('watch-live.mjs', `
      import { TokenpadClient } from '@tokenpad/client';
      const client = new TokenpadClient({ baseUrl: process.env.BASE_URL, publicKey: process.env.PK });
      const balances = [];
      const raised = [];
      let liveSeen = false;
      // A long poll interval: any second update must have been pushed.
      const wh = client.watchHolder('alice', (h, e) => { balances.push(h ? h.tokens.find((t) => t.symbol === 'DEMO').balance : e.code); liveSeen ||= wh.live; }, { intervalMs: 60_000 });
      const wp = client.watchPresale(process.env.PRESALE, (p, e) => raised.push(p ? p.purchasedUsdcAmount : e.code), 60_000);
      const until = async (f) => { for (let i = 0; i < 100 && !f(); i++) await new Promise((r) => setTimeout(r, 100)); };
      await until(() => balances.length && raised.length && wh.live && wp.live);
      const h = { 'x-api-key': process.env.SK, 'content-type': 'application/json' };
      await fetch(process.env.BASE_URL + '/token/' + process.env.TOKEN + '/distribute', { method: 'POST', headers: h, body: JSON.stringify({ sendToId: 'alice', amount: '0.000000000000000001' }) });
      await fetch(process.env.BASE_URL + '/holder/bob/buy-presale', { method: 'POST', headers: h, body: JSON.stringify({ presaleId: process.env.PRESALE, usdcAmount: 1 }) });
      await until(() => balances.length >= 2 && raised.length >= 2);
      wh.stop(); wp.stop();
      console.log(JSON.stringify({ balances, raised, live: liveSeen }));
    `, { PRESALE: presale.id }));
    assert.equal(out.live, true, 'the watch never went live');
    assert.equal(out.balances.length, 2, JSON.stringify(out.balances));
    const units = (d) => {
      const [i, f = ''] = d.split('.');
      return BigInt(i + f.padEnd(18, '0'));
    };
    const [before, after] = out.balances.map(units);
    assert.equal(after - before, 1n, `${out.balances}`);
    assert.deepEqual(out.raised.map(Number), [0, 1]);
  });

  test('without a global WebSocket (Node 20): pushed with `ws` when the app has it, else polled, said once', async () => {
    // Node 22 has a global WebSocket: switch it off, as Node 20 has none.
    const noGlobal = typeof WebSocket === 'function' ? ['--no-experimental-websocket'] : [];
    const script = `
      import { TokenpadClient } from '@tokenpad/client';
      const warnings = [];
      console.warn = (...a) => warnings.push(a.join(' '));
      const client = new TokenpadClient({ baseUrl: process.env.BASE_URL, publicKey: process.env.PK });
      const seen = [];
      const a = client.watchHolder('alice', (h) => seen.push(h?.id), { intervalMs: 60_000 });
      const b = client.watchHolder('bob', (h) => seen.push(h?.id), { intervalMs: 60_000 });
      const until = async (f) => { for (let i = 0; i < 50 && !f(); i++) await new Promise((r) => setTimeout(r, 100)); };
      await until(() => seen.length >= 2 && a.live && b.live);
      console.log(JSON.stringify({ hasGlobal: typeof WebSocket === 'function', live: [a.live, b.live], warnings }));
      a.stop(); b.stop();
    `;
    await writeFile(path.join(pack.app, 'node20.mjs'), script);
    const env = { BASE_URL: w.baseUrl, PK: m.publicKey };
    const polled = JSON.parse(await node(pack.app, 'node20.mjs', env, noGlobal));
    assert.equal(polled.hasGlobal, false);
    assert.deepEqual(polled.live, [false, false]);
    assert.equal(polled.warnings.length, 1, `said ${polled.warnings.length} times`);
    assert.match(polled.warnings[0], /no WebSocket .*polled.*npm install ws/);
    // The app installs ws (an optional peer dependency): the same watches are pushed, silently.
    await symlink(path.join(ROOT, 'node_modules', 'ws'), path.join(pack.app, 'node_modules', 'ws'));
    try {
      for (const file of ['node20.mjs', 'node20.cjs']) {
        if (file.endsWith('.cjs')) {
          await writeFile(path.join(pack.app, file), `(async () => { ${script.replace("import { TokenpadClient } from '@tokenpad/client';",
            "const { TokenpadClient } = require('@tokenpad/client');")} })();`);
        }
        const pushed = JSON.parse(await node(pack.app, file, env, noGlobal));
        assert.deepEqual([pushed.hasGlobal, pushed.live, pushed.warnings], [false, [true, true], []], file);
      }
    } finally {
      await rm(path.join(pack.app, 'node_modules', 'ws'));
    }
  });

  test('watchHolder with a session token is pushed in private mode, and ends with its session', async () => {
    const pm = await createMerchant(w, 'Private Consumer');
    const t = await createToken(w, pm.secretKey, { name: 'Private Token', symbol: 'PRIV' });
    await api(w, 'PUT', '/holder/carol', { key: pm.secretKey });
    await api(w, 'PATCH', '/merchant/settings', { key: pm.secretKey, body: { privateMode: true } });
    const s = (await api(w, 'POST', '/holder/carol/session', { key: pm.secretKey, body: {} })).json;
    const out = JSON.parse(await js('watch-session.mjs', `
      import { TokenpadClient } from '@tokenpad/client';
      const client = new TokenpadClient({ baseUrl: process.env.BASE_URL, publicKey: process.env.PK, sessionToken: process.env.SESSION });
      const seen = [];
      const lives = [];
      // A long poll interval: the second balance must have been pushed.
      const wh = client.watchHolder('carol', (h, e) => seen.push(h ? h.tokens.find((t) => t.symbol === 'PRIV')?.balance ?? 0 : e.code),
        { intervalMs: 60_000, onLive: (l) => lives.push(l) });
      const until = async (f, ms = 10_000) => { for (let i = 0; i < ms / 100 && !f(); i++) await new Promise((r) => setTimeout(r, 100)); };
      await until(() => seen.length && wh.live);
      const h = { 'x-api-key': process.env.SK, 'content-type': 'application/json' };
      await fetch(process.env.BASE_URL + '/token/' + process.env.TOKEN + '/distribute', { method: 'POST', headers: h, body: JSON.stringify({ sendToId: 'carol', amount: '7' }) });
      await until(() => seen.length >= 2);
      // The merchant's server revokes the session: the socket is closed, the next read refused.
      await fetch(process.env.BASE_URL + '/holder/carol/sessions', { method: 'DELETE', headers: { 'x-api-key': process.env.SK } });
      await until(() => seen.length >= 3, 20_000);
      wh.stop();
      console.log(JSON.stringify({ seen, lives }));
    `, { PK: pm.publicKey, SK: pm.secretKey, TOKEN: t.address, SESSION: s.token }));
    assert.deepEqual(out.seen.map(String), ['0', '7', 'session_revoked']);
    assert.deepEqual(out.lives, [true, false]);
  });
});
