//! The events the settler reads: ERC-20 `Transfer`s (how tokens arrive at, or leave, holder
//! wallets and pools from outside tokenpad), and what a Uniswap v3 pool and tokenpad's market
//! report of pools (`Swap`, `Mint`, `Burn`, `PoolOpened`).

use alloy_primitives::{B256, U256};
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

/// topic 0 of a Uniswap v3 pool's `Swap`, `Mint` and `Burn`, and of the market's `PoolOpened`.
pub const SWAP_TOPIC: [u8; 32] = abi::Swap::SIGNATURE_HASH.0;
pub const MINT_TOPIC: [u8; 32] = abi::Mint::SIGNATURE_HASH.0;
pub const BURN_TOPIC: [u8; 32] = abi::Burn::SIGNATURE_HASH.0;
pub const POOL_OPENED_TOPIC: [u8; 32] = abi::PoolOpened::SIGNATURE_HASH.0;

/// What a pool (or the market, of a pool) reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolLogKind {
    /// The pool's deltas (positive: paid into the pool) and its state after the swap.
    Swap {
        amount0: i128,
        amount1: i128,
        sqrt_price_x96: U256,
        liquidity: u128,
        tick: i32,
    },
    /// Liquidity added (positive) or removed in `[tick_lower, tick_upper]`.
    Liquidity {
        tick_lower: i32,
        tick_upper: i32,
        amount: i128,
    },
    /// The market opened `pool`: its position and what it took.
    Opened {
        pool: [u8; 20],
        position_id: u64,
        liquidity: u128,
        amount0: u128,
        amount1: u128,
    },
}

/// A pool event with where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolLog {
    /// The contract that emitted it (the pool; the market for `Opened`).
    pub emitter: [u8; 20],
    pub kind: PoolLogKind,
    pub block_number: u64,
    pub transaction_hash: [u8; 32],
    pub log_index: u64,
}

fn small(x: alloy_primitives::I256) -> Option<i128> {
    i128::try_from(x).ok()
}

/// The pool event in `log`, or `None` if it is not one (or its amounts are past what any
/// tokenpad pool can hold).
pub fn decode_pool_log(log: &Log) -> Option<PoolLog> {
    let topic0 = *log.topics.first()?;
    let topics = log.topics.iter().map(|t| B256::from(*t));
    let kind = if topic0 == SWAP_TOPIC {
        let e = abi::Swap::decode_raw_log_validate(topics, &log.data).ok()?;
        PoolLogKind::Swap {
            amount0: small(e.amount0)?,
            amount1: small(e.amount1)?,
            sqrt_price_x96: U256::from(e.sqrtPriceX96),
            liquidity: e.liquidity,
            tick: e.tick.as_i32(),
        }
    } else if topic0 == MINT_TOPIC {
        let e = abi::Mint::decode_raw_log_validate(topics, &log.data).ok()?;
        PoolLogKind::Liquidity {
            tick_lower: e.tickLower.as_i32(),
            tick_upper: e.tickUpper.as_i32(),
            amount: i128::try_from(e.amount).ok()?,
        }
    } else if topic0 == BURN_TOPIC {
        let e = abi::Burn::decode_raw_log_validate(topics, &log.data).ok()?;
        PoolLogKind::Liquidity {
            tick_lower: e.tickLower.as_i32(),
            tick_upper: e.tickUpper.as_i32(),
            amount: i128::try_from(e.amount).ok()?.checked_neg()?,
        }
    } else if topic0 == POOL_OPENED_TOPIC {
        let e = abi::PoolOpened::decode_raw_log_validate(topics, &log.data).ok()?;
        PoolLogKind::Opened {
            pool: e.pool.into_array(),
            position_id: u64::try_from(e.positionId).ok()?,
            liquidity: e.liquidity,
            amount0: u128::try_from(e.amount0).ok()?,
            amount1: u128::try_from(e.amount1).ok()?,
        }
    } else {
        return None;
    };
    Some(PoolLog {
        emitter: log.address,
        kind,
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
