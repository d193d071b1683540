//! The account Durable Object (issue 41, docs/accounts.md): one per account, named by its
//! normalized email (`account:<email>`), holding the account (its argon2id password hash and
//! whether its email is verified), its login sessions, the links mailed to it (verification,
//! reset, invitations: only their hashes), the merchants it is a member of, its failed logins,
//! and its mail: an outbox written in the same transaction as the change that mails, drained by
//! the alarm to the mail provider or, without one, to the local mailbox kept here. The same
//! class, named `client:<address>`, counts a client address's failed logins. Calls come from
//! the edge (`hop::account`), as a `fetch` body.

mod auth;
mod mail;

use crate::adapters::txn;
use crate::hop::account::{AccountCall, Timed};
use crate::hop::{self};
use crate::http;
use serde::Deserialize;
use serde_json::Value;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::accounts::throttle::{Attempts, CLIENT_MAX_FAILURES};
use tokenpad_core::wire::account::AccountMerchant;
use tokenpad_core::{Error, ErrorCode, Result};
use worker::{
    durable_object, wasm_bindgen, DurableObject, Env, Request, Response, SqlStorage,
    SqlStorageValue, State,
};

#[durable_object]
pub struct AccountObject {
    state: State,
    env: Env,
}

const SCHEMA: [&str; 7] = [
    "CREATE TABLE IF NOT EXISTS account (id INTEGER PRIMARY KEY CHECK (id = 1), email TEXT NOT NULL, password_hash TEXT NOT NULL, verified_at INTEGER, created_at INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS links (hash TEXT PRIMARY KEY, kind TEXT NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER, data TEXT NOT NULL DEFAULT '{}')",
    "CREATE TABLE IF NOT EXISTS sessions (hash TEXT PRIMARY KEY, id TEXT NOT NULL, created_at INTEGER NOT NULL, last_seen INTEGER NOT NULL, revoked_at INTEGER)",
    "CREATE TABLE IF NOT EXISTS merchants (merchant_id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL, added_at INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS throttle (id INTEGER PRIMARY KEY CHECK (id = 1), failures INTEGER NOT NULL, window_start INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, to_addr TEXT NOT NULL, subject TEXT NOT NULL, text TEXT NOT NULL, links TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE IF NOT EXISTS mailbox (id INTEGER PRIMARY KEY AUTOINCREMENT, to_addr TEXT NOT NULL, subject TEXT NOT NULL, text TEXT NOT NULL, links TEXT NOT NULL, sent_at INTEGER NOT NULL)",
];

impl DurableObject for AccountObject {
    fn new(state: State, env: Env) -> Self {
        Self { state, env }
    }

    async fn fetch(&self, req: Request) -> worker::Result<Response> {
        let answer = match hop::read::<Timed>(req).await {
            Ok(timed) => self.handle(timed).await,
            Err(e) => Err(e),
        };
        match answer {
            Ok(body) => http::json(200, &body),
            Err(e) => http::error(&e),
        }
    }

    async fn alarm(&self) -> worker::Result<Response> {
        if let Err(e) = self.drain().await {
            worker::console_error!("account mail: {}", e.message);
        }
        Response::ok("")
    }
}

pub(crate) fn db(e: worker::Error) -> Error {
    Error::internal(format!("account storage: {e}"))
}

pub(crate) fn int(v: Millis) -> SqlStorageValue {
    i64::try_from(v).unwrap_or(i64::MAX).into()
}

pub(crate) fn millis(v: i64) -> Millis {
    u64::try_from(v).unwrap_or(0)
}

fn invalid_link() -> Error {
    Error::new(
        ErrorCode::InvalidLink,
        "This link is not valid: it is unknown, expired or already used",
    )
}

#[derive(Deserialize)]
struct ThrottleRow {
    failures: i64,
    window_start: i64,
}

#[derive(Deserialize)]
struct MerchantRow {
    merchant_id: String,
    name: String,
    role: String,
}

impl AccountObject {
    fn sql(&self) -> Result<SqlStorage> {
        let sql = self.state.storage().sql();
        for stmt in SCHEMA {
            sql.exec(stmt, None).map_err(db)?;
        }
        Ok(sql)
    }

    /// This object's id: what its links and cookies name.
    fn self_id(&self) -> String {
        self.state.id().to_string()
    }

