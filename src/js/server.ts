// @tokenpad/client/server: the secret-key API for merchants' servers and edge workers. Plain
// HTTP in TypeScript, no wasm: nothing here reaches the browser package's download. Requests
// and answers are typed from the Rust types (generated/api.d.ts); answers are read exactly
// (json.ts: every amount an exact decimal string). Every operation the document declares for
// a merchant's key has its method, named by its operationId and generated from the route's
// declaration in Rust and its operation in openapi.json (generated/methods.ts): the method,
// path and whether it writes come from the declaration (generated/routes.ts). Every call to a
// route that writes sends an Idempotency-Key (generated unless given) and reuses it on its
// retries, so a retried spend is spent once. What is written here by hand: the transport,
// the helpers that combine calls (waitForJob, allTransactions, setRewardAllocation), and the
// names of earlier releases, kept as deprecated aliases. Refuses to be constructed in a
// browser: the secret key must stay on a server.
import { TokenpadError } from './errors.js';
import type { EventPage, EventType, Job, ResolvePresaleRequest, ResolveResult, DeliveryPage, DeploymentStatus, TxPage, TxRecord } from './generated/api.js';
import type { Token } from './generated/wire.js';
import { httpConfig, inBrowser, newIdempotencyKey, readJson, send, type CallOptions, type HttpConfig } from './http.js';
import { ROUTES, type OperationId } from './generated/routes.js';
import { Operations, type CallInit, type MutationOptions } from './generated/methods.js';

export type * from './generated/api.js';
export type * from './generated/wire.js';
export type { MutationOptions, CallInit } from './generated/methods.js';
export type { OperationId } from './generated/routes.js';
export { TokenpadError, isTokenpadError } from './errors.js';
export type { TokenpadErrorCode, ClientErrorCode } from './errors.js';
export type { CallOptions } from './http.js';
export { serviceNow } from './clock.js';
export { verifyWebhook } from './webhook.js';
export type { VerifyWebhookOptions } from './webhook.js';

export interface TokenpadServerOptions {
  /** The service's base URL. */
  baseUrl: string;
  /** The merchant's secret key (`sk_...`), sent in the `x-api-key` header only. */
  secretKey?: string;
  /**
   * Instead of `secretKey`: a secret key, or the dashboard's short-lived browser credential
   * (`dt_...`, from `POST /account/merchants/:merchantId/token`), sent exactly like a secret
   * key. A `dt_` credential may be used in a browser (it is derived from a login session and
   * expires in minutes); a secret key may not.
   */
  apiKey?: string;
  /** Milliseconds each attempt may take (default 10000). */
  timeoutMs?: number;
  /** Retries of network errors, 429 and 503, with backoff (default 2). */
  retries?: number;
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  fetch?: typeof fetch;
  /** Construct in a browser anyway (tests with a fake DOM). Never ship a secret key to one. */
  dangerouslyAllowBrowser?: boolean;
}

/** Options of a transactions read. */
export interface TransactionsQuery {
  /** 1 to 200 (default 50). */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
  /** Only this token's records. */
  tokenAddress?: string;
}

export class TokenpadServer extends Operations {
  readonly #http: HttpConfig;
  readonly #key: string;

  constructor(options: TokenpadServerOptions) {
    super();
    if (typeof options !== 'object' || options === null) {
      throw new TokenpadError('invalid_options', 'options must be an object: { baseUrl, secretKey }');
    }
    const given = options.apiKey ?? options.secretKey;
    const key = typeof given === 'string' ? given.trim() : '';
    const dashboard = key.startsWith('dt_');
    if (inBrowser() && !dashboard && options.dangerouslyAllowBrowser !== true) {
      throw new TokenpadError('browser_refused',
        'TokenpadServer holds a secret key and must run on a server, never in a browser: use TokenpadClient with the public key there');
    }
    if (!key.startsWith('sk_') && !dashboard) {
      throw new TokenpadError('invalid_options', 'secretKey must be the merchant secret key (sk_...), or apiKey a dashboard credential (dt_...)');
    }
    this.#http = httpConfig(options as unknown as Record<string, unknown>);
    this.#key = key;
  }

  get baseUrl(): string {
    return this.#http.baseUrl;
  }

  /**
   * Any route, for what has no method yet: `path` is its segments (each percent-encoded here),
   * `body` is sent as JSON. A POST, PUT or PATCH gets an Idempotency-Key. Answers are read
   * exactly; a failure throws a TokenpadError with the service's code, status, message,
   * details and request id.
   */
  request<T>(method: string, path: readonly string[], init: CallInit = {}): Promise<T> {
    return this.#send<T>(method, path, ['POST', 'PUT', 'PATCH'].includes(method), init);
  }

