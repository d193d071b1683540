//! How the account object runs the core's account operations (`ops::accounts::account`): each
//! in one SQLite transaction over the core's port (`adapters::accounts::SqlAccount`), with the
//! shell's randomness and this object's id. A refused login is an answer: the failed attempt it
//! counted commits, then the refusal is returned.

use super::AccountObject;
use crate::adapters::accounts::SqlAccount;
use crate::adapters::txn;
use crate::adapters::wallet::random;
use crate::hop::account::{Accepted, LiveSession, LoggedIn};
use tokenpad_core::model::account::{Invitation, SESSION_ABSOLUTE};
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::accounts::account::{self as ops, AccountShell, Login};
use tokenpad_core::wire::account::EmailOnly;
use tokenpad_core::Result;

/// Randomness from the runtime, and this object's id.
pub(super) struct Shell {
    id: String,
}

impl AccountShell for Shell {
    fn random16(&mut self) -> Result<[u8; 16]> {
        random::<16>()
    }
    fn random32(&mut self) -> Result<[u8; 32]> {
        random::<32>()
    }
    fn object_id(&self) -> &str {
        &self.id
    }
}

impl AccountObject {
    /// Runs `f` over this account's store in one transaction: all its writes, or none.
    pub(super) fn run<T: 'static>(
        &self,
        f: impl FnOnce(&mut SqlAccount, &mut Shell) -> Result<T> + 'static,
    ) -> Result<T> {
        let mut store = SqlAccount::new(self.sql()?);
        let mut shell = Shell { id: self.self_id() };
        txn::run(&self.state.storage(), move || f(&mut store, &mut shell))
    }

    pub(super) fn verify(&self, token: String, now: Millis) -> Result<EmailOnly> {
        let email = self.run(move |s, _| ops::verify(s, &token, now))?;
        Ok(EmailOnly { email })
    }

    pub(super) fn login(
        &self,
        password: String,
        old_cookie: Option<String>,
        now: Millis,
    ) -> Result<LoggedIn> {
        let outcome =
            self.run(move |s, sh| ops::login(s, sh, &password, old_cookie.as_deref(), now))?;
        match outcome {
            Login::In { account, cookie } => Ok(LoggedIn {
                email: account.email,
                merchants: self.merchants()?,
                cookie,
                max_age_seconds: SESSION_ABSOLUTE / 1000,
            }),
            Login::Refused(e) => Err(e),
        }
    }

    pub(super) fn session(&self, cookie: String, now: Millis) -> Result<LiveSession> {
        let (account, session) = self.run(move |s, _| ops::session(s, &cookie, now))?;
        Ok(LiveSession {
            email: account.email,
            session: session.id,
            merchants: self.merchants()?,
        })
    }

    pub(super) fn reset_confirm(
        &self,
        token: String,
        password: String,
        now: Millis,
    ) -> Result<EmailOnly> {
        let email = self.run(move |s, sh| ops::reset_confirm(s, sh, &token, &password, now))?;
        Ok(EmailOnly { email })
    }

    pub(super) fn accept_invite(
        &self,
        token: String,
        email: String,
        now: Millis,
    ) -> Result<Accepted> {
        let invitation: Invitation =
            self.run(move |s, _| ops::accept_invite(s, &token, &email, now))?;
        Ok(Accepted {
            merchant_id: invitation.merchant_id,
            merchant_name: invitation.merchant_name,
            role: invitation.role,
        })
    }
}
