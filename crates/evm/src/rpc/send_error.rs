//! What a failed `eth_sendRawTransaction` means for the sender. Nodes report these only as
//! message text (their codes differ and overlap), so the texts are matched, lower-cased, as
//! geth and op-geth, reth (and Base's reth-based node) and anvil word them:
//!
//! | kind | geth / op-geth | reth | anvil |
//! | --- | --- | --- | --- |
//! | already known | `already known` | `already known` | `transaction already imported` |
//! | nonce too low | `nonce too low: address …, tx: 3 state: 5` | `nonce too low: next nonce 5, tx nonce 3` | `nonce too low` |
//! | underpriced | `replacement transaction underpriced`, `transaction underpriced: …`, `max fee per gas less than block base fee: …` | the same texts, and `transaction priority fee below minimum required priority fee …` | `replacement transaction underpriced`, `max fee per gas less than block base fee` |
//! | insufficient funds | `insufficient funds for gas * price + value: …` | `insufficient funds for gas * price + value: have … want …` | `Insufficient funds for gas * price + value`, `insufficient funds for transfer` |

use crate::error::RpcError;

/// A classified send failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SendError {
    /// The node already has this exact transaction: treat the send as done and watch the hash.
    AlreadyKnown,
    /// The nonce is used: by this transaction (it landed: look for its receipt) or by another
    /// one; read the account's nonce before deciding.
    NonceTooLow,
    /// Fees too low: a same-nonce replacement without enough bump (see [`crate::tx::bump`]),
    /// a fee cap under the base fee, or a tip under the node's minimum. Re-price and resend.
    Underpriced,
    /// The sender cannot pay `gas_limit * max_fee_per_gas + value`: top the relayer up.
    InsufficientFunds,
    /// Anything else, with the node's message.
    Other(String),
}

impl SendError {
    /// Classifies a send error from its message (and `data`, where some providers put it).
    pub fn classify(error: &RpcError) -> Self {
        let mut text = error.message.to_ascii_lowercase();
        if let Some(data) = &error.data {
            text.push(' ');
            text.push_str(&data.to_ascii_lowercase());
        }
        let has = |needle: &str| text.contains(needle);
        if has("already known") || has("already imported") {
            Self::AlreadyKnown
        } else if has("nonce too low") && !has("authority nonce too low") {
            // "authority nonce too low" is about an EIP-7702 authorization, not the sender.
            Self::NonceTooLow
        } else if has("underpriced")
            || has("less than block base fee")
            || has("insufficient gas price")
            || has("below minimum")
        {
            Self::Underpriced
        } else if has("insufficient funds") {
            Self::InsufficientFunds
        } else {
            Self::Other(error.message.clone())
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn classify(message: &str) -> SendError {
        SendError::classify(&RpcError {
            code: -32000,
            message: message.into(),
            data: None,
        })
    }

    #[test]
    fn classifies_the_nodes_texts() {
        use SendError::*;
        let cases = [
            // geth / op-geth
            ("already known", AlreadyKnown),
            ("nonce too low: address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, tx: 3 state: 5", NonceTooLow),
            ("replacement transaction underpriced", Underpriced),
            ("transaction underpriced: gas tip cap 1, minimum needed 2", Underpriced),
            ("max fee per gas less than block base fee: address 0x.., maxFeePerGas: 1, baseFee: 7", Underpriced),
            ("insufficient funds for gas * price + value: balance 0, tx cost 21000, overshot 21000", InsufficientFunds),
            // reth and Base's reth-based node
            ("nonce too low: next nonce 5, tx nonce 3", NonceTooLow),
            ("transaction priority fee below minimum required priority fee 1000", Underpriced),
            ("insufficient funds for gas * price + value: have 0 want 21000", InsufficientFunds),
            // anvil
            ("transaction already imported", AlreadyKnown),
            ("Insufficient funds for gas * price + value", InsufficientFunds),
            ("insufficient funds for transfer", InsufficientFunds),
            ("Tx: [0x12..] insufficient gas price to replace existing transaction", Underpriced),
            // everything else keeps its message
            ("authority nonce too low", Other("authority nonce too low".into())),
            ("intrinsic gas too low", Other("intrinsic gas too low".into())),
            ("exceeds block gas limit", Other("exceeds block gas limit".into())),
        ];
        for (message, expected) in cases {
            assert_eq!(classify(message), expected, "{message}");
        }
    }

    #[test]
    fn reads_the_data_member_too() {
        let e = RpcError {
            code: -32003,
            message: "Transaction rejected".into(),
            data: Some("nonce too low".into()),
        };
        assert_eq!(SendError::classify(&e), SendError::NonceTooLow);
    }
}
