// TokenpadClient: reads tokenpad with the merchant's public key, safe in a browser. The HTTP
// is http.ts; each answer is read exactly by the wasm (`readAnswer`: amounts as decimal
// strings, the shape checked, the service's errors with their codes). With a holder's session
// token (`sessionToken`, made by the merchant's server with POST /holder/:userId/session) it
// also reads that holder in private mode, and acts for it within the token's scopes and limits
// (`buyPresale`, `transfer`, `spend`); those answers are read exactly by json.ts.
import { serviceNow } from './clock.js';
import { TokenpadError, toTokenpadError } from './errors.js';
import type {
  BuyPresaleRequest, BuyPresaleResult, LedgerResult, SendRequest, SessionInfo, SpendRequest, TxPage,
} from './generated/api.js';
import type { HolderFull, Presale, Token, TokenBalance } from './generated/wire.js';
import { send, httpConfig, newIdempotencyKey, readJson, type CallOptions, type HttpConfig } from './http.js';
import { SESSION_PROTOCOL, defaultWebSocket, tellPolling, watch, type Watch, type WatchCallback, type WatchOptions } from './live.js';
import { whenReady } from './ready.js';
import * as wasm from './wasm.js';

export type { CallOptions } from './http.js';
export type { Watch, WatchCallback, WatchOptions } from './live.js';

/** Options of `new TokenpadClient(...)`. */
export interface TokenpadClientOptions {
  /** The service's base URL, e.g. `https://api.example.com` or `location.origin`. */
  baseUrl: string;
  /** The merchant's public key (`pk_...`). A secret key (`sk_...`) is refused. */
  publicKey?: string;
  /** Milliseconds each attempt may take before failing with code `timeout` (default 10000). */
  timeoutMs?: number;
  /** Retries of network errors, 429 and 503, with backoff (default 2). */
  retries?: number;
  /** The first retry's delay in ms, doubling each time (default 300). */
  retryDelayMs?: number;
  /** The longest wait between retries (default 30000); a longer `Retry-After` is not waited for. */
  maxRetryDelayMs?: number;
  /**
   * A holder's session token (from your server's `POST /holder/:userId/session`), sent as
   * `Authorization: Bearer`: reads that holder (also in private mode) and buys into presales,
   * transfers and spends for it within the token's scopes and limits.
   */
  sessionToken?: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /**
   * A WebSocket constructor for live updates (default: the global one; in Node 20, which has
   * none, the `ws` package when it is installed; with neither, watches poll and say so once).
   */
  WebSocket?: typeof WebSocket;
}

type Kind = 'token' | 'holder' | 'balance' | 'presale';

/** Options of an action made with a session token. */
export interface ActionOptions extends CallOptions {
  /** The Idempotency-Key (1 to 255 characters); a fresh one when absent, reused on retries. */
  idempotencyKey?: string;
}

/** Options of a transactions read. */
export interface HistoryQuery {
  /** 1 to 200 (default 50). */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
  /** Only this token's records. */
  tokenAddress?: string;
}

function sessionTokenOf(token: unknown): string | undefined {
  if (token === undefined || token === null) return undefined;
  if (typeof token !== 'string') throw new TokenpadError('invalid_options', 'sessionToken must be a string');
  const t = token.trim();
  if (t.toLowerCase().startsWith('sk_')) {
    throw new TokenpadError('secret_key_refused', 'A secret key (sk_...) must never be used in a browser: pass a session token made by your server');
  }
  return t || undefined;
}

/**
 * How long a public answer may be kept (`max-age=1, stale-while-revalidate=5`): this client's
 * reads are fresh for that long after a write it made.
 */
const FRESH_AFTER_WRITE_MS = 6000;

export class TokenpadClient {
  readonly #http: HttpConfig;
  readonly #key: string | undefined;
  readonly #ws: typeof WebSocket | undefined;
  #session: string | undefined;
  /** When this client last sent a write (0: never). */
  #wroteAt = 0;

