// @tokenpad/client/metal, the packed package under Node against the real worker (workerd):
// Metal's own README examples (0xmetropolis/metal-sdk, README.md: "Frontend Setup" and
// "Backend Setup", in its current flat form and in the earlier `.merchant` / `.token` /
// `.holder` form), written for Metal's SDK and run here with only the import changed (the base
// URL from TOKENPAD_URL); then Metal's SDK flow past its README (create a token, createLP,
// then buy and sell), Metal's error shape, the base URL's sources, CommonJS, and the refusal of
// a secret key in a browser.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { api, createMerchant, createToken, startWorker } from '../http/harness.mjs';
import { installPacked, node, readmeExample } from './pack.mjs';

/** An app written for Metal's SDK: `code` imports it as Metal's README does; only that line changes. */
function switched(code) {
  const ported = code.replace('from "@0xmetropolis/metal-sdk"', 'from "@tokenpad/client/metal"');
  assert.notEqual(ported, code, 'the app does not import Metal\'s SDK');
  return ported;
}

describe('@tokenpad/client/metal against the worker', { timeout: 240_000 }, () => {
  let w;
  let m;
  let token;
  let pack;
  const js = async (name, code, env = {}) => {
    await writeFile(path.join(pack.app, name), code);
    return node(pack.app, name, { TOKENPAD_URL: w.baseUrl, SK: m.secretKey, PK: m.publicKey, TOKEN: token.address, ...env });
  };

  before(async () => {
    [w, pack] = await Promise.all([startWorker(), installPacked()]);
    m = await createMerchant(w, 'Metal SDK app');
    token = await createToken(w, m.secretKey, { name: 'Metal Readme', symbol: 'MRD' });
  });
  after(async () => {
    await w?.stop();
    await pack?.cleanup();
  });

  test('Metal\'s README, backend then frontend, with only the import changed', async () => {
    // "Backend Setup (Server-side)": createToken, distribute (to a holder's address, the amount
    // a string), getOrCreateHolder. The README's placeholders are filled with real values.
    const holderAddress = (await api(w, 'PUT', '/holder/user123', { key: m.secretKey })).json.address;
    const backend = switched(`
      import { Metal } from "@0xmetropolis/metal-sdk";
      const metal = Metal.createSecretClient(process.env.SK);
      const tokenJob = await metal.createToken({ name: "My Token", symbol: "MTK" });
      const distribution = await metal.distribute(process.env.TOKEN, { sendToAddress: "${holderAddress}", amount: "100" });
      const holder = await metal.getOrCreateHolder("user123");
      console.log(JSON.stringify({ tokenJob, distribution, holder }));
    `);
    const b = JSON.parse(await js('backend.mjs', backend));
    assert.equal(b.tokenJob.status, 'pending');
    assert.match(b.tokenJob.jobId, /^[0-9a-f-]{36}$/);
    assert.equal(b.distribution.success, true);
    assert.deepEqual([b.holder.id, b.holder.address], ['user123', holderAddress]);
    assert.equal(b.holder.tokens.find((t) => t.address === token.address).balance, 100);

    // "Frontend Setup (Client-side)": getHolder and getTokenBalance with the public key.
    const frontend = switched(`
      import { Metal } from "@0xmetropolis/metal-sdk";
      const metal = Metal.createPublicClient(process.env.PK);
      const holder = await metal.getHolder("user123");
      const balance = await metal.getTokenBalance("user123", process.env.TOKEN);
      console.log(JSON.stringify({ holder, balance }));
    `);
    const f = JSON.parse(await js('frontend.mjs', frontend));
    assert.equal(f.holder.address, holderAddress);
    assert.equal(typeof f.holder.totalValue, 'number');
    assert.deepEqual([f.balance.symbol, f.balance.balance, f.balance.address], ['MRD', 100, token.address]);

    // The README's earlier form (SDK before 0.1.1): the same calls under .merchant, .token, .holder.
    const earlier = switched(`
      import { Metal } from "@0xmetropolis/metal-sdk";
      const server = Metal.createSecretClient(process.env.SK);
      const job = await server.merchant.createToken({ name: "Older", symbol: "OLD" });
      await server.token.distribute(process.env.TOKEN, { sendToAddress: "${holderAddress}", amount: "1.5" });
      const created = await server.holder.createHolder("user456");
      const again = await server.holder.getOrCreateHolder("user456");
      const browser = Metal.createPublicClient(process.env.PK);
      const held = await browser.holder.getHolder("user123");
      const bal = await browser.holder.getTokenBalance("user123", process.env.TOKEN);
      console.log(JSON.stringify({ job, created, again, bal, held }));
    `);
    const e = JSON.parse(await js('earlier.mjs', earlier));
    assert.equal(e.job.status, 'pending');
    assert.deepEqual(e.again, e.created);
    assert.equal(e.bal.balance, 101.5);
    assert.equal(e.held.tokens.find((t) => t.address === token.address).balance, 101.5);
  });

  test('docs: the metal example runs as printed', async () => {
    const out = await js('readme-metal.mjs', await readmeExample('metal'), { TOKENPAD_SECRET_KEY: m.secretKey });
    assert.match(out, /^(pending|success) 0x[0-9a-fA-F]{40}$/m);
  });

  test('Metal\'s SDK flow: createToken, getTokenStatus to success, createLP, then buy and sell, getToken with its price', async () => {
    const out = JSON.parse(await js('flow.mjs', `
      import { Metal } from '@tokenpad/client/metal';
      const metal = Metal.createSecretClient(process.env.SK);
      const tokenJob = await metal.createToken({ name: 'Flow Token', symbol: 'FLOW' });
      let status = await metal.getTokenStatus(tokenJob.jobId);
      for (let i = 0; i < 40 && status.status === 'pending'; i++) {
        await fetch(process.env.TOKENPAD_URL + '/admin/time/advance', { method: 'POST',
          headers: { 'x-admin-key': process.env.ADMIN, 'content-type': 'application/json' }, body: '{"seconds":2}' });
        status = await metal.getTokenStatus(tokenJob.jobId);
      }
      const address = status.data.address;
      const lp = await metal.createLP(address, { tokenAddress: address, initialStartingPrice: '0.01' });
      const holder = await metal.getOrCreateHolder('trader');
      await fetch(process.env.TOKENPAD_URL + '/admin/faucet', { method: 'POST',
        headers: { 'x-admin-key': process.env.ADMIN, 'content-type': 'application/json' },
        body: JSON.stringify({ address: holder.address, usdcAmount: 20 }) });
      // Buy and sell as public apps call them (Metal's SDK has no method for them).
      const trade = async (side, body) => (await fetch(process.env.TOKENPAD_URL + '/holder/trader/' + side, { method: 'POST',
        headers: { 'x-api-key': process.env.SK, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
      const bought = await trade('buy', { tokenAddress: address, usdcAmount: 10 });
      const sold = await trade('sell', { tokenAddress: address, tokenAmount: 100 });
      const t = await metal.getToken(address);
      const all = await metal.getAllTokens();
      console.log(JSON.stringify({ status, lp, bought, sold, t, all: all.map((x) => x.address) }));
    `, { ADMIN: w.adminKey }));
    assert.equal(out.status.status, 'success');
    assert.equal(out.status.data.canLP, true, 'canLP is on by default');
    assert.equal(out.lp.status, 'success');
    assert.ok(Math.abs(out.lp.data.price - 0.01) / 0.01 < 0.003, `opening price within a tick of 0.01: ${out.lp.data.price}`);
    assert.deepEqual([out.bought.success, out.bought.side], [true, 'buy']);
    assert.deepEqual([out.sold.success, out.sold.side], [true, 'sell']);
    assert.ok(out.t.price > out.lp.data.price, `a buy moved the price up from the opening price: ${out.t.price} after ${out.lp.data.price}`);
    assert.ok(out.all.includes(out.t.address));
  });

  test('errors: Metal\'s message, plus the service\'s code, status and exact details; keys checked as Metal\'s SDK does', async () => {
    const out = JSON.parse(await js('errors.mjs', `
      import { Metal, TokenpadError } from '@tokenpad/client/metal';
      const server = Metal.createSecretClient(process.env.SK);
      const browser = Metal.createPublicClient(process.env.PK);
      const seen = {};
      const catching = async (name, f) => {
        try { await f(); seen[name] = 'no error'; } catch (e) {
          seen[name] = { message: e.message, isError: e instanceof Error, isTokenpad: e instanceof TokenpadError,
            code: e.code, status: e.status, details: e.details };
        }
      };
      await server.getOrCreateHolder('poor');
      await catching('notFound', () => browser.getHolder('nobody'));
      await catching('overdraw', () => server.spend('poor', { tokenAddress: process.env.TOKEN, amount: '0.000000000000000001' }));
      await catching('noSecret', () => browser.getAllTokens());
      await catching('noPublic', () => server.getHolder('poor'));
      await catching('noLpTwice', async () => {
        await server.createLP(process.env.TOKEN, { initialStartingPrice: '0.5' });
        await server.createLP(process.env.TOKEN, { initialStartingPrice: '0.5' });
      });
      console.log(JSON.stringify(seen));
    `));
    assert.deepEqual(out.notFound, { message: 'Metal API error: No holder with id nobody', isError: true, isTokenpad: true,
      code: 'holder_not_found', status: 404 });
    assert.equal(out.overdraw.code, 'insufficient_balance');
    assert.equal(out.overdraw.status, 422);
    assert.match(out.overdraw.message, /^Metal API error: /);
    // Exact: a decimal string, never a rounded number.
    assert.deepEqual(out.overdraw.details, { available: '0', locked: '0' });
    assert.equal(out.noSecret.message, 'Metal secret API key is required for server-side requests');
    assert.equal(out.noPublic.message, 'Public key is required for this operation');
    assert.match(out.noLpTwice.message, /^Metal API error: MRD already has a liquidity pool$/);
    assert.equal(out.noLpTwice.code, 'pool_exists');
  });

  test('the base URL: the option, else TOKENPAD_URL, else http://127.0.0.1:8787; CommonJS; no secret key in a browser', async () => {
    const out = JSON.parse(await js('base.cjs', `
      const { Metal, MetalClient, DEFAULT_BASE_URL } = require('@tokenpad/client/metal');
      const fromEnv = Metal.createPublicClient(process.env.PK);
      const fromOption = Metal.createPublicClient(process.env.PK, { baseUrl: 'https://tokenpad.example.com/' });
      delete process.env.TOKENPAD_URL;
      const fallback = new Metal({ publicKey: process.env.PK });
      (async () => {
        const holder = await fromEnv.getOrCreateHolder?.('x').catch((e) => e.message);
        let refused;
        globalThis.document = {};
        try { Metal.createSecretClient(process.env.SK); } catch (e) { refused = [e.code, e.message]; }
        const publicInBrowser = Metal.createPublicClient(process.env.PK).client.baseUrl;
        console.log(JSON.stringify({ env: fromEnv.client.baseUrl, option: fromOption.client.baseUrl, fallback: fallback.client.baseUrl,
          DEFAULT_BASE_URL, isClient: fromEnv.client instanceof MetalClient, holder, refused, publicInBrowser }));
      })();
    `));
    assert.equal(out.env, w.baseUrl);
    assert.equal(out.option, 'https://tokenpad.example.com');
    assert.equal(out.fallback, 'http://127.0.0.1:8787');
    assert.equal(out.DEFAULT_BASE_URL, 'http://127.0.0.1:8787');
    assert.equal(out.isClient, true);
    assert.equal(out.holder, 'Metal secret API key is required for server-side requests');
    assert.equal(out.refused[0], 'browser_refused');
    assert.equal(out.publicInBrowser, 'http://127.0.0.1:8787');
  });
});
