//! The merchant's members (issue 41, docs/accounts.md): which accounts may run it from the
//! dashboard and with what role, its invitations not yet accepted, and the dashboard's
//! browser credential (`dt_...`), signed here and checked here: its signature and expiry,
//! then this table, so a removed member's token stops at once and a member's role is what the
//! table says now. The account that creates the merchant is its first owner (`init`).

use super::MerchantObject;
use crate::adapters::sql::SqlStore;
use crate::config;
use crate::hop::account::{InviteRecorded, MembersCall};
use crate::http::Answer;
use serde::Deserialize;
use tokenpad_core::crypto::parse_encryption_key;
use tokenpad_core::model::account::{forbidden_role, Role, DASHBOARD_TOKEN_TTL, INVITE_TTL};
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::model::time::{Millis, Timestamp};
use tokenpad_core::ops::accounts::dashboard::{self, Claims, DashboardKey};
use tokenpad_core::wire::account::{AccountMerchant, DashboardToken, Invite, Member, Members};
use tokenpad_core::{Error, ErrorCode, Result};

#[derive(Deserialize)]
struct MemberRow {
    email: String,
    role: String,
    added_at: i64,
}

#[derive(Deserialize)]
struct InviteRow {
    email: String,
    role: String,
    expires_at: i64,
}

const SCHEMA: [&str; 2] = [
    "CREATE TABLE IF NOT EXISTS members (email TEXT PRIMARY KEY, role TEXT NOT NULL, added_at INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS member_invites (email TEXT PRIMARY KEY, role TEXT NOT NULL, expires_at INTEGER NOT NULL)",
];

fn int(v: Millis) -> worker::SqlStorageValue {
    i64::try_from(v).unwrap_or(i64::MAX).into()
}

fn millis(v: i64) -> Millis {
    u64::try_from(v).unwrap_or(0)
}

/// The members table, made if missing.
pub(super) fn ready(store: &SqlStore) -> Result<()> {
    for stmt in SCHEMA {
        store.exec(stmt, Vec::new())?;
    }
    Ok(())
}

/// Adds (or re-roles) member `email`.
pub(super) fn put_member(store: &SqlStore, email: &str, role: Role, now: Millis) -> Result<()> {
    ready(store)?;
    store.exec(
        "INSERT INTO members (email, role, added_at) VALUES (?, ?, ?) ON CONFLICT(email) DO UPDATE SET role = excluded.role",
        vec![email.into(), role.as_str().into(), int(now)],
    )?;
    Ok(())
}

/// Member `email`'s role now, if it is one.
pub(super) fn role_of(store: &SqlStore, email: &str) -> Result<Option<Role>> {
    ready(store)?;
    let rows: Vec<MemberRow> = store.rows(
        "SELECT email, role, added_at FROM members WHERE email = ?",
        vec![email.into()],
    )?;
    Ok(rows.first().and_then(|r| Role::parse(&r.role)))
}

/// The key the merchant's dashboard credentials are signed with: DASHBOARD_SIGNING_KEY, else
/// SESSION_SIGNING_KEY, else WALLET_ENCRYPTION_KEY (64 hex), derived for this merchant.
pub(super) fn key(env: &worker::Env, merchant: &MerchantId) -> Result<DashboardKey> {
    let secret = ["DASHBOARD_SIGNING_KEY", "SESSION_SIGNING_KEY", "WALLET_ENCRYPTION_KEY"]
        .iter()
        .find_map(|name| config::string(env, name).as_deref().and_then(parse_encryption_key))
        .ok_or_else(|| {
            Error::internal("DASHBOARD_SIGNING_KEY (or SESSION_SIGNING_KEY or WALLET_ENCRYPTION_KEY) is not set to 64 hex characters")
        })?;
    Ok(DashboardKey::derive(&secret, merchant))
}

fn not_member() -> Error {
    Error::new(ErrorCode::MerchantNotFound, "No such merchant")
}

impl MerchantObject {
    /// The role of the member a dashboard credential names, if it checks: signed for this
    /// merchant, not expired, and its account still a member (its role now is what counts).
    /// Anything else: 401 `invalid_api_key`, as for any key that does not check.
    pub(super) fn dashboard_role(
        &self,
        store: &SqlStore,
        merchant: &MerchantId,
        token: &str,
    ) -> Result<Role> {
        let invalid = || Error::new(ErrorCode::InvalidApiKey, "Invalid API key");
        let key = key(&self.env, merchant)?;
        let claims = dashboard::verify(&key, merchant, token, self.now()?).ok_or_else(invalid)?;
        role_of(store, &claims.account)?.ok_or_else(invalid)
    }

