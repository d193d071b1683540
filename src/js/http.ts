// The HTTP of both clients (browser and server): `fetch` with a timeout and the caller's
// `signal`, retries with exponential backoff and jitter for network errors, 429 and 503
// (waiting what `Retry-After` says when the service says it), the request id and the service
// clock read from every answer, and `readJson`: an answer read exactly (json.ts) into its
// result or a TokenpadError. No wasm here: the server client uses it as it is.
import { noteServiceTime } from './clock.js';
import { TokenpadError } from './errors.js';
import { parseExact } from './json.js';

/** Per-call options of every client method. */
export interface CallOptions {
  /** Aborts the call (and its retries): it then fails with code `aborted`. */
  signal?: AbortSignal;
  /** Milliseconds one attempt may take (the client's `timeoutMs` by default). */
  timeoutMs?: number;
  /** Attempts after the first for network errors, 429 and 503 (the client's `retries`). */
  retries?: number;
  /**
   * A read that no cache on the way may answer: not the browser's HTTP cache, not the
   * service edge's kept copy (sent with `Cache-Control: no-cache`, which both honour; a
   * browser then asks CORS's preflight first). A public read may otherwise be up to 6 s old
   * (`max-age=1, stale-while-revalidate=5`). The browser client reads fresh by itself for 6 s
   * after a write it made.
   */
  fresh?: boolean;
}

/** What a client is configured with. */
export interface HttpConfig {
  baseUrl: string;
  timeoutMs: number;
  retries: number;
  /** The first retry waits about this long (doubling each time, with jitter). */
  retryDelayMs: number;
  /** No wait longer than this; a `Retry-After` beyond it is not waited for. */
  maxRetryDelayMs: number;
  fetch?: typeof fetch;
}

export interface HttpRequest {
  method: string;
  /** Path segments, each percent-encoded here. */
  path: readonly string[];
  /** A path (with its query) as the caller wrote it, used instead of `path` and `query`. */
  rawPath?: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** JSON text. */
  body?: string;
}

export interface HttpAnswer {
  status: number;
  text: string;
  requestId?: string;
  retryAfterMs?: number;
  replayed: boolean;
}

export const DEFAULTS = { timeoutMs: 10_000, retries: 2, retryDelayMs: 300, maxRetryDelayMs: 30_000 };

/** Checks a client's common options. */
export function httpConfig(options: Record<string, unknown>): HttpConfig {
  const base = typeof options.baseUrl === 'string' ? options.baseUrl.trim().replace(/\/+$/, '') : '';
  if (!/^https?:\/\/[^/?#\s]+[^?#\s]*$/i.test(base)) {
    throw new TokenpadError('invalid_options', `baseUrl must be an http(s) URL such as https://api.example.com, not ${JSON.stringify(options.baseUrl)}`);
  }
  const num = (name: string, fallback: number, min: number): number => {
    const v = options[name];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min) {
      throw new TokenpadError('invalid_options', `${name} must be a number of at least ${min}`);
    }
    return Math.round(v);
  };
  const f = options.fetch;
  if (f !== undefined && typeof f !== 'function') throw new TokenpadError('invalid_options', 'fetch must be a function');
  return {
    baseUrl: base,
    timeoutMs: num('timeoutMs', DEFAULTS.timeoutMs, 1),
    retries: num('retries', DEFAULTS.retries, 0),
    retryDelayMs: num('retryDelayMs', DEFAULTS.retryDelayMs, 0),
    maxRetryDelayMs: num('maxRetryDelayMs', DEFAULTS.maxRetryDelayMs, 0),
    fetch: f as typeof fetch | undefined,
  };
}

export function url(cfg: HttpConfig, req: HttpRequest): string {
  if (req.rawPath !== undefined) return cfg.baseUrl + (req.rawPath.startsWith('/') ? '' : '/') + req.rawPath;
  let u = cfg.baseUrl + req.path.map((s) => `/${encodeURIComponent(s)}`).join('');
  const q = Object.entries(req.query ?? {}).filter(([, v]) => v !== undefined && v !== '');
  if (q.length) u += `?${q.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&')}`;
  return u;
}

