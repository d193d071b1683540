//! The crate's one error type, and the JSON-RPC error object a node answers with.

use core::fmt;

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

/// A JSON-RPC error object as the node sent it. `data` is kept as text: geth-style nodes put
/// revert data there as a hex string (see [`RpcError::revert_data`]); other shapes are kept as
/// their JSON text for logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RpcError {
    /// The error code (`3` is "execution reverted" on geth, reth and anvil).
    pub code: i64,
    /// The node's message; [`crate::rpc::SendError::classify`] reads it.
    pub message: String,
    /// The `data` member, if any: a string as is, anything else as JSON text.
    pub data: Option<String>,
}

impl RpcError {
    /// The code [`crate::rpc::parse_response`] reports when the reply is not a JSON-RPC response at all
    /// (JSON-RPC's "internal error": something between us and the node is broken).
    pub const MALFORMED: i64 = -32603;

    /// The code geth, reth and anvil give a call or gas estimate that reverted.
    pub const EXECUTION_REVERTED: i64 = 3;

    pub(crate) fn malformed(why: &str) -> Self {
        Self {
            code: Self::MALFORMED,
            message: format!("malformed JSON-RPC response: {why}"),
            data: None,
        }
    }

    /// The revert data of an `eth_call`/`eth_estimateGas` that reverted (for
    /// [`crate::calls::revert_reason`]), when the node sent it as a hex string in `data`.
    pub fn revert_data(&self) -> Option<Vec<u8>> {
        let digits = self.data.as_deref()?.strip_prefix("0x")?;
        // Digits only (const-hex would also strip a second "0x").
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        alloy_primitives::hex::decode(digits).ok()
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)?;
        if let Some(data) = &self.data {
            write!(f, " ({data})")?;
        }
        Ok(())
    }
}

impl std::error::Error for RpcError {}

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
