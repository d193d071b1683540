// Generated from the route declarations (crates/core/src/wire/<family>.rs, `ROUTES`) and
// openapi.json's operations by
//   cargo run -p tokenpad-core --features codegen --example codegen
// Do not edit: declare and document the route, then run that command.
import type { CallOptions } from '../http.js';
import type { AirdropRequest, ApiKey, ApiKeyCreated, ApiKeyList, ApiKeyRolled, BuyPresaleRequest, BuyPresaleResult, BuyRequest, CreateKeyRequest, CreateLiquidityRequest, CreatePresaleRequest, CreateSessionRequest, CreateTokenAccepted, CreateTokenRequest, CreateWebhookRequest, Delivery, DeliveryPage, DeploymentCreated, DeploymentStatus, DeploymentStatusRequest, DistributeRequest, DistributeResult, Event, EventPage, Job, LedgerResult, LiquidityCreated, MemecoinRequest, MerchantChain, MerchantSettings, ParkedWork, PatchSettingsRequest, PatchTokenRequest, Quote, ResolvePresaleRequest, ResolveResult, RewardResult, RollKeyRequest, SellRequest, SendRequest, SessionCreated, SessionsRevoked, SpendRequest, TradeResult, TxPage, UpdateWebhookRequest, Webhook, WebhookCreated, WebhookDeleted } from './api.js';
import type { OperationId } from './routes.js';
import type { HolderFull, Presale, PresaleMerchant, Token, TokenBalance } from './wire.js';

/** Options of a call that changes state. */
export interface MutationOptions extends CallOptions {
  /** The Idempotency-Key (1 to 255 characters); a fresh one when absent, reused on retries. */
  idempotencyKey?: string;
}

/** What a call sends besides its path: the query, the JSON body, and the call's options. */
export type CallInit = { query?: Record<string, string | number | boolean | undefined>; body?: unknown } & MutationOptions;

/**
 * Every operation the server client calls, one method each, named by its operationId in
 * openapi.json: the path's parameters in order, then the body or the query, then the
 * call's options. `TokenpadServer` sends them.
 */
export abstract class Operations {
  /** Sends operation `id` with its path's `params` (in order) and `init`. */
  protected abstract call<T>(id: OperationId, params: readonly string[], init: CallInit): Promise<T>;

  /**
   * `POST /merchant/create-token`: Create a token (asynchronous job)
   */
  createToken(body: CreateTokenRequest, opts?: MutationOptions): Promise<CreateTokenAccepted> {
    return this.call('createToken', [], { ...opts, body });
  }

  /**
   * `GET /merchant/create-token/status/{jobId}`: Token creation job status (alias)
   */
  getCreateTokenStatus(jobId: string, opts?: CallOptions): Promise<Job> {
    return this.call('getCreateTokenStatus', [jobId], { ...opts });
  }

  /**
   * `GET /jobs/{jobId}`: Token creation job status
   */
  getJob(jobId: string, opts?: CallOptions): Promise<Job> {
    return this.call('getJob', [jobId], { ...opts });
  }

  /**
   * `PATCH /merchant/token/{tokenAddress}`: Switch Reward Allocation
   */
  patchToken(tokenAddress: string, body: PatchTokenRequest, opts?: MutationOptions): Promise<Token> {
    return this.call('patchToken', [tokenAddress], { ...opts, body });
  }

  /**
   * `GET /merchant/all-tokens`: List the merchant's tokens
   */
  listTokens(opts?: CallOptions): Promise<Token[]> {
    return this.call('listTokens', [], { ...opts });
  }

  /**
   * `GET /token/{tokenAddress}`: Read a token with its holders
   * @param query.holdersLimit Maximum holders returned.
   */
  getToken(tokenAddress: string, query: { holdersLimit?: number } = {}, opts?: CallOptions): Promise<Token> {
    return this.call('getToken', [tokenAddress], { ...opts, query: { holdersLimit: query.holdersLimit } });
  }

  /**
   * `PUT /holder/{userId}`: Get or create a holder
   */
  putHolder(userId: string, opts?: MutationOptions): Promise<HolderFull> {
    return this.call('putHolder', [userId], { ...opts });
  }

  /**
   * `GET /holder/{userId}`: Read a holder's balances
   */
  getHolder(userId: string, opts?: CallOptions): Promise<HolderFull> {
    return this.call('getHolder', [userId], { ...opts });
  }

  /**
   * `GET /holder/{holderAddressOrUserId}/token/{tokenAddress}`: One holder's balance of one token
   */
  getHolderTokenBalance(userIdOrAddress: string, tokenAddress: string, opts?: CallOptions): Promise<TokenBalance> {
    return this.call('getHolderTokenBalance', [userIdOrAddress, tokenAddress], { ...opts });
  }

