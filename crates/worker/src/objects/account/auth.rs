//! An account's sign-up, verification, login sessions and password reset. Passwords are
//! argon2id (`ops::accounts::password`); an unknown email's login checks its password
//! against a dummy hash, so it costs and answers what a wrong password does. Every secret
//! handed out (a link, a cookie) is stored as its hash only, and a link works once.

use super::{db, int, invalid_link, millis, AccountObject};
use crate::adapters::wallet::random;
use crate::hop::account::{LiveSession, LoggedIn};
use serde::Deserialize;
use serde_json::Value;
use tokenpad_core::model::account::{RESET_TTL, SESSION_ABSOLUTE, SESSION_IDLE, VERIFY_TTL};
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::accounts::throttle::ACCOUNT_MAX_FAILURES;
use tokenpad_core::ops::accounts::{link, password};
use tokenpad_core::wire::account::EmailOnly;
use tokenpad_core::{Error, ErrorCode, Result};

#[derive(Deserialize)]
pub(super) struct AccountRow {
    pub(super) email: String,
    password_hash: String,
    verified_at: Option<i64>,
}

#[derive(Deserialize)]
struct LinkRow {
    expires_at: i64,
    used_at: Option<i64>,
    data: String,
}

#[derive(Deserialize)]
struct SessionRow {
    id: String,
    created_at: i64,
    last_seen: i64,
    revoked_at: Option<i64>,
}

fn invalid_credentials() -> Error {
    Error::new(
        ErrorCode::InvalidCredentials,
        "The email or the password is wrong",
    )
}

pub(super) fn not_logged_in() -> Error {
    Error::new(
        ErrorCode::NotLoggedIn,
        "Log in first: this request has no live login session",
    )
}

impl AccountObject {
    pub(super) fn account(&self) -> Result<Option<AccountRow>> {
        let rows: Vec<AccountRow> = self
            .sql()?
            .exec(
                "SELECT email, password_hash, verified_at FROM account WHERE id = 1",
                None,
            )
            .and_then(|c| c.to_array())
            .map_err(db)?;
        Ok(rows.into_iter().next())
    }

    /// A new link of `kind` for this object, live until `expires_at`, carrying `data`: its
    /// secret (for the mail) and the SQL that stores its hash.
    pub(super) fn new_link(
        &self,
        kind: &str,
        expires_at: Millis,
        data: &Value,
    ) -> Result<(String, String, Vec<worker::SqlStorageValue>)> {
        let secret = link::new(&self.self_id(), &random::<32>()?);
        let args = vec![
            link::hash(kind, &secret).into(),
            kind.into(),
            int(expires_at),
            data.to_string().into(),
        ];
        Ok((
            secret,
            "INSERT INTO links (hash, kind, expires_at, data) VALUES (?, ?, ?, ?)".into(),
            args,
        ))
    }

    /// The link `secret` of `kind`, if it is live at `now`: marked used (in the caller's
    /// transaction, with what it does), its data returned. Else 400 `invalid_link`.
    pub(super) fn use_link(
        sql: &worker::SqlStorage,
        kind: &str,
        secret: &str,
        now: Millis,
    ) -> Result<Value> {
        let hash = link::hash(kind, secret);
        let rows: Vec<LinkRow> = sql
            .exec(
                "SELECT expires_at, used_at, data FROM links WHERE hash = ? AND kind = ?",
                vec![hash.clone().into(), kind.into()],
            )
            .and_then(|c| c.to_array())
            .map_err(db)?;
        let row = rows.first().ok_or_else(invalid_link)?;
        if row.used_at.is_some() || now >= millis(row.expires_at) {
            return Err(invalid_link());
        }
        sql.exec(
            "UPDATE links SET used_at = ? WHERE hash = ?",
            vec![int(now), hash.into()],
        )
        .map_err(db)?;
        serde_json::from_str(&row.data).map_err(|e| Error::internal(e.to_string()))
    }

