//! Idempotency records as the merchant object answers them: a write's answer kept under its
//! caller's key for 24 hours (`tokenpad_core::ops::idempotency`: keys are scoped to the
//! credential that sent them), so a retry replays it (same status and body,
//! `Idempotent-Replayed: true`) and changes nothing.

use crate::adapters::sql::SqlStore;
use crate::hop::Idempotency;
use crate::http::Answer;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::idempotency::{self, Keyed};
use tokenpad_core::ops::session::access::Caller;
use tokenpad_core::Result;

pub use idempotency::PRUNE_EVERY;

fn keyed(idem: &Idempotency) -> Keyed<'_> {
    Keyed {
        key: &idem.key,
        fingerprint: &idem.fingerprint,
    }
}

/// The first answer under this caller's key, if there is one from the last 24 hours; the
/// same key with a different request of this caller is a 409 `idempotency_key_reused`.
pub fn replay(
    store: &SqlStore,
    caller: &Caller,
    idem: &Idempotency,
    now: Millis,
) -> Result<Option<Answer>> {
    Ok(
        idempotency::replay(store, caller, &keyed(idem), now)?.map(|(status, body)| {
            Answer::json_text(status, body).with_header("idempotent-replayed", "true")
        }),
    )
}

/// Forgets records older than a day.
pub fn prune(store: &mut SqlStore, now: Millis) -> Result<()> {
    idempotency::prune(store, now)
}

/// Stores an answer under this caller's key.
pub fn record(
    store: &mut SqlStore,
    caller: &Caller,
    idem: &Idempotency,
    status: u16,
    body: &str,
    now: Millis,
) -> Result<()> {
    idempotency::record(store, caller, &keyed(idem), status, body, now)
}
