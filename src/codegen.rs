//! The view models' TypeScript (feature `codegen`, never in the package):
//! `src/js/generated/views.d.ts`, declared from the Rust structs ([`crate::view`],
//! [`Countdown`]) by ts-rs and laid out by the core's [`Collect`], as the core declares the
//! wire types in `wire.d.ts`. What `wire.d.ts` declares (`Decimal`, `PresaleStatus`) is
//! imported from it, not declared again; `src/js/types.ts` re-exports the view models.
//!
//! The test below fails while the committed file differs from what the structs generate;
//! `UPDATE_CODEGEN=1 cargo test -p tokenpad --lib codegen` rewrites it.

use crate::decimal::Dec;
use crate::time::Countdown;
use crate::view::{
    CompletionView, HolderRow, ParticipantRow, PoolRow, Portfolio, PortfolioRow, PresaleProgress,
    SplitPart, TokenSupply,
};
use std::path::PathBuf;
use tokenpad_core::codegen::ts::{self, Collect};
use tokenpad_core::model::decimal::Decimal;
use ts_rs::{Config, TS};

/// The generated file, from the repository's root.
pub const VIEWS_DTS: &str = "src/js/generated/views.d.ts";

/// The repository's root (this crate's directory).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A [`Dec`] reaches JavaScript as the wire's amounts do, an exact decimal string: it is the
/// wire's `Decimal` (declared in `wire.d.ts`).
impl TS for Dec {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn docs() -> Option<String> {
        Decimal::docs()
    }
    fn name(cfg: &Config) -> String {
        Decimal::name(cfg)
    }
    fn inline(cfg: &Config) -> String {
        Decimal::inline(cfg)
    }
    fn decl(cfg: &Config) -> String {
        Decimal::decl(cfg)
    }
    fn decl_concrete(cfg: &Config) -> String {
        Decimal::decl_concrete(cfg)
    }
    fn output_path() -> Option<PathBuf> {
        Decimal::output_path()
    }
}

/// The file's header.
const HEADER: &str =
    "// Generated from the view models' Rust structs (src/view.rs, src/view/, src/time.rs) by
//   UPDATE_CODEGEN=1 cargo test -p tokenpad --lib codegen
// Do not edit: change the Rust structs and run that command.
// Amounts are `Decimal` strings next to their formatted text; numbers are for drawing and counting.
";

/// The whole of `src/js/generated/views.d.ts`.
pub fn views_dts() -> String {
    let views = Collect::default()
        .with::<Countdown>()
        .with::<Portfolio>()
        .with::<PortfolioRow>()
        .with::<PresaleProgress>()
        .with::<ParticipantRow>()
        .with::<CompletionView>()
        .with::<TokenSupply>()
        .with::<HolderRow>()
        .with::<SplitPart>()
        .with::<PoolRow>();
    let wire = ts::wire();
    let imported: Vec<&str> = views.names().filter(|n| wire.declares(n)).collect();
    format!(
        "{HEADER}import type {{ {} }} from './wire.js';\n{}",
        imported.join(", "),
        views.render(&imported)
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Fails while the committed views.d.ts is stale. `UPDATE_CODEGEN=1` rewrites it.
    #[test]
    fn views_dts_is_current() {
        let path = root().join(VIEWS_DTS);
        let want = views_dts();
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != want && std::env::var("UPDATE_CODEGEN").is_ok_and(|v| v == "1") {
            std::fs::write(&path, &want).unwrap();
            return;
        }
        assert!(
            have == want,
            "{VIEWS_DTS} differs from what the view models' Rust structs generate: run \
             `UPDATE_CODEGEN=1 cargo test -p tokenpad --lib codegen` and commit the result"
        );
    }

    /// Every view model is declared here, and what the wire declares is imported, not
    /// declared again.
    #[test]
    fn declares_the_views_and_imports_the_wire() {
        let text = views_dts();
        for name in [
            "Countdown",
            "Portfolio",
            "PortfolioRow",
            "PresaleProgress",
            "ParticipantRow",
            "CompletionView",
            "TokenSupply",
            "HolderRow",
            "SplitPart",
            "PoolRow",
        ] {
            assert!(
                text.contains(&format!("\nexport interface {name} {{\n")),
                "{name} not declared"
            );
        }
        assert!(text.contains("import type { Decimal, PresaleStatus } from './wire.js';\n"));
        assert!(!text.contains("export type Decimal"));
        assert!(!text.contains("export type PresaleStatus"));
    }
}
