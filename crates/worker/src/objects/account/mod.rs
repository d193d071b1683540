//! The account Durable Object (issue 41, docs/accounts.md): one per account, named by its
//! normalized email (`account:<email>`). Its records (the account, its argon2id hash, its login
//! sessions and mailed links as hashes, its failed logins, its mail outbox) are the core's
//! (`store::accounts`, on this object's SQLite in `adapters::accounts`), and so are its
//! operations (`ops::accounts::account`, run here in one transaction each: `auth.rs`). Its
//! own: the merchants the account is a member of (for `GET /account`), the alarm that sends the
//! outbox to the mail provider or into the local mailbox (`mail.rs`). The same class, named
//! `client:<address>`, counts a client address's failed logins. Calls come from the edge
//! (`hop::account`), as a `fetch` body.

mod auth;
mod mail;

use crate::adapters::accounts::{db, int, SqlAccount, SCHEMA};
use crate::hop;
use crate::hop::account::{AccountCall, Timed};
use crate::http;
use serde::Deserialize;
use serde_json::Value;
use tokenpad_core::model::account::{Invitation, Role};
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::accounts::account as ops;
use tokenpad_core::ops::accounts::throttle::CLIENT_MAX_FAILURES;
use tokenpad_core::store::accounts::AccountStore;
use tokenpad_core::wire::account::AccountMerchant;
use tokenpad_core::{Error, Result};
use worker::{
    durable_object, wasm_bindgen, DurableObject, Env, Request, Response, SqlStorage, State,
};

#[durable_object]
pub struct AccountObject {
    state: State,
    env: Env,
}

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

#[derive(Deserialize)]
struct MerchantRow {
    merchant_id: String,
    name: String,
    role: String,
}

fn val<T: serde::Serialize>(t: T) -> Result<Value> {
    serde_json::to_value(t).map_err(|e| Error::internal(e.to_string()))
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

    async fn handle(&self, timed: Timed) -> Result<Value> {
        let now = timed.now;
        let out = match timed.call {
            AccountCall::Signup {
                email,
                password,
                origin,
            } => {
                self.run(move |s, sh| ops::signup(s, sh, &email, &password, &origin, now))?;
                Value::Null
            }
            AccountCall::Verify { token } => val(self.verify(token, now)?)?,
            AccountCall::Login {
                password,
                old_cookie,
            } => val(self.login(password, old_cookie, now)?)?,
            AccountCall::Session { cookie } => val(self.session(cookie, now)?)?,
            AccountCall::Logout { cookie } => {
                self.run(move |s, _| ops::logout(s, &cookie, now))?;
                Value::Null
            }
            AccountCall::LogoutAll { cookie } => {
                self.run(move |s, _| ops::logout_all(s, &cookie, now))?;
                Value::Null
            }
            AccountCall::Reset { origin } => {
                self.run(move |s, sh| ops::reset(s, sh, &origin, now))?;
                Value::Null
            }
            AccountCall::ResetConfirm { token, password } => {
                val(self.reset_confirm(token, password, now)?)?
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
            } => {
                let invitation = Invitation {
                    email,
                    merchant_id,
                    merchant_name,
                    role,
                };
                self.run(move |s, sh| ops::invited(s, sh, &invitation, &by, &origin, now))?;
                Value::Null
            }
            AccountCall::AcceptInvite { token, email } => {
                val(self.accept_invite(token, email, now)?)?
            }
            AccountCall::Mailbox { to } => val(self.mailbox(&to)?)?,
            AccountCall::ThrottleCheck => {
                SqlAccount::new(self.sql()?)
                    .attempts()?
                    .check(now, CLIENT_MAX_FAILURES)?;
                Value::Null
            }
            AccountCall::ThrottleFailed => {
                self.run(move |s, _| {
                    let failed = s.attempts()?.failed(now);
                    s.put_attempts(failed)
                })?;
                Value::Null
            }
        };
        // Mail written by the call goes out from the alarm, never inside the request.
        self.wake_mail().await;
        Ok(out)
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
                    role: Role::parse(&r.role)?,
                    merchant_id: MerchantId::parse(&r.merchant_id).ok()?,
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