    /// Sign-up: a new account (or a new password for one not yet verified) and a verification
    /// mail; an account already verified gets a mail saying so instead. The same answer either
    /// way (the edge says 202).
    pub(super) fn signup(
        &self,
        email: &str,
        pass: &str,
        origin: &str,
        now: Millis,
    ) -> Result<Value> {
        let existing = self.account()?;
        let sql = self.sql()?;
        if existing.as_ref().is_some_and(|a| a.verified_at.is_some()) {
            let text = format!(
                "Someone (perhaps you) tried to sign up to tokenpad with this email, which already has an account.\n\nLog in: {origin}/dashboard/#/login\nForgot your password? {origin}/dashboard/#/forgot\n\nIf it was not you, you can ignore this mail."
            );
            let links = vec![
                format!("{origin}/dashboard/#/login"),
                format!("{origin}/dashboard/#/forgot"),
            ];
            let to = email.to_string();
            return self.transaction(move || {
                super::mail::queue(
                    &sql,
                    &to,
                    "You already have a tokenpad account",
                    &text,
                    &links,
                )?;
                Ok(Value::Null)
            });
        }
        let hash = password::hash(pass, &random::<16>()?)?;
        let (secret, insert, args) = self.new_link("verify", now + VERIFY_TTL, &Value::Null)?;
        let url = format!("{origin}/dashboard/#/verify?token={secret}");
        let text = format!(
            "Welcome to tokenpad. Verify your email to log in (the link works for 24 hours):\n\n{url}\n\nIf you did not sign up, ignore this mail."
        );
        let to = email.to_string();
        self.transaction(move || {
            sql.exec(
                "INSERT INTO account (id, email, password_hash, created_at) VALUES (1, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET password_hash = excluded.password_hash",
                vec![to.clone().into(), hash.into(), int(now)],
            )
            .map_err(db)?;
            sql.exec(&insert, args).map_err(db)?;
            super::mail::queue(&sql, &to, "Verify your tokenpad email", &text, &[url])?;
            Ok(Value::Null)
        })
    }

    pub(super) fn verify(&self, token: &str, now: Millis) -> Result<EmailOnly> {
        let account = self.account()?.ok_or_else(invalid_link)?;
        let sql = self.sql()?;
        let token = token.to_string();
        self.transaction(move || {
            Self::use_link(&sql, "verify", &token, now)?;
            sql.exec(
                "UPDATE account SET verified_at = COALESCE(verified_at, ?) WHERE id = 1",
                vec![int(now)],
            )
            .map_err(db)?;
            Ok(())
        })?;
        Ok(EmailOnly {
            email: account.email,
        })
    }

    /// A login: throttled per account, the password checked (against a dummy hash for an
    /// unknown email), then a new session; the browser's old one, if any, ends.
    pub(super) fn login(
        &self,
        _email: &str,
        pass: &str,
        old_cookie: Option<&str>,
        now: Millis,
    ) -> Result<LoggedIn> {
        self.attempts()?.check(now, ACCOUNT_MAX_FAILURES)?;
        let account = self.account()?;
        let stored = account
            .as_ref()
            .map_or_else(password::dummy, |a| a.password_hash.clone());
        let matches = password::verify(pass, &stored);
        let Some(account) = account.filter(|_| matches) else {
            self.failed(now)?;
            return Err(invalid_credentials());
        };
        if account.verified_at.is_none() {
            return Err(Error::new(
                ErrorCode::EmailNotVerified,
                "Verify your email first: follow the link in the mail we sent",
            ));
        }
        let cookie = link::new(&self.self_id(), &random::<32>()?);
        let hash = link::hash("session", &cookie);
        let id = hash.get(..16).unwrap_or_default().to_string();
        let sql = self.sql()?;
        let old = old_cookie.map(|c| link::hash("session", c));
        let rehash = if password::needs_rehash(&account.password_hash) {
            Some(password::hash(pass, &random::<16>()?)?)
        } else {
            None
        };
        self.transaction(move || {
            if let Some(old) = old {
                sql.exec(
                    "UPDATE sessions SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL",
                    vec![int(now), old.into()],
                )
                .map_err(db)?;
            }
            if let Some(h) = rehash {
                sql.exec(
                    "UPDATE account SET password_hash = ? WHERE id = 1",
                    vec![h.into()],
                )
                .map_err(db)?;
            }
            sql.exec(
                "INSERT INTO sessions (hash, id, created_at, last_seen) VALUES (?, ?, ?, ?)",
                vec![hash.into(), id.into(), int(now), int(now)],
            )
            .map_err(db)?;
            Ok(())
        })?;
        Ok(LoggedIn {
            email: account.email,
            merchants: self.merchants()?,
            cookie,
            max_age_seconds: SESSION_ABSOLUTE / 1000,
        })
    }