  /**
   * `POST /token/{tokenAddress}/distribute`: Distribute tokens to a holder
   */
  distribute(tokenAddress: string, body: DistributeRequest, opts?: MutationOptions): Promise<DistributeResult> {
    return this.call('distribute', [tokenAddress], { ...opts, body });
  }

  /**
   * `POST /token/{tokenAddress}/reward`: Reward a holder (Metal's example app)
   */
  reward(tokenAddress: string, body: DistributeRequest, opts?: MutationOptions): Promise<RewardResult> {
    return this.call('reward', [tokenAddress], { ...opts, body });
  }

  /**
   * `POST /holder/{userId}/spend`: A holder spends tokens
   */
  spend(userId: string, body: SpendRequest, opts?: MutationOptions): Promise<LedgerResult> {
    return this.call('spend', [userId], { ...opts, body });
  }

  /**
   * `POST /holder/{userId}/transfer`: A holder transfers tokens
   */
  transfer(userId: string, body: SendRequest, opts?: MutationOptions): Promise<LedgerResult> {
    return this.call('transfer', [userId], { ...opts, body });
  }

  /**
   * `POST /holder/{userId}/withdraw`: A holder withdraws tokens out of custody
   */
  withdraw(userId: string, body: SendRequest, opts?: MutationOptions): Promise<LedgerResult> {
    return this.call('withdraw', [userId], { ...opts, body });
  }

  /**
   * `GET /holder/{userId}/transactions`: A holder's transaction history
   * @param query.limit Page size.
   * @param query.cursor `next_cursor` of the previous page (400 `invalid_cursor` for any other text).
   * @param query.tokenAddress Only records of this token.
   */
  listHolderTransactions(userId: string, query: { limit?: number; cursor?: string; tokenAddress?: string } = {}, opts?: CallOptions): Promise<TxPage> {
    return this.call('listHolderTransactions', [userId], { ...opts, query: { limit: query.limit, cursor: query.cursor, tokenAddress: query.tokenAddress } });
  }

  /**
   * `POST /merchant/presale`: Create a presale
   */
  createPresale(body: CreatePresaleRequest, opts?: MutationOptions): Promise<Presale> {
    return this.call('createPresale', [], { ...opts, body });
  }

  /**
   * `GET /merchant/presales`: List the merchant's presales, newest first
   */
  listPresales(opts?: CallOptions): Promise<PresaleMerchant[]> {
    return this.call('listPresales', [], { ...opts });
  }

  /**
   * `POST /merchant/presale/resolve`: Launch or refund a presale now
   */
  resolvePresale(body: ResolvePresaleRequest, opts?: MutationOptions): Promise<ResolveResult> {
    return this.call('resolvePresale', [], { ...opts, body });
  }

  /**
   * `POST /resolve-presale`: Launch or refund a presale now
   */
  resolvePresaleAlias(body: ResolvePresaleRequest, opts?: MutationOptions): Promise<ResolveResult> {
    return this.call('resolvePresaleAlias', [], { ...opts, body });
  }

  /**
   * `GET /merchant/presale/{presaleId}`: One presale, merchant form
   */
  getMerchantPresale(presaleId: string, opts?: CallOptions): Promise<PresaleMerchant> {
    return this.call('getMerchantPresale', [presaleId], { ...opts });
  }

  /**
   * `GET /token/presales/{presaleId}`: One presale, public form
   */
  getPresale(presaleId: string, opts?: CallOptions): Promise<Presale> {
    return this.call('getPresale', [presaleId], { ...opts });
  }

  /**
   * `POST /holder/{userId}/buy-presale`: A holder buys into a presale with USDC
   */
  buyPresale(userId: string, body: BuyPresaleRequest, opts?: MutationOptions): Promise<BuyPresaleResult> {
    return this.call('buyPresale', [userId], { ...opts, body });
  }

  /**
   * `POST /token/{tokenAddress}/liquidity`: Open the token's liquidity pool
   */
  createLiquidity(tokenAddress: string, body: CreateLiquidityRequest = {}, opts?: MutationOptions): Promise<LiquidityCreated> {
    return this.call('createLiquidity', [tokenAddress], { ...opts, body });
  }

  /**
   * `POST /holder/{userId}/buy`: Buy tokens
   */
  buy(userId: string, body: BuyRequest, opts?: MutationOptions): Promise<TradeResult> {
    return this.call('buy', [userId], { ...opts, body });
  }

  /**
   * `POST /holder/{userId}/sell`: Sell tokens
   */
  sell(userId: string, body: SellRequest, opts?: MutationOptions): Promise<TradeResult> {
    return this.call('sell', [userId], { ...opts, body });
  }

