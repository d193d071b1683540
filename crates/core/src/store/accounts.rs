//! The storage port of one account (`ops::accounts::account`): the account's own object keeps
//! its record, its mailed links and login sessions (hashes only), its failed logins and its mail
//! outbox. The worker implements it on the account object's SQLite (one transaction per call);
//! [`MemAccount`] keeps it in memory for the core's tests.

use crate::error::Result;
use crate::model::account::{AccountRecord, Attempts, LinkRecord, LoginSession, Mail};
use crate::model::time::Millis;
use std::collections::BTreeMap;

pub trait AccountStore {
    fn account(&self) -> Result<Option<AccountRecord>>;
    fn put_account(&mut self, account: &AccountRecord) -> Result<()>;
    fn link(&self, hash: &str) -> Result<Option<LinkRecord>>;
    fn put_link(&mut self, link: &LinkRecord) -> Result<()>;
    fn login_session(&self, hash: &str) -> Result<Option<LoginSession>>;
    fn put_login_session(&mut self, session: &LoginSession) -> Result<()>;
    /// Ends every live session at `now`.
    fn end_login_sessions(&mut self, now: Millis) -> Result<()>;
    fn attempts(&self) -> Result<Attempts>;
    fn put_attempts(&mut self, attempts: Attempts) -> Result<()>;
    /// Adds a mail to the outbox (sent after the commit, by the object's alarm).
    fn queue_mail(&mut self, mail: &Mail) -> Result<()>;
}

/// An account in memory, for tests: what it stores, and the mails it queued, in order.
#[derive(Clone, Debug, Default)]
pub struct MemAccount {
    pub account: Option<AccountRecord>,
    pub links: BTreeMap<String, LinkRecord>,
    pub sessions: BTreeMap<String, LoginSession>,
    pub attempts: Attempts,
    pub outbox: Vec<Mail>,
}

impl AccountStore for MemAccount {
    fn account(&self) -> Result<Option<AccountRecord>> {
        Ok(self.account.clone())
    }
    fn put_account(&mut self, account: &AccountRecord) -> Result<()> {
        self.account = Some(account.clone());
        Ok(())
    }
    fn link(&self, hash: &str) -> Result<Option<LinkRecord>> {
        Ok(self.links.get(hash).cloned())
    }
    fn put_link(&mut self, link: &LinkRecord) -> Result<()> {
        self.links.insert(link.hash.clone(), link.clone());
        Ok(())
    }
    fn login_session(&self, hash: &str) -> Result<Option<LoginSession>> {
        Ok(self.sessions.get(hash).cloned())
    }
    fn put_login_session(&mut self, session: &LoginSession) -> Result<()> {
        self.sessions.insert(session.hash.clone(), session.clone());
        Ok(())
    }
    fn end_login_sessions(&mut self, now: Millis) -> Result<()> {
        for s in self.sessions.values_mut() {
            s.revoked_at.get_or_insert(now);
        }
        Ok(())
    }
    fn attempts(&self) -> Result<Attempts> {
        Ok(self.attempts)
    }
    fn put_attempts(&mut self, attempts: Attempts) -> Result<()> {
        self.attempts = attempts;
        Ok(())
    }
    fn queue_mail(&mut self, mail: &Mail) -> Result<()> {
        self.outbox.push(mail.clone());
        Ok(())
    }
}
