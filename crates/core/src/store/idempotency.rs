//! The storage port of idempotency records (`crate::ops::idempotency`), a part of
//! [`super::Store`]: a write's answer kept under its caller's key, so a retry replays it.

use crate::error::Result;
use crate::model::time::Millis;
use serde::{Deserialize, Serialize};

/// An answer kept under a key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    /// What makes two requests "the same" (method, path and canonical body, hashed).
    pub fingerprint: String,
    pub status: u16,
    /// The answer's body, as it was sent.
    pub body: String,
    pub created_at: Millis,
}

pub trait IdempotencyStore {
    /// The records stored under any of `keys` (each a caller's scope and its key,
    /// `ops::idempotency`) made at or after `since`, each with its key: one lookup however
    /// many keys a replay tries.
    fn kept_answers(&self, keys: &[&str], since: Millis) -> Result<Vec<(String, Kept)>>;
    /// The record stored under `key` if it was made at or after `since`.
    fn kept_answer(&self, key: &str, since: Millis) -> Result<Option<Kept>> {
        Ok(self
            .kept_answers(&[key], since)?
            .into_iter()
            .next()
            .map(|(_, kept)| kept))
    }
    /// Stores (or replaces) the record under `key`.
    fn keep_answer(&mut self, key: &str, kept: &Kept) -> Result<()>;
    /// Forgets every record made before `before`.
    fn forget_answers_before(&mut self, before: Millis) -> Result<()>;
}
