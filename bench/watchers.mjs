// A launch everyone watches (issue 35): buys into one presale while W WebSocket clients follow
// it on GET /live, for each W asked; and a polling storm on the presale's public read.
//
//   node bench/watchers.mjs [--watchers 0,1000,5000] [--seconds 8] [--buyers 8]
//                           [--pollers 1000] [--poll-seconds 5] [--only watchers|polling]
//                           [--quick]
//
// Watchers: --buyers loops buy 1 USDC at a time into the presale for --seconds while W
// sockets (in this process) follow it. Printed per W: buys/s, workerd's CPU per buy (from
// /proc, the whole workerd process: the merchant's object, the relays and the edge), this
// process's own CPU (the clients', reported apart: they share the machine), pushes per
// watcher per second, and the update latency p50/p99: from a buy's answer to the first push
// showing a total at least that buy's rank (each buy is 1 USDC; a push can come before the
// answer: counted as 0).
// Polling: --pollers connections GET the presale's public read (autocannon) for
// --poll-seconds; printed: requests/s answered, and requests/s that reached the merchant's
// object (answers whose `x-tokenpad-cache` is not `hit`).
// --quick: 0 and 200 watchers, 4 s, 200 pollers for 3 s.
import { setTimeout as sleep } from 'node:timers/promises';
import { api, createMerchant, startWorker } from '../tests/http/harness.mjs';
import autocannon from 'autocannon';
import { groupCpuMs, ok, openPresale } from './common.mjs';

const opts = { watchers: '0,1000,5000', seconds: 8, buyers: 8, pollers: 1000, 'poll-seconds': 5, only: '' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const name = argv[i].replace(/^--/, '');
  if (name === 'quick') {
    Object.assign(opts, { watchers: '0,200', seconds: 4, pollers: 200, 'poll-seconds': 3 });
    continue;
  }
  if (!(name in opts)) throw new Error(`unknown option ${argv[i]}`);
  opts[name] = ['watchers', 'only'].includes(name) ? argv[++i] : Number(argv[++i]);
}
const log = (m) => process.stderr.write(`[watchers] ${m}\n`);
// Node 20 has no global WebSocket without a flag: the `ws` package then (a dev dependency).
const WS = globalThis.WebSocket ?? (await import('ws')).default;
/** workerd's CPU time (ms) so far, or null without /proc. */
const workerdMs = (w) => groupCpuMs(w)?.workerd ?? null;

function percentile(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** `n` sockets following `query`, opened `width` at a time; each records its pushes. */
async function openWatchers(w, query, n, width = 50) {
  const out = [];
  let next = 0;
  const one = () => new Promise((resolve) => {
    const s = { pushes: [], ws: null };
    const ws = new WS(`${w.baseUrl.replace('http', 'ws')}/live?${query}`);
    s.ws = ws;
    let first = true;
    ws.addEventListener('message', (ev) => {
      const at = Date.now();
      // The total only: a watcher's work is small, as a page's would be.
      const m = /"purchasedUsdcAmount\\":([0-9.]+)/.exec(ev.data);
      if (first) {
        first = false;
        resolve(s);
        return;
      }
      s.pushes.push({ at, amount: m ? Number(m[1]) : NaN });
    });
    ws.addEventListener('error', (e) => {
      log(`a watcher failed after ${out.length} connected: ${e.message ?? e.error ?? 'error'}`);
      resolve(null);
    });
    ws.addEventListener('close', (e) => {
      if (first) log(`a watcher closed after ${out.length} connected: ${e.code} ${e.reason}`);
      resolve(null);
    });
  });
  await Promise.all(Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) {
      next += 1;
      const s = await one();
      if (!s) throw new Error('a watcher could not connect');
      out.push(s);
    }
  }));
  return out;
}

