// The cold start, for bench/bench.mjs (scripts/bench.sh): what a Worker's first answers cost
// after a restart, against the runtime's own first object read.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, createMerchant } from '../tests/http/harness.mjs';

/**
 * The cold start of tokenpad (`w`, started by tests/http/harness.mjs, with a merchant whose
 * public key is `pk` and a holder h0): V8 compiling each Worker's wasm in Chromium, then, as
 * medians of `runs` restarts, the first `/health`, the first merchant read, a second merchant's
 * first read right after it, and the same first object read of each baseline Worker in
 * `floors` (bench/hello, bench/hello-rs) restarted the same way; then the read warm.
 */
export async function coldStart(w, pk, { floors: [hello, helloRs], runs: count, log }) {
  const compileMs = await compileInChromium(log, path.join(ROOT, 'crates', 'worker', 'build', 'index_bg.wasm'));
  const ledgerCompileMs = await compileInChromium(log, path.join(ROOT, 'crates', 'worker', 'build-ledger', 'index_bg.wasm'));
  // A second merchant, read only after the first: its first read makes a new object in an
  // isolate that has already run the read's code.
  const other = await createMerchant(w, 'Cold');
  const timed = async (h, p) => {
    const t = performance.now();
    await (await fetch(h.baseUrl + p)).arrayBuffer();
    return performance.now() - t;
  };
  const runs = [];
  for (let i = 0; i < count; i++) {
    await w.restart();
    const healthMs = await timed(w, '/health');
    const objectMs = await timed(w, `/holder/h0?publicKey=${pk}`);
    const otherMs = await timed(w, `/holder/h0?publicKey=${other.publicKey}`);
    // The runtime's own floor for the same first read: each baseline Worker restarted, its
    // first `/`, then its first object read (one SQL row, the object's class constructed first).
    const floor = async (h) => {
      await h.restart();
      await timed(h, '/');
      return timed(h, '/object');
    };
    runs.push({ healthMs, objectMs, otherMs, floorMs: await floor(hello), floorRsMs: await floor(helloRs) });
  }
  const warm = [];
  for (let i = 0; i < 20; i++) warm.push(await timed(w, `/holder/h0?publicKey=${pk}`));
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const of = (k) => median(runs.map((r) => r[k]));
  return {
    compileMs, ledgerCompileMs, runs: runs.length, healthMs: of('healthMs'), objectMs: of('objectMs'), otherMs: of('otherMs'),
    warmMs: median(warm), floorMs: of('floorMs'), floorRsMs: of('floorRsMs'),
  };
}

/**
 * V8 compiling the Worker's wasm, best of 5 (Chromium's V8, as new as workerd's: Node 20's
 * cannot read this wasm's exception-handling opcodes). NaN when Chromium is not there.
 */
async function compileInChromium(log, wasmPath) {
  let browser;
  try {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_BIN ?? '/usr/bin/chromium',
      args: ['--disable-gpu', '--no-first-run', '--disable-background-networking', '--no-sandbox'],
      headless: true,
    });
    const page = await browser.newPage();
    const b64 = readFileSync(wasmPath).toString('base64');
    return await page.evaluate(async (data) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      let best = Infinity;
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        await WebAssembly.compile(bytes);
        best = Math.min(best, performance.now() - t);
      }
      return best;
    }, b64);
  } catch (e) {
    log(`cold start: could not compile the wasm in Chromium (${e.message.split('\n')[0]})`);
    return NaN;
  } finally {
    await browser?.close();
  }
}
