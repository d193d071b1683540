//! The operator's chain routes, served at the edge (which holds no merchant state and may wait
//! on the chain's RPC without holding up the merchant's object): the object hands over what
//! the ledger says; the edge asks the chain and compares.
//!
//! - `GET /admin/merchants/:merchantId/chain`: the relayer (address, ETH balance, next nonce,
//!   why settlement is stopped), transactions in flight, failed and parked movements, whether
//!   settlement is stuck and what to do (`ops::stuck`, the object's), a nonce gap.
//! - `POST /admin/merchants/:merchantId/chain/retry`: parked movements go back to the queue.
//! - `GET /admin/merchants/:merchantId/reconcile`: every holder's balance of every token it
//!   has, and the treasury's of each merchant token, against `balanceOf`; and what each
//!   completed step left on chain (`steps.rs`).

use crate::adapters::evm::config::{self, ChainConfig};
use crate::adapters::evm::rpc::{Fail, Rpc};
use crate::hop::{self, ChainView, MerchantCall, StepsView};
use crate::http;
use tokenpad_core::model::decimal::Decimal;
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::wire::chain::redact;
use tokenpad_core::wire::chain::{
    ChainReport, ChainRetried, ChainTxReport, Difference, FailedMovement, NonceGap, ParkedMovement,
    PoolCheck, PoolStateReport, ReconcileReport, RelayerReport,
};
use tokenpad_core::{Error, ErrorCode, Result};
use tokenpad_evm::rpc::{self as r, BlockTag, CallRequest};
use tokenpad_evm::{calls, market};
use worker::{Env, Response};

/// Balance reads per JSON-RPC batch.
const READS_PER_BATCH: usize = 100;

fn rpc_error(f: Fail) -> Error {
    Error::new(ErrorCode::Unavailable, f.to_string())
}

async fn view(env: &Env, id: &MerchantId) -> Result<ChainView> {
    hop::merchant_typed(env, id, &MerchantCall::ChainView).await
}

/// A gap below the relayer's next nonce: the chain's count is below it and no transaction of
/// ours is open at that nonce.
fn nonce_gap(v: &ChainView, id: &MerchantId, chain_nonce: Option<u64>) -> Option<NonceGap> {
    let (chain_nonce, next_nonce) = (chain_nonce?, v.relayer.next_nonce?);
    let open = v.open_txs.iter().any(|t| t.nonce == chain_nonce);
    (chain_nonce < next_nonce && !open).then(|| NonceGap {
        chain_nonce,
        next_nonce,
        action: format!(
            "The settler fills a gap with a transaction that does nothing at its next round; if it stays, look for why in GET /admin/merchants/{id}/chain (relayer.error) and check the node"
        ),
    })
}

pub async fn chain(env: &Env, id: MerchantId) -> Result<Response> {
    let cfg = config::read(env)?;
    let v = view(env, &id).await?;
    let mut gap = None;
    let relayer = match &cfg {
        ChainConfig::Embedded => None,
        ChainConfig::Evm(evm) => {
            let rpc = Rpc::new(evm.rpc.as_str(), evm.rpc_timeout_ms);
            let address = v.relayer_address.0;
            let read = [
                r::eth_get_balance(rpc.id(), address, BlockTag::Latest),
                r::eth_get_transaction_count(rpc.id(), address, BlockTag::Latest),
            ];
            // The node not answering leaves its figures out, never the report.
            let answers = rpc.batch(read.to_vec()).await.unwrap_or_default();
            let answer = |i: usize| answers.get(i).and_then(|a| a.as_ref().ok());
            let balance = answer(0).and_then(|b| r::u128_result(b).ok());
            gap = nonce_gap(&v, &id, answer(1).and_then(|n| r::u64_result(n).ok()));
            Some(RelayerReport {
                address: v.relayer_address,
                balance_wei: balance.map(|b| b.to_string()),
                next_nonce: v.relayer.next_nonce,
                scanned_block: v.relayer.scanned_block,
                error: v.relayer.error.as_deref().map(redact),
            })
        }
    };
    let report = ChainReport {
        merchant_id: id,
        kind: cfg.mode().kind().into(),
        chain_id: cfg.evm().map(|e| e.chain.chain_id),
        relayer,
        open_movements: v.open_movements,
        transactions: v.open_txs.iter().map(ChainTxReport::of).collect(),
        failed: v.failed.iter().map(FailedMovement::of).collect(),
        parked: v.parked.iter().map(ParkedMovement::of).collect(),
        stuck: v.stuck,
        waiting: v.waiting,
        stuck_after_ms: v.stuck_after_ms,
        nonce_gap: gap,
    };
    http::json(200, &report).map_err(|e| Error::internal(e.to_string()))
}

