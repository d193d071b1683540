// Generated from the Rust request and wire types (through openapi.json's schemas) by
//   cargo run -p tokenpad-core --features codegen --example codegen
// Do not edit: change the Rust types and run that command.
import type { Decimal, HolderFull, LockItem, LpInfo, Network, Pool, PresaleMerchant, Token } from './wire.js';

/** An amount in a request: a decimal string for exact values ("12.5"), or a number. */
export type DecimalInput = string | number;

/** `GET /account` and a login's answer. */
export interface Account {
  email: string;
  merchants: AccountMerchant[];
}

/** A 202's body: a mail is on its way (or, when there was nothing to send, the same words). */
export interface AccountAccepted {
  status: string;
}

/** A merchant the account is a member of. */
export interface AccountMerchant {
  merchantId: string;
  name: string;
  role: Role;
}

/** `POST /account/merchants`: the merchant and its first keys, shown this once. */
export interface AccountMerchantCreated {
  merchant: AccountMerchant;
  /** The merchant's own wallet (its relayer on an EVM chain), as `POST /admin/merchants` answers it. */
  merchantAddress: string;
  publicKey: string;
  secretKey: string;
}

export interface AirdropInput {
  /** 1 to 1,000 addresses, each at most once. */
  addresses: string[];
  /** Whole tokens each address receives. */
  supply: DecimalInput;
}

/** `POST /template/airdrop`. addresses x supply + recipient.amount must not exceed totalSupply: 400 `allocation_exceeds_supply`. The rest of the supply is the liquidity reserve. */
export interface AirdropRequest {
  airdrop: AirdropInput;
  /** USD per token, > 0, at most 18 fractional digits. The token's price. */
  initialPrice: DecimalInput;
  /** List the token on the service's marketplace (kept as the Token's `marketplace`). */
  marketplace: boolean;
  /** One line of text shown as written: no control, format (bidi, zero-width), invisible or noncharacter code point (but an emoji presentation selector after a visible character), not blank; otherwise 400 `invalid_text`. */
  name: string;
  /** Unknown network: 400 `invalid_network` with `details.allowed`. */
  network: Network;
  recipient?: DeploymentRecipient;
  symbol: string;
  /** Whole tokens (x 1e18 on chain). */
  totalSupply: DecimalInput;
}

/** One key as listed: never the key itself nor its hash. */
export interface ApiKey {
  createdAt: string;
  /** When it stops (stopped) working, after a roll's grace period. */
  expiresAt: string | null;
  /** `key_` and 32 hex digits. */
  id: string;
  /** `secret` (`sk_...`) or `public` (`pk_...`). */
  kind: ApiKeyKind;
  /** The key's last four characters; null for a key made before keys were listed, until its first use. */
  last4: string | null;
  /** Its last use, to the minute (null: never used since it was made or listed). */
  lastUsedAt: string | null;
  name: string;
  /** The whole key, for a public key (public keys are safe to show: they sit in browser pages); null for a secret key, which is shown only once, and for a public key made before keys were listed, until its first use. */
  publicKey: string | null;
  revokedAt: string | null;
  /** `live` (works, no end set), `expiring` (works until `expiresAt`), `revoked` (revoked, or past `expiresAt`: never works again). */
  status: ApiKeyStatus;
}

/** `POST /keys` -> 201: the new key's record, and the key itself, shown this once. */
export interface ApiKeyCreated {
  /** The whole key, to send as `x-api-key`: keep it; it is never shown again. */
  apiKey: string;
  key: ApiKey;
}

/** Which of the two kinds a key is: a secret key (`sk_...`, every operation) or a public key (`pk_...`, public reads from browsers). */
export type ApiKeyKind = "secret" | "public";

/** `GET /keys`: every key, oldest first (one that stopped working is listed for 30 days). */
export interface ApiKeyList {
  data: ApiKey[];
  has_more: false;
}

/** `POST /keys/:keyId/roll` -> 201: the new key (shown this once) and the old one as it now is (`expiring` until `expiresAt`, or `revoked` after a roll with no grace). */
export interface ApiKeyRolled {
  /** The whole new key, to send as `x-api-key`: keep it; it is never shown again. */
  apiKey: string;
  key: ApiKey;
  /** The key rolled. */
  rolled: ApiKey;
}

/** Where a key stands at a given moment. */
export type ApiKeyStatus = "live" | "expiring" | "revoked";

/** Amounts a trade moved in the ledger. */
export interface BookedAmounts {
  tokenAmount: Decimal;
  usdcAmount: Decimal;
}

export interface BuyPresaleRequest {
  presaleId: string;
  /** USDC to pay. */
  usdcAmount: UsdcAmountInput;
}

/** `POST /holder/:userId/buy-presale`. */
export interface BuyPresaleResult {
  /** The block the transaction was mined in; absent until it is. */
  blockNumber?: number;
  chainStatus: ChainStatus;
  presaleId: string;
  success: true;
  /** The chain transaction's hash; `null` while the movement waits to be sent (`pending`). */
  transactionHash: string | null;
  usdcAmount: Decimal;
}

