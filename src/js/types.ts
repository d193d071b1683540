// The view models' types: what holderPortfolio, presaleProgress, tokenSupply and countdown
// return (computed in Rust, src/view/), and their options. The service's objects they take are
// in generated/wire.d.ts, generated from the Rust wire types.
import type { Decimal, PresaleStatus } from './generated/wire.js';

/** Options of the formatting functions and view models (all optional). */
export interface FormatOptions {
  /** A BCP 47 locale such as `"de-DE"`; the runtime's default locale when absent. */
  locale?: string;
  /** Fraction digits shown at most for token amounts (default 6, at most 40). */
  maximumFractionDigits?: number;
  /** Fraction digits shown at least for token amounts (default 0). */
  minimumFractionDigits?: number;
  /** Fraction digits of USD and USDC values (default 2). */
  valueFractionDigits?: number;
  /** `"halfExpand"` (default, as Intl) or `"trunc"` (never shows more than there is). */
  roundingMode?: "halfExpand" | "trunc";
}

// ---------------------------------------------------------------------------------------
// View models

/** Time left until an instant. */
export interface Countdown {
  /** The instant counted down to (UNIX ms). */
  targetMs: number;
  /** Milliseconds left; 0 once reached. */
  remainingMs: number;
  /** True once reached. */
  done: boolean;
  days: number;
  hours: number;
  minutes: number;
  /** Whole seconds, rounded up, so `0s` shows exactly when `done`. */
  seconds: number;
  /** `6d 23h 59m 59s`, `4h 0m 12s`, `12m 5s`, `9s`, `0s`. */
  label: string;
}

/** One line of a portfolio. */
export interface PortfolioRow {
  kind: "token" | "lock" | "presale";
  /** Unique within the portfolio (for keyed rendering). */
  key: string;
  id: string;
  /** The token's address. */
  address: string;
  name: string;
  symbol: string;
  status: "active" | "locked" | "pending";
  /** Tokens (for a presale: the tokens the holder can expect). */
  balance: Decimal;
  balanceFormatted: string;
  /** USD (for a presale: the USDC paid); 0 when `priced` is false. */
  value: Decimal;
  valueFormatted: string;
  /** False when the token has no price yet: the value is unknown (show it so, not as $0). */
  priced: boolean;
  /** Share of the portfolio's value, 0..100 (two decimals). */
  sharePercent: number;
  /** Locks: when they unlock. */
  unlockDate: string | null;
  unlockAtMs: number | null;
  /** Presales: which, how far (percent of target) and until when. */
  presaleId: string | null;
  progress: number | null;
  progressFormatted: string | null;
  endDate: string | null;
  endsAtMs: number | null;
  /** Locks: to the unlock; presales: to the end; null for active tokens. */
  countdown: Countdown | null;
}

/** `holderPortfolio(holder, nowMs, options)`. */
export interface Portfolio {
  userId: string;
  address: string;
  /** The service's totalValue (USD). */
  totalValue: Decimal;
  totalValueFormatted: string;
  lockedValue: Decimal;
  lockedValueFormatted: string;
  /** Largest value first. */
  rows: PortfolioRow[];
  tokenCount: number;
  lockCount: number;
  presaleCount: number;
  /** Token and lock rows without a price yet: their value is unknown, and not in totalValue. */
  unpricedCount: number;
  /** The soonest unlock still ahead. */
  nextUnlock: Countdown | null;
}

export interface ParticipantRow {
  id: string;
  address: string;
  usdcAmount: Decimal;
  usdcAmountFormatted: string;
  tokenPercentage: number;
  tokenPercentageFormatted: string;
}

export interface CompletionView {
  step: string;
  /** 0..5 in pending, swapping, token-created, tokens-withdrawn, distributing, completed. */
  stepIndex: number | null;
  stepCount: number;
  /** `Waiting to launch`, `Swapping USDC`, `Token created`, `Tokens withdrawn`, `Distributing tokens`, `Launched`. */
  label: string;
  /** Steps done, 0..100. */
  percent: number;
  done: boolean;
  retryCount: number;
  lastError: string | null;
  distributed: boolean | null;
}

