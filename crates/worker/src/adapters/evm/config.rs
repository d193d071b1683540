//! Which chain the service settles on, from the Worker's environment.
//!
//! - `CHAIN=embedded` (the default): the ledger presented as a chain; nothing else needed.
//! - `CHAIN=evm`: a real EVM chain. `CHAIN_RPC_URL` (a secret: provider URLs carry API keys;
//!   never logged, never in a response), `CHAIN_ID`, `CHAIN_USDC` (the USDC contract),
//!   `CHAIN_FACTORY` (the tokenpad factory deployed on that chain). Markets: `CHAIN_MARKET`
//!   (tokenpad's market contract, deployed once per chain by scripts/deploy-contracts.mjs)
//!   and `CHAIN_UNISWAP_FACTORY` (Uniswap v3's factory: Uniswap's own deployment on Base and
//!   Base Sepolia unless given); without a market, pools cannot open. `CHAIN_LOCKER`:
//!   tokenpad's lock contract, which holds presale allocations until they unlock (without
//!   it they go to the buyers' wallets, locked by the ledger alone). Optional tuning:
//!   `CHAIN_POLL_MS` (how often the settler looks for receipts, default 2000),
//!   `CHAIN_REPLACE_AFTER_MS` (when an unmined transaction is replaced with a higher fee,
//!   default 60000), `CHAIN_SCAN_MS` (how often deposits are looked for, default 15000),
//!   `CHAIN_CONFIRMATIONS` (how many blocks a deposit waits under, default 0),
//!   `CHAIN_FINALITY` (how deep a block is final: until then the settler follows a
//!   reorganization that drops a receipt of its own, and waits before acting on a revert;
//!   default 64, at most 512; 0: receipts are final at once),
//!   `CHAIN_BATCH` (movements per batch transaction, default and most 200),
//!   `CHAIN_BATCH_WINDOW_MS` (how long a new movement waits for others to share its
//!   transaction, default 1000: half of Base's block time), `CHAIN_RPC_TIMEOUT_MS` (default
//!   10000), `CHAIN_USDC_NAME` / `CHAIN_USDC_VERSION` (USDC's EIP-712 domain),
//!   `CHAIN_STUCK_AFTER_MS` (how long a transaction unmined, the relayer's trouble or a
//!   queued movement lasts before the merchant's settlement counts as stuck, for the
//!   operator's chain view, `/health` and `GET /admin/chain`; default 600000: 10 minutes).

use tokenpad_core::crypto::parse_bytes32;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::chain::{ChainMode, EvmChain, Markets, TOKEN_CODE_HASH};
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::token::{on_chain, Network};
use tokenpad_core::{Error, ErrorCode, Result};

const BASE_SEPOLIA: u64 = 84_532;

/// `CHAIN_FINALITY` unless set: 64 blocks (about two minutes on Base), past which the
/// sequencer's blocks are on L1 and no reorganization reaches.
const DEFAULT_FINALITY: u64 = 64;
/// The deepest finality followed: the relayer keeps a checkpoint per block within it
/// (`model::settlement::MAX_CHECKPOINTS`).
const MAX_FINALITY: u64 = tokenpad_core::model::settlement::MAX_CHECKPOINTS as u64;

/// Uniswap v3's factory where Uniswap deployed it (docs.uniswap.org, "Base Deployments").
fn canonical_uniswap_factory(chain_id: u64) -> Option<&'static str> {
    match chain_id {
        8_453 => Some("0x33128a8fC17869897dcE68Ed026d694621f6FDfD"),
        BASE_SEPOLIA => Some("0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24"),
        _ => None,
    }
}

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
    /// When held-up settlement counts as stuck (`ops::stuck`).
    pub stuck_after_ms: u64,
}

impl Evm {
    /// The chain address of a ledger token (`token::on_chain`: USDC under Base's address, as
    /// ledgers made before USDC followed the chain keep it, is the chain's contract).
    pub fn on_chain(&self, token: &Address) -> Address {
        on_chain(TokenAddress(self.usdc), TokenAddress(*token)).address()
    }

    /// Whether a ledger token is the chain's USDC (Circle's contract has no batch call and
    /// signs under its own EIP-712 domain).
    pub fn is_usdc(&self, token: &Address) -> bool {
        self.on_chain(token) == self.usdc
    }
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
    let network = Network::of_chain_id(chain_id).ok_or_else(|| {
        misconfigured(format!(
            "CHAIN_ID {chain_id} is not a network tokenpad knows (Base 8453, Base Sepolia 84532, Sepolia 11155111, a local node 31337)"
        ))
    })?;
    let optional = |name: &str, default: Option<&str>| -> Result<Option<Address>> {
        match get(name).as_deref().or(default) {
            None => Ok(None),
            Some(v) => Address::parse(v.trim())
                .map(Some)
                .ok_or_else(|| misconfigured(format!("{name} is not an address"))),
        }
    };
    // The zero address is the deploy configuration's placeholder: no market yet.
    let markets = match (
        optional("CHAIN_MARKET", None)?.filter(|a| *a != Address::ZERO),
        optional("CHAIN_UNISWAP_FACTORY", canonical_uniswap_factory(chain_id))?,
    ) {
        (Some(market), Some(uniswap_factory)) => Some(Markets {
            uniswap_factory,
            market,
        }),
        (Some(_), None) => {
            return Err(misconfigured(
                "CHAIN_MARKET needs CHAIN_UNISWAP_FACTORY on this chain".into(),
            ))
        }
        (None, _) => None,
    };
    let usdc = address("CHAIN_USDC")?;
    let locker = optional("CHAIN_LOCKER", None)?.filter(|a| *a != Address::ZERO);
    Ok(ChainConfig::Evm(Box::new(Evm {
        chain: EvmChain {
            chain_id,
            network,
            factory: address("CHAIN_FACTORY")?,
            token_code_hash,
            usdc,
            markets,
            locker,
            finality: number("CHAIN_FINALITY", DEFAULT_FINALITY)?.min(MAX_FINALITY),
        },
        rpc: RpcUrl(rpc),
        usdc,
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
        stuck_after_ms: number("CHAIN_STUCK_AFTER_MS", 600_000)?,
    })))
}
