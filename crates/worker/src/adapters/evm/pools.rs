//! The pool events the settler reads (`tokenpad_evm::logs::PoolLog`) as the core's
//! `PoolEvent`s: from a receipt (a swap's amounts, an opening's position) or from the scan
//! (other traders' swaps, liquidity added or removed).

use tokenpad_core::crypto::hex0x;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::chain::{ChainPoint, PoolEvent};
use tokenpad_evm::logs::{decode_pool_log, PoolLog, PoolLogKind};
use tokenpad_evm::rpc::Log;

/// The pool events among `logs`. An opening counts only from tokenpad's `market` (any
/// contract can emit an event of that shape); a pool's events are matched to a pool by the
/// core, by the address that emitted them.
pub(super) fn pool_events(logs: &[Log], market: Option<[u8; 20]>) -> Vec<PoolEvent> {
    logs.iter()
        .filter_map(decode_pool_log)
        .filter_map(|l| event(&l, market))
        .collect()
}

fn event(l: &PoolLog, market: Option<[u8; 20]>) -> Option<PoolEvent> {
    let at = ChainPoint {
        block: l.block_number,
        log_index: l.log_index,
    };
    let tx = hex0x(&l.transaction_hash);
    Some(match &l.kind {
        PoolLogKind::Swap {
            amount0,
            amount1,
            sqrt_price_x96,
            liquidity,
            tick,
        } => PoolEvent::Swap {
            pool: Address(l.emitter),
            amount0: *amount0,
            amount1: *amount1,
            sqrt_price_x96: *sqrt_price_x96,
            liquidity: *liquidity,
            tick: *tick,
            at,
            tx,
        },
        PoolLogKind::Liquidity {
            tick_lower,
            tick_upper,
            amount,
        } => PoolEvent::Liquidity {
            pool: Address(l.emitter),
            tick_lower: *tick_lower,
            tick_upper: *tick_upper,
            amount: *amount,
            at,
            tx,
        },
        PoolLogKind::Opened {
            pool,
            position_id,
            liquidity,
            amount0,
            amount1,
        } => {
            if market != Some(l.emitter) {
                return None;
            }
            PoolEvent::Opened {
                pool: Address(*pool),
                position_id: *position_id,
                liquidity: *liquidity,
                amount0: *amount0,
                amount1: *amount1,
                at,
            }
        }
    })
}
