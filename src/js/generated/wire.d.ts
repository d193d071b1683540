// Generated from the Rust wire types (crates/core/src/wire) by
//   cargo run -p tokenpad-core --features codegen --example codegen
// Do not edit: change the Rust types and run that command.
// Amounts are `Decimal` strings: the package hands every amount to JavaScript as exact text.

export interface CompletionState {
  /**
   * The last step finished.
   */
  step: CompletionStep;
  /**
   * Transaction hashes by name: swapApprovalTx, swapTx, tokenCreationTx, withdrawTx,
   * distributionApprovalTx, distributionTx.
   */
  transactions: Record<string, string>;
  retryCount: number;
  /**
   * Why the last attempt of the current step failed (cleared on success).
   */
  lastError?: string;
  /**
   * When a step last ran (ISO 8601).
   */
  updatedAt?: string;
}

export type CompletionStep = "pending" | "swapping" | "token-created" | "tokens-withdrawn" | "distributing" | "completed";

/**
 * An exact, non-negative decimal as a string, e.g. `"12.345678901234567891"`.
 * Every amount (balances, supplies, USD values, USDC, prices, percentages from the service)
 * comes as a `Decimal`: the service writes exact decimals and a JavaScript number would lose
 * digits beyond 2^53. Format it with `formatAmount`; `Number(x)` only where a float is fine.
 */
export type Decimal = string;

/**
 * Every error: `{ success: false, message, code, details? }`.
 */
export interface ErrorBody {
  success: false;
  /**
   * For people.
   */
  message: string;
  /**
   * The same as `message` (the name some clients read).
   */
  error?: string | null;
  /**
   * Stable, for programs.
   */
  code: ErrorCode;
  /**
   * Extra information, e.g. `field` for the field that failed.
   */
  details?: Record<string, unknown>;
}

/**
 * The service's stable error codes (`ErrorBody.code`).
 */
export type ErrorCode =
  | "invalid_json"
  | "invalid_request"
  | "invalid_amount"
  | "invalid_address"
  | "invalid_user_id"
  | "invalid_network"
  | "network_unavailable"
  | "invalid_idempotency_key"
  | "invalid_cursor"
  | "secret_key_in_url"
  | "invalid_image_url"
  | "invalid_text"
  | "self_transfer"
  | "invalid_destination"
  | "public_key_not_found"
  | "missing_api_key"
  | "invalid_api_key"
  | "invalid_admin_key"
  | "secret_key_required"
  | "reward_allocation_disabled"
  | "not_found"
  | "token_not_found"
  | "holder_not_found"
  | "job_not_found"
  | "merchant_not_found"
  | "method_not_allowed"
  | "idempotency_key_reused"
  | "payload_too_large"
  | "unsupported_media_type"
  | "insufficient_balance"
  | "tokens_locked"
  | "insufficient_app_supply"
  | "presale_not_found"
  | "presale_not_active"
  | "presale_already_resolved"
  | "target_exceeded"
  | "launch_threshold_not_reached"
  | "internal_error"
  | "deployment_not_found"
  | "allocation_exceeds_supply"
  | "rate_limited"
  | "no_liquidity"
  | "pool_exists"
  | "pool_pending"
  | "liquidity_disabled"
  | "slippage_exceeded"
  | "insufficient_liquidity"
  | "event_not_found"
  | "webhook_not_found"
  | "delivery_not_found"
  | "url_not_allowed"
  | "webhook_limit_reached"
  | "misconfigured"
  | "unavailable"
  | "invalid_session_token"
  | "session_expired"
  | "session_revoked"
  | "session_token_required"
  | "session_holder_mismatch"
  | "insufficient_scope"
  | "session_limit_exceeded"
  | "key_not_found"
  | "key_revoked"
  | "last_live_key"
  | "key_already_shown"
  | "key_limit_reached"
  | "weak_password"
  | "invalid_link"
  | "invalid_credentials"
  | "not_logged_in"
  | "email_not_verified"
  | "forbidden_role"
  | "cross_origin_request"
  | "invite_for_another_email"
  | "too_many_attempts";