interface BuyRequestFields {
  /** With `tokenAmount`: the most USDC paid. */
  maxAmountIn?: UsdcAmountInput;
  /** With `usdcAmount`: the fewest tokens accepted. */
  minAmountOut?: DecimalInput;
  /** The worst average price accepted, in basis points above the pool's price before the trade (fee included). */
  slippageBps?: number;
  tokenAddress: string;
  tokenAmount?: DecimalInput;
  usdcAmount?: UsdcAmountInput;
}
/** `POST /holder/:userId/buy`: exactly one of `usdcAmount` (spend this much) and `tokenAmount` (buy exactly this many), with an optional bound on the price. */
export type BuyRequest = Omit<BuyRequestFields, "tokenAmount" | "usdcAmount"> & ({ usdcAmount: NonNullable<BuyRequestFields["usdcAmount"]>; tokenAmount?: never } | { tokenAmount: NonNullable<BuyRequestFields["tokenAmount"]>; usdcAmount?: never });

/** Where a movement stands on chain. */
export type ChainStatus = "pending" | "submitted" | "confirmed" | "failed";

export interface ChainTxReport {
  error?: string;
  /** Every version's hash (a replacement adds one), oldest first. */
  hashes: string[];
  /** How many ledger movements it carries. */
  movements: number;
  nonce: number;
  /** `signed` (stored, not sent yet) or `sent`. */
  state: "signed" | "sent";
}

/** `POST /keys`: a new secret key's name. */
export interface CreateKeyRequest {
  /** What the key is for (`"Orders service"`): one line of at most 64 characters shown as written. */
  name: string;
}

/** `POST /token/:tokenAddress/liquidity` (the body is optional). */
export interface CreateLiquidityRequest {
  /** Tokens from the liquidity reserve; all of it when absent. */
  amount?: DecimalInput;
  /** USD per token the pool opens at; the token's price when absent (required when the token has none yet). */
  initialStartingPrice?: DecimalInput;
}

/** `POST /merchant/presale`. */
export interface CreatePresaleRequest {
  /** Launch at the target or the end without a resolve call; default true. */
  autoLaunch?: boolean;
  /** Some clients send `tokenInfo.deploymentConfig` here, at the top level; it means the same (giving both with different values is refused). */
  deploymentConfig?: DeploymentConfigInput;
  /** Text shown as written, line breaks allowed: no control, format (bidi, zero-width), invisible or noncharacter code point (but an emoji presentation selector after a visible character), not blank; otherwise 400 `invalid_text`. */
  description: string;
  /** UNIX seconds, after the start and in the future. */
  endTimestamp: number;
  /** Days the buyers' tokens stay locked: 0 to 365, default 7. */
  lockDuration?: number;
  /** One line of text shown as written: no control, format (bidi, zero-width), invisible or noncharacter code point (but an emoji presentation selector after a visible character), not blank; otherwise 400 `invalid_text`. */
  name: string;
  /** UNIX seconds. */
  startTimestamp: number;
  /** USDC to raise: 2 to 200,000. */
  targetUsdcAmount: PresaleTarget;
  tokenInfo: TokenInfoInput;
}

/** `POST /holder/:userId/session`. */
export interface CreateSessionRequest {
  /** At most 20, one per token. None: the scopes alone bound what the session moves (and the holder's balance). With limits, only the tokens listed may move (USDC for `buy-presale`, by its address), each within its limits. */
  limits?: SessionLimitRequest[];
  /** What the token may do; default `["read"]`. Repeats are ignored. */
  scopes?: SessionScope[];
  /** Seconds the token lives: 60 to 86400 (24 hours); default 900 (15 minutes). */
  ttlSeconds?: number;
}

/** `POST /merchant/create-token` -> 201. */
export interface CreateTokenAccepted {
  /** The same as `jobId` (Metal's SDK reads `id`). */
  id?: string;
  jobId: string;
  /** `pending`. */
  status: "pending";
  tokenAddress?: string;
  /** The deployment transaction, once it is sent (on an EVM chain: not at once). */
  transactionHash?: string;
}

/** `POST /merchant/create-token`. */
export interface CreateTokenRequest {
  /** Default off. */
  canAirdrop?: boolean;
  /** The Reward Allocation switch; default on. */
  canDistribute?: boolean;
  /** Whether the merchant may open the token's liquidity pool (`POST /token/:tokenAddress/liquidity`); default on, so Metal's flow (create a token, then `createLP`) works as written. */
  canLP?: boolean;
  /** The token's image: an http(s) URL with a host, at most 2048 bytes of URL characters (400 `invalid_image_url` otherwise). */
  imageUrl?: string;
  /** The merchant wallet unless given. */
  merchantAddress?: string;
  /** One line of text shown as written: no control, format (bidi, zero-width), invisible or noncharacter code point (but an emoji presentation selector after a visible character), not blank; otherwise 400 `invalid_text`. */
  name: string;
  /** Default `base`. */
  network?: Network;
  symbol: string;
  /** Whole tokens (18 decimals); default 1,000,000,000. */
  totalSupply?: DecimalInput;
}

/** `POST /merchant/webhooks`. */
export interface CreateWebhookRequest {
  /** A note for yourself: one line of at most 256 characters shown as written (no control, format, invisible or noncharacter code point, not blank; otherwise 400 `invalid_text`). */
  description?: string;
  /** Default true. */
  enabled?: boolean;
  /** What it receives: event types (`presale.launched`), groups (`presale.*`) or `*`. */
  events: EventSelector[];
  /** Where events are POSTed: an http(s) URL on the public internet. */
  url: string;
}

/** `POST /account/merchants/:merchantId/token`: the dashboard's browser credential. */
export interface DashboardToken {
  /** When it stops working (ms since the epoch, service time). */
  expiresAt: number;
  role: Role;
  token: string;
}

