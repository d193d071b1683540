//! The merchant's settings: `GET /merchant/settings`, `PATCH /merchant/settings`. One so far:
//! private mode (holder reads need a session token; public reads show addresses, never
//! userIds).

use super::Ctx;
use crate::error::{Error, ErrorCode, Result};
use crate::model::input::Checked;
use crate::model::merchant::Merchant;
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// `PATCH /merchant/settings`: the fields given change, the others stay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "PatchSettings"))]
#[serde(rename_all = "camelCase")]
pub struct PatchSettingsRequest {
    /// Private mode on (true) or off (false).
    pub private_mode: Option<bool>,
}

impl Checked for PatchSettingsRequest {}

/// The merchant this object holds (settings live on its record).
pub fn merchant(store: &dyn Store) -> Result<Merchant> {
    store
        .merchant()?
        .ok_or_else(|| Error::new(ErrorCode::MerchantNotFound, "No such merchant"))
}

/// Applies a settings change; returns the merchant as it now is.
pub fn patch(store: &mut dyn Store, _ctx: &Ctx, req: &PatchSettingsRequest) -> Result<Merchant> {
    let mut m = merchant(store)?;
    if let Some(on) = req.private_mode {
        m.private_mode = on;
    }
    store.put_merchant(&m)?;
    Ok(m)
}
