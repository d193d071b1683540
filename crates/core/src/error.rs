//! One error type for the whole service. Every error carries a stable snake_case `code` that
//! programs match on, an HTTP status, a message for people, and optional structured `details`.
//! The worker maps this to HTTP in exactly one place; nothing else invents status codes.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;

macro_rules! codes {
    ($( $variant:ident => ($code:literal, $status:literal) ),* $(,)?) => {
        /// Stable error codes. The string form is part of the public API: never rename one.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorCode { $( $variant ),* }

        impl ErrorCode {
            /// Every code, for documentation and table-driven tests.
            pub const ALL: &'static [ErrorCode] = &[ $( ErrorCode::$variant ),* ];

            pub fn as_str(self) -> &'static str {
                match self { $( ErrorCode::$variant => $code ),* }
            }

            pub fn status(self) -> u16 {
                match self { $( ErrorCode::$variant => $status ),* }
            }

            /// The code named `s`, if there is one.
            pub fn parse(s: &str) -> Option<ErrorCode> {
                match s { $( $code => Some(ErrorCode::$variant), )* _ => None }
            }
        }
    };
}

codes! {
    InvalidJson => ("invalid_json", 400),
    InvalidRequest => ("invalid_request", 400),
    InvalidAmount => ("invalid_amount", 400),
    InvalidAddress => ("invalid_address", 400),
    InvalidUserId => ("invalid_user_id", 400),
    InvalidNetwork => ("invalid_network", 400),
    NetworkUnavailable => ("network_unavailable", 400),
    InvalidIdempotencyKey => ("invalid_idempotency_key", 400),
    InvalidCursor => ("invalid_cursor", 400),
    SecretKeyInUrl => ("secret_key_in_url", 400),
    InvalidImageUrl => ("invalid_image_url", 400),
    InvalidText => ("invalid_text", 400),
    SelfTransfer => ("self_transfer", 400),
    InvalidDestination => ("invalid_destination", 400),
    PublicKeyNotFound => ("public_key_not_found", 401),
    MissingApiKey => ("missing_api_key", 401),
    InvalidApiKey => ("invalid_api_key", 401),
    InvalidAdminKey => ("invalid_admin_key", 401),
    SecretKeyRequired => ("secret_key_required", 403),
    RewardAllocationDisabled => ("reward_allocation_disabled", 403),
    NotFound => ("not_found", 404),
    TokenNotFound => ("token_not_found", 404),
    HolderNotFound => ("holder_not_found", 404),
    JobNotFound => ("job_not_found", 404),
    MerchantNotFound => ("merchant_not_found", 404),
    MethodNotAllowed => ("method_not_allowed", 405),
    IdempotencyKeyReused => ("idempotency_key_reused", 409),
    PayloadTooLarge => ("payload_too_large", 413),
    UnsupportedMediaType => ("unsupported_media_type", 415),
    InsufficientBalance => ("insufficient_balance", 422),
    TokensLocked => ("tokens_locked", 422),
    InsufficientAppSupply => ("insufficient_app_supply", 422),
    PresaleNotFound => ("presale_not_found", 404),
    PresaleNotActive => ("presale_not_active", 409),
    PresaleAlreadyResolved => ("presale_already_resolved", 409),
    TargetExceeded => ("target_exceeded", 422),
    LaunchThresholdNotReached => ("launch_threshold_not_reached", 422),
    Internal => ("internal_error", 500),
    DeploymentNotFound => ("deployment_not_found", 404),
    AllocationExceedsSupply => ("allocation_exceeds_supply", 400),
    RateLimited => ("rate_limited", 429),
    NoLiquidity => ("no_liquidity", 409),
    PoolExists => ("pool_exists", 409),
    PoolPending => ("pool_pending", 409),
    LiquidityDisabled => ("liquidity_disabled", 403),
    SlippageExceeded => ("slippage_exceeded", 422),
    InsufficientLiquidity => ("insufficient_liquidity", 422),
    EventNotFound => ("event_not_found", 404),
    WebhookNotFound => ("webhook_not_found", 404),
    DeliveryNotFound => ("delivery_not_found", 404),
    UrlNotAllowed => ("url_not_allowed", 400),
    WebhookLimitReached => ("webhook_limit_reached", 422),
    Misconfigured => ("misconfigured", 503),
    Unavailable => ("unavailable", 503),
    // Holder sessions (ops/session): who the token is, then what it may do.
    InvalidSessionToken => ("invalid_session_token", 401),
    SessionExpired => ("session_expired", 401),
    SessionRevoked => ("session_revoked", 401),
    SessionTokenRequired => ("session_token_required", 403),
    SessionHolderMismatch => ("session_holder_mismatch", 403),
    InsufficientScope => ("insufficient_scope", 403),
    SessionLimitExceeded => ("session_limit_exceeded", 403),
    // API keys (ops/keys): `GET /keys` and its writes.
    KeyNotFound => ("key_not_found", 404),
    KeyRevoked => ("key_revoked", 409),
    LastLiveKey => ("last_live_key", 409),
    KeyAlreadyShown => ("key_already_shown", 409),
    KeyLimitReached => ("key_limit_reached", 422),
    // Merchant accounts (ops/accounts): the dashboard's login, links and members.
    WeakPassword => ("weak_password", 400),
    InvalidLink => ("invalid_link", 400),
    InvalidCredentials => ("invalid_credentials", 401),
    NotLoggedIn => ("not_logged_in", 401),
    EmailNotVerified => ("email_not_verified", 403),
    ForbiddenRole => ("forbidden_role", 403),
    CrossOriginRequest => ("cross_origin_request", 403),
    InviteForAnotherEmail => ("invite_for_another_email", 403),
    TooManyAttempts => ("too_many_attempts", 429),
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        ErrorCode::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown code {s}")))
    }
}

