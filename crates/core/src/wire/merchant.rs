//! The merchant's own resources: its settings (private mode) and the work parked for it.

use super::endpoint::{
    Access::Secret,
    Effect::{Reads, Writes},
    Route, Row,
};
use super::parts::Parts;
use super::schedule::ParkedWork;
use super::session::MerchantSettings;
use crate::error::Result;
use crate::ops::settings::{self, PatchSettingsRequest};
use crate::ops::Ctx;
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// This family's routes, each named by its operationId in openapi.json (`endpoint::Route`):
/// its rows below, its operations' `route()` and its decoding name them.
pub const PARKED_WORK: Route = Route::new("listParkedWork");
pub const SETTINGS: Route = Route::new("getSettings");
pub const PATCH_SETTINGS: Route = Route::new("patchSettings");

/// This family's routes: method, path pattern, route, who may call it, whether it writes.
#[rustfmt::skip]
pub const ROUTES: &[Row] = &[
    ("GET", "/merchant/parked-work", PARKED_WORK, Secret, Reads),
    ("GET", "/merchant/settings", SETTINGS, Secret, Reads),
    ("PATCH", "/merchant/settings", PATCH_SETTINGS, Secret, Writes),
];

/// An operation on the merchant's own resources, decoded from one of [`ROUTES`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", content = "args", rename_all = "snake_case")]
pub enum MerchantOp {
    ParkedWork,
    Settings,
    PatchSettings(PatchSettingsRequest),
}

/// Every answer of a [`MerchantOp`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MerchantAnswer {
    ParkedWork(ParkedWork),
    Settings(MerchantSettings),
}

impl MerchantOp {
    /// The route it was decoded from.
    pub fn route(&self) -> Route {
        match self {
            MerchantOp::ParkedWork => PARKED_WORK,
            MerchantOp::Settings => SETTINGS,
            MerchantOp::PatchSettings(_) => PATCH_SETTINGS,
        }
    }
}

/// Decodes a route of this family; None for any other route.
pub fn decode(route: Route, parts: &Parts) -> Result<Option<MerchantOp>> {
    Ok(Some(match route {
        PARKED_WORK => MerchantOp::ParkedWork,
        SETTINGS => MerchantOp::Settings,
        PATCH_SETTINGS => MerchantOp::PatchSettings(parts.body()?),
        _ => return Ok(None),
    }))
}

/// Applies `op`: its HTTP status and answer.
pub fn apply(store: &mut dyn Store, ctx: &Ctx, op: MerchantOp) -> Result<(u16, MerchantAnswer)> {
    Ok(match op {
        MerchantOp::ParkedWork => {
            let parked = ParkedWork::of(&store.parked()?);
            (200, MerchantAnswer::ParkedWork(parked))
        }
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