pub async fn retry(env: &Env, id: MerchantId) -> Result<Response> {
    let done: ChainRetried = hop::merchant_typed(env, &id, &MerchantCall::ChainRetry).await?;
    http::json(200, &done).map_err(|e| Error::internal(e.to_string()))
}

pub async fn reconcile(env: &Env, id: MerchantId) -> Result<Response> {
    let cfg = config::read(env)?;
    let v = view(env, &id).await?;
    let ChainConfig::Evm(evm) = &cfg else {
        let report = ReconcileReport {
            merchant_id: id,
            chain_id: None,
            block_number: None,
            scanned_block: None,
            open_movements: 0,
            checked: 0,
            differences: Vec::new(),
            pools: Vec::new(),
            steps_checked: 0,
            steps: Vec::new(),
        };
        return http::json(200, &report).map_err(|e| Error::internal(e.to_string()));
    };
    let rpc = Rpc::new(evm.rpc.as_str(), evm.rpc_timeout_ms);
    // Every read at one block, so the balances are one moment's.
    let block = r::u64_result(
        &rpc.call(r::eth_block_number(rpc.id()))
            .await
            .map_err(rpc_error)?,
    )
    .map_err(|e| Error::new(ErrorCode::Unavailable, e.to_string()))?;
    let steps: StepsView = hop::merchant_typed(env, &id, &MerchantCall::StepsView).await?;
    let (steps_checked, steps) =
        super::steps::check(&rpc, evm, v.relayer_address, &steps, block).await?;
    let mut differences = Vec::new();
    for chunk in v.expected.chunks(READS_PER_BATCH) {
        let requests = chunk
            .iter()
            .map(|e| {
                let call = CallRequest {
                    from: None,
                    to: evm.on_chain(&e.token.address()).0,
                    data: calls::balance_of(e.owner.0),
                };
                r::eth_call(rpc.id(), &call, BlockTag::Number(block))
            })
            .collect();
        let answers = rpc.batch(requests).await.map_err(rpc_error)?;
        for (e, answer) in chunk.iter().zip(answers) {
            let on_chain = answer
                .ok()
                .and_then(|v| r::data_result(&v).ok())
                .and_then(|d| {
                    // A token not deployed yet has no code: balanceOf answers nothing.
                    if d.is_empty() {
                        Some(0)
                    } else {
                        calls::decode_u128(&d).ok()
                    }
                });
            let Some(on_chain) = on_chain else {
                return Err(Error::new(
                    ErrorCode::Unavailable,
                    format!("balanceOf({}) on {} gave no answer", e.owner, e.symbol),
                ));
            };
            if on_chain != e.ledger.raw() {
                differences.push(Difference {
                    token_address: e.token,
                    symbol: e.symbol.clone(),
                    owner: e.owner,
                    user_id: e.user_id.clone(),
                    ledger: Decimal::from_units(e.ledger.raw(), e.decimals),
                    chain: Decimal::from_units(on_chain, e.decimals),
                });
            }
        }
    }
    let report = ReconcileReport {
        merchant_id: id,
        chain_id: Some(evm.chain.chain_id),
        block_number: Some(block),
        scanned_block: v.relayer.scanned_block,
        open_movements: v.open_movements,
        checked: u64::try_from(v.expected.len()).unwrap_or(u64::MAX),
        differences,
        pools: pool_checks(&rpc, &v, block).await?,
        steps_checked,
        steps,
    };
    http::json(200, &report).map_err(|e| Error::internal(e.to_string()))
}