/// The keys of an error's `details` whose values are amounts (exact decimals, as in answers),
/// besides those that are also amount fields of the wire types (`remaining`, `spent`,
/// `totalSupply`, ...). Clients read them exactly, as they read amounts in answers
/// (`src/js/generated/decimals.ts` lists both); a test below checks every amount detail the
/// operations write is one of the two.
pub const AMOUNT_DETAILS: [&str; 4] = ["allocated", "available", "locked", "max"];

/// An error as data: what went wrong, for programs (`code`) and for people (`message`).
/// It crosses the edge-to-object hop as itself (serde), so a request refused at decoding is
/// answered by the merchant's object after its key is checked, exactly as any other error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    pub details: Option<Map<String, Value>>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            details: None,
        }
    }

    /// Adds one entry to `details`, e.g. the field that failed.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details
            .get_or_insert_with(Map::new)
            .insert(key.to_string(), value.into());
        self
    }

    /// An input field that is missing or of the wrong type.
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        Error::new(ErrorCode::InvalidRequest, message).with("field", field)
    }

    /// Names the input field this error is about: `details.field`, and the message starts
    /// with the field's name (`amount must be greater than zero`).
    pub fn at_field(mut self, field: &str) -> Self {
        self.message = format!("{field} {}", self.message);
        self.with("field", field)
    }

    /// A failure of our own (storage, an invariant). The message is logged, never sent: the
    /// HTTP layer replaces it with a generic one so no internals leak.
    pub fn internal(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::Internal, message)
    }

    pub fn status(&self) -> u16 {
        self.code.status()
    }

    /// The JSON body every error response has: `{ success: false, message, error, code,
    /// details? }` (`error` repeats `message`: some clients read that name).
    pub fn to_body(&self) -> Value {
        let mut body = Map::new();
        body.insert("success".into(), Value::Bool(false));
        let message = if self.code == ErrorCode::Internal {
            "Internal error".to_string()
        } else {
            self.message.clone()
        };
        body.insert("error".into(), Value::String(message.clone()));
        body.insert("message".into(), Value::String(message));
        body.insert("code".into(), Value::String(self.code.as_str().into()));
        if let Some(details) = &self.details {
            if self.code != ErrorCode::Internal {
                body.insert("details".into(), Value::Object(details.clone()));
            }
        }
        Value::Object(body)
    }
}