/** One event for one endpoint: where it stands, and every attempt. */
export interface Delivery {
  attemptCount: number;
  /** The latest attempts (at most 25), oldest first. */
  attempts: DeliveryAttempt[];
  createdAt: string;
  eventId: string;
  eventType: EventType;
  finishedAt?: string;
  id: string;
  nextAttemptAt?: string;
  /** A replay: the delivery it repeats. */
  replayOf?: string;
  /** `pending` (sent at `nextAttemptAt`), `waiting` (behind an earlier delivery of the same resource), `succeeded` (a 2xx answer came), `failed` (no 2xx answer within three days). */
  status: "waiting" | "pending" | "succeeded" | "failed";
  webhookId: string;
}

/** One attempt at sending a delivery, and the receiver's answer. */
export interface DeliveryAttempt {
  /** When it was sent (the service clock). */
  at: string;
  durationMs: number;
  /** Why there is no usable answer: `timeout`, `network error`, ... */
  error?: string;
  /** The start of the receiver's answer (at most 1 KiB). */
  responseBody?: string;
  /** The receiver's HTTP status, when it answered. */
  responseStatus?: number;
}

/** `GET /merchant/webhooks/:webhookId/deliveries`: newest first. */
export interface DeliveryPage {
  data: Delivery[];
  has_more: boolean;
  /** Pass as `cursor` for older deliveries; null on the last page. */
  next_cursor: string | null;
}

/** The interface's Deployment. */
export interface Deployment {
  /** On failure. */
  error?: string;
  /** On success: a swap page for the token against USDC on its network (Uniswap's, which does not work as expected on a test network). Absent on a local node: no public exchange reaches it. */
  exchangeUrl?: string;
  id: string;
  /** On success: the overview page, `<public base URL>/deployments/<id>`. */
  serviceBuildUrl?: string;
  /** Where a job (or a deployment) stands. */
  status: "pending" | "success" | "failed" | "stuck";
  /** Known from creation. */
  tokenAddress: string;
  /** Once submitted. */
  transactionHash?: string;
  /** While pending on an EVM chain with settlement stopped: why (the relayer has no ETH for gas, with the address to fund; the node does not answer). */
  waiting?: string;
}

export interface DeploymentConfigInput {
  /** The share of the new token's supply sold to buyers, in percent: 13 to 28, default 25. */
  lockupPercentage?: number;
}

/** `POST /template/memecoin`, `POST /template/airdrop` -> 201. */
export interface DeploymentCreated {
  /** A UUID: poll the deployment's status with it. */
  id: string;
}

/** `deployment.succeeded`, `deployment.failed`. */
export interface DeploymentEventData {
  object: Deployment;
}

/** An airdrop's recipient: `address` and `amount` together, or neither. */
export interface DeploymentRecipient {
  /** Receives `amount` at deployment. */
  address?: string;
  /** Whole tokens, > 0. */
  amount?: DecimalInput;
}

/** The status answer: `{ has_more: false, data: Deployment }`. */
export interface DeploymentStatus {
  data: Deployment;
  has_more: false;
}

/** `POST /memecoin/status`, `POST /airdrop/status`: the deployment id is read from the body without a request type (`wire::op`), as a string or a number. */
export interface DeploymentStatusRequest {
  /** The deployment id returned at creation. */
  id: string | number;
}

interface DistributeRequestFields {
  /** Whole tokens. */
  amount: DecimalInput;
  /** The recipient holder's address or userId (Metal's older field): an address when it is one, else a userId. */
  sendTo?: string;
  /** The recipient holder's wallet address. */
  sendToAddress?: string;
  /** The recipient holder's userId. */
  sendToId?: string;
}
/** `POST /token/:tokenAddress/distribute` (and `/reward`): exactly one of `sendToAddress`, `sendToId` and `sendTo`. */
export type DistributeRequest = Omit<DistributeRequestFields, "sendTo" | "sendToAddress" | "sendToId"> & ({ sendToAddress: NonNullable<DistributeRequestFields["sendToAddress"]>; sendToId?: never; sendTo?: never } | { sendToId: NonNullable<DistributeRequestFields["sendToId"]>; sendToAddress?: never; sendTo?: never } | { sendTo: NonNullable<DistributeRequestFields["sendTo"]>; sendToAddress?: never; sendToId?: never });

/** `POST /token/:tokenAddress/distribute`. */
export interface DistributeResult {
  /** The block the transaction was mined in; absent until it is. */
  blockNumber?: number;
  chainStatus: ChainStatus;
  success: true;
  /** The chain transaction's hash; `null` while the movement waits to be sent (`pending`). */
  transactionHash: string | null;
}

/** Something that happened to one of the merchant's resources. */
export interface Event {
  /** When it happened (the service clock). */
  createdAt: string;
  data: EventData;
  /** Unique (`evt_...`): a receiver deduplicates on it, since a delivery may come more than once. Also the cursor of `GET /merchant/events?after=`. */
  id: string;
  merchantId: string;
  /** The resource it is about (`presale:<id>`, `transaction:<id>`, `token:<address>`, `holder:<userId>`, `lock:<id>`, `deployment:<id>`, `webhook:<id>`): one resource's events are delivered to an endpoint in the order they happened. */
  resource: string;
  type: EventType;
}