/// Each pool's `slot0` and `liquidity()` at `block` against what the ledger followed.
async fn pool_checks(rpc: &Rpc<'_>, v: &ChainView, block: u64) -> Result<Vec<PoolCheck>> {
    if v.pools.is_empty() {
        return Ok(Vec::new());
    }
    let mut requests = Vec::new();
    for p in &v.pools {
        for data in [market::slot0(), market::liquidity()] {
            let call = CallRequest {
                from: None,
                to: p.pool.0,
                data,
            };
            requests.push(r::eth_call(rpc.id(), &call, BlockTag::Number(block)));
        }
    }
    let answers = rpc.batch(requests).await.map_err(rpc_error)?;
    let mut out = Vec::new();
    for (p, pair) in v.pools.iter().zip(answers.chunks(2)) {
        let read = |i: usize| -> Option<Vec<u8>> {
            pair.get(i)?
                .as_ref()
                .ok()
                .and_then(|v| r::data_result(v).ok())
        };
        // A pool not created yet has no code: it reads as nothing.
        let (sqrt, tick) = read(0)
            .and_then(|d| market::decode_slot0(&d).ok())
            .unwrap_or_default();
        let liquidity = read(1)
            .and_then(|d| market::decode_liquidity(&d).ok())
            .unwrap_or(0);
        let chain = PoolStateReport {
            sqrt_price_x96: sqrt.to_string(),
            tick,
            liquidity: liquidity.to_string(),
        };
        let ledger = p.followed.as_ref().map(|o| PoolStateReport {
            sqrt_price_x96: o.sqrt_price_x96.to_string(),
            tick: o.tick,
            liquidity: o.liquidity.to_string(),
        });
        out.push(PoolCheck {
            token_address: p.token,
            symbol: p.symbol.clone(),
            pool: p.pool,
            matches: ledger.as_ref() == Some(&chain),
            ledger,
            chain,
        });
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use tokenpad_core::model::address::Address;
    use tokenpad_core::model::settlement::{ChainTx, Relayer, TxVersion};

    fn view(next_nonce: Option<u64>, open: &[u64]) -> ChainView {
        let version = TxVersion {
            hash: format!("0x{}", "ab".repeat(32)),
            raw: "0x".into(),
            max_fee_per_gas: 2,
            max_priority_fee_per_gas: 1,
            signed_at: 0,
        };
        let tx = |n| {
            ChainTx::signed(
                n,
                vec![1],
                Address([9; 20]),
                "0x".into(),
                21_000,
                version.clone(),
                0,
            )
        };
        ChainView {
            relayer_address: Address([7; 20]),
            relayer: Relayer {
                next_nonce,
                ..Relayer::default()
            },
            open_movements: 0,
            open_txs: open.iter().map(|n| tx(*n)).collect(),
            failed: vec![],
            expected: vec![],
            pools: vec![],
            parked: vec![],
            stuck: vec![],
            waiting: vec![],
            stuck_after_ms: Some(600_000),
        }
    }

    #[test]
    fn a_nonce_gap_is_the_chains_count_below_the_next_nonce_with_nothing_open_there() {
        let m = MerchantId::new_unchecked("m");
        // The chain waits for 5; the settler signs 7 next and nothing of ours is open at 5.
        let gap = nonce_gap(&view(Some(7), &[6]), &m, Some(5)).unwrap();
        assert_eq!((gap.chain_nonce, gap.next_nonce), (5, 7));
        // Open at 5 (sent, not mined yet): no gap, it is on its way.
        assert_eq!(nonce_gap(&view(Some(7), &[5, 6]), &m, Some(5)), None);
        // The chain caught up, the node did not answer, or no transaction yet: none.
        assert_eq!(nonce_gap(&view(Some(7), &[]), &m, Some(7)), None);
        assert_eq!(nonce_gap(&view(Some(7), &[]), &m, None), None);
        assert_eq!(nonce_gap(&view(None, &[]), &m, Some(0)), None);
    }
}