  /**
   * The route declared under `id` (generated/routes.ts), its path's `:name` segments replaced
   * by `params` in order; an Idempotency-Key exactly when the route writes. Every generated
   * method (generated/methods.ts) sends through it.
   */
  protected call<T>(id: OperationId, params: readonly string[], init: CallInit = {}): Promise<T> {
    const route = ROUTES[id];
    let next = 0;
    const path = route.path.split('/').filter((s) => s !== '').map((s) => (s.startsWith(':') ? params[next++] : s));
    return this.#send<T>(route.method, path, route.writes, init);
  }

  async #send<T>(method: string, path: readonly string[], writes: boolean, init: CallInit): Promise<T> {
    const headers: Record<string, string> = { 'x-api-key': this.#key, accept: 'application/json' };
    if (writes) headers['idempotency-key'] = init.idempotencyKey ?? newIdempotencyKey();
    let body: string | undefined;
    if (init.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.body);
    }
    const answer = await send(this.#http, { method, path, query: init.query, headers, body }, init);
    return readJson<T>(answer);
  }

  // Helpers that combine calls ---------------------------------------------------------

  /** Reads the job every `intervalMs` (default 1000) until it succeeds (its token) or fails (throws `job_failed`). */
  async waitForJob(jobId: string, opts: CallOptions & { intervalMs?: number; timeoutMs?: number } = {}): Promise<Token> {
    const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
    for (;;) {
      const job: Job = await this.getJob(jobId, { signal: opts.signal, retries: opts.retries });
      if (job.status === 'success' && job.data) return job.data;
      if (job.status === 'failed') throw new TokenpadError('job_failed', job.error ?? `job ${jobId} failed`);
      if (Date.now() > deadline) throw new TokenpadError('timeout', `job ${jobId} still ${job.status}`);
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 1000));
      if (opts.signal?.aborted) throw new TokenpadError('aborted', 'The call was aborted', { cause: opts.signal.reason });
    }
  }

  /** `PATCH /merchant/token/:tokenAddress`: Reward Allocation on or off (`patchToken` with `{ canDistribute }`). */
  setRewardAllocation(tokenAddress: string, canDistribute: boolean, opts?: MutationOptions): Promise<Token> {
    return this.patchToken(tokenAddress, { canDistribute }, opts);
  }

  /** Every record of a holder's history, newest first, page after page (`for await`). */
  async *allTransactions(userId: string, query: Omit<TransactionsQuery, 'cursor'> = {}, opts?: CallOptions): AsyncGenerator<TxRecord, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page: TxPage = await this.listHolderTransactions(userId, { ...query, cursor }, opts);
      yield* page.data;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  // Signatures of earlier releases, still read ------------------------------------------

  /**
   * `GET /token/:tokenAddress`. Earlier releases took the call's options second, with
   * `holdersLimit` among them: a second argument holding options is still read so.
   */
  override getToken(tokenAddress: string, query: { holdersLimit?: number } & CallOptions = {}, opts?: CallOptions): Promise<Token> {
    const { holdersLimit, ...rest } = query;
    return super.getToken(tokenAddress, { holdersLimit }, { ...rest, ...opts });
  }

  /**
   * `POST /merchant/presale/resolve`: launch now (70 % or more), or refund an ended presale.
   * Earlier releases took the presale's id alone; still accepted.
   */
  override resolvePresale(body: ResolvePresaleRequest | string, opts?: MutationOptions): Promise<ResolveResult> {
    return super.resolvePresale(typeof body === 'string' ? { presaleId: body } : body, opts);
  }

  // Deprecated names: each is its operation's method under an earlier release's name ---------

  /** @deprecated Use `listTokens` (its operationId). */
  allTokens(opts?: CallOptions): Promise<Token[]> {
    return this.listTokens(opts);
  }

  /** @deprecated Use `listHolderTransactions` (its operationId). */
  transactions(userId: string, query: TransactionsQuery = {}, opts?: CallOptions): Promise<TxPage> {
    return this.listHolderTransactions(userId, query, opts);
  }

  /** @deprecated Use `listEvents` (its operationId), with `types` as one comma-separated string. */
  events(query: { after?: string; types?: readonly (EventType | `${string}.*`)[]; limit?: number } = {}, opts?: CallOptions): Promise<EventPage> {
    return this.listEvents({ after: query.after, types: query.types?.join(','), limit: query.limit }, opts);
  }

  /** @deprecated Use `listDeliveries` (its operationId). */
  deliveries(webhookId: string, query: { cursor?: string; limit?: number } = {}, opts?: CallOptions): Promise<DeliveryPage> {
    return this.listDeliveries(webhookId, query, opts);
  }

  /** @deprecated Use `getMemecoinStatus` (its operationId). */
  memecoinStatus(id: string, opts?: CallOptions): Promise<DeploymentStatus> {
    return this.getMemecoinStatus(id, opts);
  }

  /** @deprecated Use `getAirdropStatus` (its operationId). */
  airdropStatus(id: string, opts?: CallOptions): Promise<DeploymentStatus> {
    return this.getAirdropStatus(id, opts);
  }
}
