// A presale's public read while purchases stream in: what a popular presale's page costs its
// merchant. The read lists every participant (the interface's form); the object keeps its text
// until a presale or a participant is written (objects/merchant/presale_texts.rs), so here,
// with one buyer purchasing in a loop, the first read after each purchase renders the whole
// list again and the others are served from the kept text.
//
//   node bench/presale-reads.mjs [--buyers 2000] [--seconds 6] [--connections 8]
//
// Seeds a presale with --buyers participants (1 USDC each), then loads
// GET /token/presales/:id with autocannon while a loop buys 1 USDC at a time into it, and
// prints the reads a second (p99) and the purchases a second. tokenpad runs API-only with
// REQUEST_LOG=off, as bench.mjs's second table.
import { api, createMerchant, startWorker } from '../tests/http/harness.mjs';
import { buyIn, load, ok, openPresale } from './common.mjs';

const opts = { buyers: 2000, seconds: 6, connections: 8 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const name = argv[i].replace(/^--/, '');
  if (!(name in opts)) throw new Error(`unknown option ${argv[i]}`);
  opts[name] = Number(argv[++i]);
}
const log = (m) => process.stderr.write(`[presale-reads] ${m}\n`);

const w = await startWorker({ env: { RATE_LIMIT_PER_SECOND: '0', PUBLIC_RATE_LIMIT_PER_SECOND: '0', SESSION_RATE_LIMIT_PER_SECOND: '0', REQUEST_LOG: 'off' }, assets: false });
try {
  const m = await createMerchant(w, 'Presale reads');
  const sk = m.secretKey;
  const now = ok(await api(w, 'GET', '/admin/time', { adminKey: w.adminKey }), 'time').nowUnix;
  const presale = await openPresale(w, sk, now, 'Popular');
  log(`seeding ${opts.buyers} buyers`);
  const holders = [];
  for (let i = 0; i < opts.buyers; i += 20) {
    const ids = Array.from({ length: Math.min(20, opts.buyers - i) }, (_, j) => `b${i + j}`);
    holders.push(...await Promise.all(ids.map(async (id) => ({ id, address: ok(await api(w, 'PUT', `/holder/${id}`, { key: sk }), 'holder').address }))));
  }
  await buyIn(w, sk, presale.id, holders);
  const streamer = ok(await api(w, 'PUT', '/holder/streamer', { key: sk }), 'holder');
  ok(await api(w, 'POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: streamer.address, usdcAmount: 100_000 } }), 'faucet');
  const route = { path: `/token/presales/${presale.id}?publicKey=${m.publicKey}` };
  await load(w, route, opts.connections, 1); // warm

  let buying = true;
  let bought = 0;
  const purchases = (async () => {
    while (buying) {
      ok(await api(w, 'POST', '/holder/streamer/buy-presale', { key: sk, body: { presaleId: presale.id, usdcAmount: 1 } }), 'purchase');
      bought += 1;
    }
  })();
  const r = await load(w, route, opts.connections, opts.seconds);
  buying = false;
  await purchases;
  const failed = r.non2xx + r.errors;
  console.log(`presale read with ${opts.buyers} participants while purchases stream in: ` +
    `${Math.round(r['2xx'] / r.duration)} reads/s (p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${failed} failed), ` +
    `${Math.round(bought / r.duration)} purchases/s`);
  if (failed > 0) process.exitCode = 1;
} finally {
  await w.stop();
}