    /// The live session a cookie names: not revoked, used within 12 hours, begun within 7
    /// days. Its last use is moved to `now`. Else 401 `not_logged_in`.
    pub(super) fn session(&self, cookie: &str, now: Millis) -> Result<LiveSession> {
        let sql = self.sql()?;
        let hash = link::hash("session", cookie);
        let rows: Vec<SessionRow> = sql
            .exec(
                "SELECT id, created_at, last_seen, revoked_at FROM sessions WHERE hash = ?",
                vec![hash.clone().into()],
            )
            .and_then(|c| c.to_array())
            .map_err(db)?;
        let s = rows.first().ok_or_else(not_logged_in)?;
        let live = s.revoked_at.is_none()
            && now < millis(s.last_seen).saturating_add(SESSION_IDLE)
            && now < millis(s.created_at).saturating_add(SESSION_ABSOLUTE);
        let account = self.account()?.filter(|_| live).ok_or_else(not_logged_in)?;
        sql.exec(
            "UPDATE sessions SET last_seen = ? WHERE hash = ?",
            vec![int(now), hash.into()],
        )
        .map_err(db)?;
        Ok(LiveSession {
            email: account.email,
            session: s.id.clone(),
            merchants: self.merchants()?,
        })
    }

    pub(super) fn logout(&self, cookie: &str, now: Millis) -> Result<Value> {
        self.sql()?
            .exec(
                "UPDATE sessions SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL",
                vec![int(now), link::hash("session", cookie).into()],
            )
            .map_err(db)?;
        Ok(Value::Null)
    }

    pub(super) fn logout_all(&self, cookie: &str, now: Millis) -> Result<Value> {
        self.session(cookie, now)?;
        self.sql()?
            .exec(
                "UPDATE sessions SET revoked_at = ? WHERE revoked_at IS NULL",
                vec![int(now)],
            )
            .map_err(db)?;
        Ok(Value::Null)
    }

    /// A reset link mailed to the account, if there is one (the same answer either way).
    pub(super) fn reset(&self, email: &str, origin: &str, now: Millis) -> Result<Value> {
        if self.account()?.is_none() {
            return Ok(Value::Null);
        }
        let sql = self.sql()?;
        let (secret, insert, args) = self.new_link("reset", now + RESET_TTL, &Value::Null)?;
        let url = format!("{origin}/dashboard/#/reset?token={secret}");
        let text = format!(
            "Someone (perhaps you) asked to reset the password of your tokenpad account. Choose a new one here (the link works for 1 hour):\n\n{url}\n\nIf it was not you, ignore this mail: your password stays as it is."
        );
        let to = email.to_string();
        self.transaction(move || {
            sql.exec(&insert, args).map_err(db)?;
            super::mail::queue(&sql, &to, "Reset your tokenpad password", &text, &[url])?;
            Ok(Value::Null)
        })
    }

    /// A new password from a reset link: every session of the account ends, and the email
    /// counts as verified (the link reached it).
    pub(super) fn reset_confirm(&self, token: &str, pass: &str, now: Millis) -> Result<EmailOnly> {
        let account = self.account()?.ok_or_else(invalid_link)?;
        let hash = password::hash(pass, &random::<16>()?)?;
        let sql = self.sql()?;
        let token = token.to_string();
        self.transaction(move || {
            Self::use_link(&sql, "reset", &token, now)?;
            sql.exec(
                "UPDATE account SET password_hash = ?, verified_at = COALESCE(verified_at, ?) WHERE id = 1",
                vec![hash.into(), int(now)],
            )
            .map_err(db)?;
            sql.exec(
                "UPDATE sessions SET revoked_at = ? WHERE revoked_at IS NULL",
                vec![int(now)],
            )
            .map_err(db)?;
            sql.exec("DELETE FROM throttle", None).map_err(db)?;
            Ok(())
        })?;
        Ok(EmailOnly {
            email: account.email,
        })
    }
}
