//! The in-memory store's sessions, idempotency records and API keys (the keys callers hold).

use super::maps::retain;
use super::MemStore;
use crate::error::Result;
use crate::model::ids::UserId;
use crate::model::key::ApiKey;
use crate::model::session::{Session, SessionId};
use crate::model::time::Millis;
use crate::store::idempotency::{IdempotencyStore, Kept};
use crate::store::keys::KeyStore;
use crate::store::session::SessionStore;

impl SessionStore for MemStore {
    fn session(&self, id: &SessionId) -> Result<Option<Session>> {
        Ok(self.sessions.get(id).cloned())
    }
    fn put_session(&mut self, session: &Session) -> Result<()> {
        self.sessions.insert(session.id.clone(), session.clone());
        Ok(())
    }
    fn live_sessions_of(&self, user_id: &UserId, now: Millis) -> Result<Vec<Session>> {
        let mut out: Vec<Session> = self
            .sessions
            .values()
            .filter(|s| &s.user_id == user_id && s.expires_at > now)
            .cloned()
            .collect();
        out.sort_by_key(|s| s.created_at);
        Ok(out)
    }
    fn forget_sessions_expired(&mut self, now: Millis) -> Result<u64> {
        let before = self.sessions.len();
        self.sessions.retain(|_, s| s.expires_at > now);
        Ok(u64::try_from(before.saturating_sub(self.sessions.len())).unwrap_or(0))
    }
}

impl IdempotencyStore for MemStore {
    fn kept_answers(&self, keys: &[&str], since: Millis) -> Result<Vec<(String, Kept)>> {
        Ok(keys
            .iter()
            .filter_map(|k| {
                let kept = self.kept_answers.get(*k)?;
                (kept.created_at >= since).then(|| (k.to_string(), kept.clone()))
            })
            .collect())
    }
    fn keep_answer(&mut self, key: &str, kept: &Kept) -> Result<()> {
        self.kept_answers.insert(key.to_string(), kept.clone());
        Ok(())
    }
    fn forget_answers_before(&mut self, before: Millis) -> Result<()> {
        retain(&mut self.kept_answers, |_, k| k.created_at >= before);
        Ok(())
    }
}

impl KeyStore for MemStore {
    fn api_keys(&self) -> Result<Vec<ApiKey>> {
        Ok(self.api_keys.clone())
    }
    fn put_api_key(&mut self, key: &ApiKey) -> Result<()> {
        match self.api_keys.iter_mut().find(|k| k.id == key.id) {
            Some(k) => *k = key.clone(),
            None => self.api_keys.push(key.clone()),
        }
        Ok(())
    }
    fn remove_api_key(&mut self, id: &str) -> Result<()> {
        self.api_keys.retain(|k| k.id != id);
        Ok(())
    }
}
