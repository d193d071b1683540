//! `POST /merchant/presale/resolve` and `POST /resolve-presale` `{ presaleId }`: launch a
//! launchable presale now; refund one that ended below the threshold (again: idempotent).

use super::lookup::find;
use super::{launch, settle};
use crate::error::{Error, ErrorCode, Result};
use crate::model::decimal::Decimal;
use crate::model::ids::PresaleId;
use crate::model::input::Checked;
use crate::model::presale::{Phase, LAUNCH_THRESHOLD_PERCENT};
use crate::ops::Ctx;
use crate::store::Store;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "ResolvePresale"))]
#[serde(rename_all = "camelCase")]
pub struct ResolvePresaleRequest {
    pub presale_id: PresaleId,
}

impl Checked for ResolvePresaleRequest {
    fn check(&self) -> crate::Result<()> {
        if self.presale_id.as_str().trim().is_empty() {
            return Err(
                Error::new(ErrorCode::InvalidRequest, "must not be empty").at_field("presaleId")
            );
        }
        Ok(())
    }
}

/// What resolving did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The launch started (its first step ran).
    Launching,
    /// Every buyer has their USDC back (now, or already before).
    Refunded,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Launching => "launching",
            Outcome::Refunded => "refunded",
        }
    }
}

pub fn resolve(store: &mut dyn Store, ctx: &Ctx, req: &ResolvePresaleRequest) -> Result<Outcome> {
    let p = find(store, &req.presale_id)?;
    match p.phase {
        Phase::Launching | Phase::Launched => Err(Error::new(
            ErrorCode::PresaleAlreadyResolved,
            "The presale has already been launched",
        )),
        Phase::Refunded => Ok(Outcome::Refunded),
        Phase::Open if p.launchable() => {
            let mut p = p;
            p.phase = Phase::Launching;
            launch::step(store, ctx, p, ctx.now)?;
            Ok(Outcome::Launching)
        }
        Phase::Open if ctx.now >= p.end_ms() => {
            settle::refund(store, ctx, p, ctx.now)?;
            Ok(Outcome::Refunded)
        }
        Phase::Open => Err(Error::new(
            ErrorCode::LaunchThresholdNotReached,
            format!("A presale launches from {LAUNCH_THRESHOLD_PERCENT}% of its target"),
        )
        .with(
            "purchasedUsdcAmount",
            serde_json::to_value(Decimal::of(p.purchased)).unwrap_or_default(),
        )
        .with(
            "targetUsdcAmount",
            serde_json::to_value(Decimal::of(p.target)).unwrap_or_default(),
        )
        .with("thresholdPercent", LAUNCH_THRESHOLD_PERCENT as u64)),
    }
}
