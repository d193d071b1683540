// @tokenpad/client/server: the secret-key API for merchants' servers and edge workers. Plain
// HTTP in TypeScript, no wasm: nothing here reaches the browser package's download. Requests
// and answers are typed from the Rust types (generated/api.d.ts); answers are read exactly
// (json.ts: every amount an exact decimal string). Each method calls its route by operationId:
// the method, path and whether it writes come from the route's declaration in Rust
// (generated/routes.ts). Every call to a route that writes sends an Idempotency-Key (generated
// unless given) and reuses it on its retries, so a retried spend is spent once. Refuses to be
// constructed in a browser: the secret key must stay on a server.
import { TokenpadError } from './errors.js';
import type {
  AirdropRequest, BuyPresaleRequest, BuyPresaleResult, CreatePresaleRequest, CreateTokenAccepted,
  CreateTokenRequest, CreateWebhookRequest, Delivery, DeliveryPage, DeploymentCreated, DeploymentStatus,
  DistributeRequest, DistributeResult, Event, EventPage, EventType, Job, LedgerResult, MemecoinRequest,
  ResolveResult, SendRequest, SpendRequest, TxPage, TxRecord, UpdateWebhookRequest, Webhook, WebhookCreated,
  WebhookDeleted, CreateSessionRequest, SessionCreated, SessionsRevoked, MerchantSettings, PatchSettingsRequest,
  ApiKey, ApiKeyList, ApiKeyCreated, ApiKeyRolled, CreateKeyRequest, RollKeyRequest,
} from './generated/api.js';
import type { HolderFull, Presale, PresaleMerchant, Token, TokenBalance } from './generated/wire.js';
import { httpConfig, inBrowser, newIdempotencyKey, readJson, send, type CallOptions, type HttpConfig } from './http.js';
import { ROUTES, type OperationId } from './generated/routes.js';

export type * from './generated/api.js';
export type * from './generated/wire.js';
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
  secretKey: string;
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

/** Options of a call that changes state. */
export interface MutationOptions extends CallOptions {
  /** The Idempotency-Key (1 to 255 characters); a fresh one when absent, reused on retries. */
  idempotencyKey?: string;
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

/** What a call sends besides its path: the query, the JSON body, and the call's options. */
type CallInit = { query?: Record<string, string | number | undefined>; body?: unknown } & MutationOptions;

/** A declared path's parameters (`/holder/:holder/token/:tokenAddress`: two strings), in order. */
type PathParams<P extends string> = P extends `${string}:${string}/${infer Rest}`
  ? [string, ...PathParams<`/${Rest}`>]
  : P extends `${string}:${string}` ? [string] : [];

export class TokenpadServer {
  readonly #http: HttpConfig;
  readonly #key: string;

  constructor(options: TokenpadServerOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new TokenpadError('invalid_options', 'options must be an object: { baseUrl, secretKey }');
    }
    if (inBrowser() && options.dangerouslyAllowBrowser !== true) {
      throw new TokenpadError('browser_refused',
        'TokenpadServer holds a secret key and must run on a server, never in a browser: use TokenpadClient with the public key there');
    }
    const key = typeof options.secretKey === 'string' ? options.secretKey.trim() : '';
    if (!key.startsWith('sk_')) {
      throw new TokenpadError('invalid_options', 'secretKey must be the merchant secret key (sk_...)');
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
   * by `params` in order; an Idempotency-Key exactly when the route writes.
   */
  #call<Id extends OperationId, T>(id: Id, params: PathParams<(typeof ROUTES)[Id]['path']>, init: CallInit = {}): Promise<T> {
    const route = ROUTES[id];
    const values: readonly string[] = params;
    let next = 0;
    const path = route.path.split('/').filter((s) => s !== '').map((s) => (s.startsWith(':') ? values[next++] : s));
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

  // Tokens and jobs ---------------------------------------------------------------------

  /** `POST /merchant/create-token`: starts a token's deployment; `waitForJob` follows it. */
  createToken(req: CreateTokenRequest, opts?: MutationOptions): Promise<CreateTokenAccepted> {
    return this.#call('createToken', [], { ...opts, body: req });
  }

  /** `GET /jobs/:jobId`. */
  getJob(jobId: string, opts?: CallOptions): Promise<Job> {
    return this.#call('getJob', [jobId], opts);
  }

  /** Reads the job every `intervalMs` (default 1000) until it succeeds (its token) or fails (throws `job_failed`). */
  async waitForJob(jobId: string, opts: CallOptions & { intervalMs?: number; timeoutMs?: number } = {}): Promise<Token> {
    const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
    for (;;) {
      const job = await this.getJob(jobId, { signal: opts.signal, retries: opts.retries });
      if (job.status === 'success' && job.data) return job.data;
      if (job.status === 'failed') throw new TokenpadError('job_failed', job.error ?? `job ${jobId} failed`);
      if (Date.now() > deadline) throw new TokenpadError('timeout', `job ${jobId} still ${job.status}`);
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 1000));
      if (opts.signal?.aborted) throw new TokenpadError('aborted', 'The call was aborted', { cause: opts.signal.reason });
    }
  }