/** The payload: `object` is the resource as the API shows it, at the end of the change. Which schema goes with which `type`: holder.created HolderEventData; transaction.* TransactionEventData; token.created TokenEventData; presale.* PresaleEventData; lock.unlocked LockEventData; deployment.* DeploymentEventData; liquidity.created LiquidityEventData; trade.executed TradeEventData; webhook.ping PingEventData. */
export type EventData = HolderEventData | TransactionEventData | TokenEventData | PresaleEventData | LockEventData | DeploymentEventData | LiquidityEventData | TradeEventData | PingEventData;

/** `GET /merchant/events`: oldest first. */
export interface EventPage {
  data: Event[];
  has_more: boolean;
  /** The last event's id: pass it as `after` for the next page, or later to poll for new events (it is the `after` you sent when the page is empty). */
  next_cursor: string | null;
}

/** An event type (`presale.launched`), a group of them (`presale.*`) or `*` (every event). */
export type EventSelector = "*" | "holder.created" | "holder.*" | "transaction.created" | "transaction.*" | "transaction.confirmed" | "transaction.failed" | "transaction.reorganized" | "token.created" | "token.*" | "presale.created" | "presale.*" | "presale.purchase" | "presale.status_changed" | "presale.launched" | "presale.refunded" | "lock.unlocked" | "lock.*" | "deployment.succeeded" | "deployment.*" | "deployment.failed" | "liquidity.created" | "liquidity.*" | "trade.executed" | "trade.*";

/** What happened (see the events table in docs/events.md and the EventData schemas). */
export type EventType = "holder.created" | "transaction.created" | "transaction.confirmed" | "transaction.failed" | "transaction.reorganized" | "token.created" | "presale.created" | "presale.purchase" | "presale.status_changed" | "presale.launched" | "presale.refunded" | "lock.unlocked" | "deployment.succeeded" | "deployment.failed" | "liquidity.created" | "trade.executed" | "webhook.ping";

export interface FailedMovement {
  error?: string;
  id: number;
  tokenAddress: string;
  transactionHash?: string;
}

/** `GET /health`: whether the service can run, and on which chain (never its RPC URL). */
export interface Health {
  chain: HealthChain;
  /** The git commit of its sources (scripts/build-worker.sh: the last commit that changed the Worker's sources), with `-dirty` when they differed from it; `unknown` when built outside git. With `version`, it names one build. */
  commit: string;
  error?: string;
  /** False when the configuration is unusable, or on an EVM chain when its node does not answer the settlers or answers with errors (then `error` says why). */
  ok: boolean;
  /** The release this Worker is (the workspace's version, as the npm package and openapi.json's `info.version` have it). */
  version: string;
  /** What is wrong that does not stop the service (`ok` stays true): on an EVM chain, how many merchants' settlement is stuck past `CHAIN_STUCK_AFTER_MS`, never which (`GET /admin/chain` lists them, with what to do). */
  warning?: string;
}

export interface HealthChain {
  /** The EVM chain id (absent on the embedded chain). */
  chainId?: number;
  /** `embedded` (the ledger presented as a chain) or `evm`. */
  kind: "embedded" | "evm";
  /** On an EVM chain: whether its node answers, from the settlers' latest rounds (no request to `/health` calls the node). Never its URL. */
  node?: HealthNode;
  /** On an EVM chain: the merchants' relayers, as their settlers last found them. */
  relayers?: HealthRelayers;
}

/** The chain's node, as the settlers last found it. */
export interface HealthNode {
  /** When the latest report's round ran (ISO 8601). */
  checkedAt?: string;
  /** What is wrong, for people (never the node's URL or its error text). */
  error?: string;
  /** When the node last answered a whole round (ISO 8601). */
  lastContactAt?: string;
  /** `reachable`; `unreachable` (the latest round got no answer: a timeout, a network or HTTP error); `failing` (the node answered with errors); `unknown` (no settler reported in the last five minutes: no merchant, or none running). */
  status: "reachable" | "unreachable" | "failing" | "unknown";
}

/** How many merchants' relayers reported in the last five minutes, by state (the admin chain route, `GET /admin/merchants/:merchantId/chain`, says which and why). */
export interface HealthRelayers {
  /** They lack the ETH for gas: their settlement waits until they are funded. */
  outOfGas: number;
  /** Their latest round went through. */
  ready: number;
  reporting: number;
  /** Their settlement is stuck: a movement parked for an operator, or past `CHAIN_STUCK_AFTER_MS` a transaction not mined, the relayer out of gas or its node failing, movements queued (`GET /admin/chain` says which and what to do). */
  stuck: number;
  /** Some of their movements wait on the chain (a token not deployed yet). */
  waiting: number;
}

/** `holder.created`. */
export interface HolderEventData {
  object: HolderFull;
}

/** An invitation not yet accepted. */
export interface Invite {
  email: string;
  expiresAt: string;
  role: Role;
}

/** `GET /jobs/:jobId`: the job, and the token once it exists. */
export interface Job {
  /** The block the deployment was mined in (on success). */
  blockNumber?: number;
  /** The token (on success). */
  data?: Token;
  /** Why it failed (on failure). */
  error?: string;
  /** The same as `jobId` (Metal's SDK reads `id`). */
  id?: string;
  jobId: string;
  /** Once the token has a liquidity pool. */
  lpInfo?: LpInfo;
  /** On success: the token's page in the demo frontend (Metal's build page). */
  metalBuildUrl?: string;
  /** Where a job (or a deployment) stands. */
  status: "pending" | "success" | "failed" | "stuck";
  tokenAddress?: string;
  /** The deployment transaction, once it is sent (on an EVM chain: not at once). */
  transactionHash?: string;
  /** On success: a swap page for the token (Uniswap's; absent on a local node). */
  uniswapUrl?: string;
  /** While pending on an EVM chain with settlement stopped: why (the relayer has no ETH for gas, with the address to fund; the node does not answer). */
  waiting?: string;
}

