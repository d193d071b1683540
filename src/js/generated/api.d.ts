// Generated from the Rust request and wire types (through openapi.json's schemas) by
//   cargo run -p tokenpad-core --features codegen --example codegen
// Do not edit: change the Rust types and run that command.
import type { Decimal, LpInfo, Network, PresaleMerchant, Token } from './wire.js';

/** An amount in a request: a decimal string for exact values ("12.5"), or a number. */
export type DecimalInput = string | number;

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
  name: string;
  /** Unknown network: 400 `invalid_network` with `details.allowed`. */
  network: Network;
  recipient?: DeploymentRecipient;
  symbol: string;
  /** Whole tokens (x 1e18 on chain). */
  totalSupply: DecimalInput;
}

export interface BuyPresaleRequest {
  presaleId: string;
  /** USDC to pay. */
  usdcAmount: DecimalInput;
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

/** Where a movement stands on chain. */
export type ChainStatus = "pending" | "submitted" | "confirmed" | "failed";

/** `POST /merchant/presale`. */
export interface CreatePresaleRequest {
  /** Launch at the target or the end without a resolve call; default true. */
  autoLaunch?: boolean;
  /** Some clients send `tokenInfo.deploymentConfig` here, at the top level; it means the same (giving both with different values is refused). */
  deploymentConfig?: DeploymentConfigInput;
  description: string;
  /** UNIX seconds, after the start and in the future. */
  endTimestamp: number;
  /** Days the buyers' tokens stay locked: 0 to 365, default 7. */
  lockDuration?: number;
  name: string;
  /** UNIX seconds. */
  startTimestamp: number;
  /** USDC to raise: 2 to 200,000. */
  targetUsdcAmount: DecimalInput;
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
  /** Default off. */
  canLP?: boolean;
  /** An http(s) URL. */
  imageUrl?: string;
  /** The merchant wallet unless given. */
  merchantAddress?: string;
  name: string;
  /** Default `base`. */
  network?: Network;
  symbol: string;
  /** Whole tokens (18 decimals); default 1,000,000,000. */
  totalSupply?: DecimalInput;
}

/** The interface's Deployment. */
export interface Deployment {
  /** On failure. */
  error?: string;
  /** On success: a swap page for the token on its network (Uniswap's, which does not work as expected on a test network). */
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
  /** On success: a swap page for the token (Uniswap's). */
  uniswapUrl?: string;
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

/** A memecoin's recipient: `address` and `amount` together (`supply` is another name for `amount`, as the interface's sample request writes it). */
export interface MemecoinRecipient {
  /** Receives `amount` at deployment (with noLp also the owner and minter). */
  address?: string;
  /** Whole tokens, > 0. Give address and amount together, or neither. */
  amount?: DecimalInput;
  /** Another name for `amount`. Both names with different values: 400. */
  supply?: DecimalInput;
}

/** `POST /template/memecoin`. recipient.amount > totalSupply: 400 `allocation_exceeds_supply`. The rest of the supply is the liquidity reserve. */
export interface MemecoinRequest {
  /** USD per token, > 0, at most 18 fractional digits. The token's price. */
  initialPrice: DecimalInput;
  /** List the token on the service's marketplace (kept as the Token's `marketplace`). */
  marketplace: boolean;
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

/** `GET /merchant/settings`, `PATCH /merchant/settings`. */
export interface MerchantSettings {
  /** Private mode: holder reads need a session token (the public key alone reads no wallet), and public reads show holders' addresses, never their userIds. */
  privateMode: boolean;
}

/** Optional strings about the token; kept with the presale. */
export interface MetadataInput {
  description?: string;
  farcasterLink?: string;
  telegramLink?: string;
  websiteLink?: string;
  xLink?: string;
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

/** `POST /holder/:userId/spend`. */
export interface SpendRequest {
  /** Whole tokens. */
  amount: DecimalInput;
  tokenAddress: string;
}

export interface TokenInfoInput {
  deploymentConfig?: DeploymentConfigInput;
  imageUrl: string;
  metadata?: MetadataInput;
  name: string;
  symbol: string;
}

/** `GET /holder/:userId/transactions`: one page, newest first. */
export interface TxPage {
  /** Newest first. */
  data: TxRecord[];
  has_more: boolean;
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

/** One record of a holder's history. */
export interface TxRecord {
  amount: Decimal;
  /** The block the transaction was mined in; absent until it is. */
  blockNumber?: number;
  chainStatus: ChainStatus;
  /** Metal's label: Airdrop, Transfer, Withdraw, Deposit, Buy, Sell. */
  context: "Airdrop" | "Transfer" | "Withdraw" | "Deposit" | "Buy" | "Sell";
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
