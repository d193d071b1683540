//! ERC-20 `Transfer` events: how the settler sees tokens arrive at (or leave) holder wallets
//! from outside tokenpad, and confirms its own settlements.

use alloy_primitives::B256;
use alloy_sol_types::SolEvent;

use crate::abi;
use crate::rpc::Log;

/// `keccak256("Transfer(address,address,uint256)")`, topic 0 of every ERC-20 transfer (for
/// an `eth_getLogs` filter).
pub const TRANSFER_TOPIC: [u8; 32] = abi::Transfer::SIGNATURE_HASH.0;

/// A decoded ERC-20 transfer, with where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// The token contract that emitted it.
    pub token: [u8; 20],
    /// Sender (the zero address for a mint).
    pub from: [u8; 20],
    /// Recipient (the zero address for a burn).
    pub to: [u8; 20],
    /// Amount in base units.
    pub value: u128,
    /// The block it is in.
    pub block_number: u64,
    /// The transaction that emitted it.
    pub transaction_hash: [u8; 32],
    /// Its position in the block.
    pub log_index: u64,
}

/// The transfer in `log`, or `None` if it is not an ERC-20 `Transfer` (another event, an
/// ERC-721 `Transfer` with its indexed token id, a malformed log) or its value exceeds
/// `u128::MAX` (no tokenpad token or USDC can move that much, so it is not one of ours).
pub fn decode_transfer(log: &Log) -> Option<Transfer> {
    // Exactly three topics: ERC-721's Transfer has the same signature hash and a fourth.
    if log.topics.len() != 3 {
        return None;
    }
    let topics = log.topics.iter().map(|t| B256::from(*t));
    // Validating decode: checks topic 0 and refuses dirty address padding.
    let event = abi::Transfer::decode_raw_log_validate(topics, &log.data).ok()?;
    Some(Transfer {
        token: log.address,
        from: event.from.into_array(),
        to: event.to.into_array(),
        value: u128::try_from(event.value).ok()?,
        block_number: log.block_number,
        transaction_hash: log.transaction_hash,
        log_index: log.log_index,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn topic(address: [u8; 20]) -> [u8; 32] {
        let mut word = [0u8; 32];
        word[12..].copy_from_slice(&address);
        word
    }

    fn log(value: u128) -> Log {
        let mut data = vec![0u8; 16];
        data.extend_from_slice(&value.to_be_bytes());
        Log {
            address: [0x55; 20],
            topics: vec![TRANSFER_TOPIC, topic([1; 20]), topic([2; 20])],
            data,
            block_number: 9,
            transaction_hash: [0x77; 32],
            log_index: 4,
        }
    }

    #[test]
    fn topic_is_the_event_signature_hash() {
        let expected = alloy_primitives::keccak256("Transfer(address,address,uint256)");
        assert_eq!(TRANSFER_TOPIC, expected.0);
    }

    #[test]
    fn decodes_an_erc20_transfer() {
        let t = decode_transfer(&log(u128::MAX)).unwrap();
        assert_eq!(
            t,
            Transfer {
                token: [0x55; 20],
                from: [1; 20],
                to: [2; 20],
                value: u128::MAX,
                block_number: 9,
                transaction_hash: [0x77; 32],
                log_index: 4,
            }
        );
    }

    #[test]
    fn ignores_what_is_not_an_erc20_transfer_we_can_hold() {
        let mut other_event = log(1);
        other_event.topics[0] = [0x99; 32];
        let mut erc721 = log(1);
        erc721.topics.push([0; 32]);
        erc721.data.clear();
        let mut dirty = log(1);
        dirty.topics[1][0] = 1;
        let mut huge = log(1);
        huge.data[15] = 1;
        let mut short = log(1);
        short.data.pop();
        let mut no_topics = log(1);
        no_topics.topics.clear();
        for l in [other_event, erc721, dirty, huge, short, no_topics] {
            assert_eq!(decode_transfer(&l), None, "{l:?}");
        }
    }
}
