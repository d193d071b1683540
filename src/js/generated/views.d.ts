// Generated from the view models' Rust structs (src/view.rs, src/view/, src/time.rs) by
//   UPDATE_CODEGEN=1 cargo test -p tokenpad --lib codegen
// Do not edit: change the Rust structs and run that command.
// Amounts are `Decimal` strings next to their formatted text; numbers are for drawing and counting.
import type { Decimal, PresaleStatus } from './wire.js';

/**
 * How far a presale's launch has gone (`PresaleProgress.completion`).
 */
export interface CompletionView {
  /**
   * The last step finished (`pending` ... `completed`).
   */
  step: string;
  /**
   * Its position (0..=5) in pending, swapping, token-created, tokens-withdrawn,
   * distributing, completed; `null` for a step not in the list.
   */
  stepIndex: number | null;
  stepCount: number;
  /**
   * `Waiting to launch`, `Swapping USDC`, `Token created`, `Tokens withdrawn`,
   * `Distributing tokens`, `Launched`.
   */
  label: string;
  /**
   * Steps done as a percentage (for a bar).
   */
  percent: number;
  done: boolean;
  retryCount: number;
  lastError: string | null;
  distributed: boolean | null;
}

/**
 * Time left until `target_ms`, broken down for display.
 */
export interface Countdown {
  /**
   * The instant counted down to (UNIX ms).
   */
  targetMs: number;
  /**
   * Milliseconds left; 0 once reached.
   */
  remainingMs: number;
  /**
   * True once `now` has reached the target.
   */
  done: boolean;
  days: number;
  hours: number;
  minutes: number;
  /**
   * Whole seconds, rounded up, so the display reaches `0s` exactly when `done`.
   */
  seconds: number;
  /**
   * `6d 23h 59m 59s`, `4h 0m 12s`, `12m 5s`, `9s`, `0s`.
   */
  label: string;
}

/**
 * One of a token's largest holders (`TokenSupply.topHolders`).
 */
export interface HolderRow {
  id: string;
  address: string;
  balance: Decimal;
  balanceFormatted: string;
  value: Decimal;
  valueFormatted: string;
  /**
   * Share of the total supply, 0..=100.
   */
  sharePercent: number;
}

/**
 * One contribution to a presale (`PresaleProgress.participants`).
 */
export interface ParticipantRow {
  id: string;
  address: string;
  usdcAmount: Decimal;
  usdcAmountFormatted: string;
  tokenPercentage: number;
  tokenPercentageFormatted: string;
}

/**
 * A token's liquidity pool (`TokenSupply.pool`), formatted.
 */
export interface PoolRow {
  address: string;
  /**
   * Tokens in the pool.
   */
  tokenReserve: Decimal;
  tokenReserveFormatted: string;
  /**
   * USDC buyers paid in: what the pool can pay sellers.
   */
  usdcReserve: Decimal;
  usdcReserveFormatted: string;
  /**
   * USD per token.
   */
  price: Decimal;
  priceFormatted: string;
  /**
   * Percent of each trade's input that stays in the pool, e.g. `0.3%`.
   */
  feeFormatted: string;
}

/**
 * A holder's wallet, ready to render: one row per active token, lock and presale position,
 * largest value first. What `holderPortfolio(holder, nowMs, options)` returns.
 */
export interface Portfolio {
  userId: string;
  address: string;
  /**
   * The service's `totalValue` (USD): tokens, locks and presale USDC.
   */
  totalValue: Decimal;
  totalValueFormatted: string;
  /**
   * USD value of the locked rows.
   */
  lockedValue: Decimal;
  lockedValueFormatted: string;
  /**
   * Largest value first.
   */
  rows: Array<PortfolioRow>;
  tokenCount: number;
  lockCount: number;
  presaleCount: number;
  /**
   * Token and lock rows whose token has no price yet: their value is unknown, and not in
   * `totalValue` (show it as unknown, not as $0).
   */
  unpricedCount: number;
  /**
   * The soonest unlock still ahead, if any.
   */
  nextUnlock: Countdown | null;
}

/**
 * One line of a portfolio: an active token, a lock or a presale position.
 */
export interface PortfolioRow {
  /**
   * `token` (active), `lock` or `presale`.
   */
  kind: "token" | "lock" | "presale";
  /**
   * Unique within the portfolio (for keyed rendering).
   */
  key: string;
  id: string;
  /**
   * Token address.
   */
  address: string;
  name: string;
  symbol: string;
  /**
   * The service's status: `active`, `locked` or `pending`.
   */
  status: "active" | "locked" | "pending";
  /**
   * Tokens (for a presale: the tokens the holder can expect).
   */
  balance: Decimal;
  balanceFormatted: string;
  /**
   * USD (for a presale: the USDC paid); 0 when `priced` is false.
   */
  value: Decimal;
  valueFormatted: string;
  /**
   * False when the token has no price yet: the value is unknown (not $0).
   */
  priced: boolean;
  /**
   * This row's share of the portfolio's value, 0..=100 (two decimals).
   */
  sharePercent: number;
  /**
   * Locks: when they unlock (ISO) and in UNIX ms.
   */
  unlockDate: string | null;
  unlockAtMs: number | null;
  /**
   * Presales: the presale, its progress (percent of target) and end.
   */
  presaleId: string | null;
  progress: number | null;
  progressFormatted: string | null;
  endDate: string | null;
  endsAtMs: number | null;
  /**
   * Locks: time to the unlock; presales: time to the end. `null` for active tokens.
   */
  countdown: Countdown | null;
}