/** `POST /holder/:userId/{spend,transfer,withdraw}` (Metal's shape). */
export interface LedgerResult {
  amount: Decimal;
  /** The block the transaction was mined in; absent until it is. */
  blockNumber?: number;
  chainStatus: ChainStatus;
  from: string;
  success: true;
  to: string;
  tokenAddress: string;
  /** The chain transaction's hash; `null` while the movement waits to be sent (`pending`). */
  transactionHash: string | null;
}

/** `POST /token/:tokenAddress/liquidity` -> 201. */
export interface LiquidityCreated {
  /** The token, with its pool. */
  data: Token;
  lpInfo: LpInfo;
  pool: Pool;
  /** `success`: the pool is open (Metal's job status); `pending` on an EVM chain until the transaction that opens it is mined (the pool's `status` says the same). */
  status: "success" | "pending";
  success: true;
  tokenAddress: string;
}

/** `liquidity.created`: the token's pool. */
export interface LiquidityEventData {
  object: Pool;
  tokenAddress: string;
}

/** `lock.unlocked`: the lock as it was when it opened. */
export interface LockEventData {
  object: LockItem;
  /** The holder it belongs to. */
  userId?: string;
}

/** A mail as the local mailbox keeps it. */
export interface MailMessage {
  /** The links in its text, in order. */
  links: string[];
  sentAt: string;
  subject: string;
  text: string;
  to: string;
}

/** `GET /admin/mailbox?to=` and `GET /account/dev-mailbox?to=`: newest first. */
export interface Mailbox {
  messages: MailMessage[];
}

/** A member of a merchant. */
export interface Member {
  addedAt: string;
  email: string;
  role: Role;
}

/** `GET /account/merchants/:merchantId/members`. */
export interface Members {
  invites: Invite[];
  members: Member[];
}

/** A memecoin's recipient: `address` and `amount` together (`supply` is another name for `amount`, as the interface's sample request writes it). */
export interface MemecoinRecipient {
  /** Receives `amount` at deployment (with noLp also the owner and minter). */
  address?: string;
  /** Whole tokens, > 0. Give address and amount together, or neither. */
  amount?: DecimalInput;
  /** Another name for `amount`. Both names with different values: 400. */
  supply?: DecimalInput;
}

/** `POST /template/memecoin`. recipient.amount > totalSupply: 400 `allocation_exceeds_supply`. The rest of the supply is the liquidity reserve, which the token's pool opens with (unless noLp): one too small for it at initialPrice, none included, is a 400 `invalid_amount` (`ops::deployment::create`). */
export interface MemecoinRequest {
  /** USD per token, > 0, at most 18 fractional digits. The token's price. */
  initialPrice: DecimalInput;
  /** List the token on the service's marketplace (kept as the Token's `marketplace`). */
  marketplace: boolean;
  /** One line of text shown as written: no control, format (bidi, zero-width), invisible or noncharacter code point (but an emoji presentation selector after a visible character), not blank; otherwise 400 `invalid_text`. */
  name: string;
  /** Unknown network: 400 `invalid_network` with `details.allowed`. */
  network: Network;
  /** No liquidity pool: the recipient is owner and minter and gets the whole supply. */
  noLp?: boolean;
  recipient?: MemecoinRecipient;
  symbol: string;
  /** Whole tokens (x 1e18 on chain). */
  totalSupply: DecimalInput;
}

/** `GET /merchant/chain`. */
export interface MerchantChain {
  /** The EVM chain's id; null on the embedded chain. */
  chainId: number | null;
  /** The latest movements the chain refused (undone in the ledger), newest first. */
  failed: FailedMovement[];
  /** `embedded` or `evm`. */
  kind: "embedded" | "evm";
  /** Movements recorded in the ledger and not settled on chain yet. */
  openMovements: number;
  /** Movements held for the operator (still open), oldest first. */
  parked: ParkedMovement[];
  /** The merchant's relayer wallet (it signs and pays for every transaction); null on the embedded chain, which has none. */
  relayer: MerchantRelayer | null;
  /** Transactions signed and not mined yet, lowest nonce first. */
  transactions: ChainTxReport[];
}

/** The relayer as the merchant sees it. */
export interface MerchantRelayer {
  address: string;
  /** When the settler read it. */
  balanceAt: string | null;
  /** Its ETH balance in wei (digits, exact), as the settler last read it; null before the settler's first round. */
  balanceWei: string | null;
  /** Why, when it is (out of gas names the address to fund); null otherwise. */
  error: string | null;
  /** Since when. */
  errorAt: string | null;
  /** The nonce its next transaction uses (null before its first). */
  nextNonce: number | null;
  /** Whether settlement is stopped (the relayer out of gas, the chain's node failing, ...). */
  stopped: boolean;
}

/** `GET /merchant/settings`, `PATCH /merchant/settings`. */
export interface MerchantSettings {
  /** Private mode: holder reads need a session token (the public key alone reads no wallet), and public reads show holders' addresses, never their userIds. */
  privateMode: boolean;
}