  /** `GET /token/:tokenAddress` (at most `holdersLimit` holders, default 100). */
  getToken(tokenAddress: string, opts: CallOptions & { holdersLimit?: number } = {}): Promise<Token> {
    return this.#call('getToken', [tokenAddress], { ...opts, query: { holdersLimit: opts.holdersLimit } });
  }

  /** `GET /merchant/all-tokens`. */
  allTokens(opts?: CallOptions): Promise<Token[]> {
    return this.#call('listTokens', [], opts);
  }

  /** `PATCH /merchant/token/:tokenAddress`: Reward Allocation on or off. */
  setRewardAllocation(tokenAddress: string, canDistribute: boolean, opts?: MutationOptions): Promise<Token> {
    return this.#call('patchToken', [tokenAddress], { ...opts, body: { canDistribute } });
  }

  // Holders and the ledger ----------------------------------------------------------------

  /** `PUT /holder/:userId`: the holder, created on first call (the same userId, the same wallet). */
  putHolder(userId: string, opts?: MutationOptions): Promise<HolderFull> {
    return this.#call('putHolder', [userId], opts);
  }

  /** `GET /holder/:userId`. */
  getHolder(userId: string, opts?: CallOptions): Promise<HolderFull> {
    return this.#call('getHolder', [userId], opts);
  }

  /** `GET /holder/:userIdOrAddress/token/:tokenAddress`. */
  getHolderTokenBalance(userIdOrAddress: string, tokenAddress: string, opts?: CallOptions): Promise<TokenBalance> {
    return this.#call('getHolderTokenBalance', [userIdOrAddress, tokenAddress], opts);
  }

  /** `POST /token/:tokenAddress/distribute`: from the app supply to a holder (`sendToId` or `sendToAddress`). */
  distribute(tokenAddress: string, req: DistributeRequest, opts?: MutationOptions): Promise<DistributeResult> {
    return this.#call('distribute', [tokenAddress], { ...opts, body: req });
  }

  /** `POST /holder/:userId/spend`: the holder's tokens to the merchant. */
  spend(userId: string, req: SpendRequest, opts?: MutationOptions): Promise<LedgerResult> {
    return this.#call('spend', [userId], { ...opts, body: req });
  }

  /** `POST /holder/:userId/transfer`: to another address. */
  transfer(userId: string, req: SendRequest, opts?: MutationOptions): Promise<LedgerResult> {
    return this.#call('transfer', [userId], { ...opts, body: req });
  }

  /** `POST /holder/:userId/withdraw`: out of custody to an external wallet. */
  withdraw(userId: string, req: SendRequest, opts?: MutationOptions): Promise<LedgerResult> {
    return this.#call('withdraw', [userId], { ...opts, body: req });
  }

  /** `GET /holder/:userId/transactions`: one page, newest first. */
  transactions(userId: string, query: TransactionsQuery = {}, opts?: CallOptions): Promise<TxPage> {
    return this.#call('listHolderTransactions', [userId], { ...opts, query: { ...query } });
  }

  /** Every record of a holder's history, newest first, page after page (`for await`). */
  async *allTransactions(userId: string, query: Omit<TransactionsQuery, 'cursor'> = {}, opts?: CallOptions): AsyncGenerator<TxRecord, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.transactions(userId, { ...query, cursor }, opts);
      yield* page.data;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  // Presales ------------------------------------------------------------------------------

  /** `POST /merchant/presale`. */
  createPresale(req: CreatePresaleRequest, opts?: MutationOptions): Promise<Presale> {
    return this.#call('createPresale', [], { ...opts, body: req });
  }

  /** `GET /merchant/presales`: the merchant form, newest first. */
  listPresales(opts?: CallOptions): Promise<PresaleMerchant[]> {
    return this.#call('listPresales', [], opts);
  }

  /** `GET /merchant/presale/:presaleId`: the merchant form (completion steps included). */
  getPresale(presaleId: string, opts?: CallOptions): Promise<PresaleMerchant> {
    return this.#call('getMerchantPresale', [presaleId], opts);
  }

  /** `POST /holder/:userId/buy-presale`. */
  buyPresale(userId: string, req: BuyPresaleRequest, opts?: MutationOptions): Promise<BuyPresaleResult> {
    return this.#call('buyPresale', [userId], { ...opts, body: req });
  }

  /** `POST /merchant/presale/resolve`: launch now (70 % or more), or refund an ended presale. */
  resolvePresale(presaleId: string, opts?: MutationOptions): Promise<ResolveResult> {
    return this.#call('resolvePresale', [], { ...opts, body: { presaleId } });
  }

  // Events and webhooks -------------------------------------------------------------------

