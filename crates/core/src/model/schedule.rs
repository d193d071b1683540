//! Failures of scheduled work. An item of the schedule whose owner errors is retried with a
//! backoff; after `ops::due::MAX_ATTEMPTS` failures it is parked: taken off the schedule and
//! kept here, with its last error, for the merchant to see (`GET /merchant/parked-work`).

use crate::error::ErrorCode;
use crate::model::time::Millis;
use serde::{Deserialize, Serialize};

/// The failures of one schedule key, in its stored form (`presale:<id>`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DueFailure {
    pub key: String,
    /// How many runs failed, in a row.
    pub attempts: u32,
    /// The last failure's code and message (a message of an internal error is never shown:
    /// see `wire::merchant`).
    pub code: ErrorCode,
    pub message: String,
    pub first_failed_at: Millis,
    pub last_failed_at: Millis,
    /// When it was taken off the schedule; None while it is still retried.
    pub parked_at: Option<Millis>,
}
