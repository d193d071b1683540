//! One account's operations, over its storage port (`store::accounts::AccountStore`, one
//! transaction per call in the worker) and a shell for randomness and the object's id:
//! sign-up, verification, login sessions, the password reset and invitations. Every secret
//! handed out is stored as its hash only ([`super::link`]) and every link works once, until it
//! expires. An unknown email's login checks its password against a dummy hash, so it costs and
//! answers what a wrong password does.

use super::throttle::ACCOUNT_MAX_FAILURES;
use super::{link, mails, password};
use crate::error::{Error, ErrorCode, Result};
use crate::model::account::{
    check_password, AccountRecord, Invitation, LinkKind, LinkRecord, LoginSession, INVITE_TTL,
    RESET_TTL, VERIFY_TTL,
};
use crate::model::time::Millis;
use crate::store::accounts::AccountStore;
use serde_json::Value;

/// What the account's object gives its operations.
pub trait AccountShell {
    fn random16(&mut self) -> Result<[u8; 16]>;
    fn random32(&mut self) -> Result<[u8; 32]>;
    /// The account object's id (64 hex): what its links and cookies name.
    fn object_id(&self) -> &str;
}

pub fn invalid_link() -> Error {
    Error::new(
        ErrorCode::InvalidLink,
        "This link is not valid: it is unknown, expired or already used",
    )
}

pub fn invalid_credentials() -> Error {
    Error::new(
        ErrorCode::InvalidCredentials,
        "The email or the password is wrong",
    )
}

pub fn not_logged_in() -> Error {
    Error::new(
        ErrorCode::NotLoggedIn,
        "Log in first: this request has no live login session",
    )
}

/// A new link of `kind`, live until `expires_at`, carrying `data`: its secret, for the mail.
fn new_link(
    store: &mut dyn AccountStore,
    shell: &mut dyn AccountShell,
    kind: LinkKind,
    expires_at: Millis,
    data: Value,
) -> Result<String> {
    let random = shell.random32()?;
    let secret = link::new(shell.object_id(), &random);
    store.put_link(&LinkRecord {
        hash: link::hash(kind.as_str(), &secret),
        kind,
        expires_at,
        used_at: None,
        data,
    })?;
    Ok(secret)
}

/// The live link `secret` of `kind`, marked used. Else 400 `invalid_link`.
fn use_link(
    store: &mut dyn AccountStore,
    kind: LinkKind,
    secret: &str,
    now: Millis,
) -> Result<LinkRecord> {
    let found = store.link(&link::hash(kind.as_str(), secret))?;
    let mut record = found
        .filter(|l| l.kind == kind && l.used_at.is_none() && now < l.expires_at)
        .ok_or_else(invalid_link)?;
    record.used_at = Some(now);
    store.put_link(&record)?;
    Ok(record)
}

/// Sign-up of `email` (normalized): a new account, or a new password for one not verified yet,
/// and a verification mail; an account already verified gets a mail saying so, and nothing
/// else changes. The caller answers the same either way.
pub fn signup(
    store: &mut dyn AccountStore,
    shell: &mut dyn AccountShell,
    email: &str,
    pass: &str,
    origin: &str,
    now: Millis,
) -> Result<()> {
    check_password(pass)?;
    let existing = store.account()?;
    if existing.as_ref().is_some_and(|a| a.verified_at.is_some()) {
        return store.queue_mail(&mails::already_have_account(email, origin));
    }
    store.put_account(&AccountRecord {
        email: email.to_string(),
        password_hash: password::hash(pass, &shell.random16()?)?,
        verified_at: None,
        created_at: existing.map_or(now, |a| a.created_at),
    })?;
    let secret = new_link(
        store,
        shell,
        LinkKind::Verify,
        now + VERIFY_TTL,
        Value::Null,
    )?;
    store.queue_mail(&mails::verify(email, origin, &secret))
}

/// A verification link used: the account's email counts as verified. Its email.
pub fn verify(store: &mut dyn AccountStore, token: &str, now: Millis) -> Result<String> {
    let mut account = store.account()?.ok_or_else(invalid_link)?;
    use_link(store, LinkKind::Verify, token, now)?;
    account.verified_at.get_or_insert(now);
    store.put_account(&account)?;
    Ok(account.email)
}

/// How a login ended. A refusal is an answer, not a failure: what it wrote (the failed
/// attempt) commits.
#[derive(Debug)]
pub enum Login {
    In {
        account: AccountRecord,
        /// The new cookie's value.
        cookie: String,
    },
    Refused(Error),
}