/** Optional strings about the token; kept with the presale. */
export interface MetadataInput {
  /** Text shown as written, line breaks allowed: no control, format (bidi, zero-width), invisible or noncharacter code point (but an emoji presentation selector after a visible character), not blank; otherwise 400 `invalid_text`. */
  description?: string;
  /** One line of text shown as written: no control, format (bidi, zero-width), invisible or noncharacter code point (but an emoji presentation selector after a visible character), not blank; otherwise 400 `invalid_text`. */
  farcasterLink?: string;
  /** One line of text shown as written: no control, format (bidi, zero-width), invisible or noncharacter code point (but an emoji presentation selector after a visible character), not blank; otherwise 400 `invalid_text`. */
  telegramLink?: string;
  /** One line of text shown as written: no control, format (bidi, zero-width), invisible or noncharacter code point (but an emoji presentation selector after a visible character), not blank; otherwise 400 `invalid_text`. */
  websiteLink?: string;
  /** One line of text shown as written: no control, format (bidi, zero-width), invisible or noncharacter code point (but an emoji presentation selector after a visible character), not blank; otherwise 400 `invalid_text`. */
  xLink?: string;
}

/** One parked item. */
export interface ParkedItem {
  /** Failed runs, in a row. */
  attempts: number;
  /** The last failure's code. */
  code: "invalid_json" | "invalid_request" | "invalid_amount" | "invalid_address" | "invalid_user_id" | "invalid_network" | "network_unavailable" | "invalid_idempotency_key" | "invalid_cursor" | "secret_key_in_url" | "invalid_image_url" | "invalid_text" | "self_transfer" | "invalid_destination" | "public_key_not_found" | "missing_api_key" | "invalid_api_key" | "invalid_admin_key" | "secret_key_required" | "reward_allocation_disabled" | "not_found" | "token_not_found" | "holder_not_found" | "job_not_found" | "merchant_not_found" | "method_not_allowed" | "idempotency_key_reused" | "payload_too_large" | "unsupported_media_type" | "insufficient_balance" | "tokens_locked" | "insufficient_app_supply" | "presale_not_found" | "presale_not_active" | "presale_already_resolved" | "target_exceeded" | "launch_threshold_not_reached" | "internal_error" | "deployment_not_found" | "allocation_exceeds_supply" | "rate_limited" | "no_liquidity" | "pool_exists" | "pool_pending" | "liquidity_disabled" | "slippage_exceeded" | "insufficient_liquidity" | "event_not_found" | "webhook_not_found" | "delivery_not_found" | "url_not_allowed" | "webhook_limit_reached" | "misconfigured" | "unavailable" | "invalid_session_token" | "session_expired" | "session_revoked" | "session_token_required" | "session_holder_mismatch" | "insufficient_scope" | "session_limit_exceeded" | "key_not_found" | "key_revoked" | "last_live_key" | "key_already_shown" | "key_limit_reached" | "weak_password" | "invalid_link" | "invalid_credentials" | "not_logged_in" | "email_not_verified" | "forbidden_role" | "cross_origin_request" | "invite_for_another_email" | "too_many_attempts";
  firstFailedAt: string;
  /** The job, deployment, presale or lock id. */
  id: string;
  kind: ParkedKind;
  lastFailedAt: string;
  /** The last failure's message (`Internal error` for an internal one: the detail is in the service's log). */
  message: string;
  parkedAt: string;
}

/** What a parked item belongs to. */
export type ParkedKind = "job" | "deployment" | "presale" | "unlock";

/** A movement held for an operator. */
export interface ParkedMovement {
  /** How many transactions carried it. */
  attempts: number;
  id: number;
  /** What it does on chain. */
  movement: "deploy" | "transfer" | "mint" | "open_pool" | "swap" | "lock" | "release";
  /** When it was parked (absent for one parked before that was kept). */
  since?: string;
  tokenAddress: string;
  /** Why: the chain's revert reason, or how often it ran out of gas. */
  why: string;
}

/** `{ has_more: false, data: ParkedItem[] }`, most recently parked first. */
export interface ParkedWork {
  data: ParkedItem[];
  has_more: false;
}

/** `PATCH /merchant/settings`: the fields given change, the others stay. */
export interface PatchSettingsRequest {
  /** Private mode on (true) or off (false). */
  privateMode?: boolean;
}

/** `PATCH /merchant/token/:tokenAddress`: the Reward Allocation switch. */
export interface PatchTokenRequest {
  canDistribute: boolean;
}

/** `webhook.ping`: the endpoint it tests. */
export interface PingEventData {
  object: Webhook;
}

/** `presale.*`: the presale's merchant form. `presale.purchase` lists its buyer alone in `object.participants` (their row after the purchase: their total `usdcAmount` in the presale and their `tokenPercentage` of all raised), so a purchase costs the same however many bought before; the other types list the first 100. `participantsCount` counts them all; `GET /merchant/presale/:id` lists every one. */
export interface PresaleEventData {
  object: PresaleMerchant;
  /** `presale.status_changed`: the status before (the new one is `object.status`). */
  previousStatus?: "pending" | "active" | "completed" | "ended";
  /** `presale.purchase`: who bought, and for how much. */
  purchase?: PresalePurchase;
}

/** A purchase (`presale.purchase`). */
export interface PresalePurchase {
  /** The buyer's history record of it (its `transaction.created` event's object). */
  transactionId: string;
  usdcAmount: Decimal;
  userId: string;
}

/** USDC to raise, 2 to 200,000 (at most 6 fractional digits), as a JSON number or a decimal string; otherwise 400. */
export type PresaleTarget = number | string;

