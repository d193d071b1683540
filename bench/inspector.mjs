// Which inspector to profile an isolate through. wrangler's inspector proxies one of
// tokenpad's two Workers (in wrangler 4.86 usually the ledger's), and holds that isolate's
// session; workerd's own inspector lists both, as `core:user:<name>`, and answers the profiler
// for the one wrangler's proxy does not hold. wrangler does not print workerd's port, so it
// is found through /proc: the ports workerd's processes (wrangler's descendants) listen on,
// the one whose /json lists the Worker.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { nameFromIndex } from '../scripts/wasm-names.mjs';
import { descendants, listeningPorts } from '../tests/http/procs.mjs';

// The Worker script each isolate runs, as workerd's inspector names its target
// (`core:user:<script>`).
const SCRIPTS = { front: 'tokenpad', ledger: 'tokenpad-ledger' };

/**
 * The DevTools WebSocket URL of `isolate`'s target in workerd's own inspector, found through
 * the ports wrangler's descendants listen on; null when no port lists it.
 */
async function ownTargetUrl(w, isolate) {
  for (const pid of descendants(w.pid())) {
    let ports = [];
    try { ports = listeningPorts(pid); } catch { continue; }
    for (const port of ports) {
      const targets = await fetch(`http://127.0.0.1:${port}/json`, { signal: AbortSignal.timeout(2000) })
        .then((r) => (r.ok ? r.json() : [])).catch(() => []);
      const target = Array.isArray(targets) && targets.find((t) => t.id === `core:user:${SCRIPTS[isolate]}`);
      if (target) return target.webSocketDebuggerUrl;
    }
  }
  return null;
}

/** The DevTools WebSocket URL wrangler's inspector proxy serves (one isolate, its choice). */
async function proxyUrl(w) {
  const targets = await (await fetch(`http://127.0.0.1:${w.inspectorPort}/json`)).json();
  const target = targets.find((t) => t.webSocketDebuggerUrl) ?? targets[0];
  if (!target) throw new Error('no inspector target');
  return target.webSocketDebuggerUrl;
}

/**
 * A DevTools protocol session on `isolate` ('ledger' or 'front') of the Workers `w` runs
 * (`startWorker`'s handle), its profiler enabled, through `via`: 'own' (workerd's own
 * inspector, its target for that Worker) or 'proxy' (wrangler's inspector proxy, which holds
 * one of the two isolates' sessions, usually the ledger's, and then workerd's own answers only
 * for the other). `send(method, params)` resolves with the method's result, `close()` ends it.
 * A session whose profiler does not answer within `timeoutMs` (an isolate whose session the
 * other inspector holds) fails rather than waits. The caller checks which isolate it profiled
 * and takes the other way when it was the wrong one (profile.mjs).
 */
export async function inspect(w, isolate, via, { timeoutMs = 5000 } = {}) {
  if (!SCRIPTS[isolate]) throw new Error(`the isolate is front or ledger, not ${isolate}`);
  let url;
  if (via === 'own') {
    url = await ownTargetUrl(w, isolate);
    if (!url) throw new Error(`workerd's inspector with the ${isolate} Worker (core:user:${SCRIPTS[isolate]}) not found`);
  } else if (via === 'proxy') {
    url = await proxyUrl(w);
  } else {
    throw new Error(`an inspector is 'own' or 'proxy', not ${via}`);
  }
  const s = await session(url, isolate);
  let timer;
  const silent = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the ${isolate} isolate's profiler did not answer through ${via === 'own' ? "workerd's own inspector" : "wrangler's proxy"} within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([s.send('Profiler.enable'), silent]);
  } catch (e) {
    s.close();
    throw e;
  } finally {
    clearTimeout(timer);
  }
  return s;
}

/** A DevTools protocol session on the inspector at `url` (`isolate` names it in errors). */
async function session(url, isolate) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
    ws.once('close', () => reject(new Error(`the ${isolate} isolate's inspector closed before it opened`)));
  });
  let nextId = 1;
  const pending = new Map();
  // A session that ends with calls unanswered fails them: left pending, nothing would keep
  // node's event loop alive and a script awaiting one would exit silently (code 13), as
  // cold-profile.mjs did when an inspector closed just after a restart.
  let ended = null;
  const end = (why) => {
    ended ??= why;
    for (const done of pending.values()) done({ error: { message: why } });
    pending.clear();
  };
  ws.on('close', () => end(`the ${isolate} isolate's inspector closed`));
  ws.on('error', (e) => end(`the ${isolate} isolate's inspector failed: ${e.message}`));
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    if (msg.id && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    }
  });
  const send = (method, params = {}) => new Promise((resolve, reject) => {
    if (ended) return reject(new Error(`${method}: ${ended}`));
    const id = nextId++;
    pending.set(id, (msg) => (msg.error ? reject(new Error(`${method}: ${msg.error.message}`)) : resolve(msg.result)));
    ws.send(JSON.stringify({ id, method, params }));
  });
  return { send, close: () => ws.close() };
}

/**
 * Whether a profile's time delta is a gap: more than ten sampling intervals (`intervalUs`)
 * without a sample, when the isolate did not run (workerd samples an isolate only while it
 * runs). The delta falls on the sample after the gap and is no measure of its frame.
 */
export const isGap = (deltaUs, intervalUs) => deltaUs > 10 * intervalUs;

/**
 * `take()`'s result, taken again when it fails, three times at most (an inspector may close
 * under its session right after a restart: `inspect` then fails its calls); `say(why)` is told
 * each failure taken again.
 */
export async function retried(take, say) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await take();
    } catch (e) {
      if (attempt >= 3) throw e;
      say(e.message);
    }
  }
}

/**
 * Puts Rust names on `profile`'s wasm frames, from the names file the build writes beside
 * `isolate`'s Worker (the deployed wasm has no name section; without the file, the frames keep
 * the runtime's numbers).
 */
export function nameWasmFrames(profile, isolate) {
  const file = path.join(import.meta.dirname, '..', 'crates', 'worker', isolate === 'ledger' ? 'build-ledger-names.json' : 'build-names.json');
  const names = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  for (const n of profile.nodes) {
    const named = nameFromIndex(names, n.callFrame.functionName);
    if (named) n.callFrame.functionName = named;
  }
}