async function watchersRun(w, m, count) {
  const now = ok(await api(w, 'GET', '/admin/time', { adminKey: w.adminKey }), 'time').nowUnix;
  const presale = await openPresale(w, m.secretKey, now, `Watched${count}`, 200_000);
  const buyers = [];
  for (let i = 0; i < opts.buyers; i++) {
    const id = `w${count}b${i}`;
    const h = ok(await api(w, 'PUT', `/holder/${id}`, { key: m.secretKey }), 'holder');
    ok(await api(w, 'POST', '/admin/faucet', { adminKey: w.adminKey, body: { address: h.address, usdcAmount: 100_000 } }), 'faucet');
    buyers.push(id);
  }
  log(`${count} watchers: connecting`);
  const t0 = Date.now();
  const watchers = count ? await openWatchers(w, `publicKey=${m.publicKey}&presale=${presale.id}`, count) : [];
  if (count) log(`${count} watchers connected in ${Date.now() - t0} ms`);
  await sleep(500);
  const answered = [];
  let failed = 0;
  const cpu0 = workerdMs(w);
  const own0 = process.cpuUsage();
  const start = Date.now();
  const end = start + opts.seconds * 1000;
  await Promise.all(buyers.map(async (id) => {
    while (Date.now() < end) {
      const r = await api(w, 'POST', `/holder/${id}/buy-presale`, { key: m.secretKey, body: { presaleId: presale.id, usdcAmount: 1 } });
      if (r.status === 200 || r.status === 201) answered.push(Date.now());
      else failed += 1;
    }
  }));
  const elapsed = (Date.now() - start) / 1000;
  const cpu1 = workerdMs(w);
  const own = process.cpuUsage(own0);
  // The last state reaches the watchers (within 2 s), then latency is judged.
  const total = answered.length;
  const deadline = Date.now() + 5_000;
  while (watchers.some((s) => (s.pushes.at(-1)?.amount ?? 0) < total) && Date.now() < deadline) await sleep(50);
  const missing = watchers.filter((s) => (s.pushes.at(-1)?.amount ?? 0) < total).length;
  const latencies = [];
  for (const s of watchers) {
    let j = 0;
    for (let rank = 1; rank <= total; rank++) {
      while (j < s.pushes.length && s.pushes[j].amount < rank) j++;
      if (j === s.pushes.length) break;
      latencies.push(Math.max(0, s.pushes[j].at - answered[rank - 1]));
    }
  }
  latencies.sort((a, b) => a - b);
  const pushes = watchers.reduce((n, s) => n + s.pushes.filter((p) => p.at <= end + 1000).length, 0);
  for (const s of watchers) s.ws.close(1000);
  return {
    watchers: count,
    buysPerSecond: total / elapsed,
    workerdCpuMsPerBuy: cpu0 === null ? null : (cpu1 - cpu0) / Math.max(total, 1),
    clientCpuMs: (own.user + own.system) / 1000,
    pushesPerWatcherPerSecond: count ? pushes / count / elapsed : null,
    latencyP50: percentile(latencies, 50),
    latencyP99: percentile(latencies, 99),
    failed,
    missing,
  };
}

async function pollingRun(w, m) {
  const now = ok(await api(w, 'GET', '/admin/time', { adminKey: w.adminKey }), 'time').nowUnix;
  const presale = await openPresale(w, m.secretKey, now, 'Polled');
  const path = `/token/presales/${presale.id}?publicKey=${m.publicKey}`;
  const seen = { hit: 0, miss: 0 };
  const r = await autocannon({
    url: w.baseUrl + path,
    connections: opts.pollers,
    duration: opts['poll-seconds'],
    requests: [{
      method: 'GET',
      // The edge says whether it answered from what it keeps (edge/cached.rs).
      onResponse: (status, body, context, headers) => {
        seen[headers['x-tokenpad-cache'] === 'hit' ? 'hit' : 'miss'] += 1;
      },
    }],
  });
  const reached = seen.miss;
  return {
    pollers: opts.pollers,
    requestsPerSecond: r['2xx'] / r.duration,
    reachedObjectPerSecond: reached / r.duration,
    p99: r.latency.p99,
    failed: r.non2xx + r.errors,
    hits: seen.hit,
  };
}

const fmt = (v, d = 0) => (v === null || v === undefined ? '-' : Number(v).toFixed(d));
const results = { watchers: [], polling: null };
if (opts.only !== 'polling') {
  const w = await startWorker({ env: { RATE_LIMIT_PER_SECOND: '0', REQUEST_LOG: 'off' }, assets: false });
  try {
    const m = await createMerchant(w, 'Watched launch');
    for (const n of String(opts.watchers).split(',').map(Number)) {
      results.watchers.push(await watchersRun(w, m, n));
      await sleep(1_000);
    }
  } finally {
    await w.stop();
  }
  console.log(`\nbuys into one presale (${opts.buyers} buyers, ${opts.seconds} s) while W clients watch it (clients in this process):`);
  console.log('| watchers | buys/s | workerd CPU ms/buy | client CPU s | pushes/watcher/s | update latency p50 / p99 ms | failed | not at the last state |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of results.watchers) {
    console.log(`| ${r.watchers} | ${fmt(r.buysPerSecond)} | ${fmt(r.workerdCpuMsPerBuy, 2)} | ${fmt(r.clientCpuMs / 1000, 1)} | ${fmt(r.pushesPerWatcherPerSecond, 2)} | ${fmt(r.latencyP50)} / ${fmt(r.latencyP99)} | ${r.failed} | ${r.watchers ? r.missing : '-'} |`);
  }
}
if (opts.only !== 'watchers') {
  const w = await startWorker({ env: { RATE_LIMIT_PER_SECOND: '0', REQUEST_LOG: 'off' }, assets: false });
  try {
    const m = await createMerchant(w, 'Polled launch');
    results.polling = await pollingRun(w, m);
  } finally {
    await w.stop();
  }
  const r = results.polling;
  console.log(`\n${r.pollers} connections polling one presale's public read for ${opts['poll-seconds']} s:`);
  console.log(`${fmt(r.requestsPerSecond)} req/s answered (p99 ${r.p99} ms, ${r.failed} failed), ${fmt(r.reachedObjectPerSecond, 1)} req/s reached the merchant's object (${r.hits} answered by the edge)`);
}
const bad = results.watchers.some((r) => r.failed || r.missing) || (results.polling?.failed ?? 0) > 0;
if (bad) process.exitCode = 1;
