// What deployments.test.mjs deploys and reads deployments with: the two templates' bodies, the
// status in its three forms, the overview page, the exchange link a network gives, and holding
// or letting the chain mine what is submitted, on either chain (the embedded one, or anvil with
// TOKENPAD_TEST_CHAIN=anvil).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { assertMatches } from './openapi.mjs';
import { earlyInBlock, until } from './check.mjs';
import { rpc } from '../chain/anvil.mjs';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const HASH = /^0x[0-9a-f]{64}$/;
export const addr = (i) => '0x' + (0xa100 + i).toString(16).padStart(4, '0') + 'b'.repeat(36);
export const MISSING = '00000000-0000-4000-8000-000000000000';

export function memecoin(over = {}) {
  return {
    name: 'Pepe <Two> & Co', symbol: 'PEPE2', totalSupply: 1000000, initialPrice: 0.0001,
    network: 'base', marketplace: true, recipient: { address: addr(1), supply: 100000 }, ...over,
  };
}
export function airdrop(over = {}) {
  return {
    name: 'Drop', symbol: 'DROP', totalSupply: 1000, initialPrice: '0.5', network: 'base-sepolia',
    marketplace: false, airdrop: { addresses: [addr(10), addr(11), addr(12)], supply: 100 },
    recipient: { address: addr(1), amount: 50 }, ...over,
  };
}

/** A local Chromium (CHROMIUM_PATH or /usr/bin/chromium) and playwright-core, for the phone-width
 * test; null where either is missing (the test is skipped). */
export const chromiumPath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
export const playwright = chromiumPath ? await import('playwright-core').catch(() => null) : null;

/** Circle's USDC on each network the embedded chain names: an exchange link's input currency. */
const CIRCLE_USDC = {
  base: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  'base-sepolia': '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
};

/**
 * The helpers that need the worker: `c` is the suite's checkedClient, `worker()` its worker.
 */
export function deployKit(c, worker) {
  const { call, evm, ok } = c;
  /** GET of an overview page (HTML, no key). */
  async function page(pathOrUrl) {
    const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${worker().baseUrl}${pathOrUrl}`;
    const res = await fetch(url);
    const text = await res.text();
    assert.ok(res.status < 500, `GET ${url} answered ${res.status}: ${text}`);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    if (res.status === 200) assertMatches('GET', new URL(url).pathname, 200, text);
    return { status: res.status, headers: res.headers, text };
  }
  /**
   * The exchange link of a deployment on `network`: Uniswap's swap page from Circle's USDC to the
   * token; none on a local node (no public exchange reaches it).
   */
  function exchangeUrl(network, token) {
    if (evm()) return undefined;
    const chain = { base: 'base', 'base-sepolia': 'base_sepolia' }[network];
    return `https://app.uniswap.org/swap?chain=${chain}&inputCurrency=${CIRCLE_USDC[network]}&outputCurrency=${token}`;
  }
  /** The network a deployed token says: the one asked for; the chain's own (`local`) on anvil. */
  const networkOf = (asked) => (evm() ? 'local' : asked);
  /** How the overview page names the network. */
  const networkName = (asked) => (evm() ? 'a local development node' : { base: 'Base', 'base-sepolia': 'Base Sepolia' }[asked]);

  /**
   * Holds what is submitted next as pending: on the embedded chain by waiting until early in a
   * 2-second block; on anvil by turning automine off (release() mines and turns it back on).
   */
  async function hold() {
    if (evm()) await rpc(worker().chain.rpcUrl, 'evm_setAutomine', [false]);
    else await earlyInBlock(worker());
  }
  async function release() {
    if (!evm()) return;
    await rpc(worker().chain.rpcUrl, 'evm_setAutomine', [true]);
    await rpc(worker().chain.rpcUrl, 'evm_mine', []);
  }
  /**
   * Lets the chain mine what was submitted: the embedded chain's clock moves 5 s (two blocks and
   * more); a real one mines on its own: waits until each of `ids` ([kind, id, key]) is no longer
   * pending.
   */
  async function mined(...ids) {
    if (!evm()) {
      ok(await call('POST', '/admin/time/advance', { adminKey: worker().adminKey, body: { seconds: 5 } }));
      return;
    }
    for (const [kind, id, key] of ids) {
      await until(`${kind} ${id} mined`, async () => {
        // One form while it moves (the three are compared once it is settled).
        const r = ok(await call('GET', `/template/${kind}/status/${encodeURIComponent(id)}`, { key }));
        return r.data.status !== 'pending';
      }, { timeoutMs: 60_000, every: 100 });
    }
  }

  /** The three status forms of `kind` for `id`, with `key`: each response. */
  async function statusForms(kind, id, key) {
    return [
      await call('GET', `/template/${kind}/status/${encodeURIComponent(id)}`, { key }),
      await call('GET', `/${kind}/status?id=${encodeURIComponent(id)}`, { key }),
      await call('POST', `/${kind}/status`, { key, body: { id } }),
    ];
  }
  /**
   * All three forms agree; returns the one `data`. A pending deployment may change between the
   * three reads (on an EVM chain its transaction is signed meanwhile and its hash appears), so
   * the three are read again, a few times, until one round agrees.
   */
  async function status(kind, id, key) {
    for (let round = 1; ; round++) {
      const [a, b, c] = (await statusForms(kind, id, key)).map((r) => ok(r));
      const agree = isDeepStrictEqual(b, a) && isDeepStrictEqual(c, a);
      if (agree || round === 5 || a.data.status !== 'pending') {
        assert.deepEqual(b, a);
        assert.deepEqual(c, a);
        assert.equal(a.has_more, false);
        return a.data;
      }
    }
  }
  async function deploy(kind, m, body) {
    const r = ok(await call('POST', `/template/${kind}`, { key: m.secretKey, body }), 201);
    assert.match(r.id, UUID);
    return r.id;
  }
  return { page, exchangeUrl, networkOf, networkName, hold, release, mined, statusForms, status, deploy };
}
