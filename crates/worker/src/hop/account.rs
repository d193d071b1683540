//! The calls to an account's Durable Object (`objects::account`), sent as a `fetch` body like
//! the registry's: one object per account, named by the account's normalized email
//! (`account:<email>`), and one per client address for its login throttle
//! (`client:<address>`). A link or a login cookie names its object by id
//! (`ops::accounts::link`), so no lookup finds it.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tokenpad_core::model::account::Role;
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::model::time::Millis;
use tokenpad_core::wire::account::AccountMerchant;
use tokenpad_core::{Error, Result};
use worker::Env;

/// Which account object a call goes to.
pub enum Target<'a> {
    /// The account of a normalized email (its mailbox too).
    Email(&'a str),
    /// The object a link or a cookie names (64 hex).
    Id(&'a str),
    /// A client address's login throttle.
    Client(&'a str),
}

/// What an account's object is asked. `now` is the service clock (real time, plus the
/// time-travel offset in local runs); `origin` is where the mails' links point.
#[derive(Debug, Serialize, Deserialize)]
pub enum AccountCall {
    Signup {
        email: String,
        password: String,
        origin: String,
    },
    Verify {
        token: String,
    },
    /// A login to the account the object is (it is addressed by the email).
    Login {
        password: String,
        /// The cookie the browser still had: ended, as a login rotates the session.
        old_cookie: Option<String>,
    },
    /// The live login session a cookie names (its idle expiry pushed back).
    Session {
        cookie: String,
    },
    Logout {
        cookie: String,
    },
    LogoutAll {
        cookie: String,
    },
    Reset {
        origin: String,
    },
    ResetConfirm {
        token: String,
        password: String,
    },
    /// The account became a member of a merchant.
    Joined {
        merchant: AccountMerchant,
    },
    /// The account is no longer a member of a merchant.
    Left {
        merchant_id: MerchantId,
    },
    /// An invitation to this email: a link mailed to it.
    Invited {
        email: String,
        merchant_id: MerchantId,
        merchant_name: String,
        role: Role,
        by: String,
        origin: String,
    },
    /// An invitation's link used by the account logged in as `email`.
    AcceptInvite {
        token: String,
        email: String,
    },
    Mailbox {
        to: String,
    },
    /// A client address's login throttle: may it try, and record a failure.
    ThrottleCheck,
    ThrottleFailed,
}

/// A call with the service clock.
#[derive(Debug, Serialize, Deserialize)]
pub struct Timed {
    pub now: Millis,
    pub call: AccountCall,
}

/// A login's answer: the account, the new cookie's value and how long it lives.
#[derive(Debug, Serialize, Deserialize)]
pub struct LoggedIn {
    pub email: String,
    pub merchants: Vec<AccountMerchant>,
    pub cookie: String,
    pub max_age_seconds: u64,
}

/// A live login session.
#[derive(Debug, Serialize, Deserialize)]
pub struct LiveSession {
    pub email: String,
    /// The session's id (not its cookie): what a dashboard credential names.
    pub session: String,
    pub merchants: Vec<AccountMerchant>,
}

/// An invitation accepted: the merchant and the role it gives.
#[derive(Debug, Serialize, Deserialize)]
pub struct Accepted {
    pub merchant_id: MerchantId,
    pub merchant_name: String,
    pub role: Role,
}

/// What a merchant's object is asked of its members (by the edge, for a logged-in account).
#[derive(Debug, Serialize, Deserialize)]
pub enum MembersCall {
    /// A dashboard credential for member `email`, from its login session `session`.
    Token { email: String, session: String },
    /// The members and invitations (any member may read them).
    List { email: String },
    /// Owner `by` invites `email` with `role`.
    Invite {
        by: String,
        email: String,
        role: Role,
    },
    /// `email` accepted an invitation: it becomes a member with `role`.
    Accept { email: String, role: Role },
    /// Owner `by` removes member `email` (or an invitation to it): its credentials stop at
    /// once.
    Remove { by: String, email: String },
}

/// An invitation recorded: the merchant's name, for the mail.
#[derive(Debug, Serialize, Deserialize)]
pub struct InviteRecorded {
    pub merchant_name: String,
}

fn internal(e: worker::Error) -> Error {
    Error::internal(e.to_string())
}

/// Sends `call` to the account object `target`, at service time `now`; its answer read as `T`
/// (an error answer is returned as the error it carries).
pub async fn account<T: DeserializeOwned>(
    env: &Env,
    target: Target<'_>,
    now: Millis,
    call: AccountCall,
) -> Result<T> {
    let body =
        serde_json::to_string(&Timed { now, call }).map_err(|e| Error::internal(e.to_string()))?;
    let ns = env.durable_object("ACCOUNT").map_err(internal)?;
    let id = match target {
        Target::Email(email) => ns.id_from_name(&format!("account:{email}")),
        Target::Client(address) => ns.id_from_name(&format!("client:{address}")),
        Target::Id(hex) => ns.id_from_string(hex),
    }
    .map_err(|_| {
        Error::new(
            tokenpad_core::ErrorCode::InvalidLink,
            "This link is not valid",
        )
    })?;
    let stub = id.get_stub().map_err(internal)?;
    super::fetch_json(&stub, &body, "account").await
}