    /// Runs `f` in one SQLite transaction: all its writes, or none.
    fn transaction<T: 'static>(&self, f: impl FnOnce() -> Result<T> + 'static) -> Result<T> {
        txn::run(&self.state.storage(), f)
    }

    async fn handle(&self, timed: Timed) -> Result<Value> {
        let now = timed.now;
        let out = match timed.call {
            AccountCall::Signup {
                email,
                password,
                origin,
            } => self.signup(&email, &password, &origin, now)?,
            AccountCall::Verify { token } => val(self.verify(&token, now)?)?,
            AccountCall::Login {
                email,
                password,
                old_cookie,
            } => val(self.login(&email, &password, old_cookie.as_deref(), now)?)?,
            AccountCall::Session { cookie } => val(self.session(&cookie, now)?)?,
            AccountCall::Logout { cookie } => self.logout(&cookie, now)?,
            AccountCall::LogoutAll { cookie } => self.logout_all(&cookie, now)?,
            AccountCall::Reset { email, origin } => self.reset(&email, &origin, now)?,
            AccountCall::ResetConfirm { token, password } => {
                val(self.reset_confirm(&token, &password, now)?)?
            }
            AccountCall::Joined { merchant } => self.joined(&merchant, now)?,
            AccountCall::Left { merchant_id } => {
                self.sql()?
                    .exec(
                        "DELETE FROM merchants WHERE merchant_id = ?",
                        vec![merchant_id.as_str().into()],
                    )
                    .map_err(db)?;
                Value::Null
            }
            AccountCall::Invited {
                email,
                merchant_id,
                merchant_name,
                role,
                by,
                origin,
            } => self.invited(
                &email,
                &merchant_id,
                &merchant_name,
                role,
                &by,
                &origin,
                now,
            )?,
            AccountCall::AcceptInvite { token, email } => {
                val(self.accept_invite(&token, &email, now)?)?
            }
            AccountCall::Mailbox { to } => val(self.mailbox(&to)?)?,
            AccountCall::ThrottleCheck => {
                self.attempts()?.check(now, CLIENT_MAX_FAILURES)?;
                Value::Null
            }
            AccountCall::ThrottleFailed => {
                self.failed(now)?;
                Value::Null
            }
        };
        // Mail written by the call goes out from the alarm, never inside the request.
        self.wake_mail().await;
        Ok(out)
    }

    fn attempts(&self) -> Result<Attempts> {
        let rows: Vec<ThrottleRow> = self
            .sql()?
            .exec(
                "SELECT failures, window_start FROM throttle WHERE id = 1",
                None,
            )
            .and_then(|c| c.to_array())
            .map_err(db)?;
        Ok(rows.first().map_or(Attempts::default(), |r| Attempts {
            failures: u32::try_from(r.failures).unwrap_or(u32::MAX),
            window_start: millis(r.window_start),
        }))
    }

    /// Counts a failed login at `now`.
    fn failed(&self, now: Millis) -> Result<()> {
        let a = self.attempts()?.failed(now);
        self.sql()?
            .exec(
                "INSERT INTO throttle (id, failures, window_start) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET failures = excluded.failures, window_start = excluded.window_start",
                vec![i64::from(a.failures).into(), int(a.window_start)],
            )
            .map_err(db)?;
        Ok(())
    }

    /// The merchants the account is a member of, in the order it joined them.
    fn merchants(&self) -> Result<Vec<AccountMerchant>> {
        let rows: Vec<MerchantRow> = self
            .sql()?
            .exec(
                "SELECT merchant_id, name, role FROM merchants ORDER BY added_at, merchant_id",
                None,
            )
            .and_then(|c| c.to_array())
            .map_err(db)?;
        Ok(rows
            .into_iter()
            .filter_map(|r| {
                Some(AccountMerchant {
                    role: tokenpad_core::model::account::Role::parse(&r.role)?,
                    merchant_id: tokenpad_core::model::ids::MerchantId::parse(&r.merchant_id)
                        .ok()?,
                    name: r.name,
                })
            })
            .collect())
    }

    fn joined(&self, m: &AccountMerchant, now: Millis) -> Result<Value> {
        self.sql()?
            .exec(
                "INSERT INTO merchants (merchant_id, name, role, added_at) VALUES (?, ?, ?, ?) ON CONFLICT(merchant_id) DO UPDATE SET role = excluded.role, name = excluded.name",
                vec![
                    m.merchant_id.as_str().into(),
                    m.name.clone().into(),
                    m.role.as_str().into(),
                    int(now),
                ],
            )
            .map_err(db)?;
        Ok(Value::Null)
    }
}

fn val<T: serde::Serialize>(t: T) -> Result<Value> {
    serde_json::to_value(t).map_err(|e| Error::internal(e.to_string()))
}
