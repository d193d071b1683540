//! The storage port of holder sessions (`crate::model::session`), a part of [`super::Store`].

use crate::error::Result;
use crate::model::ids::UserId;
use crate::model::session::{Session, SessionId};
use crate::model::time::Millis;

pub trait SessionStore {
    fn session(&self, id: &SessionId) -> Result<Option<Session>>;
    /// Inserts or replaces a session.
    fn put_session(&mut self, session: &Session) -> Result<()>;
    /// A holder's sessions that expire after `now`, oldest first.
    fn live_sessions_of(&self, user_id: &UserId, now: Millis) -> Result<Vec<Session>>;
    /// Forgets the sessions that expired at or before `now` (their tokens are refused as
    /// expired before any lookup); returns how many.
    fn forget_sessions_expired(&mut self, now: Millis) -> Result<u64>;
}
