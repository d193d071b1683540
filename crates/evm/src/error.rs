//! The crate's one error type.

use core::fmt;

use crate::rpc::RpcError;

/// Everything that can go wrong in this crate. Every variant carries enough to log a useful
/// line; none carries secret material.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The 32-byte secret is not a valid secp256k1 scalar (zero, or not below the group order).
    InvalidSecretKey,
    /// Signing failed (practically unreachable with a valid key; kept rather than panicking).
    Signing(String),
    /// ABI data (return data, revert data) did not decode as the expected type.
    Abi(String),
    /// A number did not fit the plain integer type used at this crate's boundary; `what` names
    /// the field (e.g. a balance above `u128::MAX`).
    TooLarge {
        /// The field that overflowed.
        what: &'static str,
    },
    /// A hex string was malformed (missing `0x`, odd length, bad digit, wrong length).
    Hex(String),
    /// A JSON-RPC result did not have the expected shape.
    Json(String),
    /// The node answered with a JSON-RPC error object.
    Rpc(RpcError),
}

/// Shorthand used throughout the crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidSecretKey => f.write_str("invalid secp256k1 secret key"),
            Self::Signing(e) => write!(f, "signing failed: {e}"),
            Self::Abi(e) => write!(f, "ABI decoding failed: {e}"),
            Self::TooLarge { what } => write!(f, "{what} does not fit the integer type"),
            Self::Hex(e) => write!(f, "invalid hex: {e}"),
            Self::Json(e) => write!(f, "unexpected JSON-RPC result: {e}"),
            Self::Rpc(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<RpcError> for Error {
    fn from(e: RpcError) -> Self {
        Self::Rpc(e)
    }
}

impl From<alloy_sol_types::Error> for Error {
    fn from(e: alloy_sol_types::Error) -> Self {
        Self::Abi(e.to_string())
    }
}
