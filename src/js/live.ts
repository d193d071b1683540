// Watching a presale or a holder: pushed by the service over a WebSocket when it can be,
// polled when it cannot. One watch is one socket (GET /live?presale=... or ?holder=...),
// opened after a first read succeeded (so an unknown id or a refused key is reported by that
// read, and no socket is tried for it), and reopened with backoff after it dropped.
import { noteServiceTime } from './clock.js';
import { toTokenpadError, type TokenpadError } from './errors.js';
import type { CallOptions } from './http.js';

export type WatchCallback<T> = (value: T | null, error: TokenpadError | null) => void;

export interface WatchOptions {
  /** Milliseconds between reads while polling (default 5000, at least 250). */
  intervalMs?: number;
  /** `false`: poll only, never open a WebSocket. */
  live?: boolean;
  /** Stops the watch when it aborts. */
  signal?: AbortSignal;
  /** Told `true` when updates start arriving pushed, `false` when the push channel drops. */
  onLive?: (live: boolean) => void;
}

/** The handle a watch returns. */
export interface Watch {
  /** Stops: no callback runs after this returns. Idempotent. */
  stop(): void;
  /** False once stopped. */
  readonly active: boolean;
  /** True while updates arrive pushed over the WebSocket (false while polling). */
  readonly live: boolean;
}

export interface LiveSource<T> {
  /** Opens a socket on `GET /live` (at each connect: a credential changed since is used). */
  open: () => WebSocket;
  /** Reads a message's body (the exact JSON text of the public answer). */
  read: (body: string) => T;
}

/** The WebSocket subprotocol offered, followed by the session token, to follow with a token. */
export const SESSION_PROTOCOL = 'tokenpad-session';

let fallbackWebSocket: typeof WebSocket | undefined;
let toldPolling = false;

/** The WebSocket of a runtime that has no global one (Node 20: the `ws` package, when installed). */
export function setFallbackWebSocket(ws: typeof WebSocket | undefined): void {
  fallbackWebSocket = ws;
}

/** The runtime's WebSocket: the global one, else the fallback (Node 20 with `ws`). */
export function defaultWebSocket(): typeof WebSocket | undefined {
  return (globalThis as { WebSocket?: typeof WebSocket }).WebSocket ?? fallbackWebSocket;
}

/** Says once per process that watches poll, because there is no WebSocket to push with. */
export function tellPolling(): void {
  if (toldPolling) return;
  toldPolling = true;
  console.warn('tokenpad: this runtime has no WebSocket (Node 20 without the `ws` package), so live updates are polled ' +
    'every intervalMs instead of pushed; `npm install ws`, or pass { WebSocket } to the client, to have them pushed');
}

const PING_MS = 25_000;
const MAX_RECONNECT_MS = 30_000;
/** A handshake that has not opened by then is given up (and tried again with backoff): one
 * to a service going down, or through a proxy that holds it, can hang without an error. */
const HANDSHAKE_MS = 10_000;

export function watch<T>(callback: WatchCallback<T>, options: WatchOptions, read: (o: CallOptions) => Promise<T>,
  live?: LiveSource<T>): Watch {
  const intervalMs = Math.min(Math.max(Number.isFinite(options.intervalMs) ? (options.intervalMs as number) : 5000, 250), 2 ** 31 - 1);
  let stopped = false;
  let pushed = false;
  let socket: WebSocket | null = null;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  let pingTimer: ReturnType<typeof setInterval> | undefined;
  let reconnectMs = 1000;
  let polling = false;
  let firstSocket = true;
  let lastDelivered = '';
  const reads = new AbortController();

  const deliver = (value: T | null, error: TokenpadError | null) => {
    if (stopped) return;
    try {
      callback(value, error);
    } catch (thrown) {
      console.error('tokenpad: a watch callback threw', thrown);
    }
  };

  const poll = async () => {
    if (stopped || pushed || polling) return;
    polling = true;
    let ok = false;
    try {
      const value = await read({ signal: reads.signal });
      ok = true;
      lastDelivered = JSON.stringify(value);
      deliver(value, null);
    } catch (e) {
      if (!stopped) deliver(null, toTokenpadError(e));
    } finally {
      polling = false;
    }
    if (stopped || pushed) return;
    if (ok && live && !socket && reconnectTimer === undefined) {
      reconnectTimer = setTimeout(() => {
        reconnectTimer = undefined;
        connect();
      }, firstSocket ? 0 : reconnectMs);
      firstSocket = false;
    }
    pollTimer = setTimeout(poll, intervalMs);
  };

  const connect = () => {
    if (stopped || !live) return;
    let ws: WebSocket;
    try {
      ws = live.open();
    } catch {
      return;
    }
    socket = ws;
    const handshake = setTimeout(() => {
      if (ws.readyState === 0) ws.close();
    }, HANDSHAKE_MS);
    ws.addEventListener('open', () => {
      clearTimeout(handshake);
      if (stopped || socket !== ws) return;
      pushed = true;
      reconnectMs = 1000;
      clearTimeout(pollTimer);
      options.onLive?.(true);
      pingTimer = setInterval(() => ws.readyState === 1 && ws.send('ping'), PING_MS);
    });
    ws.addEventListener('message', (ev: MessageEvent) => {
      if (stopped || socket !== ws || typeof ev.data !== 'string' || ev.data === 'pong') return;
      try {
        const msg = JSON.parse(ev.data) as { serviceTime?: number; body?: string };
        if (typeof msg.serviceTime === 'number') noteServiceTime(msg.serviceTime, Date.now());
        if (typeof msg.body !== 'string') return;
        const value = live.read(msg.body);
        // The socket's first message repeats what the read before it delivered.
        const key = JSON.stringify(value);
        if (key === lastDelivered) return;
        lastDelivered = key;
        deliver(value, null);
      } catch (e) {
        deliver(null, toTokenpadError(e));
      }
    });
    ws.addEventListener('close', () => {
      clearTimeout(handshake);
      if (socket !== ws) return;
      socket = null;
      clearInterval(pingTimer);
      const wasPushed = pushed;
      pushed = false;
      if (stopped) return;
      if (wasPushed) options.onLive?.(false);
      // Poll while the push channel is down; the next successful read tries the socket again
      // (after 1 s when it had worked, with a doubling backoff while it keeps failing).
      reconnectMs = wasPushed ? 1000 : Math.min(reconnectMs * 2, MAX_RECONNECT_MS);
      clearTimeout(pollTimer);
      void poll();
    });
  };

  const handle: Watch = {
    stop() {
      if (stopped) return;
      stopped = true;
      reads.abort();
      clearTimeout(pollTimer);
      clearTimeout(reconnectTimer);
      clearInterval(pingTimer);
      const ws = socket;
      socket = null;
      if (ws && ws.readyState <= 1) ws.close(1000);
    },
    get active() {
      return !stopped;
    },
    get live() {
      return pushed && !stopped;
    },
  };
  options.signal?.addEventListener('abort', () => handle.stop(), { once: true });
  if (options.signal?.aborted) handle.stop();
  else void poll();
  return handle;
}
