//! The merchant's own resources: its settings (private mode), its settlement on chain
//! (`GET /merchant/chain`: `chain.rs`'s view, the merchant's own) and the work parked for it
//! (`GET /merchant/parked-work`: the scheduled items that failed `ops::due::MAX_ATTEMPTS`
//! times in a row and were taken off the schedule; each names what it belongs to, a job, a
//! deployment, a presale or an unlock, and its last error, with the same rule as every
//! answer: an internal error's message is never shown).

use super::endpoint::{
    Access::Secret,
    Effect::{Reads, Writes},
    Route, Row,
};
use super::merchant_chain::MerchantChain;
use super::parts::Parts;
use crate::error::ErrorCode;
use crate::error::Result;
use crate::model::merchant::Merchant;
use crate::model::schedule::DueFailure;
use crate::model::time::Timestamp;
use crate::ops::settings::{self, PatchSettingsRequest};
use crate::ops::Ctx;
use crate::store::DueKey;
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// This family's routes, each named by its operationId in openapi.json (`endpoint::Route`):
/// its rows below, its operations' `route()` and its decoding name them.
pub const PARKED_WORK: Route = Route::new("listParkedWork");
pub const CHAIN: Route = Route::new("getMerchantChain");
pub const SETTINGS: Route = Route::new("getSettings");
pub const PATCH_SETTINGS: Route = Route::new("patchSettings");

/// This family's routes: method, path pattern, route, who may call it, whether it writes.
#[rustfmt::skip]
pub const ROUTES: &[Row] = &[
    ("GET", "/merchant/parked-work", PARKED_WORK, Secret, Reads),
    ("GET", "/merchant/chain", CHAIN, Secret, Reads),
    ("GET", "/merchant/settings", SETTINGS, Secret, Reads),
    ("PATCH", "/merchant/settings", PATCH_SETTINGS, Secret, Writes),
];

/// An operation on the merchant's own resources, decoded from one of [`ROUTES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MerchantOp {
    ParkedWork,
    Chain,
    Settings,
    PatchSettings(PatchSettingsRequest),
}

/// Every answer of a [`MerchantOp`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MerchantAnswer {
    ParkedWork(ParkedWork),
    Chain(Box<MerchantChain>),
    Settings(MerchantSettings),
}

impl MerchantOp {
    /// The route it was decoded from.
    pub fn route(&self) -> Route {
        match self {
            MerchantOp::ParkedWork => PARKED_WORK,
            MerchantOp::Chain => CHAIN,
            MerchantOp::Settings => SETTINGS,
            MerchantOp::PatchSettings(_) => PATCH_SETTINGS,
        }
    }
}

/// Decodes a route of this family; None for any other route.
#[inline(never)]
pub fn decode(route: Route, parts: &Parts) -> Result<Option<MerchantOp>> {
    Ok(Some(match route {
        PARKED_WORK => MerchantOp::ParkedWork,
        CHAIN => MerchantOp::Chain,
        SETTINGS => MerchantOp::Settings,
        PATCH_SETTINGS => MerchantOp::PatchSettings(parts.body()?),
        _ => return Ok(None),
    }))
}

/// Applies `op`: its HTTP status and answer.
#[inline(never)]
pub fn apply(store: &mut dyn Store, ctx: &Ctx, op: MerchantOp) -> Result<(u16, MerchantAnswer)> {
    Ok(match op {
        MerchantOp::ParkedWork => {
            let parked = ParkedWork::of(&store.parked()?);
            (200, MerchantAnswer::ParkedWork(parked))
        }
        MerchantOp::Chain => (
            200,
            MerchantAnswer::Chain(Box::new(MerchantChain::of(&*store, ctx)?)),
        ),
        MerchantOp::Settings => {
            let settings = MerchantSettings::of(&settings::merchant(store)?);
            (200, MerchantAnswer::Settings(settings))
        }
        MerchantOp::PatchSettings(req) => {
            let settings = MerchantSettings::of(&settings::patch(store, ctx, &req)?);
            (200, MerchantAnswer::Settings(settings))
        }
    })
}

/// `GET /merchant/settings`, `PATCH /merchant/settings`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MerchantSettings {
    /// Private mode: holder reads need a session token (the public key alone reads no
    /// wallet), and public reads show holders' addresses, never their userIds.
    pub private_mode: bool,
}

impl MerchantSettings {
    pub fn of(m: &Merchant) -> MerchantSettings {
        MerchantSettings {
            private_mode: m.private_mode,
        }
    }
}

/// What a parked item belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "ParkedKind"))]
#[serde(rename_all = "snake_case")]
pub enum ParkedKind {
    Job,
    Deployment,
    Presale,
    Unlock,
}

/// One parked item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "ParkedItem"))]
#[serde(rename_all = "camelCase")]
pub struct ParkedItem {
    pub kind: ParkedKind,
    /// The job, deployment, presale or lock id.
    pub id: String,
    /// Failed runs, in a row.
    pub attempts: u32,
    /// The last failure's code.
    pub code: ErrorCode,
    /// The last failure's message (`Internal error` for an internal one: the detail is in the
    /// service's log).
    pub message: String,
    pub first_failed_at: Timestamp,
    pub last_failed_at: Timestamp,
    pub parked_at: Timestamp,
}

/// `{ has_more: false, data: ParkedItem[] }`, most recently parked first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "ParkedWork"))]
pub struct ParkedWork {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = false)))]
    pub has_more: bool,
    pub data: Vec<ParkedItem>,
}

impl ParkedItem {
    /// The item a parked failure is about; None for a key no owner claims (never parked:
    /// such a key is dropped) or one not parked.
    pub fn of(f: &DueFailure) -> Option<ParkedItem> {
        let parked_at = f.parked_at?;
        let (kind, id) = match DueKey::decode(&f.key)? {
            DueKey::Job(id) => (ParkedKind::Job, id.as_str().to_string()),
            DueKey::Deployment(id) => (ParkedKind::Deployment, id.as_str().to_string()),
            DueKey::Presale(id) => (ParkedKind::Presale, id.as_str().to_string()),
            DueKey::Unlock(id) => (ParkedKind::Unlock, id.as_str().to_string()),
        };
        let message = if f.code == ErrorCode::Internal {
            "Internal error".to_string()
        } else {
            f.message.clone()
        };
        Some(ParkedItem {
            kind,
            id,
            attempts: f.attempts,
            code: f.code,
            message,
            first_failed_at: Timestamp::at(f.first_failed_at),
            last_failed_at: Timestamp::at(f.last_failed_at),
            parked_at: Timestamp::at(parked_at),
        })
    }
}

impl ParkedWork {
    pub fn of(parked: &[DueFailure]) -> ParkedWork {
        ParkedWork {
            has_more: false,
            data: parked.iter().filter_map(ParkedItem::of).collect(),
        }
    }
}
