// The view models' types: what holderPortfolio, presaleProgress, tokenSupply and countdown
// return, and their options. The view models are computed in Rust (src/view/) and their types
// generated from those structs (generated/views.d.ts: `UPDATE_CODEGEN=1 cargo test -p tokenpad
// --lib codegen`, checked current by `cargo test`); the service's objects they take are in
// generated/wire.d.ts, generated from the Rust wire types. Only the options are written here:
// they are read field by field from a JavaScript object (src/web.rs), not a Rust struct.
export type * from './generated/views.js';

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