    #[inline(never)]
    pub(super) fn members(&self, call: MembersCall) -> Result<Answer> {
        let merchant = self.merchant()?;
        let store = self.store()?;
        let now = self.now()?;
        match call {
            MembersCall::Token { email, session } => {
                let role = role_of(&store, &email)?.ok_or_else(not_member)?;
                let expires_at = now.saturating_add(DASHBOARD_TOKEN_TTL);
                let claims = Claims {
                    account: email,
                    session,
                    role,
                    expires_at,
                };
                let token = dashboard::sign(&key(&self.env, &merchant.id)?, &merchant.id, &claims);
                Answer::json(
                    200,
                    &DashboardToken {
                        token,
                        expires_at,
                        role,
                    },
                )
            }
            MembersCall::List { email } => {
                role_of(&store, &email)?.ok_or_else(not_member)?;
                Answer::json(200, &list(&store, now)?)
            }
            MembersCall::Invite { by, email, role } => {
                let mine = role_of(&store, &by)?.ok_or_else(not_member)?;
                if !mine.manages_members() {
                    return Err(forbidden_role(mine, "invite members"));
                }
                store.exec(
                    "INSERT INTO member_invites (email, role, expires_at) VALUES (?, ?, ?) ON CONFLICT(email) DO UPDATE SET role = excluded.role, expires_at = excluded.expires_at",
                    vec![email.into(), role.as_str().into(), int(now.saturating_add(INVITE_TTL))],
                )?;
                Answer::json(
                    201,
                    &InviteRecorded {
                        merchant_name: merchant.name,
                    },
                )
            }
            MembersCall::Remove { by, email } => {
                let mine = role_of(&store, &by)?.ok_or_else(not_member)?;
                if !mine.manages_members() {
                    return Err(forbidden_role(mine, "remove members"));
                }
                let owners = list(&store, now)?
                    .members
                    .iter()
                    .filter(|m| m.role == Role::Owner && m.email != email)
                    .count();
                if owners == 0 {
                    return Err(Error::field(
                        "email",
                        "The merchant's last owner cannot be removed: make another owner first",
                    ));
                }
                store.exec(
                    "DELETE FROM members WHERE email = ?",
                    vec![email.clone().into()],
                )?;
                store.exec(
                    "DELETE FROM member_invites WHERE email = ?",
                    vec![email.into()],
                )?;
                Answer::json(200, &list(&store, now)?)
            }
            MembersCall::Accept { email, role } => {
                // An owner stays an owner when a lesser invitation is accepted again.
                let now_role = match role_of(&store, &email)? {
                    Some(Role::Owner) => Role::Owner,
                    _ => role,
                };
                put_member(&store, &email, now_role, now)?;
                store.exec(
                    "DELETE FROM member_invites WHERE email = ?",
                    vec![email.into()],
                )?;
                Answer::json(
                    200,
                    &AccountMerchant {
                        merchant_id: merchant.id,
                        name: merchant.name,
                        role: now_role,
                    },
                )
            }
        }
    }
}

fn list(store: &SqlStore, now: Millis) -> Result<Members> {
    let members: Vec<MemberRow> = store.rows(
        "SELECT email, role, added_at FROM members ORDER BY added_at, email",
        Vec::new(),
    )?;
    let invites: Vec<InviteRow> = store.rows(
        "SELECT email, role, expires_at FROM member_invites WHERE expires_at > ? ORDER BY email",
        vec![int(now)],
    )?;
    Ok(Members {
        members: members
            .into_iter()
            .filter_map(|r| {
                Some(Member {
                    role: Role::parse(&r.role)?,
                    email: r.email,
                    added_at: Timestamp::at(millis(r.added_at)),
                })
            })
            .collect(),
        invites: invites
            .into_iter()
            .filter_map(|r| {
                Some(Invite {
                    role: Role::parse(&r.role)?,
                    email: r.email,
                    expires_at: Timestamp::at(millis(r.expires_at)),
                })
            })
            .collect(),
    })
}
