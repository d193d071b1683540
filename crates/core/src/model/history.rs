//! Transaction records: each holder's history of movements.

use super::address::Address;
use super::amount::Units;
use super::ids::{TokenAddress, UserId};
use super::time::Millis;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(inline))]
#[serde(rename_all = "snake_case")]
pub enum TxType {
    Distribute,
    Spend,
    TransferIn,
    TransferOut,
    Withdraw,
    Deposit,
    PresaleBuy,
    PresaleRefund,
    PresaleAllocation,
    Unlock,
    /// Tokens bought from the token's pool (and the USDC paid for them).
    Buy,
    /// Tokens sold to the token's pool (and the USDC received).
    Sell,
    /// Undoes a movement the chain refused (an EVM chain): the balance is as if the movement
    /// had not happened, as far as what it moved is still there.
    Reversal,
}

impl TxType {
    pub fn as_str(self) -> &'static str {
        match self {
            TxType::Distribute => "distribute",
            TxType::Spend => "spend",
            TxType::TransferIn => "transfer_in",
            TxType::TransferOut => "transfer_out",
            TxType::Withdraw => "withdraw",
            TxType::Deposit => "deposit",
            TxType::PresaleBuy => "presale_buy",
            TxType::PresaleRefund => "presale_refund",
            TxType::PresaleAllocation => "presale_allocation",
            TxType::Unlock => "unlock",
            TxType::Buy => "buy",
            TxType::Sell => "sell",
            TxType::Reversal => "reversal",
        }
    }

    /// Metal's label for the record, shown by apps built on its SDK.
    pub fn context(self) -> &'static str {
        match self {
            TxType::Distribute | TxType::PresaleAllocation => "Airdrop",
            TxType::Spend
            | TxType::TransferIn
            | TxType::TransferOut
            | TxType::Unlock
            | TxType::Reversal => "Transfer",
            TxType::Withdraw => "Withdraw",
            TxType::Deposit | TxType::PresaleRefund => "Deposit",
            TxType::PresaleBuy | TxType::Buy => "Buy",
            TxType::Sell => "Sell",
        }
    }
}

/// Where a movement stands on chain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ChainStatus {
    /// Recorded in the ledger; the chain transaction is not sent yet.
    Pending,
    /// In a transaction sent to the chain, not yet mined.
    Submitted,
    /// Mined (the embedded chain: from the start).
    #[default]
    Confirmed,
    /// The chain refused it; the ledger reversed the movement.
    Failed,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TxRecord {
    /// Unique per record: the movement's id (the embedded chain's transaction hash) plus
    /// which side of it this record is.
    pub id: String,
    /// The transaction hash, once the chain gave one.
    pub hash: Option<String>,
    /// Records from before this field were all on the embedded chain: confirmed.
    #[serde(default)]
    pub chain_status: ChainStatus,
    /// The block the transaction was mined in, once it was.
    #[serde(default)]
    pub block: Option<u64>,
    pub kind: TxType,
    /// The holder whose history this record is in.
    pub user_id: UserId,
    pub token: TokenAddress,
    pub symbol: String,
    pub decimals: u8,
    pub amount: Units,
    pub from: Address,
    pub to: Address,
    pub at: Millis,
    /// Why the chain refused the movement a `reversal` undoes (an EVM chain), as the chain
    /// said it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
