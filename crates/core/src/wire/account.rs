//! The account API (`/account/...`, docs/accounts.md): sign up, verify, log in and out, reset
//! a password, the account's merchants, members and invitations, and the dashboard's browser
//! credential. Browser-only and same-origin: a login cookie (`__Host-tp_login`), no CORS, and
//! every POST checked for its Origin (`Access::Account`). The worker's edge serves these
//! routes itself, with the account's Durable Object (`AccountObject`) and the merchant's.

use super::endpoint::{
    Access::{self, Admin},
    Effect::{Reads, Writes},
    Route, Row,
};
use crate::model::account::Role;
use crate::model::address::Address;
use crate::model::ids::MerchantId;
use crate::model::input::{Checked, Text};
use crate::model::time::{Millis, Timestamp};
use serde::{Deserialize, Serialize};

pub const SIGNUP: Route = Route::new("accountSignup");
pub const VERIFY: Route = Route::new("accountVerify");
pub const LOGIN: Route = Route::new("accountLogin");
pub const LOGOUT: Route = Route::new("accountLogout");
pub const LOGOUT_ALL: Route = Route::new("accountLogoutAll");
pub const RESET: Route = Route::new("accountPasswordReset");
pub const RESET_CONFIRM: Route = Route::new("accountPasswordResetConfirm");
pub const GET_ACCOUNT: Route = Route::new("getAccount");
pub const CREATE_MERCHANT: Route = Route::new("accountCreateMerchant");
pub const DASHBOARD_TOKEN: Route = Route::new("accountDashboardToken");
pub const MEMBERS: Route = Route::new("accountMembers");
pub const INVITE: Route = Route::new("accountInvite");
pub const ACCEPT_INVITE: Route = Route::new("accountAcceptInvite");
pub const REMOVE_MEMBER: Route = Route::new("accountRemoveMember");
pub const DEV_MAILBOX: Route = Route::new("accountDevMailbox");
pub const ADMIN_MAILBOX: Route = Route::new("adminMailbox");

/// This family's routes: method, path pattern, route, who may call it, whether it writes.
#[rustfmt::skip]
pub const ROUTES: &[Row] = &[
    ("POST", "/account/signup", SIGNUP, Access::Account, Writes),
    ("POST", "/account/verify", VERIFY, Access::Account, Writes),
    ("POST", "/account/login", LOGIN, Access::Account, Writes),
    ("POST", "/account/logout", LOGOUT, Access::Account, Writes),
    ("POST", "/account/logout-all", LOGOUT_ALL, Access::Account, Writes),
    ("POST", "/account/password-reset", RESET, Access::Account, Writes),
    ("POST", "/account/password-reset/confirm", RESET_CONFIRM, Access::Account, Writes),
    ("GET", "/account", GET_ACCOUNT, Access::Account, Reads),
    ("POST", "/account/merchants", CREATE_MERCHANT, Access::Account, Writes),
    ("POST", "/account/merchants/:merchantId/token", DASHBOARD_TOKEN, Access::Account, Writes),
    ("GET", "/account/merchants/:merchantId/members", MEMBERS, Access::Account, Reads),
    ("POST", "/account/merchants/:merchantId/invites", INVITE, Access::Account, Writes),
    ("POST", "/account/invites/accept", ACCEPT_INVITE, Access::Account, Writes),
    ("POST", "/account/merchants/:merchantId/members/remove", REMOVE_MEMBER, Access::Account, Writes),
    ("GET", "/account/dev-mailbox", DEV_MAILBOX, Access::Account, Reads),
    ("GET", "/admin/mailbox", ADMIN_MAILBOX, Admin, Reads),
];

/// Whether a route needs a login cookie (all but signing up, verifying, logging in, the
/// password reset and the local mailbox).
pub fn needs_login(route: Route) -> bool {
    ![SIGNUP, VERIFY, LOGIN, RESET, RESET_CONFIRM, DEV_MAILBOX].contains(&route)
}

/// `POST /account/signup` and `POST /account/login`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "AccountCredentials"))]
pub struct Credentials {
    pub email: String,
    pub password: String,
}

impl Checked for Credentials {}

/// `POST /account/verify` and `POST /account/invites/accept`: the token of a mail's link.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "AccountLinkToken"))]
pub struct LinkToken {
    pub token: String,
}

impl Checked for LinkToken {}

/// `POST /account/password-reset`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "AccountResetRequest"))]
pub struct ResetRequest {
    pub email: String,
}

impl Checked for ResetRequest {}

/// `POST /account/password-reset/confirm`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "AccountResetConfirm"))]
pub struct ResetConfirm {
    pub token: String,
    pub password: String,
}

impl Checked for ResetConfirm {}

/// `POST /account/merchants`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "AccountCreateMerchant"))]
pub struct CreateMerchant {
    pub name: Text<100>,
}

impl Checked for CreateMerchant {}

/// `POST /account/merchants/:merchantId/invites`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "AccountInviteRequest"))]
pub struct InviteRequest {
    pub email: String,
    pub role: Role,
}

impl Checked for InviteRequest {}

/// `POST /account/merchants/:merchantId/members/remove`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "AccountRemoveMember"))]
pub struct RemoveMember {
    pub email: String,
}

impl Checked for RemoveMember {}

/// A 202's body: a mail is on its way (or, when there was nothing to send, the same words).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "AccountAccepted"))]
pub struct Accepted {
    pub status: String,
}

/// An email, as verify and the reset's confirm answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "AccountEmail"))]
pub struct EmailOnly {
    pub email: String,
}

/// A merchant the account is a member of.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountMerchant {
    pub merchant_id: MerchantId,
    pub name: String,
    pub role: Role,
}

/// `GET /account` and a login's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
pub struct Account {
    pub email: String,
    pub merchants: Vec<AccountMerchant>,
}

/// `POST /account/merchants`: the merchant and its first keys, shown this once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountMerchantCreated {
    pub merchant: AccountMerchant,
    /// The merchant's own wallet (its relayer on an EVM chain), as `POST /admin/merchants`
    /// answers it.
    pub merchant_address: Address,
    #[cfg_attr(feature = "codegen", schemars(extend("pattern" = "^sk_")))]
    pub secret_key: String,
    #[cfg_attr(feature = "codegen", schemars(extend("pattern" = "^pk_")))]
    pub public_key: String,
}

/// `POST /account/merchants/:merchantId/token`: the dashboard's browser credential.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DashboardToken {
    #[cfg_attr(feature = "codegen", schemars(extend("pattern" = "^dt_")))]
    pub token: String,
    /// When it stops working (ms since the epoch, service time).
    pub expires_at: Millis,
    pub role: Role,
}

/// A member of a merchant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub email: String,
    pub role: Role,
    pub added_at: Timestamp,
}

/// An invitation not yet accepted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Invite {
    pub email: String,
    pub role: Role,
    pub expires_at: Timestamp,
}

/// `GET /account/merchants/:merchantId/members`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
pub struct Members {
    pub members: Vec<Member>,
    pub invites: Vec<Invite>,
}

/// A mail as the local mailbox keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MailMessage {
    pub to: String,
    pub subject: String,
    pub text: String,
    /// The links in its text, in order.
    pub links: Vec<String>,
    pub sent_at: Timestamp,
}

/// `GET /admin/mailbox?to=` and `GET /account/dev-mailbox?to=`: newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
pub struct Mailbox {
    pub messages: Vec<MailMessage>,
}
