// The state the profilers load a route against (profile.mjs, perf.mjs), as the benchmark's:
// a token with 100 holders, h0's history 50 records or more, an open presale with a funded
// buyer, the token's Uniswap v3 pool (`pool-buy`: the buyer buys from it with USDC), and for
// `buy-crowded` a presale the 100 holders bought into first.
import { api, createMerchant, createToken } from '../tests/http/harness.mjs';
import { buyIn, ok, openPresale } from './common.mjs';

/** The routes one can profile, by name. */
export const ROUTE_NAMES = ['health', 'holder', 'token', 'history', 'distribute', 'spend', 'transfer', 'buy', 'buy-crowded', 'pool-buy', 'replay'];

/**
 * Seeds a started tokenpad `w` and answers its routes by name: { path, method?, headers?,
 * body? }, as `load` takes them. The crowded presale is made only when `crowded` is true
 * (100 purchases first).
 */
export async function seedRoutes(w, { crowded = false } = {}) {
  const m = await createMerchant(w, 'Profile');
  const sk = m.secretKey;
  const token = await createToken(w, sk, { name: 'Profile', symbol: 'PRF', totalSupply: 1_000_000_000_000, canLP: true });
  const T = token.address;
  const holders = [];
  for (let i = 0; i < 100; i += 10) {
    holders.push(...await Promise.all(Array.from({ length: 10 }, async (_, j) => {
      const h = ok(await api(w, 'PUT', `/holder/h${i + j}`, { key: sk }), 'holder');
      ok(await api(w, 'POST', `/token/${T}/distribute`, { key: sk, body: { sendToId: `h${i + j}`, amount: 1_000_000_000 } }), 'distribute');
      return h;
    })));
  }
  for (let i = 0; i < 49; i++) ok(await api(w, 'POST', `/token/${T}/distribute`, { key: sk, body: { sendToId: 'h0', amount: 1 } }), 'distribute');
  // As the benchmark's buy-presale: an open presale, one buyer with USDC for every purchase.
  const now = ok(await api(w, 'GET', '/admin/time', { adminKey: w.adminKey }), 'time').nowUnix;
  const presale = await openPresale(w, sk, now, 'Open');
  const buyer = ok(await api(w, 'PUT', '/holder/pb', { key: sk }), 'PUT holder pb');
  ok(await api(w, 'POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: buyer.address, usdcAmount: 200_000 } }), 'faucet');
  // buy-crowded, as the benchmark's: the same purchase into a presale the 100 holders bought
  // into first, every one of them listed in each purchase's event.
  let full = presale;
  if (crowded) {
    full = await openPresale(w, sk, now, 'Crowded');
    await buyIn(w, sk, full.id, holders.map((h, i) => ({ id: `h${i}`, address: h.address })));
  }
  // As the benchmark's pool buy: the pool opened with the same price and amount.
  ok(await api(w, 'POST', `/token/${T}/liquidity`, { key: sk, body: { initialStartingPrice: '0.01', amount: 100_000_000 } }), 'open pool');
  const json = { 'content-type': 'application/json', 'x-api-key': sk };
  return {
    health: { path: '/health' },
    holder: { path: `/holder/h0?publicKey=${m.publicKey}` },
    token: { path: `/token/${T}?publicKey=${m.publicKey}` },
    history: { path: '/holder/h0/transactions', headers: { 'x-api-key': sk } },
    distribute: { method: 'POST', path: `/token/${T}/distribute`, headers: json, body: { sendToId: 'h0', amount: 1 } },
    spend: { method: 'POST', path: '/holder/h1/spend', headers: json, body: { tokenAddress: T, amount: 1 } },
    transfer: { method: 'POST', path: '/holder/h2/transfer', headers: json, body: { tokenAddress: T, amount: 1, toAddress: holders[3].address } },
    buy: { method: 'POST', path: '/holder/pb/buy-presale', headers: json, body: { presaleId: presale.id, usdcAmount: 1 } },
    'buy-crowded': { method: 'POST', path: '/holder/pb/buy-presale', headers: json, body: { presaleId: full.id, usdcAmount: 1 } },
    'pool-buy': { method: 'POST', path: '/holder/pb/buy', headers: json, body: { tokenAddress: T, usdcAmount: 0.01 } },
    replay: { method: 'POST', path: '/holder/h1/spend', headers: { ...json, 'idempotency-key': 'profile-replay' }, body: { tokenAddress: T, amount: 1 } },
  };
}
