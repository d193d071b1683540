//! The merchant object's SQLite behind the core's storage port: the database and its helpers
//! (`db.rs`), the `Store` adapter (`store.rs`, with the balance rows in `rows.rs`), the chain's
//! settlement state (`chain.rs`), the event log and webhooks (`events.rs`), holder sessions
//! (`session.rs`), idempotency records (`idempotency.rs`) and API keys (`keys.rs`). Each file owns the tables it
//! writes; `migrate` creates them all.

pub mod chain;
pub mod db;
pub mod events;
pub mod idempotency;
pub mod keys;
pub mod rows;
pub mod session;
pub mod store;

pub(crate) use db::int;
pub use db::{SqlStore, Watch};
use tokenpad_core::Result;

impl SqlStore {
    /// Creates every table and index (idempotent: each statement is `IF NOT EXISTS` or drops
    /// what a release before made), then the holder counts, then the key records of a
    /// merchant stored before them (`keys.rs`).
    pub fn migrate(&mut self) -> Result<()> {
        for stmt in db::SCHEMA
            .iter()
            .chain(chain::SCHEMA)
            .chain(events::SCHEMA)
            .chain(session::SCHEMA)
            .chain(keys::SCHEMA)
        {
            self.exec(stmt, vec![])?;
        }
        for stmt in db::HOLDER_COUNTS {
            self.exec(stmt, vec![])?;
        }
        self.migrate_keys()
    }
}