/**
 * A presale, ready to render: what `presaleProgress(presale, nowMs, options)` returns.
 */
export interface PresaleProgress {
  id: string;
  name: string;
  description: string;
  tokenName: string;
  tokenSymbol: string;
  imageUrl: string;
  /**
   * The service's status: `pending`, `active`, `completed` or `ended`.
   */
  status: PresaleStatus;
  /**
   * `Upcoming`, `Live`, `Launching`, `Completed`, `Ended`.
   */
  statusLabel: string;
  /**
   * One sentence on where the presale stands against its target and the 70 % rule.
   */
  statusDetail: string;
  /**
   * `upcoming`, `live` or `closed`.
   */
  phase: "upcoming" | "live" | "closed";
  /**
   * USDC raised.
   */
  raised: Decimal;
  raisedFormatted: string;
  /**
   * The USDC target.
   */
  target: Decimal;
  targetFormatted: string;
  /**
   * What is left to the target.
   */
  remaining: Decimal;
  remainingFormatted: string;
  /**
   * Raised as a percentage of the target (0..=100, two decimals, for the bar).
   */
  percent: number;
  percentFormatted: string;
  /**
   * 70: the launch threshold, as a percentage and in USDC.
   */
  thresholdPercent: number;
  thresholdAmount: Decimal;
  thresholdAmountFormatted: string;
  /**
   * Raised at least 70 % of the target: the presale can launch.
   */
  thresholdReached: boolean;
  startsAtMs: number;
  endsAtMs: number;
  /**
   * Time to the start: upcoming only.
   */
  startsInMs: number | null;
  /**
   * Time to the end: upcoming and live.
   */
  endsInMs: number | null;
  /**
   * Counting down to the start when upcoming, to the end when live; `null` when closed.
   */
  countdown: Countdown | null;
  /**
   * `Starts in 2h 5m 0s`, `Ends in 3d 4h 0m 0s`, `Ended`.
   */
  timeLabel: string;
  participantCount: number;
  /**
   * Largest contribution first.
   */
  participants: Array<ParticipantRow>;
  /**
   * The launch's progress; only with the merchant form (`completionState`).
   */
  completion: CompletionView | null;
  /**
   * The launched token's address, once known (merchant form).
   */
  tokenAddress: string | null;
}

/**
 * One part of the total supply (`TokenSupply.split`).
 */
export interface SplitPart {
  /**
   * `held`, `app`, `merchant`, `liquidity` or `pool`.
   */
  key: "held" | "app" | "merchant" | "liquidity" | "pool";
  label: string;
  amount: Decimal;
  amountFormatted: string;
  /**
   * Share of the total supply, 0..=100 (for drawing).
   */
  percent: number;
  percentFormatted: string;
}

/**
 * A token's supply, ready to render: what `tokenSupply(token, options)` returns.
 */
export interface TokenSupply {
  address: string;
  name: string;
  symbol: string;
  network: string;
  totalSupply: Decimal;
  totalSupplyFormatted: string;
  /**
   * The app supply the merchant started with, what is left of it, and the difference:
   * what has been distributed to holders.
   */
  startingAppSupply: Decimal;
  startingAppSupplyFormatted: string;
  remainingAppSupply: Decimal;
  remainingAppSupplyFormatted: string;
  /**
   * startingAppSupply - remainingAppSupply: given out to holders.
   */
  distributed: Decimal;
  distributedFormatted: string;
  /**
   * Distributed and remaining as percentages of the starting app supply (0..=100).
   */
  distributedPercent: number;
  distributedPercentFormatted: string;
  remainingPercent: number;
  remainingPercentFormatted: string;
  merchantSupply: Decimal;
  merchantSupplyFormatted: string;
  liquiditySupply: Decimal;
  liquiditySupplyFormatted: string;
  /**
   * USD per token, `null` until a price exists.
   */
  price: Decimal | null;
  priceFormatted: string | null;
  holdersCount: number;
  /**
   * Largest balance first, as the service sends them.
   */
  topHolders: Array<HolderRow>;
  /**
   * The token's liquidity pool, `null` until one is open.
   */
  pool: PoolRow | null;
  /**
   * Where the total supply is: held by holders, the app supply left, the merchant supply,
   * the liquidity reserve and (once open) the pool; each with its share of the total.
   */
  split: Array<SplitPart>;
}
