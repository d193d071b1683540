// @tokenpad/client/metal: the class, static constructors, method names, argument shapes and
// return types of Metal's SDK (`@0xmetropolis/metal-sdk`), over tokenpad. An app that vendored
// Metal's SDK switches by changing its import; where it runs is an optional base URL (the
// `baseUrl` option, else the TOKENPAD_URL environment variable, else a local run's
// http://127.0.0.1:8787). Written for tokenpad from Metal's documented API: no code of the SDK.
//
// What it adds to Metal's SDK, never changing what code written for it sees: requests that
// change state carry an Idempotency-Key (reused on retries, so a retried spend is spent once);
// network errors, 429 and 503 are retried with backoff; an error is a TokenpadError (an
// `Error`, with Metal's message `Metal API error: ...`, plus the service's code, status,
// details with exact amounts, and request id); a secret key is refused in a browser.
//
// Answers keep Metal's types: amounts are JavaScript numbers, as Metal's SDK gives them (its
// `response.json()`). For exact amounts (decimal strings) use `@tokenpad/client/server`.
import { TokenpadError } from './errors.js';
import { httpConfig, inBrowser, newIdempotencyKey, readJson, send, type HttpConfig } from './http.js';

export { TokenpadError, isTokenpadError } from './errors.js';

/** Where a client sends its requests when no `baseUrl` is given and TOKENPAD_URL is unset. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787';

export type Address = `0x${string}`;
export type Hex = `0x${string}`;

/** A token (`GET /token/:address`, `GET /merchant/all-tokens`, a job's `data`). */
export interface TokenData {
  id: Address;
  address: Address;
  name: string;
  symbol: string;
  totalSupply: number;
  startingAppSupply: number;
  remainingAppSupply: number;
  merchantSupply?: number;
  merchantAddress?: Address;
  price: number | null;
  holders: TokenHolder[];
}

/** One of a token's holders. */
export interface TokenHolder {
  id: Address;
  address: Address;
  balance: number;
  value: number;
}

/** A holder's wallet (`PUT /holder/:id`, `GET /holder/:id`). */
export interface HolderData {
  id: string;
  address: Address;
  tokens: TokenInfo[];
  totalValue: number;
}

/** One token in a holder's wallet. */
export interface TokenInfo {
  id: string;
  address: string;
  name: string;
  symbol: string;
  balance: number;
  value: number;
}

/** `distribute`'s body: exactly one recipient, by address or by holder id. */
export interface DistributeRequest {
  tokenAddress?: Address;
  /** Whole tokens: a number, or a decimal string for an exact amount. */
  amount: number | string;
  sendToAddress?: Address;
  sendToId?: string;
}

/** `spend` and `withdraw`'s body (`withdraw` needs `toAddress`). */
export interface SpendRequest {
  tokenAddress: string;
  amount: number | string;
  toAddress?: string;
}

/** `createToken`'s body. Everything but name and symbol has a default (canLP: on). */
export interface CreateTokenRequest {
  name: string;
  symbol: string;
  network?: 'base' | 'base-sepolia' | 'sepolia';
  merchantAddress?: string;
  canAirdrop?: boolean;
  canDistribute?: boolean;
  canLP?: boolean;
}

/** `createLP`'s body: the price (USD per token) the pool opens at, as a decimal string. */
export interface CreateLPRequest {
  tokenAddress?: Address;
  initialStartingPrice?: string;
}

/** A token job (`createToken`, `getTokenStatus`; `createLP` answers at once with `success`). */
export interface TokenJobResponse {
  jobId: string;
  status: 'success' | 'pending' | 'failed' | 'stuck';
  data: TokenData;
}

/** `spend` and `withdraw`'s answer. */
export interface SpendResponse {
  success: boolean;
  transactionHash?: Hex;
}

/** `getTokenBalance`'s answer. */
export interface TokenBalanceResponse {
  name: string;
  symbol: string;
  id: string;
  address: string;
  balance: number;
  value?: number | null;
}

export interface PendingTokenResponse {
  id: string;
  status: 'pending';
  transactionHash?: Hex;
}