/**
 * `PUT /holder/:userId`, `GET /holder/:userId`: the full form.
 */
export interface HolderFull {
  success: true;
  /**
   * The userId.
   */
  id: string;
  address: string;
  /**
   * USD value of tokens, locks and presale positions.
   */
  totalValue: Decimal;
  /**
   * Active tokens (USDC as an item with symbol USDC), largest value first.
   */
  tokens: Array<TokenItem>;
  /**
   * Positions in presales not yet distributed or refunded.
   */
  presales: Array<PresaleItem>;
  /**
   * Locked tokens, largest value first.
   */
  locks: Array<LockItem>;
}

/**
 * Locked tokens of a holder (a presale allocation); they cannot be spent, transferred or
 * withdrawn before `unlockDate`.
 */
export interface LockItem {
  id: string;
  address: string;
  name: string;
  symbol: string;
  balance: Decimal;
  /**
   * balance x price, in USD; 0 while the token has no price (see `price`).
   */
  value: Decimal;
  /**
   * USD per token; null while the token has no price yet (its value is then unknown, not 0).
   */
  price: Decimal | null;
  /**
   * `locked`.
   */
  status: "locked";
  /**
   * `lock`.
   */
  type: "lock";
  /**
   * ISO date when the tokens unlock.
   */
  unlockDate: string;
}

/**
 * Metal's liquidity position: its id and the pool's address.
 */
export interface LpInfo {
  /**
   * The position NFT's id (Uniswap's NonfungiblePositionManager on an EVM chain, where
   * tokenpad's market contract holds it: the liquidity is locked). Null until the
   * transaction that mints it is mined.
   */
  nftId: string | null;
  liquidityPoolAddress: string;
}

/**
 * Blockchain networks the service deploys to.
 */
export type Network = "base" | "base-sepolia" | "sepolia" | "local";

/**
 * A token's liquidity pool against USDC: a Uniswap v3 pool of the 0.3 % tier (on an EVM
 * chain the pool contract itself, which anyone can trade).
 */
export interface Pool {
  /**
   * The pool contract.
   */
  address: string;
  /**
   * `open`; on an EVM chain `pending` until the transaction that opens it is mined (no
   * trades until then).
   */
  status: PoolStatus;
  /**
   * Tokens in the pool.
   */
  tokenReserve: Decimal;
  /**
   * USDC in the pool: buyers paid it in (and a presale's raise), so it is the most the
   * pool can ever pay out.
   */
  usdcReserve: Decimal;
  /**
   * The price support of a pool opened from the token's reserve alone: the USDC its
   * position counts below the opening price, which nobody paid in and no seller can be
   * paid. Zero for a pool over the whole price range (a presale's).
   */
  virtualUsdcReserve: Decimal;
  /**
   * USD per token: the pool's price.
   */
  price: Decimal;
  /**
   * Percent of what comes into a trade that stays in the pool.
   */
  fee: Decimal;
  /**
   * Uniswap v3's `slot0.sqrtPriceX96`, as digits.
   */
  sqrtPriceX96: string;
  /**
   * Uniswap v3's `slot0.tick`.
   */
  tick: number;
  /**
   * The pool's active liquidity, as digits.
   */
  liquidity: string;
  /**
   * The liquidity position (Metal's `lpInfo`).
   */
  lpInfo: LpInfo;
}

/**
 * Whether a pool trades yet.
 */
export type PoolStatus = "pending" | "open";

/**
 * `GET /token/presales/:presaleId` (public key), and what create answers.
 */