/** The figures of a trade, made or quoted (`GET /holder/:userId/buy/quote`, `/sell/quote`). */
export interface Quote {
  /** The pool's fee, in what came in: USDC for a buy, tokens for a sell. */
  fee: Decimal;
  /** The pool's price before the trade. */
  poolPrice: Decimal;
  /** The pool's price after it. */
  poolPriceAfter: Decimal;
  /** The average price of the trade, USD per token, fee included. */
  price: Decimal;
  /** How far the average price is from the pool's price before the trade, in percent. */
  priceImpact: Decimal;
  side: Side;
  tokenAddress: string;
  /** Tokens bought or sold. */
  tokenAmount: Decimal;
  /** USDC paid (a buy) or received (a sell). */
  usdcAmount: Decimal;
}

export interface ResolvePresaleRequest {
  presaleId: string;
}

/** `POST /merchant/presale/resolve`, `POST /resolve-presale`. */
export interface ResolveResult {
  /** `launching` or `refunded`. */
  outcome: "launching" | "refunded";
  presale: PresaleMerchant;
  presaleId: string;
  success: true;
}

/** `POST /token/:tokenAddress/reward` -> 202: a distribution, answered in Metal's shape. */
export interface RewardResult {
  amount: Decimal;
  /** The block the transaction was mined in; absent until it is. */
  blockNumber?: number;
  chainStatus: ChainStatus;
  name: string;
  /** The holder's address. */
  recipient: string;
  /** What is left of the token's reward (app) supply. */
  rewardsBalance: Decimal;
  success: true;
  symbol: string;
  tokenAddress: string;
  /** The chain transaction's hash; `null` while the movement waits to be sent (`pending`). */
  transactionHash: string | null;
  /** The same as `transactionHash` (Metal's name). */
  txHash: string | null;
}

/** What a member of a merchant may do. */
export type Role = "owner" | "developer" | "viewer";

/** `POST /keys/:keyId/roll`: how long the old key keeps working. */
export interface RollKeyRequest {
  /** Hours the old key keeps working, 0 (it stops at once) to 24. Default 24. */
  graceHours?: number;
}

/** `POST /holder/:userId/sell`. */
export interface SellRequest {
  /** The least USDC accepted. */
  minAmountOut?: UsdcAmountInput;
  /** The worst average price accepted, in basis points below the pool's price before the trade (fee included). */
  slippageBps?: number;
  tokenAddress: string;
  tokenAmount: DecimalInput;
}

/** `POST /holder/:userId/transfer` and `/withdraw`. */
export interface SendRequest {
  /** Whole tokens. */
  amount: DecimalInput;
  /** Transfer: any address, holder or not, except the sender's own. Withdraw: the external wallet that receives the tokens out of custody. */
  toAddress: string;
  tokenAddress: string;
}

/** `POST /holder/:userId/session` (201). */
export interface SessionCreated {
  /** ISO 8601. */
  expiresAt: string;
  /** UNIX seconds (the token's `exp`). */
  expiresAtUnix: number;
  /** Empty: the scopes alone bound what the session moves. */
  limits: SessionLimit[];
  scopes: SessionScope[];
  /** The session token, for the holder's browser: `Authorization: Bearer <token>`, or the npm client's `sessionToken` option. It is not a secret of the merchant, but whoever holds it acts for the holder within its scopes until it expires or is revoked. */
  token: string;
  /** The holder the session acts for. */
  userId: string;
}

/** A session as `GET /session` shows it to its token's holder. */
export interface SessionInfo {
  /** ISO 8601. */
  expiresAt: string;
  /** UNIX seconds (the token's `exp`). */
  expiresAtUnix: number;
  /** Empty: the scopes alone bound what the session moves. */
  limits: SessionLimit[];
  scopes: SessionScope[];
  /** The holder the session acts for. */
  userId: string;
}

/** One limit of a session, with what it moved so far. */
export interface SessionLimit {
  /** Whole tokens one operation may move at most. */
  maxPerOperation?: Decimal;
  /** Whole tokens the session may move at most. */
  maxPerSession?: Decimal;
  /** What `maxPerSession` still allows. */
  remaining?: Decimal;
  /** Whole tokens the session moved so far. */
  spent: Decimal;
  symbol: string;
  tokenAddress: string;
}

/** How much of one token a session may move: per operation, over the session, or both. */
export interface SessionLimitRequest {
  /** Whole tokens one operation may move at most. */
  maxPerOperation?: DecimalInput;
  /** Whole tokens the session may move at most, over all its operations. */
  maxPerSession?: DecimalInput;
  /** The token (USDC's address for presale purchases). */
  tokenAddress: string;
}

/** What a session token may do: `read` its holder (wallet, balances, history), `buy-presale`, `transfer`, `spend` (each a movement out of the holder's wallet). */
export type SessionScope = "read" | "buy-presale" | "transfer" | "spend";

/** `DELETE /holder/:userId/sessions`. */
export interface SessionsRevoked {
  /** How many live sessions were revoked. */
  revoked: number;
  success: boolean;
}

/** Buy or sell. */
export type Side = "buy" | "sell";

/** `POST /holder/:userId/spend`. */
export interface SpendRequest {
  /** Whole tokens. */
  amount: DecimalInput;
  tokenAddress: string;
}

/** `token.created`. */
export interface TokenEventData {
  object: Token;
}