export interface SuccessfulTokenResponse {
  id: string;
  status: 'success';
  tokenAddress: Address;
  transactionHash: Hex;
  metalBuildUrl: string;
  uniswapUrl: string;
  lpInfo?: { nftId: string; liquidityPoolAddress: Address };
}

export interface FailedTokenResponse {
  id: string;
  status: 'failed';
  error: string;
}

export interface StuckTokenResponse {
  id: string;
  status: 'stuck';
  error: string;
}

export type TokenStatusResponse = PendingTokenResponse | SuccessfulTokenResponse | FailedTokenResponse | StuckTokenResponse;

/** `POST /token/:address/reward`'s answer (tokenpad's embedded chain has no `txUrl`). */
export interface TokenRewardResponse {
  name: string;
  symbol: string;
  tokenAddress: Address;
  txHash: Hex;
  txUrl?: string;
  amount: number;
  recipient: Address;
  rewardsBalance: number;
}

/** Where and how a client connects: everything but the keys is optional. */
export interface MetalClientOptions {
  /** tokenpad's base URL (default: TOKENPAD_URL from the environment, else DEFAULT_BASE_URL). */
  baseUrl?: string;
  /** Milliseconds each attempt may take (default 10000). */
  timeoutMs?: number;
  /** Retries of network errors, 429 and 503, with backoff (default 2). */
  retries?: number;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
}

/** Metal's configuration (a public key, a secret key, or both), with the options above. */
export interface MetalConfig extends MetalClientOptions {
  publicKey?: string;
  secretKey?: string;
}

/** Request options of `fetchPublic` / `fetchSecret`: what Metal's SDK passes to fetch. */
export interface MetalRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

function environmentUrl(): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const v = env?.TOKENPAD_URL?.trim();
  return v ? v : undefined;
}

function keyOf(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new TokenpadError('invalid_options', `${name} must be a string`);
  return value.trim() || undefined;
}

/** The HTTP of Metal's SDK (its `MetalClient`): `fetchPublic` and `fetchSecret` on an endpoint. */
export class MetalClient {
  readonly #http: HttpConfig;
  readonly #publicKey: string | undefined;
  readonly #secretKey: string | undefined;

  constructor(config: MetalConfig) {
    if (typeof config !== 'object' || config === null) {
      throw new TokenpadError('invalid_options', 'config must be an object: { publicKey?, secretKey?, baseUrl? }');
    }
    this.#publicKey = keyOf(config.publicKey, 'publicKey');
    this.#secretKey = keyOf(config.secretKey, 'secretKey');
    if (this.#publicKey?.toLowerCase().startsWith('sk_')) {
      throw new TokenpadError('secret_key_refused', 'A secret key (sk_...) was given as the public key: use createSecretClient on a server');
    }
    if (this.#secretKey && inBrowser()) {
      throw new TokenpadError('browser_refused',
        'A Metal secret client holds a secret key and must run on a server, never in a browser: use createPublicClient there');
    }
    this.#http = httpConfig({ ...config, baseUrl: config.baseUrl ?? environmentUrl() ?? DEFAULT_BASE_URL });
  }

  static createPublicClient(publicKey: string, options?: MetalClientOptions): MetalClient {
    return new MetalClient({ ...options, publicKey });
  }

  static createSecretClient(secretKey: string, options?: MetalClientOptions): MetalClient {
    return new MetalClient({ ...options, secretKey });
  }

  /** The public key, when the client has one. */
  get publicKey(): string | undefined {
    return this.#publicKey;
  }

  /** The base URL requests go to, without a trailing slash. */
  get baseUrl(): string {
    return this.#http.baseUrl;
  }

