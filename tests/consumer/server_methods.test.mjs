// The packed package's server client against the real worker (workerd): every operation a
// merchant's secret key may call has its method, named by its operationId (from the route
// declarations in Rust: src/js/generated/routes.json), and one script run in a fresh project
// calls every one of them, through the market, rewards, webhooks, the chain view and parked work, each answer
// typed and exact. An operation without a method, or a method this flow does not call, fails.
// Needs the built worker and pkg/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createMerchant, startWorker } from '../http/harness.mjs';
import { ROOT, installPacked, node } from './pack.mjs';

/** The operations the server client calls: a merchant's (not admin or open ones), not the live
 * WebSocket, not the session-token-only one (the browser client's). */
const OPERATIONS = JSON.parse(readFileSync(path.join(ROOT, 'src/js/generated/routes.json'), 'utf8'))
  .filter((r) => ['secret', 'public', 'holder'].includes(r.access) && r.operationId !== 'live' && r.operationId !== 'getSession')
  .map((r) => r.operationId);

let w;
let m;
let pack;
before(async () => {
  [w, pack] = await Promise.all([startWorker(), installPacked()]);
  m = await createMerchant(w, 'Every Method Merchant');
});
after(async () => {
  await w?.stop();
  await pack?.cleanup();
});

const run = async (name, code) => {
  await writeFile(path.join(pack.app, name), code);
  const out = await node(pack.app, name, { BASE_URL: w.baseUrl, SK: m.secretKey, ADMIN: w.adminKey, MERCHANT: m.id });
  return JSON.parse(out);
};

test('every operation has its method, named by its operationId', async () => {
  assert.ok(OPERATIONS.length >= 50, `${OPERATIONS.length} operations`);
  const out = await run('methods.mjs', `
    import { TokenpadServer } from '@tokenpad/client/server';
    const ids = ${JSON.stringify(OPERATIONS)};
    console.log(JSON.stringify(ids.filter((id) => typeof TokenpadServer.prototype[id] !== 'function')));
  `);
  assert.deepEqual(out, [], 'operations without a method');
});