/// An input error found inside serde, while a field's type decodes itself (an amount that is
/// zero, an address that is not one). serde carries only a message, so the error travels as
/// a tagged JSON message and `wire::decode` rebuilds it with the field's path: the message
/// reads `<field> <why>` and `details.field` names the field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldError {
    pub code: ErrorCode,
    /// The message after the field's name, e.g. `must be greater than zero`.
    pub why: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Map<String, Value>>,
}

const FIELD_ERROR_TAG: &str = "\u{1}tokenpad-field-error:";

impl FieldError {
    pub fn new(code: ErrorCode, why: impl Into<String>) -> FieldError {
        FieldError {
            code,
            why: why.into(),
            details: None,
        }
    }

    /// A required value that is absent or null.
    pub fn missing() -> FieldError {
        FieldError::new(ErrorCode::InvalidRequest, "is required")
    }

    /// A value of the wrong JSON type: `must be <what>`.
    pub fn expected(what: &str) -> FieldError {
        FieldError::new(ErrorCode::InvalidRequest, format!("must be {what}"))
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details
            .get_or_insert_with(Map::new)
            .insert(key.to_string(), value.into());
        self
    }

    /// This error as a serde error, for a `Deserialize` impl to return.
    pub fn into_de<E: serde::de::Error>(self) -> E {
        let json = serde_json::to_string(&self).unwrap_or_default();
        E::custom(format!("{FIELD_ERROR_TAG}{json}"))
    }

    /// The error a serde message carries, if it is one of ours.
    pub fn from_message(message: &str) -> Option<FieldError> {
        // Read only the JSON after the tag: a deserializer may append a position to it.
        let json = message.split_once(FIELD_ERROR_TAG)?.1;
        serde_json::Deserializer::from_str(json)
            .into_iter::<FieldError>()
            .next()?
            .ok()
    }

    /// Only the `why` of the error a serde message carries, if it is one of ours: read as a
    /// plain JSON value, so a reader that needs no more (the browser package) does not carry
    /// the code of the whole error type.
    pub fn why_from_message(message: &str) -> Option<String> {
        let json = message.split_once(FIELD_ERROR_TAG)?.1;
        let v = serde_json::Deserializer::from_str(json)
            .into_iter::<Value>()
            .next()?
            .ok()?;
        v.get("why")?.as_str().map(str::to_string)
    }

    /// The error without a field name (the message is only `why`).
    pub fn into_error(self) -> Error {
        Error {
            code: self.code,
            message: self.why,
            details: self.details,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_are_unique_snake_case_with_error_statuses() {
        let mut seen = HashSet::new();
        for code in ErrorCode::ALL {
            let s = code.as_str();
            assert!(seen.insert(s), "duplicate code {s}");
            assert!(s.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{s}");
            assert!((400..600).contains(&code.status()), "{s}");
        }
    }

    #[test]
    fn internal_errors_hide_their_message_and_details() {
        let body = Error::internal("sql: table holders is locked")
            .with("query", "SELECT")
            .to_body();
        assert_eq!(body["message"], "Internal error");
        assert_eq!(body["code"], "internal_error");
        assert!(body.get("details").is_none());
    }

    #[test]
    fn field_errors_name_the_field() {
        let body = Error::field("amount", "amount is required").to_body();
        assert_eq!(body["success"], false);
        assert_eq!(body["code"], "invalid_request");
        assert_eq!(body["details"]["field"], "amount");
    }
}