export interface Presale {
  id: string;
  name: string;
  description: string;
  /**
   * UNIX seconds.
   */
  startTimestamp: number;
  /**
   * UNIX seconds.
   */
  endTimestamp: number;
  targetUsdcAmount: Decimal;
  purchasedUsdcAmount: Decimal;
  /**
   * pending before `startTimestamp`; active until `endTimestamp` while below target;
   * completed once the target is reached or the presale launched; ended when
   * `endTimestamp` passed below target, or after a refund.
   */
  status: PresaleStatus;
  /**
   * In the order of their first purchase: every one in an answer; in a `presale.purchase`
   * event its buyer alone (their total and share after it); in the other `presale.*`
   * events the first 100, as a token's event carries its first 100 holders. An event's
   * size stays bounded however many buy in.
   */
  participants: Array<PresaleParticipant>;
  /**
   * How many holders bought in (all of them, also where `participants` lists only some).
   * tokenpad always sends it; absent from answers of services before it.
   */
  participantsCount?: number;
  tokenInfo: PresaleTokenInfo;
  /**
   * ISO 8601.
   */
  createdAt?: string | null;
  /**
   * When the presale last changed (a purchase, a completion step, a refund), ISO 8601.
   */
  updatedAt?: string | null;
}

export interface PresaleInfo {
  distributed: boolean;
  /**
   * Present once distributed.
   */
  distributeTxHash?: string;
}

/**
 * A holder's position in a presale: the tokens expected, the USDC paid.
 */
export interface PresaleItem {
  id: string;
  address: string;
  name: string;
  symbol: string;
  /**
   * Tokens the holder expects to receive.
   */
  balance: Decimal;
  /**
   * USDC invested.
   */
  value: Decimal;
  /**
   * `pending`.
   */
  status: "pending";
  /**
   * `presale`.
   */
  type: "presale";
  metadata: PresaleItemMetadata;
}

export interface PresaleItemMetadata {
  presaleId: string;
  /**
   * Percent of the target raised.
   */
  progress: Decimal;
  /**
   * ISO date of the presale's end.
   */
  endDate: string;
}

/**
 * `GET /merchant/presales`, `GET /merchant/presale/:id`: the merchant form.
 */
export interface PresaleMerchant {
  signerAddress: string;
  /**
   * Days the buyers' tokens stay locked.
   */
  lockDuration: number;
  autoLaunch: boolean;
  /**
   * The share of the token's supply sold to buyers, in percent.
   */
  lockupPercentage: number;
  /**
   * Where the token will live (reserved at creation).
   */
  tokenAddress: string;
  completionState: CompletionState;
  presaleInfo: PresaleInfo;
  /**
   * Present once the token is deployed.
   */
  tokenDeploymentInfo?: TokenDeploymentInfo;
  id: string;
  name: string;
  description: string;
  /**
   * UNIX seconds.
   */
  startTimestamp: number;
  /**
   * UNIX seconds.
   */
  endTimestamp: number;
  targetUsdcAmount: Decimal;
  purchasedUsdcAmount: Decimal;
  /**
   * pending before `startTimestamp`; active until `endTimestamp` while below target;
   * completed once the target is reached or the presale launched; ended when
   * `endTimestamp` passed below target, or after a refund.
   */
  status: PresaleStatus;
  /**
   * In the order of their first purchase: every one in an answer; in a `presale.purchase`
   * event its buyer alone (their total and share after it); in the other `presale.*`
   * events the first 100, as a token's event carries its first 100 holders. An event's
   * size stays bounded however many buy in.
   */
  participants: Array<PresaleParticipant>;
  /**
   * How many holders bought in (all of them, also where `participants` lists only some).
   * tokenpad always sends it; absent from answers of services before it.
   */
  participantsCount?: number;
  tokenInfo: PresaleTokenInfo;
  /**
   * ISO 8601.
   */
  createdAt?: string | null;
  /**
   * When the presale last changed (a purchase, a completion step, a refund), ISO 8601.
   */
  updatedAt?: string | null;
}

