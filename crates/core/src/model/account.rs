//! Merchant accounts (issue 41): the people who log in to the dashboard. An account is named
//! by its normalized email; it owns or is a member of merchants, each with a [`Role`]. The
//! rules here are pure: what an email and a password must be, how long each link and session
//! lives. The account's state lives in its own Durable Object (the worker's `AccountObject`);
//! passwords, links and sessions are in `ops::accounts`.

use crate::error::{Error, ErrorCode, Result};
use crate::model::time::Millis;
use serde::{Deserialize, Serialize};

const MINUTE: Millis = 60_000;
const HOUR: Millis = 60 * MINUTE;
const DAY: Millis = 24 * HOUR;

/// A verification link works this long.
pub const VERIFY_TTL: Millis = DAY;
/// A password-reset link works this long.
pub const RESET_TTL: Millis = HOUR;
/// An invitation link works this long.
pub const INVITE_TTL: Millis = 7 * DAY;
/// A login session ends after this long without a request...
pub const SESSION_IDLE: Millis = 12 * HOUR;
/// ...and this long after login, whatever its use.
pub const SESSION_ABSOLUTE: Millis = 7 * DAY;
/// A dashboard credential (`dt_...`) works this long; the page asks for a new one before.
pub const DASHBOARD_TOKEN_TTL: Millis = 5 * MINUTE;

/// The shortest password, in characters.
pub const PASSWORD_MIN_CHARS: usize = 10;
/// The longest password, in bytes (argon2 takes any length; a bound keeps the work bounded).
pub const PASSWORD_MAX_BYTES: usize = 128;

/// What a member of a merchant may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Everything a secret key may, and the members and invitations.
    Owner,
    /// Everything a secret key may.
    Developer,
    /// Reads only.
    Viewer,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Developer => "developer",
            Role::Viewer => "viewer",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "owner" => Some(Role::Owner),
            "developer" => Some(Role::Developer),
            "viewer" => Some(Role::Viewer),
            _ => None,
        }
    }

    /// Whether the role may change the merchant's state (what a secret key may).
    pub fn writes(self) -> bool {
        !matches!(self, Role::Viewer)
    }

    /// Whether the role manages members and invitations.
    pub fn manages_members(self) -> bool {
        matches!(self, Role::Owner)
    }
}

/// An account, as its object keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountRecord {
    /// Normalized (`normalize_email`).
    pub email: String,
    /// argon2id, in its stored form (`ops::accounts::password`).
    pub password_hash: String,
    pub verified_at: Option<Millis>,
    pub created_at: Millis,
}

/// What a mailed link is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    Verify,
    Reset,
    Invite,
}

impl LinkKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LinkKind::Verify => "verify",
            LinkKind::Reset => "reset",
            LinkKind::Invite => "invite",
        }
    }

    pub fn parse(s: &str) -> Option<LinkKind> {
        match s {
            "verify" => Some(LinkKind::Verify),
            "reset" => Some(LinkKind::Reset),
            "invite" => Some(LinkKind::Invite),
            _ => None,
        }
    }
}

/// A mailed link: its secret's hash only (`ops::accounts::link`), single use, with an expiry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkRecord {
    pub hash: String,
    pub kind: LinkKind,
    pub expires_at: Millis,
    pub used_at: Option<Millis>,
    /// What the link carries (an invitation's merchant and role); `Null` for the others.
    pub data: serde_json::Value,
}

/// A login session: its cookie's hash only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoginSession {
    pub hash: String,
    /// What a dashboard credential names (not the cookie).
    pub id: String,
    pub created_at: Millis,
    pub last_seen: Millis,
    pub revoked_at: Option<Millis>,
}

impl LoginSession {
    /// Not revoked, used within [`SESSION_IDLE`], begun within [`SESSION_ABSOLUTE`].
    pub fn live(&self, now: Millis) -> bool {
        self.revoked_at.is_none()
            && now < self.last_seen.saturating_add(SESSION_IDLE)
            && now < self.created_at.saturating_add(SESSION_ABSOLUTE)
    }
}

/// Failed logins in the current window (`ops::accounts::throttle`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempts {
    pub failures: u32,
    pub window_start: Millis,
}

/// What an invitation's link carries: who is invited, to which merchant, with which role.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invitation {
    pub email: String,
    pub merchant_id: crate::model::ids::MerchantId,
    pub merchant_name: String,
    pub role: Role,
}

/// A mail to send (the outbox's row).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mail {
    pub to: String,
    pub subject: String,
    pub text: String,
    /// The links in its text, in order.
    pub links: Vec<String>,
}

/// The refusal of a role that may not do what it asked.
pub fn forbidden_role(role: Role, what: &str) -> Error {
    Error::new(
        ErrorCode::ForbiddenRole,
        format!("A member with the {} role may not {what}", role.as_str()),
    )
    .with("role", role.as_str())
}