test('one flow calls every method against the worker, each answer typed and exact', { timeout: 180_000 }, async () => {
  const out = await run('every.mjs', `
    import { TokenpadServer, TokenpadError, serviceNow } from '@tokenpad/client/server';
    const server = new TokenpadServer({ baseUrl: process.env.BASE_URL, secretKey: process.env.SK });
    // Every method called directly on it is noted (the calls the client makes inside are not).
    const called = new Set();
    const tp = new Proxy(server, { get(t, k) {
      const v = Reflect.get(t, k, t);
      return typeof v === 'function' ? (...a) => { called.add(k); return v.apply(t, a); } : v;
    } });
    const admin = (p, body) => fetch(process.env.BASE_URL + p, { method: 'POST', headers: { 'x-admin-key': process.env.ADMIN, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ticking = setInterval(() => admin('/admin/time/advance', { seconds: 5 }), 300);
    /** A documented refusal counts as an answer: its code. */
    const code = (p) => p.then(() => 'ok', (e) => (e instanceof TokenpadError ? e.code : String(e)));
    const r = {};

    // Tokens and jobs.
    const job = await tp.createToken({ name: 'Every Method', symbol: 'EVRY', totalSupply: 1000000, canLP: true });
    r.status = (await tp.getCreateTokenStatus(job.jobId)).jobId === job.jobId;
    r.job = (await tp.getJob(job.jobId)).jobId === job.jobId;
    const token = await tp.waitForJob(job.jobId, { intervalMs: 200 });
    const addr = token.address;
    r.listed = (await tp.listTokens()).some((t) => t.address === addr);
    r.holdersLimit = (await tp.getToken(addr, { holdersLimit: 1 })).address === addr;
    r.patched = (await tp.patchToken(addr, { canDistribute: true })).canDistribute;

    // Holders and the ledger.
    const alice = await tp.putHolder('every-alice');
    const bob = await tp.putHolder('every-bob');
    r.holder = (await tp.getHolder('every-alice')).address === alice.address;
    r.distributed = (await tp.distribute(addr, { sendToId: 'every-alice', amount: '100.000000000000000001' })).success;
    r.rewarded = (await tp.reward(addr, { sendToId: 'every-bob', amount: 5 })).amount;
    r.spent = (await tp.spend('every-alice', { tokenAddress: addr, amount: '0.000000000000000001' })).amount;
    r.sent = (await tp.transfer('every-alice', { tokenAddress: addr, amount: '1.5', toAddress: bob.address })).amount;
    r.withdrawn = (await tp.withdraw('every-alice', { tokenAddress: addr, amount: 1, toAddress: '0x1111111111111111111111111111111111111111' })).amount;
    r.balance = (await tp.getHolderTokenBalance('every-alice', addr)).balance;
    r.page = (await tp.listHolderTransactions('every-alice', { limit: 2 })).data.length;

    // The market: open the pool, quote, buy and sell.
    r.pool = (await tp.createLiquidity(addr, { initialStartingPrice: '0.01', amount: 100000 })).status;
    await admin('/admin/faucet', { address: alice.address, usdcAmount: 50, merchantId: process.env.MERCHANT });
    let quote;
    for (let i = 0; i < 100; i++) {
      quote = await code(tp.buyQuote('every-alice', { tokenAddress: addr, usdcAmount: '1' }).then((q) => { r.buyQuote = q; }));
      if (quote === 'ok') break;
      await new Promise((res) => setTimeout(res, 100));
    }
    r.quoted = quote;
    r.bought = (await tp.buy('every-alice', { tokenAddress: addr, usdcAmount: 1 })).booked !== undefined;
    r.sellQuote = typeof (await tp.sellQuote('every-alice', { tokenAddress: addr, tokenAmount: '1' })) === 'object';
    r.sold = (await tp.sell('every-alice', { tokenAddress: addr, tokenAmount: 1 })).booked !== undefined;

    // Presales, on the service's clock (learned from its answers: time travel moved it).
    await admin('/admin/faucet', { address: bob.address, usdcAmount: 100, merchantId: process.env.MERCHANT });
    const now = Math.floor(serviceNow() / 1000);
    const sale = await tp.createPresale({ name: 'Every', description: 'Every method', startTimestamp: now - 60, endTimestamp: now + 86400,
      targetUsdcAmount: 10, tokenInfo: { name: 'Every Sale', symbol: 'ESALE', imageUrl: 'https://example.com/e.png' } });
    r.publicForm = (await tp.getPresale(sale.id)).id === sale.id;
    r.merchantForm = typeof (await tp.getMerchantPresale(sale.id)).completionState === 'object';
    r.presales = (await tp.listPresales()).length;
    r.boughtIn = (await tp.buyPresale('every-bob', { presaleId: sale.id, usdcAmount: '8.000001' })).usdcAmount;
    r.resolved = await code(tp.resolvePresale({ presaleId: sale.id }));
    r.resolvedAgain = await code(tp.resolvePresaleAlias({ presaleId: sale.id }));

    // Templates, each status read three ways.
    const meme = await tp.createMemecoin({ name: 'Every Meme', symbol: 'EMEME', totalSupply: 1000000, initialPrice: '0.0001', network: 'base', marketplace: true });
    r.meme = [await tp.getMemecoinStatus(meme.id), await tp.getMemecoinStatusByQuery({ id: meme.id }), await tp.postMemecoinStatus({ id: meme.id })]
      .map((s) => s.data.tokenAddress === meme.tokenAddress || s.data.tokenAddress.startsWith('0x'));
    const drop = await tp.createAirdrop({ name: 'Every Drop', symbol: 'EDROP', totalSupply: 1000, initialPrice: '0.01', network: 'base', marketplace: false,
      airdrop: { addresses: ['0x2222222222222222222222222222222222222222'], supply: 10 } });
    r.drop = [await tp.getAirdropStatus(drop.id), await tp.getAirdropStatusByQuery({ id: drop.id }), await tp.postAirdropStatus({ id: drop.id })]
      .map((s) => s.data.tokenAddress.startsWith('0x'));

    // Sessions, parked work, settings, events.
    r.session = typeof (await tp.createSession('every-alice', { scopes: ['read'] })) === 'object';
    r.revoked = typeof (await tp.revokeSessions('every-alice')) === 'object';
    r.parked = typeof (await tp.listParkedWork()) === 'object';
    const chain = await tp.getMerchantChain();
    r.chain = [chain.kind, chain.relayer, chain.openMovements];
    r.settings = typeof (await tp.getSettings()).privateMode;
    r.private = (await tp.patchSettings({ privateMode: false })).privateMode;
    const events = await tp.listEvents({ types: 'holder.*', limit: 5 });
    r.event = (await tp.getEvent(events.data[0].id)).id === events.data[0].id;

    // Webhooks: the signing secret shown once, then never.
    const hook = await tp.createWebhook({ url: 'http://127.0.0.1:9/hook', events: ['holder.*'] });
    r.secret = hook.secret.startsWith('whsec_');
    const got = await tp.getWebhook(hook.id);
    r.hook = [got.id === hook.id, !('secret' in got), (await tp.listWebhooks()).some((h) => h.id === hook.id)];
    r.described = (await tp.updateWebhook(hook.id, { description: 'Every method' })).description;
    const ping = await tp.testWebhook(hook.id);
    r.deliveries = (await tp.listDeliveries(hook.id)).data.some((d) => d.id === ping.id);
    r.replayed = (await tp.replayDelivery(hook.id, ping.id)).eventId === ping.eventId;
    r.deleted = (await tp.deleteWebhook(hook.id)).deleted;
    // Keys: a second secret key, shown once, rolled (the new one shown once, the old one
    // stopped at once), then the new one revoked; the flow's own key is never touched.
    const made = await tp.createKey({ name: 'Every method' });
    const rolled = await tp.rollKey(made.key.id, { graceHours: 0 });
    const revoked = await tp.revokeKey(rolled.key.id);
    const listed = (await tp.listKeys()).data;
    r.keys = [made.apiKey.startsWith('sk_'), made.apiKey.endsWith(made.key.last4), rolled.apiKey !== made.apiKey,
      revoked.revokedAt !== null, listed.every((k) => !('apiKey' in k)), listed.some((k) => k.id === made.key.id)];
    clearInterval(ticking);
    console.log(JSON.stringify({ r, called: [...called].sort() }));
  `);
  const { r, called } = out;
  assert.deepEqual(called, [...OPERATIONS, 'waitForJob'].sort(), 'the flow calls every method (and waitForJob), and no deprecated name');
  assert.deepEqual({ ...r, buyQuote: undefined }, {
    status: true, job: true, listed: true, holdersLimit: true, patched: true, holder: true,
    distributed: true, rewarded: '5', spent: '0.000000000000000001', sent: '1.5', withdrawn: '1',
    balance: '97.5', page: 2, pool: 'success', quoted: 'ok', bought: true, sellQuote: true, sold: true,
    publicForm: true, merchantForm: true, presales: 1, boughtIn: '8.000001', resolved: 'ok', resolvedAgain: r.resolvedAgain,
    meme: [true, true, true], drop: [true, true, true], session: true, revoked: true, parked: true, chain: ['embedded', null, 0], settings: 'boolean', private: false,
    event: true, secret: true, hook: [true, true, true], described: 'Every method', deliveries: true, replayed: true, deleted: true,
    keys: [true, true, true, true, true, true],
    buyQuote: undefined,
  });
  // Resolving again is answered, by a documented refusal or the same answer.
  assert.equal(typeof r.resolvedAgain, 'string');
});