export interface PresaleParticipant {
  /**
   * The holder's userId.
   */
  id: string;
  address: string;
  /**
   * The same as `address` (the name some Metal clients read).
   */
  userAddress?: string | null;
  usdcAmount: Decimal;
  /**
   * Percent of the tokens bought that this participant receives.
   */
  tokenPercentage: Decimal;
}

/**
 * pending, active, completed, ended: a function of time and money.
 */
export type PresaleStatus = "pending" | "active" | "completed" | "ended";

export interface PresaleTokenInfo {
  name: string;
  symbol: string;
  imageUrl: string;
}

/**
 * `GET /token/:tokenAddress`: the interface's Token, plus additive fields.
 */
export interface Token {
  /**
   * Same value as `address`.
   */
  id: string;
  address: string;
  name: string;
  symbol: string;
  /**
   * 18 for tokens, 6 for USDC.
   */
  decimals: number;
  network: Network;
  totalSupply: Decimal;
  startingAppSupply: Decimal;
  remainingAppSupply: Decimal;
  merchantSupply: Decimal;
  /**
   * The liquidity reserve.
   */
  liquiditySupply: Decimal;
  merchantAddress: string;
  /**
   * USD per token; null until a price exists.
   */
  price: Decimal | null;
  /**
   * The Reward Allocation switch.
   */
  canDistribute: boolean;
  canAirdrop: boolean;
  canLP: boolean;
  imageUrl: string | null;
  createdAt: string;
  /**
   * How the token came to be.
   */
  origin: TokenOrigin;
  /**
   * Listed on the service's marketplace (template deployments).
   */
  marketplace: boolean;
  /**
   * Largest balances first, at most `holdersLimit`.
   */
  holders: Array<TokenHolder>;
  /**
   * All holders, regardless of `holdersLimit`.
   */
  holdersCount: number;
  /**
   * Metal's name for `startingAppSupply`.
   */
  startingRewardSupply?: Decimal | null;
  /**
   * Metal's name for `remainingAppSupply`.
   */
  remainingRewardSupply?: Decimal | null;
  /**
   * The token's liquidity pool, once one is open (absent before). From then on `price`
   * (and every USD value) is the pool's.
   */
  pool?: Pool | null;
}

/**
 * `GET /holder/:holderAddressOrUserId/token/:tokenAddress`.
 */
export interface TokenBalance {
  name: string;
  symbol: string;
  /**
   * Same as `address`.
   */
  id: string;
  /**
   * The token's address.
   */
  address: string;
  /**
   * Active tokens.
   */
  balance: Decimal;
  lockedBalance: Decimal;
  value: Decimal;
  decimals: number;
}

export interface TokenDeploymentInfo {
  tokenAddress: string;
  /**
   * `null` on an EVM chain until the deployment is mined.
   */
  hash: string | null;
  /**
   * Base units (18 decimals) as a string of digits.
   */
  amountTokensBought: string;
}

/**
 * One holder of a token.
 */
export interface TokenHolder {
  /**
   * The holder's userId, or the address for a non-custodial address.
   */
  id: string;
  address: string;
  balance: Decimal;
  /**
   * USD: balance x price; 0 with no price.
   */
  value: Decimal;
}

/**
 * An active (unlocked) token balance of a holder. USDC appears as an item with symbol USDC
 * and value = balance.
 */
export interface TokenItem {
  id: string;
  address: string;
  name: string;
  symbol: string;
  balance: Decimal;
  /**
   * balance x price, in USD; 0 while the token has no price (see `price`).
   */
  value: Decimal;
  /**
   * USD per token; null while the token has no price yet (its value is then unknown, not 0).
   */
  price: Decimal | null;
  /**
   * `active`.
   */
  status: "active";
  /**
   * `token`.
   */
  type: "token";
}

/**
 * How a token came to be. Presale and template tokens are Tokens like any other; the origin
 * says which flow made them.
 */
export type TokenOrigin = "dashboard" | "presale" | "memecoin" | "airdrop" | "usdc";
