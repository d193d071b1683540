//! Parked work on the wire: `GET /merchant/parked-work`, the scheduled items that failed
//! `ops::due::MAX_ATTEMPTS` times in a row and were taken off the schedule. Each names what
//! it belongs to (a job, a deployment, a presale, an unlock) and its last error, with the
//! same rule as every answer: an internal error's message is never shown.

use crate::error::ErrorCode;
use crate::model::schedule::DueFailure;
use crate::model::time::Timestamp;
use crate::store::DueKey;
use serde::{Deserialize, Serialize};

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
