//! Which chain the service settles on, from the Worker's environment.
//!
//! - `CHAIN=embedded` (the default): the ledger presented as a chain; nothing else needed.
//! - `CHAIN=evm`: a real EVM chain. `CHAIN_RPC_URL` (a secret: provider URLs carry API keys;
//!   never logged, never in a response), `CHAIN_ID`, `CHAIN_USDC` (the USDC contract),
//!   `CHAIN_FACTORY` (the tokenpad factory deployed on that chain). Optional tuning:
//!   `CHAIN_POLL_MS` (how often the settler looks for receipts, default 2000),
//!   `CHAIN_REPLACE_AFTER_MS` (when an unmined transaction is replaced with a higher fee,
//!   default 60000), `CHAIN_SCAN_MS` (how often deposits are looked for, default 15000),
//!   `CHAIN_CONFIRMATIONS` (how many blocks a deposit waits under, default 0),
//!   `CHAIN_BATCH` (movements per batch transaction, default and most 200),
//!   `CHAIN_BATCH_WINDOW_MS` (how long a new movement waits for others to share its
//!   transaction, default 1000: half of Base's block time), `CHAIN_RPC_TIMEOUT_MS` (default
//!   10000), `CHAIN_USDC_NAME` / `CHAIN_USDC_VERSION` (USDC's EIP-712 domain).

use tokenpad_core::crypto::parse_bytes32;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::chain::{ChainMode, EvmChain, TOKEN_CODE_HASH};
use tokenpad_core::{Error, ErrorCode, Result};

const BASE_SEPOLIA: u64 = 84_532;

/// The RPC endpoint. Its `Debug` never shows the URL.
#[derive(Clone)]
pub struct RpcUrl(String);

impl RpcUrl {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for RpcUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RpcUrl(..)")
    }
}

/// What the settler needs beyond the core's `ChainMode`.
#[derive(Clone, Debug)]
pub struct Evm {
    pub chain: EvmChain,
    pub rpc: RpcUrl,
    pub usdc: Address,
    /// USDC's EIP-712 domain name and version (`CHAIN_USDC_NAME`, `CHAIN_USDC_VERSION`):
    /// Circle's contract signs under "USD Coin" / "2" on Base and "USDC" / "2" on Base
    /// Sepolia (the defaults follow `CHAIN_ID`); tokenpad's test USDC as on Base.
    pub usdc_name: String,
    pub usdc_version: String,
    pub poll_ms: u64,
    /// How long a new movement waits for others to share its transaction.
    pub batch_window_ms: u64,
    pub replace_after_ms: u64,
    pub scan_ms: u64,
    pub confirmations: u64,
    pub batch: usize,
    pub rpc_timeout_ms: u64,
}

#[derive(Clone, Debug)]
pub enum ChainConfig {
    Embedded,
    Evm(Box<Evm>),
}

impl ChainConfig {
    pub fn mode(&self) -> ChainMode {
        match self {
            ChainConfig::Embedded => ChainMode::Embedded,
            ChainConfig::Evm(e) => ChainMode::Evm(e.chain.clone()),
        }
    }

    pub fn evm(&self) -> Option<&Evm> {
        match self {
            ChainConfig::Embedded => None,
            ChainConfig::Evm(e) => Some(e),
        }
    }
}

fn misconfigured(what: String) -> Error {
    Error::new(
        ErrorCode::Misconfigured,
        format!("chain configuration: {what}"),
    )
}

/// Reads the chain configuration. A bad one is refused as a whole (503 `misconfigured` on
/// every call that needs it, and `GET /health` says why), never half-used.
pub fn read(env: &worker::Env) -> Result<ChainConfig> {
    let get = |name: &str| crate::config::string(env, name).filter(|v| !v.trim().is_empty());
    match get("CHAIN").as_deref().map(str::trim) {
        None | Some("embedded") => return Ok(ChainConfig::Embedded),
        Some("evm") => {}
        Some(other) => {
            return Err(misconfigured(format!(
                "CHAIN is {other:?}: use \"embedded\" or \"evm\""
            )))
        }
    }
    let need =
        |name: &str| get(name).ok_or_else(|| misconfigured(format!("CHAIN=evm needs {name}")));
    let address = |name: &str| -> Result<Address> {
        Address::parse(need(name)?.trim())
            .ok_or_else(|| misconfigured(format!("{name} is not an address")))
    };
    let number = |name: &str, default: u64| -> Result<u64> {
        match get(name) {
            None => Ok(default),
            Some(v) => v
                .trim()
                .parse()
                .map_err(|_| misconfigured(format!("{name} is not a whole number"))),
        }
    };
    let rpc = need("CHAIN_RPC_URL")?;
    if !(rpc.starts_with("http://") || rpc.starts_with("https://")) {
        return Err(misconfigured("CHAIN_RPC_URL is not an http(s) URL".into()));
    }
    let chain_id = need("CHAIN_ID")?
        .trim()
        .parse::<u64>()
        .map_err(|_| misconfigured("CHAIN_ID is not a whole number".into()))?;
    let token_code_hash = parse_bytes32(TOKEN_CODE_HASH)
        .ok_or_else(|| Error::internal("TOKEN_CODE_HASH is not 32 bytes"))?;
    Ok(ChainConfig::Evm(Box::new(Evm {
        chain: EvmChain {
            chain_id,
            factory: address("CHAIN_FACTORY")?,
            token_code_hash,
        },
        rpc: RpcUrl(rpc),
        usdc: address("CHAIN_USDC")?,
        usdc_name: get("CHAIN_USDC_NAME").unwrap_or_else(|| {
            if chain_id == BASE_SEPOLIA {
                "USDC"
            } else {
                "USD Coin"
            }
            .to_string()
        }),
        usdc_version: get("CHAIN_USDC_VERSION").unwrap_or_else(|| "2".to_string()),
        poll_ms: number("CHAIN_POLL_MS", 2_000)?,
        batch_window_ms: number("CHAIN_BATCH_WINDOW_MS", 1_000)?,
        replace_after_ms: number("CHAIN_REPLACE_AFTER_MS", 60_000)?,
        scan_ms: number("CHAIN_SCAN_MS", 15_000)?,
        confirmations: number("CHAIN_CONFIRMATIONS", 0)?,
        // At most 200: a batch of 200 authorizations stays under a transaction's gas cap.
        batch: usize::try_from(number("CHAIN_BATCH", 200)?.clamp(1, 200)).unwrap_or(200),
        rpc_timeout_ms: number("CHAIN_RPC_TIMEOUT_MS", 10_000)?,
    })))
}