  /** `GET /merchant/events`: oldest first, after the event id `after`, only `types` if given. */
  events(query: { after?: string; types?: readonly (EventType | `${string}.*`)[]; limit?: number } = {}, opts?: CallOptions): Promise<EventPage> {
    return this.#call('listEvents', [], {
      ...opts, query: { after: query.after, types: query.types?.join(','), limit: query.limit },
    });
  }

  /** `GET /merchant/events/:eventId`. */
  getEvent(eventId: string, opts?: CallOptions): Promise<Event> {
    return this.#call('getEvent', [eventId], opts);
  }

  /** `POST /merchant/webhooks`: the answer's `secret` (whsec_...) is shown this once. */
  createWebhook(req: CreateWebhookRequest, opts?: MutationOptions): Promise<WebhookCreated> {
    return this.#call('createWebhook', [], { ...opts, body: req });
  }

  listWebhooks(opts?: CallOptions): Promise<Webhook[]> {
    return this.#call('listWebhooks', [], opts);
  }

  updateWebhook(webhookId: string, req: UpdateWebhookRequest, opts?: MutationOptions): Promise<Webhook> {
    return this.#call('updateWebhook', [webhookId], { ...opts, body: req });
  }

  deleteWebhook(webhookId: string, opts?: MutationOptions): Promise<WebhookDeleted> {
    return this.#call('deleteWebhook', [webhookId], opts);
  }

  /** `POST /merchant/webhooks/:webhookId/test`: a `webhook.ping` to this endpoint. */
  testWebhook(webhookId: string, opts?: MutationOptions): Promise<Delivery> {
    return this.#call('testWebhook', [webhookId], opts);
  }

  /** `GET /merchant/webhooks/:webhookId/deliveries`: newest first, with every attempt. */
  deliveries(webhookId: string, query: { cursor?: string; limit?: number } = {}, opts?: CallOptions): Promise<DeliveryPage> {
    return this.#call('listDeliveries', [webhookId], { ...opts, query });
  }

  /** Sends a delivery's event again (same event id) as a new delivery. */
  replayDelivery(webhookId: string, deliveryId: string, opts?: MutationOptions): Promise<Delivery> {
    return this.#call('replayDelivery', [webhookId, deliveryId], opts);
  }

  // Holder sessions -----------------------------------------------------------------------

  /**
   * `POST /holder/:userId/session`: a short-lived session token for that holder's browser
   * (`new TokenpadClient({ baseUrl, sessionToken })`), with its scopes (default `read`) and limits.
   */
  createSession(userId: string, req: CreateSessionRequest = {}, opts?: MutationOptions): Promise<SessionCreated> {
    return this.#call('createSession', [userId], { ...opts, body: req });
  }

  /** `DELETE /holder/:userId/sessions`: every live session token of the holder stops working. */
  revokeSessions(userId: string, opts?: MutationOptions): Promise<SessionsRevoked> {
    return this.#call('revokeSessions', [userId], opts);
  }

  /** `GET /merchant/settings`. */
  getSettings(opts?: CallOptions): Promise<MerchantSettings> {
    return this.#call('getSettings', [], opts);
  }

  /** `PATCH /merchant/settings`: `privateMode` (holder reads need a session token). */
  patchSettings(req: PatchSettingsRequest, opts?: MutationOptions): Promise<MerchantSettings> {
    return this.#call('patchSettings', [], { ...opts, body: req });
  }

  // API keys ------------------------------------------------------------------------------

  /** `GET /keys`: every key, without the keys themselves (last four characters, uses, status). */
  listKeys(opts?: CallOptions): Promise<ApiKeyList> {
    return this.#call('listKeys', [], opts);
  }

  /** `POST /keys`: a new secret key, its whole text in `apiKey` this once. */
  createKey(req: CreateKeyRequest, opts?: MutationOptions): Promise<ApiKeyCreated> {
    return this.#call('createKey', [], { ...opts, body: req });
  }

  /** `POST /keys/:keyId/roll`: a new key of the same kind; the old one works `graceHours` more (default 24). */
  rollKey(keyId: string, req: RollKeyRequest = {}, opts?: MutationOptions): Promise<ApiKeyRolled> {
    return this.#call('rollKey', [keyId], { ...opts, body: req });
  }

  /** `POST /keys/:keyId/revoke`: the key stops at once. */
  revokeKey(keyId: string, opts?: MutationOptions): Promise<ApiKey> {
    return this.#call('revokeKey', [keyId], opts);
  }

  // Templates -----------------------------------------------------------------------------

  /** `POST /template/memecoin`. */
  createMemecoin(req: MemecoinRequest, opts?: MutationOptions): Promise<DeploymentCreated> {
    return this.#call('createMemecoin', [], { ...opts, body: req });
  }

  /** `POST /template/airdrop`. */
  createAirdrop(req: AirdropRequest, opts?: MutationOptions): Promise<DeploymentCreated> {
    return this.#call('createAirdrop', [], { ...opts, body: req });
  }

  /** `GET /template/memecoin/status/:id`. */
  memecoinStatus(id: string, opts?: CallOptions): Promise<DeploymentStatus> {
    return this.#call('getMemecoinStatus', [id], opts);
  }

  /** `GET /template/airdrop/status/:id`. */
  airdropStatus(id: string, opts?: CallOptions): Promise<DeploymentStatus> {
    return this.#call('getAirdropStatus', [id], opts);
  }
}