/// The email as accounts are named by it: trimmed and lower-cased, or 400 `invalid_request`
/// (`details.field = "email"`) when it is not a plausible address: one `@`, a non-empty local
/// part of at most 64 bytes, a domain with a dot, at most 254 bytes, printable ASCII with no
/// spaces, quotes or angle brackets (what a mail's `To` would need escaping for).
pub fn normalize_email(email: &str) -> Result<String> {
    let bad = || Error::field("email", "email must be an email address");
    let e = email.trim().to_ascii_lowercase();
    if e.is_empty() || e.len() > 254 {
        return Err(bad());
    }
    let ok_char = |c: char| {
        c.is_ascii_graphic()
            && !matches!(
                c,
                '"' | '<' | '>' | '(' | ')' | ',' | ';' | ':' | '\\' | '[' | ']'
            )
    };
    if !e.chars().all(ok_char) {
        return Err(bad());
    }
    let (local, domain) = e.split_once('@').ok_or_else(bad)?;
    let labels_ok = domain
        .split('.')
        .all(|l| !l.is_empty() && !l.starts_with('-') && !l.ends_with('-'));
    if local.is_empty()
        || local.len() > 64
        || domain.contains('@')
        || !domain.contains('.')
        || !labels_ok
    {
        return Err(bad());
    }
    Ok(e)
}

/// A new password must be at least 10 characters and at most 128 bytes: else 400
/// `weak_password` (`details.field = "password"`, with the bound it broke).
pub fn check_password(password: &str) -> Result<()> {
    if password.chars().count() < PASSWORD_MIN_CHARS {
        return Err(Error::new(
            ErrorCode::WeakPassword,
            format!("password must be at least {PASSWORD_MIN_CHARS} characters"),
        )
        .with("field", "password")
        .with("minChars", PASSWORD_MIN_CHARS));
    }
    if password.len() > PASSWORD_MAX_BYTES {
        return Err(Error::new(
            ErrorCode::WeakPassword,
            format!("password must be at most {PASSWORD_MAX_BYTES} bytes"),
        )
        .with("field", "password")
        .with("maxBytes", PASSWORD_MAX_BYTES));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn emails_normalize_or_refuse() {
        assert_eq!(
            normalize_email("  Ann@Example.COM ").unwrap(),
            "ann@example.com"
        );
        for bad in [
            "",
            "ann",
            "ann@",
            "@example.com",
            "ann@example",
            "a b@example.com",
            "ann@@example.com",
            "<ann>@example.com",
            "ann@example..com",
            "ann@-x.com",
        ] {
            let e = normalize_email(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidRequest, "{bad}");
        }
        assert!(normalize_email(&format!("{}@example.com", "a".repeat(65))).is_err());
    }

    #[test]
    fn passwords_have_bounds() {
        assert_eq!(
            check_password("short").unwrap_err().code,
            ErrorCode::WeakPassword
        );
        assert_eq!(
            check_password("ninechars").unwrap_err().code,
            ErrorCode::WeakPassword
        );
        assert!(check_password("tencharsok").is_ok());
        // Characters, not bytes, count toward the minimum; bytes toward the maximum.
        assert!(check_password("ééééééééééé").is_ok());
        assert!(check_password(&"a".repeat(128)).is_ok());
        assert_eq!(
            check_password(&"a".repeat(129)).unwrap_err().code,
            ErrorCode::WeakPassword
        );
        assert_eq!(
            check_password(&"é".repeat(65)).unwrap_err().code,
            ErrorCode::WeakPassword
        );
    }

    #[test]
    fn a_login_session_lives_12_hours_idle_and_7_days_at_most() {
        let s = LoginSession {
            hash: "h".into(),
            id: "i".into(),
            created_at: 0,
            last_seen: 0,
            revoked_at: None,
        };
        assert!(s.live(SESSION_IDLE - 1));
        assert!(!s.live(SESSION_IDLE));
        let busy = LoginSession {
            last_seen: SESSION_ABSOLUTE - 1,
            ..s.clone()
        };
        assert!(busy.live(SESSION_ABSOLUTE - 1));
        assert!(!busy.live(SESSION_ABSOLUTE));
        let revoked = LoginSession {
            revoked_at: Some(1),
            ..s
        };
        assert!(!revoked.live(2));
    }

    #[test]
    fn roles() {
        assert!(Role::Owner.writes() && Role::Developer.writes() && !Role::Viewer.writes());
        assert!(Role::Owner.manages_members() && !Role::Developer.manages_members());
        for r in [Role::Owner, Role::Developer, Role::Viewer] {
            assert_eq!(Role::parse(r.as_str()), Some(r));
        }
        assert_eq!(Role::parse("admin"), None);
    }
}