  /**
   * `GET /holder/{userId}/buy/quote`: Quote a buy
   * @param query.tokenAddress The token.
   * @param query.usdcAmount USDC to spend (whole units, a decimal).
   * @param query.tokenAmount Tokens to buy exactly (whole units, a decimal).
   */
  buyQuote(userId: string, query: { tokenAddress: string; usdcAmount?: string; tokenAmount?: string }, opts?: CallOptions): Promise<Quote> {
    return this.call('buyQuote', [userId], { ...opts, query: { tokenAddress: query.tokenAddress, usdcAmount: query.usdcAmount, tokenAmount: query.tokenAmount } });
  }

  /**
   * `GET /holder/{userId}/sell/quote`: Quote a sell
   * @param query.tokenAddress The token.
   * @param query.tokenAmount Tokens to sell (whole units, a decimal).
   */
  sellQuote(userId: string, query: { tokenAddress: string; tokenAmount: string }, opts?: CallOptions): Promise<Quote> {
    return this.call('sellQuote', [userId], { ...opts, query: { tokenAddress: query.tokenAddress, tokenAmount: query.tokenAmount } });
  }

  /**
   * `POST /template/memecoin`: Deploy a memecoin
   */
  createMemecoin(body: MemecoinRequest, opts?: MutationOptions): Promise<DeploymentCreated> {
    return this.call('createMemecoin', [], { ...opts, body });
  }

  /**
   * `POST /template/airdrop`: Deploy an airdrop token
   */
  createAirdrop(body: AirdropRequest, opts?: MutationOptions): Promise<DeploymentCreated> {
    return this.call('createAirdrop', [], { ...opts, body });
  }

  /**
   * `GET /template/memecoin/status/{id}`: Memecoin deployment status
   */
  getMemecoinStatus(id: string, opts?: CallOptions): Promise<DeploymentStatus> {
    return this.call('getMemecoinStatus', [id], { ...opts });
  }

  /**
   * `GET /memecoin/status`: Memecoin deployment status (id in the query)
   * @param query.id Deployment id (missing: 400 `invalid_request`).
   */
  getMemecoinStatusByQuery(query: { id: string }, opts?: CallOptions): Promise<DeploymentStatus> {
    return this.call('getMemecoinStatusByQuery', [], { ...opts, query: { id: query.id } });
  }

  /**
   * `POST /memecoin/status`: Memecoin deployment status (id in the body)
   */
  postMemecoinStatus(body: DeploymentStatusRequest, opts?: CallOptions): Promise<DeploymentStatus> {
    return this.call('postMemecoinStatus', [], { ...opts, body });
  }

  /**
   * `GET /template/airdrop/status/{id}`: Airdrop deployment status
   */
  getAirdropStatus(id: string, opts?: CallOptions): Promise<DeploymentStatus> {
    return this.call('getAirdropStatus', [id], { ...opts });
  }

  /**
   * `GET /airdrop/status`: Airdrop deployment status (id in the query)
   * @param query.id Deployment id (missing: 400 `invalid_request`).
   */
  getAirdropStatusByQuery(query: { id: string }, opts?: CallOptions): Promise<DeploymentStatus> {
    return this.call('getAirdropStatusByQuery', [], { ...opts, query: { id: query.id } });
  }

  /**
   * `POST /airdrop/status`: Airdrop deployment status (id in the body)
   */
  postAirdropStatus(body: DeploymentStatusRequest, opts?: CallOptions): Promise<DeploymentStatus> {
    return this.call('postAirdropStatus', [], { ...opts, body });
  }

  /**
   * `POST /holder/{userId}/session`: Make a session token for a holder
   */
  createSession(userId: string, body: CreateSessionRequest = {}, opts?: MutationOptions): Promise<SessionCreated> {
    return this.call('createSession', [userId], { ...opts, body });
  }

  /**
   * `DELETE /holder/{userId}/sessions`: Revoke every session of a holder
   */
  revokeSessions(userId: string, opts?: MutationOptions): Promise<SessionsRevoked> {
    return this.call('revokeSessions', [userId], { ...opts });
  }

  /**
   * `GET /merchant/parked-work`: Scheduled work that kept failing and was set aside
   */
  listParkedWork(opts?: CallOptions): Promise<ParkedWork> {
    return this.call('listParkedWork', [], { ...opts });
  }

  /**
   * `GET /merchant/chain`: The merchant's settlement on chain
   */
  getMerchantChain(opts?: CallOptions): Promise<MerchantChain> {
    return this.call('getMerchantChain', [], { ...opts });
  }

  /**
   * `GET /merchant/settings`: The merchant's settings
   */
  getSettings(opts?: CallOptions): Promise<MerchantSettings> {
    return this.call('getSettings', [], { ...opts });
  }

