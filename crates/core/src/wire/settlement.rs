//! Where a movement stands on chain, as every answer that moved something shows it.
//!
//! On the embedded chain a movement is final when it is recorded: the answer carries its
//! hash, `chainStatus: "confirmed"` and its block. On an EVM chain the answer comes before
//! the chain transaction exists: `transactionHash` is `null` and `chainStatus` is `pending`;
//! the holder's transaction records show the hash, status and block as settlement proceeds.
//! A hash is never invented.

use crate::error::Result;
use crate::model::chain::{block_number, mined_at};
use crate::model::history::{ChainStatus, TxRecord};
use crate::ops::chain::Stamp;
use crate::ops::Ctx;
use crate::store::Store;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(transform = crate::schema::not_required("blockNumber")))]
#[serde(rename_all = "camelCase")]
pub struct Settlement {
    /// The chain transaction's hash; `null` while the movement waits to be sent (`pending`).
    #[cfg_attr(feature = "codegen", schemars(with = "Option<crate::schema::TxHash>"))]
    pub transaction_hash: Option<String>,
    pub chain_status: ChainStatus,
    /// The block the transaction was mined in; absent until it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_number: Option<u64>,
}

impl Settlement {
    pub fn of(s: &Stamp) -> Settlement {
        Settlement {
            transaction_hash: s.hash.clone(),
            chain_status: s.status,
            block_number: s.block,
        }
    }

    /// A history record's. Records written before settlement was tracked are embedded
    /// chain records: confirmed, in the 2-second block of their time.
    pub fn of_record(r: &TxRecord) -> Settlement {
        let block = match (r.block, r.chain_status, &r.hash) {
            (Some(b), _, _) => Some(b),
            (None, ChainStatus::Confirmed, Some(_)) => Some(block_number(mined_at(r.at))),
            _ => None,
        };
        Settlement {
            transaction_hash: r.hash.clone(),
            chain_status: r.chain_status,
            block_number: block,
        }
    }
}

/// Why settlement on an EVM chain is stopped, if it is (the relayer out of gas, the node not
/// answering); never on the embedded chain, which settles as it records.
pub fn stopped(store: &dyn Store, ctx: &Ctx) -> Result<Option<String>> {
    if !ctx.chain.is_evm() {
        return Ok(None);
    }
    Ok(store.relayer()?.error)
}
