//! `GET /merchant/chain`: the merchant's own view of its settlement (secret key, or the
//! dashboard's credential): the chain, the relayer wallet (address, its ETH balance as the
//! settler last read it, next nonce, why settlement is stopped), movements not settled yet,
//! transactions in flight, and the movements the chain refused or that wait for an operator.
//! The same parts as the operator's view (`chain.rs`), mapped by the same functions; what
//! the operator's alone has (deposit scanning, the nonce gap, what to do) is left out.

use super::chain::{redact, ChainTxReport, FailedMovement, ParkedMovement};
use crate::error::Result;
use crate::model::address::Address;
use crate::model::chain::ChainMode;
use crate::model::time::Timestamp;
use crate::ops::Ctx;
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// The latest refused movements the view lists.
pub const FAILED_SHOWN: u32 = 20;

/// `GET /merchant/chain`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "MerchantChain"))]
#[serde(rename_all = "camelCase")]
pub struct MerchantChain {
    /// `embedded` or `evm`.
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = ["embedded", "evm"])))]
    pub kind: String,
    /// The EVM chain's id; null on the embedded chain.
    pub chain_id: Option<u64>,
    /// The merchant's relayer wallet (it signs and pays for every transaction); null on the
    /// embedded chain, which has none.
    pub relayer: Option<MerchantRelayer>,
    /// Movements recorded in the ledger and not settled on chain yet.
    pub open_movements: u64,
    /// Transactions signed and not mined yet, lowest nonce first.
    pub transactions: Vec<ChainTxReport>,
    /// The latest movements the chain refused (undone in the ledger), newest first.
    pub failed: Vec<FailedMovement>,
    /// Movements held for the operator (still open), oldest first.
    pub parked: Vec<ParkedMovement>,
}

/// The relayer as the merchant sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "MerchantRelayer"))]
#[serde(rename_all = "camelCase")]
pub struct MerchantRelayer {
    pub address: Address,
    /// Its ETH balance in wei (digits, exact), as the settler last read it; null before the
    /// settler's first round.
    #[cfg_attr(feature = "codegen", schemars(extend("pattern" = "^[0-9]+$")))]
    pub balance_wei: Option<String>,
    /// When the settler read it.
    pub balance_at: Option<Timestamp>,
    /// The nonce its next transaction uses (null before its first).
    pub next_nonce: Option<u64>,
    /// Whether settlement is stopped (the relayer out of gas, the chain's node failing, ...).
    pub stopped: bool,
    /// Why, when it is (out of gas names the address to fund); null otherwise.
    pub error: Option<String>,
    /// Since when.
    pub error_at: Option<Timestamp>,
}

impl MerchantChain {
    pub fn of(store: &dyn Store, ctx: &Ctx) -> Result<MerchantChain> {
        let open = store.open_intents(u32::MAX)?;
        let (kind, chain_id, relayer) = match &ctx.chain {
            ChainMode::Embedded => ("embedded", None, None),
            ChainMode::Evm(evm) => {
                let r = store.relayer()?;
                let relayer = MerchantRelayer {
                    address: ctx.merchant.address,
                    balance_wei: r.balance_wei,
                    balance_at: r.balance_at.map(Timestamp::at),
                    next_nonce: r.next_nonce,
                    stopped: r.error.is_some(),
                    error: r.error.as_deref().map(redact),
                    error_at: r.error_at.map(Timestamp::at),
                };
                ("evm", Some(evm.chain_id), Some(relayer))
            }
        };
        Ok(MerchantChain {
            kind: kind.into(),
            chain_id,
            relayer,
            open_movements: u64::try_from(open.len()).unwrap_or(u64::MAX),
            transactions: store
                .open_chain_txs()?
                .iter()
                .map(ChainTxReport::of)
                .collect(),
            failed: store
                .failed_intents(FAILED_SHOWN)?
                .iter()
                .map(FailedMovement::of)
                .collect(),
            parked: open
                .iter()
                .filter(|i| i.parked.is_some())
                .map(ParkedMovement::of)
                .collect(),
        })
    }
}