  /** A public-key request (`x-api-key: pk_...`), safe in a browser. */
  async fetchPublic<T = unknown>(endpoint: string, options: MetalRequestInit = {}): Promise<T> {
    if (!this.#publicKey) throw new Error('Metal public API key is required for client-side requests');
    return this.#fetch(endpoint, options, this.#publicKey);
  }

  /** A secret-key request (`x-api-key: sk_...`), for servers only. */
  async fetchSecret<T = unknown>(endpoint: string, options: MetalRequestInit = {}): Promise<T> {
    if (!this.#secretKey) throw new Error('Metal secret API key is required for server-side requests');
    return this.#fetch(endpoint, options, this.#secretKey, true);
  }

  async #fetch<T>(endpoint: string, options: MetalRequestInit, key: string, json = false): Promise<T> {
    const method = (options.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = { ...options.headers, 'x-api-key': key, accept: 'application/json' };
    if (json) headers['content-type'] = 'application/json';
    if (['POST', 'PUT', 'PATCH'].includes(method) && !Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key')) {
      headers['idempotency-key'] = newIdempotencyKey();
    }
    const answer = await send(this.#http, { method, path: [], rawPath: endpoint, headers, body: options.body }, { signal: options.signal });
    if (answer.status >= 200 && answer.status < 300) {
      try {
        return JSON.parse(answer.text) as T;
      } catch {
        throw new TokenpadError('invalid_response', `Metal API error: the answer is not JSON (HTTP ${answer.status})`,
          { status: answer.status, requestId: answer.requestId });
      }
    }
    try {
      readJson(answer);
    } catch (e) {
      const err = e as TokenpadError;
      const message = err.code === 'http_error' ? 'Unknown error' : err.message;
      throw new TokenpadError(err.code, `Metal API error: ${message}`, {
        status: err.status, details: err.details, requestId: err.requestId, retryAfterMs: err.retryAfterMs,
      });
    }
    throw new TokenpadError('invalid_response', `Metal API error: HTTP ${answer.status}`, { status: answer.status });
  }
}

const seg = encodeURIComponent;

/** Merchant calls (Metal's `MerchantAPI`). */
export class MerchantAPI {
  readonly #c: MetalClient;
  constructor(client: MetalClient) {
    this.#c = client;
  }
  /** `POST /merchant/create-token`: `{ jobId, status: "pending" }`; follow it with getTokenStatus. */
  createToken(params: CreateTokenRequest): Promise<TokenJobResponse> {
    return this.#c.fetchSecret('/merchant/create-token', { method: 'POST', body: JSON.stringify(params) });
  }
  /** `GET /merchant/create-token/status/:jobId`. */
  getTokenStatus(jobId: string): Promise<TokenJobResponse> {
    return this.#c.fetchSecret(`/merchant/create-token/status/${seg(jobId)}`);
  }
  /** `GET /merchant/all-tokens`. */
  getAllTokens(): Promise<TokenData[]> {
    return this.#c.fetchSecret('/merchant/all-tokens');
  }
}

/** Token calls (Metal's `TokenAPI`). */
export class TokenAPI {
  readonly #c: MetalClient;
  constructor(client: MetalClient) {
    this.#c = client;
  }
  /** `GET /token/:address` (secret key). */
  getToken(address: string): Promise<TokenData> {
    return this.#c.fetchSecret(`/token/${seg(address)}`);
  }
  /** `POST /token/:address/distribute`. */
  distribute(tokenAddress: string, params: DistributeRequest): Promise<{ success: boolean }> {
    return this.#c.fetchSecret(`/token/${seg(tokenAddress)}/distribute`, { method: 'POST', body: JSON.stringify(params) });
  }
  /** `POST /token/:address/liquidity`: opens the pool at once (`status: "success"`, no job to poll). */
  createLP(tokenAddress: string, params: CreateLPRequest = {}): Promise<TokenJobResponse> {
    return this.#c.fetchSecret(`/token/${seg(tokenAddress)}/liquidity`, { method: 'POST', body: JSON.stringify(params) });
  }
}

/** Holder calls (Metal's `HolderAPI`). */
export class HolderAPI {
  readonly #c: MetalClient;
  constructor(client: MetalClient) {
    this.#c = client;
  }
  /** `PUT /holder/:id`: the holder, created the first time. */
  getOrCreateHolder(holderId: string): Promise<HolderData> {
    return this.#c.fetchSecret(`/holder/${seg(holderId)}`, { method: 'PUT' });
  }
  /** The name of `getOrCreateHolder` in Metal's SDK before 0.1 (the same call). */
  createHolder(holderId: string): Promise<HolderData> {
    return this.getOrCreateHolder(holderId);
  }
  /** `GET /holder/:id?publicKey=` (public key). */
  async getHolder(holderId: string): Promise<HolderData> {
    const key = this.#c.publicKey;
    if (!key) throw new Error('Public key is required for this operation');
    return this.#c.fetchPublic(`/holder/${seg(holderId)}?publicKey=${seg(key)}`);
  }
  /** `GET /holder/:id/token/:tokenAddress` (public key; the id may be the holder's address). */
  getTokenBalance(holderId: string, tokenAddress: string): Promise<TokenBalanceResponse> {
    return this.#c.fetchPublic(`/holder/${seg(holderId)}/token/${seg(tokenAddress)}`);
  }
  /** `POST /holder/:id/spend`: the holder's tokens to the merchant. */
  spend(holderId: string, params: SpendRequest): Promise<SpendResponse> {
    return this.#c.fetchSecret(`/holder/${seg(holderId)}/spend`, { method: 'POST', body: JSON.stringify(params) });
  }
  /** `POST /holder/:id/withdraw`: out of custody, to `toAddress`. */
  withdraw(holderId: string, params: SpendRequest): Promise<SpendResponse> {
    return this.#c.fetchSecret(`/holder/${seg(holderId)}/withdraw`, { method: 'POST', body: JSON.stringify(params) });
  }
}

/**
 * Metal's SDK class: `Metal.createSecretClient(key)` on a server, `Metal.createPublicClient(key)`
 * in a browser, each with an optional `{ baseUrl }`. Every call is also reachable through
 * `merchant`, `token` and `holder`, as earlier versions of the SDK had them.
 */
export class Metal {
  readonly client: MetalClient;
  readonly merchant: MerchantAPI;
  readonly token: TokenAPI;
  readonly holder: HolderAPI;

  constructor(config: MetalConfig) {
    this.client = new MetalClient(config);
    this.merchant = new MerchantAPI(this.client);
    this.token = new TokenAPI(this.client);
    this.holder = new HolderAPI(this.client);
  }

  static createPublicClient(publicKey: string, options?: MetalClientOptions): Metal {
    return new Metal({ ...options, publicKey });
  }

  static createSecretClient(secretKey: string, options?: MetalClientOptions): Metal {
    return new Metal({ ...options, secretKey });
  }

  createToken(params: CreateTokenRequest): Promise<TokenJobResponse> {
    return this.merchant.createToken(params);
  }
  getTokenStatus(jobId: string): Promise<TokenJobResponse> {
    return this.merchant.getTokenStatus(jobId);
  }
  getAllTokens(): Promise<TokenData[]> {
    return this.merchant.getAllTokens();
  }
  getToken(address: string): Promise<TokenData> {
    return this.token.getToken(address);
  }
  distribute(tokenAddress: string, params: DistributeRequest): Promise<{ success: boolean }> {
    return this.token.distribute(tokenAddress, params);
  }
  createLP(tokenAddress: string, params?: CreateLPRequest): Promise<TokenJobResponse> {
    return this.token.createLP(tokenAddress, params);
  }
  getOrCreateHolder(holderId: string): Promise<HolderData> {
    return this.holder.getOrCreateHolder(holderId);
  }
  getHolder(holderId: string): Promise<HolderData> {
    return this.holder.getHolder(holderId);
  }
  getTokenBalance(holderId: string, tokenAddress: string): Promise<TokenBalanceResponse> {
    return this.holder.getTokenBalance(holderId, tokenAddress);
  }
  spend(holderId: string, params: SpendRequest): Promise<SpendResponse> {
    return this.holder.spend(holderId, params);
  }
  withdraw(holderId: string, params: SpendRequest): Promise<SpendResponse> {
    return this.holder.withdraw(holderId, params);
  }
}