  /**
   * Throws a TokenpadError with code `secret_key_refused` for a secret key (`sk_...`),
   * `invalid_options` for a bad `baseUrl`, `timeoutMs` or `retries`.
   */
  constructor(options: TokenpadClientOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new TokenpadError('invalid_options', 'options must be an object: { baseUrl, publicKey, timeoutMs? }');
    }
    const key = options.publicKey;
    if (key !== undefined && key !== null && typeof key !== 'string') {
      throw new TokenpadError('invalid_options', 'publicKey must be a string');
    }
    const trimmed = key?.trim() || undefined;
    if (trimmed && trimmed.toLowerCase().startsWith('sk_')) {
      throw new TokenpadError('secret_key_refused', 'A secret key (sk_...) must never be used in a browser: pass the public key (pk_...)');
    }
    this.#http = httpConfig(options as unknown as Record<string, unknown>);
    this.#key = trimmed;
    this.#session = sessionTokenOf(options.sessionToken);
    this.#ws = options.WebSocket ?? defaultWebSocket();
  }

  /** The base URL, without a trailing slash. */
  get baseUrl(): string {
    return this.#http.baseUrl;
  }

  /** Milliseconds each attempt may take. */
  get timeoutMs(): number {
    return this.#http.timeoutMs;
  }

  /** The service's clock now (UNIX ms), learned from its answers: count down with it. */
  now(): number {
    return serviceNow();
  }

  /** Replaces the session token (a fresh one from your server when the last one expired). */
  setSessionToken(token: string | undefined): void {
    this.#session = sessionTokenOf(token);
  }

  #auth(): Record<string, string> {
    return this.#session ? { authorization: `Bearer ${this.#session}` } : {};
  }

  async #get<T>(kind: Kind, path: string[], opts?: CallOptions): Promise<T> {
    await whenReady();
    // Fresh when asked, and for a public answer's lifetime after a write this client made:
    // a read right after it must show it, not what a cache kept from before.
    const fresh = opts?.fresh ?? Date.now() - this.#wroteAt < FRESH_AFTER_WRITE_MS;
    const headers = fresh ? { ...this.#auth(), 'cache-control': 'no-cache' } : this.#auth();
    const answer = await send(this.#http, { method: 'GET', path, query: { publicKey: this.#key }, headers }, opts);
    if (answer.status < 200 || answer.status > 299) {
      // The service's error, its details read exactly (json.ts: amounts as decimal strings,
      // which the wasm's error, passed through JSON.parse, would round).
      readJson(answer);
    }
    try {
      return wasm.readAnswer(kind, answer.status, answer.text) as T;
    } catch (e) {
      throw toTokenpadError(e, { requestId: answer.requestId, retryAfterMs: answer.retryAfterMs });
    }
  }

  /** `GET /token/:address`: the token with its supply figures and top holders. */
  getToken(address: string, opts?: CallOptions): Promise<Token> {
    return this.#get('token', ['token', address], opts);
  }

  /** `GET /holder/:userId`: the holder's tokens, locks and presale positions. */
  getHolder(userId: string, opts?: CallOptions): Promise<HolderFull> {
    return this.#get('holder', ['holder', userId], opts);
  }

  /** `GET /holder/:userIdOrAddress/token/:tokenAddress`: one balance. */
  getHolderTokenBalance(userIdOrAddress: string, tokenAddress: string, opts?: CallOptions): Promise<TokenBalance> {
    return this.#get('balance', ['holder', userIdOrAddress, 'token', tokenAddress], opts);
  }

  /** `GET /token/presales/:presaleId`: the public form of the presale. */
  getPresale(presaleId: string, opts?: CallOptions): Promise<Presale> {
    return this.#get('presale', ['token', 'presales', presaleId], opts);
  }

  /**
   * Follows a presale: `callback(presale, null)` with its current state, then at every change,
   * pushed by the service over a WebSocket (`GET /live`); while the push channel is down (no
   * WebSocket, a proxy that refuses it, a lost connection) it reads every `intervalMs`
   * (default 5000) and reconnects with backoff. `callback(null, error)` on a failed read. Until
   * `stop()` (or the `signal` aborts). A number as third argument is `intervalMs`.
   */
  watchPresale(presaleId: string, callback: WatchCallback<Presale>, options?: number | WatchOptions): Watch {
    return this.#watch('presale', presaleId, callback, options, (o) => this.getPresale(presaleId, o));
  }

  /**
   * Follows a holder's wallet (`GET /holder/:userId`), as `watchPresale` follows a presale. A
   * client with a session token follows its own holder with it, pushed in private mode too;
   * when the session ends (expired, revoked) the service closes the socket and the next read
   * reports `session_expired` or `session_revoked`.
   */
  watchHolder(userId: string, callback: WatchCallback<HolderFull>, options?: number | WatchOptions): Watch {
    return this.#watch('holder', userId, callback, options, (o) => this.getHolder(userId, o));
  }

  #watch<T>(topic: 'presale' | 'holder', id: string, callback: WatchCallback<T>, options: number | WatchOptions | undefined,
    read: (o: CallOptions) => Promise<T>): Watch {
    const o: WatchOptions = typeof options === 'number' ? { intervalMs: options } : (options ?? {});
    const WS = this.#ws;
    if (!WS && o.live !== false) tellPolling();
    const live = WS && o.live !== false
      ? { open: () => this.#openLive(WS, topic, id), read: (body: string) => wasm.readAnswer(topic, 200, body) as T }
      : undefined;
    return watch(callback, o, read, live);
  }

  /**
   * A socket on `GET /live` following one topic, opened with the client's credential at the
   * time (a token set since is used at the next connect). A session token wins over the public
   * key, as on reads, and travels as the subprotocols `tokenpad-session, <token>`: browsers
   * cannot set headers on a WebSocket, and a token in the URL would land in logs.
   */
  #openLive(WS: typeof WebSocket, topic: string, id: string): WebSocket {
    const q = new URLSearchParams();
    if (this.#key && !this.#session) q.set('publicKey', this.#key);
    q.set(topic, id);
    const url = `${this.#http.baseUrl.replace(/^http/i, 'ws')}/live?${q}`;
    return this.#session ? new WS(url, [SESSION_PROTOCOL, this.#session]) : new WS(url);
  }

  /**
   * A session-token call, read exactly (json.ts); a refusal throws a TokenpadError with the
   * service's code (`insufficient_scope`, `session_limit_exceeded`, `session_expired`, ...).
   */
  async #act<T>(method: 'GET' | 'POST', path: string[], init: { body?: unknown; query?: Record<string, string | number | undefined> } & ActionOptions = {}): Promise<T> {
    if (!this.#session) {
      throw new TokenpadError('invalid_options', 'This call needs a session token: new TokenpadClient({ baseUrl, sessionToken })');
    }
    const headers: Record<string, string> = { ...this.#auth(), accept: 'application/json' };
    let body: string | undefined;
    if (method === 'POST') {
      headers['idempotency-key'] = init.idempotencyKey ?? newIdempotencyKey();
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.body ?? {});
    }
    // From its start (a read while it is on its way may land after it) to its end.
    if (method === 'POST') this.#wroteAt = Date.now();
    const answer = await send(this.#http, { method, path, query: init.query, headers, body }, init);
    if (method === 'POST') this.#wroteAt = Date.now();
    return readJson<T>(answer);
  }

  /** `GET /session` (session token): its holder, scopes, expiry, and what its limits still allow. */
  getSession(opts?: CallOptions): Promise<SessionInfo> {
    return this.#act('GET', ['session'], opts);
  }

  /** `GET /holder/:userId/transactions` (session token, `read`): the holder's history, newest first. */
  getTransactions(userId: string, query: HistoryQuery = {}, opts?: CallOptions): Promise<TxPage> {
    return this.#act('GET', ['holder', userId, 'transactions'], { ...opts, query: { ...query } });
  }

  /** `POST /holder/:userId/buy-presale` (session token, `buy-presale`): pays USDC into a presale. */
  buyPresale(userId: string, req: BuyPresaleRequest, opts?: ActionOptions): Promise<BuyPresaleResult> {
    return this.#act('POST', ['holder', userId, 'buy-presale'], { ...opts, body: req });
  }

  /** `POST /holder/:userId/transfer` (session token, `transfer`): sends tokens to an address. */
  transfer(userId: string, req: SendRequest, opts?: ActionOptions): Promise<LedgerResult> {
    return this.#act('POST', ['holder', userId, 'transfer'], { ...opts, body: req });
  }

  /** `POST /holder/:userId/spend` (session token, `spend`): spends tokens to the merchant. */
  spend(userId: string, req: SpendRequest, opts?: ActionOptions): Promise<LedgerResult> {
    return this.#act('POST', ['holder', userId, 'spend'], { ...opts, body: req });
  }

  /** Nothing to release (kept for code written against 0.1, whose client was a wasm object). */
  free(): void {}
}