/** Seconds or an HTTP date, as milliseconds from now. */
function retryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const s = Number(value);
  if (Number.isFinite(s) && s >= 0) return Math.round(s * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function aborted(signal: AbortSignal): TokenpadError {
  return new TokenpadError('aborted', 'The call was aborted', { cause: signal.reason });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted(signal));
    const done = () => {
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(aborted(signal as AbortSignal));
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/** One attempt: the answer, or a network_error / timeout / aborted TokenpadError. */
async function attempt(cfg: HttpConfig, req: HttpRequest, timeoutMs: number, signal?: AbortSignal): Promise<HttpAnswer> {
  if (signal?.aborted) throw aborted(signal);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  const sentAt = Date.now();
  try {
    const doFetch = cfg.fetch ?? globalThis.fetch;
    const res = await doFetch(url(cfg, req), {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: controller.signal,
    });
    const text = await res.text();
    const service = Number(res.headers.get('x-service-time'));
    if (service > 0) noteServiceTime(service, sentAt, Date.now());
    return {
      status: res.status,
      text,
      requestId: res.headers.get('x-request-id') ?? undefined,
      retryAfterMs: retryAfter(res.headers.get('retry-after')),
      replayed: res.headers.get('idempotent-replayed') === 'true',
    };
  } catch (e) {
    if (signal?.aborted) throw aborted(signal);
    if (timedOut) throw new TokenpadError('timeout', `No answer from ${cfg.baseUrl} within ${timeoutMs} ms`);
    const why = e instanceof Error && e.message ? `: ${e.message}` : '';
    throw new TokenpadError('network_error', `Could not reach ${cfg.baseUrl}${why}`, { cause: e });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Sends `req`, retrying network errors, 429 and 503 with backoff (the same request each time:
 * a mutating call's Idempotency-Key in `req.headers` is reused, so the service runs it once).
 * Resolves with the last answer, whatever its status; rejects only when no answer arrived.
 */
export async function send(cfg: HttpConfig, req: HttpRequest, opts: CallOptions = {}): Promise<HttpAnswer> {
  const retries = opts.retries ?? cfg.retries;
  const timeoutMs = opts.timeoutMs ?? cfg.timeoutMs;
  for (let n = 0; ; n++) {
    let answer: HttpAnswer | undefined;
    let failure: TokenpadError | undefined;
    try {
      answer = await attempt(cfg, req, timeoutMs, opts.signal);
    } catch (e) {
      failure = e as TokenpadError;
      if (failure.code !== 'network_error') throw failure;
    }
    const retryable = failure !== undefined || answer?.status === 429 || answer?.status === 503;
    if (!retryable || n >= retries) {
      if (failure) throw failure;
      return answer as HttpAnswer;
    }
    const backoff = Math.min(cfg.maxRetryDelayMs, cfg.retryDelayMs * 2 ** n) * (0.5 + Math.random() / 2);
    const wait = answer?.retryAfterMs ?? backoff;
    if (wait > cfg.maxRetryDelayMs) return answer as HttpAnswer;
    await sleep(wait, opts.signal);
  }
}

/**
 * An answer read exactly (json.ts: every amount an exact decimal string): a 2xx JSON body is
 * the result; a 2xx that is not JSON throws `invalid_response`; any other status throws the
 * service's error (its `code`, `message`, `details`) when the body is one, else `http_error`.
 * Every error carries the status and request id (and the non-2xx ones `Retry-After`).
 */
export function readJson<T>(answer: HttpAnswer): T {
  let parsed: unknown;
  try {
    parsed = answer.text ? parseExact(answer.text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (answer.status >= 200 && answer.status < 300) {
    if (parsed === undefined) {
      throw new TokenpadError('invalid_response', `The service's answer is not JSON (HTTP ${answer.status})`, { status: answer.status, requestId: answer.requestId });
    }
    return parsed as T;
  }
  const e = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const serviceError = typeof e.code === 'string' && e.code !== '';
  throw new TokenpadError(serviceError ? (e.code as string) : 'http_error',
    serviceError && typeof e.message === 'string' && e.message ? e.message : `HTTP ${answer.status}`, {
      status: answer.status,
      details: serviceError && typeof e.details === 'object' && e.details !== null ? (e.details as Record<string, unknown>) : undefined,
      requestId: answer.requestId,
      retryAfterMs: answer.retryAfterMs,
    });
}

/** True in a browser page or a browser worker, where a secret key must never be. */
export function inBrowser(): boolean {
  const g = globalThis as Record<string, unknown>;
  return typeof g.document === 'object' || typeof g.DedicatedWorkerGlobalScope === 'function' ||
    typeof g.SharedWorkerGlobalScope === 'function';
}

/** A fresh idempotency key. */
export function newIdempotencyKey(): string {
  const c = (globalThis as { crypto?: Crypto }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  const b = new Uint8Array(16);
  if (c?.getRandomValues) c.getRandomValues(b);
  else for (let i = 0; i < 16; i++) b[i] = Math.floor(Math.random() * 256);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