export interface TokenInfoInput {
  deploymentConfig?: DeploymentConfigInput;
  /** An http(s) URL with a host and no credentials, at most 2048 bytes, in RFC 3986's characters only (no spaces, quotes, angle brackets, control or non-ASCII characters: percent-encode them; a non-ASCII host in punycode). Otherwise 400 `invalid_image_url`. */
  imageUrl: string;
  metadata?: MetadataInput;
  /** One line of text shown as written: no control, format (bidi, zero-width), invisible or noncharacter code point (but an emoji presentation selector after a visible character), not blank; otherwise 400 `invalid_text`. */
  name: string;
  symbol: string;
}

/** `trade.executed`: the trade as `POST /holder/:userId/buy` (or `/sell`) answered it. */
export interface TradeEventData {
  object: TradeResult;
  userId: string;
}

/** `POST /holder/:userId/buy`, `/sell`. */
export interface TradeResult {
  /** The block the transaction was mined in; absent until it is. */
  blockNumber?: number;
  /** What the ledger moved when the trade was made, and the holder's history shows until it is mined: the trade's own amounts on the embedded chain; on an EVM chain the worst the holder accepted (the fewest tokens or USDC out, the most USDC in: the bound the swap is sent with), topped up to the mined amounts once the swap is mined. */
  booked: BookedAmounts;
  chainStatus: ChainStatus;
  /** The pool's fee, in what came in: USDC for a buy, tokens for a sell. */
  fee: Decimal;
  /** The pool's price before the trade. */
  poolPrice: Decimal;
  /** The pool's price after it. */
  poolPriceAfter: Decimal;
  /** The average price of the trade, USD per token, fee included. */
  price: Decimal;
  /** How far the average price is from the pool's price before the trade, in percent. */
  priceImpact: Decimal;
  side: Side;
  success: true;
  tokenAddress: string;
  /** Tokens bought or sold. */
  tokenAmount: Decimal;
  /** The chain transaction's hash; `null` while the movement waits to be sent (`pending`). */
  transactionHash: string | null;
  /** USDC paid (a buy) or received (a sell). */
  usdcAmount: Decimal;
}

/** `transaction.created`, `transaction.confirmed`, `transaction.failed`, `transaction.reorganized`: a record of a holder's history. */
export interface TransactionEventData {
  object: TxRecord;
  /** The holder whose history it is in. */
  userId: string;
}

/** `GET /holder/:userId/transactions`: one page, newest first. */
export interface TxPage {
  /** Newest first. */
  data: TxRecord[];
  has_more: boolean;
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
  /** On an EVM chain, when records on this page are still on their way and settlement is stopped: why (the relayer has no ETH for gas, with the address to fund; the node does not answer). Absent otherwise. */
  waiting?: string;
}

/** One record of a holder's history. */
export interface TxRecord {
  amount: Decimal;
  /** The block the transaction was mined in; absent until it is. */
  blockNumber?: number;
  chainStatus: ChainStatus;
  /** Metal's label: Airdrop, Transfer, Withdraw, Deposit, Buy, Sell. */
  context: "Airdrop" | "Transfer" | "Withdraw" | "Deposit" | "Buy" | "Sell";
  /** Why the chain refused the movement (an EVM chain): on a `failed` record and on the `reversal` that undid it, as the chain said it (`ERC20InsufficientBalance`, `TokenpadMarketSlippage(...)`). Absent otherwise. */
  failureReason?: string;
  from: string;
  id: string;
  symbol: string;
  /** ISO 8601. */
  timestamp: string;
  to: string;
  tokenAddress: string;
  /** The chain transaction's hash; `null` while the movement waits to be sent (`pending`). */
  transactionHash: string | null;
  type: "distribute" | "spend" | "transfer_in" | "transfer_out" | "withdraw" | "deposit" | "presale_buy" | "presale_refund" | "presale_allocation" | "unlock" | "buy" | "sell" | "reversal";
}

/** `PATCH /merchant/webhooks/:webhookId`: the fields to change. */
export interface UpdateWebhookRequest {
  /** One line of text shown as written: no control, format (bidi, zero-width), invisible or noncharacter code point (but an emoji presentation selector after a visible character), not blank; otherwise 400 `invalid_text`. */
  description?: string;
  /** A disabled endpoint receives nothing: events while it is disabled are not delivered to it, and its pending deliveries wait until it is enabled again. */
  enabled?: boolean;
  events?: EventSelector[];
  url?: string;
}

/** Amount in whole USDC, as a JSON number or a decimal string for exact values (digits and an optional fraction: no exponent, sign or spaces): more than zero, at most 6 fractional digits; otherwise 400 `invalid_amount`. */
export type UsdcAmountInput = number | string;

/** A webhook endpoint. Its signing secret is shown once, when it is created. */
export interface Webhook {
  createdAt: string;
  description?: string;
  /** A disabled endpoint receives nothing. */
  enabled: boolean;
  /** What it receives: event types, groups (`presale.*`) or `*`. */
  events: string[];
  id: string;
  updatedAt: string;
  url: string;
}

/** `POST /merchant/webhooks` -> 201: the endpoint and its signing secret, shown this once. */
export interface WebhookCreated {
  createdAt: string;
  description?: string;
  /** A disabled endpoint receives nothing. */
  enabled: boolean;
  /** What it receives: event types, groups (`presale.*`) or `*`. */
  events: string[];
  id: string;
  /** The signing secret (`whsec_...`): keep it; it is never shown again. Verify each delivery's `tokenpad-signature` with it. */
  secret: string;
  updatedAt: string;
  url: string;
}

/** `DELETE /merchant/webhooks/:webhookId`. */
export interface WebhookDeleted {
  deleted: true;
  id: string;
}
