// The view models and formatting, computed in Rust (wasm): thin wrappers that count from the
// service's clock by default and throw TokenpadErrors.
import { serviceNow } from './clock.js';
import { toTokenpadError } from './errors.js';
import type { HolderFull, Presale, PresaleMerchant, Token, Decimal } from './generated/wire.js';
import type { Countdown, FormatOptions, Portfolio, PresaleProgress, TokenSupply } from './types.js';
import { assertReady } from './ready.js';
import * as wasm from './wasm.js';

function call<T>(f: () => unknown): T {
  assertReady();
  try {
    return f() as T;
  } catch (e) {
    throw toTokenpadError(e);
  }
}

/**
 * Formats an exact decimal with the locale's grouping (`Intl.NumberFormat`), rounding only the
 * digits: `formatAmount("1234567.891", { locale: "de-DE", maximumFractionDigits: 2 })` is
 * `"1.234.567,89"`. A string or bigint is exact at any size; a number is read as the shortest
 * decimal that round-trips.
 */
export function formatAmount(value: Decimal | number | bigint, options?: FormatOptions): string {
  return call(() => wasm.formatAmount(value, options as never));
}

/** Base units as the exact whole-unit decimal: `formatUnits("1500000", 6)` is `"1.5"`. */
export function formatUnits(baseUnits: string | bigint, decimals: number): string {
  return call(() => wasm.formatUnits(baseUnits, decimals));
}

/** The time left until `targetMs`, from `nowMs` (default: the service's clock, `serviceNow()`). */
export function countdown(targetMs: number, nowMs: number = serviceNow()): Countdown {
  return call(() => wasm.countdown(targetMs, nowMs));
}

/**
 * The holder's portfolio at `nowMs` (default `serviceNow()`): rows for active tokens, locks and
 * presale positions, largest value first, with a countdown to each unlock.
 */
export function holderPortfolio(holder: HolderFull, nowMs: number = serviceNow(), options?: FormatOptions): Portfolio {
  return call(() => wasm.holderPortfolio(holder as never, nowMs, options as never));
}

/**
 * The presale's progress at `nowMs` (default `serviceNow()`): raised against target, the 70 %
 * launch threshold, status, time to start or end, participants, and the launch's completion
 * step when given the merchant form.
 */
export function presaleProgress(presale: Presale | PresaleMerchant, nowMs: number = serviceNow(), options?: FormatOptions): PresaleProgress {
  return call(() => wasm.presaleProgress(presale as never, nowMs, options as never));
}

/** The token's supply: distributed versus remaining app supply, merchant and liquidity supply, price and top holders. */
export function tokenSupply(token: Token, options?: FormatOptions): TokenSupply {
  return call(() => wasm.tokenSupply(token as never, options as never));
}