/// A login with `pass`: throttled per account, the password checked (against a dummy hash for
/// an unknown email), a verified email required, then a new session; the browser's old
/// session (`old_cookie`), if this account's, ends. A password stored at other parameters is
/// hashed again.
pub fn login(
    store: &mut dyn AccountStore,
    shell: &mut dyn AccountShell,
    pass: &str,
    old_cookie: Option<&str>,
    now: Millis,
) -> Result<Login> {
    let attempts = store.attempts()?;
    if let Err(e) = attempts.check(now, ACCOUNT_MAX_FAILURES) {
        return Ok(Login::Refused(e));
    }
    let account = store.account()?;
    let stored = account
        .as_ref()
        .map_or_else(password::dummy, |a| a.password_hash.clone());
    let matches = password::verify(pass, &stored);
    let Some(mut account) = account.filter(|_| matches) else {
        store.put_attempts(attempts.failed(now))?;
        return Ok(Login::Refused(invalid_credentials()));
    };
    if account.verified_at.is_none() {
        return Ok(Login::Refused(Error::new(
            ErrorCode::EmailNotVerified,
            "Verify your email first: follow the link in the mail we sent",
        )));
    }
    if let Some(old) = old_cookie.map(|c| link::hash("session", c)) {
        if let Some(mut s) = store.login_session(&old)? {
            s.revoked_at.get_or_insert(now);
            store.put_login_session(&s)?;
        }
    }
    if password::needs_rehash(&account.password_hash) {
        account.password_hash = password::hash(pass, &shell.random16()?)?;
        store.put_account(&account)?;
    }
    let random = shell.random32()?;
    let cookie = link::new(shell.object_id(), &random);
    let hash = link::hash("session", &cookie);
    store.put_login_session(&LoginSession {
        id: hash.get(..16).unwrap_or_default().to_string(),
        hash,
        created_at: now,
        last_seen: now,
        revoked_at: None,
    })?;
    Ok(Login::In { account, cookie })
}

/// The live session a cookie names, its last use moved to `now`; else 401 `not_logged_in`.
pub fn session(
    store: &mut dyn AccountStore,
    cookie: &str,
    now: Millis,
) -> Result<(AccountRecord, LoginSession)> {
    let found = store.login_session(&link::hash("session", cookie))?;
    let mut s = found.filter(|s| s.live(now)).ok_or_else(not_logged_in)?;
    let account = store.account()?.ok_or_else(not_logged_in)?;
    s.last_seen = now;
    store.put_login_session(&s)?;
    Ok((account, s))
}

/// Ends the session a cookie names (nothing when it names none).
pub fn logout(store: &mut dyn AccountStore, cookie: &str, now: Millis) -> Result<()> {
    if let Some(mut s) = store.login_session(&link::hash("session", cookie))? {
        s.revoked_at.get_or_insert(now);
        store.put_login_session(&s)?;
    }
    Ok(())
}

/// Ends every session of the account, from a live one.
pub fn logout_all(store: &mut dyn AccountStore, cookie: &str, now: Millis) -> Result<()> {
    session(store, cookie, now)?;
    store.end_login_sessions(now)
}

/// A reset link mailed to the account, if there is one (the caller answers the same either way).
pub fn reset(
    store: &mut dyn AccountStore,
    shell: &mut dyn AccountShell,
    origin: &str,
    now: Millis,
) -> Result<()> {
    let Some(account) = store.account()? else {
        return Ok(());
    };
    let secret = new_link(store, shell, LinkKind::Reset, now + RESET_TTL, Value::Null)?;
    store.queue_mail(&mails::reset(&account.email, origin, &secret))
}

/// A new password from a reset link: every session ends, the email counts as verified (the
/// link reached it), the failed logins are forgotten. Its email.
pub fn reset_confirm(
    store: &mut dyn AccountStore,
    shell: &mut dyn AccountShell,
    token: &str,
    pass: &str,
    now: Millis,
) -> Result<String> {
    check_password(pass)?;
    let mut account = store.account()?.ok_or_else(invalid_link)?;
    use_link(store, LinkKind::Reset, token, now)?;
    account.password_hash = password::hash(pass, &shell.random16()?)?;
    account.verified_at.get_or_insert(now);
    store.put_account(&account)?;
    store.end_login_sessions(now)?;
    store.put_attempts(Default::default())?;
    Ok(account.email)
}

/// An invitation to this object's email: a link mailed to it, live 7 days.
pub fn invited(
    store: &mut dyn AccountStore,
    shell: &mut dyn AccountShell,
    invitation: &Invitation,
    by: &str,
    origin: &str,
    now: Millis,
) -> Result<()> {
    let data = serde_json::to_value(invitation).map_err(|e| Error::internal(e.to_string()))?;
    let secret = new_link(store, shell, LinkKind::Invite, now + INVITE_TTL, data)?;
    store.queue_mail(&mails::invite(invitation, by, origin, &secret))
}

/// An invitation's link used by the account logged in as `email`: it must be the invited one
/// (else 403 `invite_for_another_email`, the link left unused).
pub fn accept_invite(
    store: &mut dyn AccountStore,
    token: &str,
    email: &str,
    now: Millis,
) -> Result<Invitation> {
    let found = store.link(&link::hash(LinkKind::Invite.as_str(), token))?;
    let record = found.ok_or_else(invalid_link)?;
    let invitation: Invitation = serde_json::from_value(record.data).map_err(|_| invalid_link())?;
    if record.used_at.is_none() && now < record.expires_at && invitation.email != email {
        return Err(Error::new(
            ErrorCode::InviteForAnotherEmail,
            "This invitation is for another email: log in with the invited account",
        ));
    }
    use_link(store, LinkKind::Invite, token, now)?;
    Ok(invitation)
}