  /**
   * `PATCH /merchant/settings`: Change the merchant's settings
   */
  patchSettings(body: PatchSettingsRequest, opts?: MutationOptions): Promise<MerchantSettings> {
    return this.call('patchSettings', [], { ...opts, body });
  }

  /**
   * `GET /keys`: List the merchant's API keys
   */
  listKeys(opts?: CallOptions): Promise<ApiKeyList> {
    return this.call('listKeys', [], { ...opts });
  }

  /**
   * `POST /keys`: Make a secret key
   */
  createKey(body: CreateKeyRequest, opts?: MutationOptions): Promise<ApiKeyCreated> {
    return this.call('createKey', [], { ...opts, body });
  }

  /**
   * `POST /keys/{keyId}/roll`: Roll a key
   */
  rollKey(keyId: string, body: RollKeyRequest = {}, opts?: MutationOptions): Promise<ApiKeyRolled> {
    return this.call('rollKey', [keyId], { ...opts, body });
  }

  /**
   * `POST /keys/{keyId}/revoke`: Revoke a key
   */
  revokeKey(keyId: string, opts?: MutationOptions): Promise<ApiKey> {
    return this.call('revokeKey', [keyId], { ...opts });
  }

  /**
   * `GET /merchant/events`: The merchant's event log, oldest first
   * @param query.after An event id (`evt_...`): only events after it. An id that is not one of this merchant's events: 400 `invalid_cursor`.
   * @param query.types Comma-separated event types (`presale.launched,lock.unlocked`), groups (`presale.*`) or `*`, as webhooks subscribe; an unknown one: 400 `invalid_request` (`details.field`: `types`).
   * @param query.limit 1 to 200 (default 50).
   */
  listEvents(query: { after?: string; types?: string; limit?: number } = {}, opts?: CallOptions): Promise<EventPage> {
    return this.call('listEvents', [], { ...opts, query: { after: query.after, types: query.types, limit: query.limit } });
  }

  /**
   * `GET /merchant/events/{eventId}`: One event
   */
  getEvent(eventId: string, opts?: CallOptions): Promise<Event> {
    return this.call('getEvent', [eventId], { ...opts });
  }

  /**
   * `POST /merchant/webhooks`: Create a webhook endpoint
   */
  createWebhook(body: CreateWebhookRequest, opts?: MutationOptions): Promise<WebhookCreated> {
    return this.call('createWebhook', [], { ...opts, body });
  }

  /**
   * `GET /merchant/webhooks`: The merchant's webhook endpoints, oldest first
   */
  listWebhooks(opts?: CallOptions): Promise<Webhook[]> {
    return this.call('listWebhooks', [], { ...opts });
  }

  /**
   * `GET /merchant/webhooks/{webhookId}`: One webhook endpoint
   */
  getWebhook(webhookId: string, opts?: CallOptions): Promise<Webhook> {
    return this.call('getWebhook', [webhookId], { ...opts });
  }

  /**
   * `PATCH /merchant/webhooks/{webhookId}`: Change a webhook endpoint
   */
  updateWebhook(webhookId: string, body: UpdateWebhookRequest, opts?: MutationOptions): Promise<Webhook> {
    return this.call('updateWebhook', [webhookId], { ...opts, body });
  }

  /**
   * `DELETE /merchant/webhooks/{webhookId}`: Delete a webhook endpoint
   */
  deleteWebhook(webhookId: string, opts?: MutationOptions): Promise<WebhookDeleted> {
    return this.call('deleteWebhook', [webhookId], { ...opts });
  }

  /**
   * `POST /merchant/webhooks/{webhookId}/test`: Send a test event to one endpoint
   */
  testWebhook(webhookId: string, opts?: MutationOptions): Promise<Delivery> {
    return this.call('testWebhook', [webhookId], { ...opts });
  }

  /**
   * `GET /merchant/webhooks/{webhookId}/deliveries`: An endpoint's deliveries, newest first
   * @param query.cursor `next_cursor` of the previous page.
   * @param query.limit 1 to 100 (default 20).
   */
  listDeliveries(webhookId: string, query: { cursor?: string; limit?: number } = {}, opts?: CallOptions): Promise<DeliveryPage> {
    return this.call('listDeliveries', [webhookId], { ...opts, query: { cursor: query.cursor, limit: query.limit } });
  }

  /**
   * `POST /merchant/webhooks/{webhookId}/deliveries/{deliveryId}/replay`: Send a delivery's event again
   */
  replayDelivery(webhookId: string, deliveryId: string, opts?: MutationOptions): Promise<Delivery> {
    return this.call('replayDelivery', [webhookId, deliveryId], { ...opts });
  }
}