/** `presaleProgress(presale, nowMs, options)`. */
export interface PresaleProgress {
  id: string;
  name: string;
  description: string;
  tokenName: string;
  tokenSymbol: string;
  imageUrl: string;
  status: PresaleStatus;
  /** `Upcoming`, `Live`, `Launching`, `Completed`, `Ended`. */
  statusLabel: string;
  /** One sentence on the target and the 70 % launch rule. */
  statusDetail: string;
  phase: "upcoming" | "live" | "closed";
  /** USDC raised. */
  raised: Decimal;
  raisedFormatted: string;
  target: Decimal;
  targetFormatted: string;
  /** What is left to the target. */
  remaining: Decimal;
  remainingFormatted: string;
  /** Raised as a percentage of the target, 0..100 (two decimals), for a bar. */
  percent: number;
  percentFormatted: string;
  /** 70. */
  thresholdPercent: number;
  thresholdAmount: Decimal;
  thresholdAmountFormatted: string;
  /** Raised at least 70 % of the target: the presale can launch. */
  thresholdReached: boolean;
  startsAtMs: number;
  endsAtMs: number;
  /** Upcoming only. */
  startsInMs: number | null;
  /** Upcoming and live. */
  endsInMs: number | null;
  /** To the start when upcoming, to the end when live, null when closed. */
  countdown: Countdown | null;
  /** `Starts in 2h 5m 0s`, `Ends in 3d 4h 0m 0s`, `Ended`. */
  timeLabel: string;
  participantCount: number;
  /** Largest contribution first. */
  participants: ParticipantRow[];
  /** With the merchant form only. */
  completion: CompletionView | null;
  tokenAddress: string | null;
}

export interface HolderRow {
  id: string;
  address: string;
  balance: Decimal;
  balanceFormatted: string;
  value: Decimal;
  valueFormatted: string;
  /** Share of the total supply, 0..100. */
  sharePercent: number;
}

/** `tokenSupply(token, options)`. */
export interface TokenSupply {
  address: string;
  name: string;
  symbol: string;
  network: string;
  totalSupply: Decimal;
  totalSupplyFormatted: string;
  startingAppSupply: Decimal;
  startingAppSupplyFormatted: string;
  remainingAppSupply: Decimal;
  remainingAppSupplyFormatted: string;
  /** startingAppSupply - remainingAppSupply: given out to holders. */
  distributed: Decimal;
  distributedFormatted: string;
  /** Of the starting app supply, 0..100. */
  distributedPercent: number;
  distributedPercentFormatted: string;
  remainingPercent: number;
  remainingPercentFormatted: string;
  merchantSupply: Decimal;
  merchantSupplyFormatted: string;
  liquiditySupply: Decimal;
  liquiditySupplyFormatted: string;
  price: Decimal | null;
  priceFormatted: string | null;
  holdersCount: number;
  topHolders: HolderRow[];
  /** The token's liquidity pool, `null` until one is open. */
  pool: PoolRow | null;
  /** Where the total supply is: held, app supply left, merchant, reserve, and the pool once open. */
  split: SplitPart[];
}

/** One part of the total supply (`TokenSupply.split`). */
export interface SplitPart {
  key: "held" | "app" | "merchant" | "liquidity" | "pool";
  label: string;
  amount: Decimal;
  amountFormatted: string;
  /** Share of the total supply, 0..100 (for drawing). */
  percent: number;
  percentFormatted: string;
}

/** A token's liquidity pool (`TokenSupply.pool`), formatted. */
export interface PoolRow {
  address: string;
  /** Tokens in the pool. */
  tokenReserve: Decimal;
  tokenReserveFormatted: string;
  /** USDC buyers paid in: what the pool can pay sellers. */
  usdcReserve: Decimal;
  usdcReserveFormatted: string;
  /** USD per token. */
  price: Decimal;
  priceFormatted: string;
  /** Percent of each trade's input that stays in the pool, e.g. `0.3%`. */
  feeFormatted: string;
}
