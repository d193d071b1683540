//! The settler's first step each round: is what the ledger took from the chain still the
//! chain's?
//!
//! - **Reorganizations.** The relayer keeps checkpoints (`model::settlement::Checkpoint`): the
//!   block each deposit scan ended at and, while `CHAIN_FINALITY` > 0, every block a receipt
//!   of its own came from. Each round compares the newest with the chain (one block read, or
//!   none when it is the head); when its hash changed (or the block is gone: a node that came
//!   back without its last blocks), the newest checkpoint still the chain's is the fork, and
//!   the ledger undoes what it took from the blocks after it (`ops::settle::reorg::rewind`:
//!   followed transfers undone, its own transactions of every kind sent again). Then every
//!   nonce the new chain lacks below the relayer's next is taken again: the same bytes, or a
//!   transaction that does nothing where the old one must not run again (`fill_gaps`), so no
//!   later transaction waits behind a gap; and each pool's state is read from the new chain.
//! - **Finality.** A receipt `CHAIN_FINALITY` blocks deep is final: no longer followed, and a
//!   revert is acted on only now (`ops::settle::finalize`).

use super::rpc::{Fail, Rpc};
use super::settler::{Head, Settler, Step};
use tokenpad_core::crypto::hex0x;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::chain::ChainPoint;
use tokenpad_core::model::pool::v3::State;
use tokenpad_core::model::settlement::ChainTx;
use tokenpad_core::ops::settle::{self, reorg};
use tokenpad_core::store::Store;
use tokenpad_core::Error;
use tokenpad_evm::rpc::{self as r, BlockTag, CallRequest};
use tokenpad_evm::{market, tx};

/// A filler's gas: a plain transfer of nothing.
const FILLER_GAS: u64 = 21_000;

impl Settler<'_> {
    /// See the module.
    pub(super) async fn follow(&self, rpc: &Rpc<'_>, head: &Head) -> Step {
        if self.reorganized(rpc, head).await? {
            self.fill_gaps(rpc).await?;
            self.resync_pools(rpc, head).await?;
        }
        let finality = self.ctx.chain.finality();
        for t in self.store().unfinal_chain_txs()? {
            let deep = t
                .block
                .is_some_and(|b| head.number.saturating_sub(b) >= finality);
            if deep {
                let (ctx, nonce) = (self.ctx.clone(), t.nonce);
                self.commit(move |s| settle::finalize(s, &ctx, nonce))?;
            }
        }
        Ok(())
    }

    /// The hash of block `number` as text; None if the node has no such block.
    pub(super) async fn block_hash(&self, rpc: &Rpc<'_>, number: u64) -> Step<Option<String>> {
        let block = rpc
            .call(r::eth_get_block_by_number(
                rpc.id(),
                BlockTag::Number(number),
            ))
            .await?;
        Ok(r::parse_block(&block)?
            .and_then(|b| b.hash)
            .map(|h| hex0x(&h)))
    }

    /// Whether the chain reorganized past a checkpoint; if it did, what the ledger took from
    /// the blocks after the fork is undone (see the module).
    async fn reorganized(&self, rpc: &Rpc<'_>, head: &Head) -> Step<bool> {
        let checkpoints = self.store().relayer()?.checkpoints;
        let Some(last) = checkpoints.last() else {
            return Ok(false);
        };
        let now = if last.block == head.number {
            head.hash.clone()
        } else if last.block > head.number {
            None
        } else {
            self.block_hash(rpc, last.block).await?
        };
        if now.as_deref() == Some(last.hash.as_str()) {
            return Ok(false);
        }
        let requests = checkpoints
            .iter()
            .map(|c| r::eth_get_block_by_number(rpc.id(), BlockTag::Number(c.block)))
            .collect();
        let answers = rpc.batch(requests).await?;
        let mut fork = checkpoints.first().map_or(0, |c| c.block.saturating_sub(1));
        for (c, answer) in checkpoints.iter().zip(answers) {
            let hash = answer
                .ok()
                .and_then(|v| r::parse_block(&v).ok().flatten())
                .and_then(|b| b.hash)
                .map(|h| hex0x(&h));
            if hash.as_deref() == Some(c.hash.as_str()) {
                fork = c.block;
            } else {
                break;
            }
        }
        let ctx = self.ctx.clone();
        let done = self.commit(move |s| reorg::rewind(s, &ctx, fork))?;
        worker::console_warn!(
            "merchant {}: the chain reorganized past block {fork}: {} followed transfers undone, {} transactions sent again",
            self.ctx.merchant.id,
            done.observations,
            done.transactions
        );
        Ok(true)
    }

    /// Takes again every nonce below the relayer's next that the chain has not used: the
    /// transaction that had it goes out again (the same bytes), or, where it must not run
    /// again (its revert was acted on, or it was abandoned), a transaction that does nothing
    /// fills it. Without this, a nonce a reorganization freed would hold every later
    /// transaction of the relayer back for good.
    pub(super) async fn fill_gaps(&self, rpc: &Rpc<'_>) -> Step {
        let Some(next) = self.store().relayer()?.next_nonce else {
            return Ok(());
        };
        let count = self.chain_nonce(rpc).await?;
        for nonce in count..next {
            let stored = self.store().chain_tx(nonce)?;
            let fill = match &stored {
                None => true,
                Some(t) if t.is_open() => false,
                Some(_) => {
                    let ctx = self.ctx.clone();
                    let d = self.commit(move |s| reorg::dropped(s, &ctx, nonce))?;
                    d == reorg::Dropped::Fill
                }
            };
            if fill {
                self.fill(rpc, nonce, stored).await?;
            }
        }
        Ok(())
    }

    /// The relayer's nonce on the chain at its newest block: how many of its transactions
    /// the chain holds.
    pub(super) async fn chain_nonce(&self, rpc: &Rpc<'_>) -> Step<u64> {
        let count = rpc
            .call(r::eth_get_transaction_count(
                rpc.id(),
                self.relayer_address(),
                BlockTag::Latest,
            ))
            .await?;
        Ok(r::u64_result(&count)?)
    }

    /// Fills `nonce` with a transfer of nothing to the relayer itself, priced above every
    /// version the nonce had (so a node that still holds one takes the filler instead). The
    /// record keeps those versions: a receipt of one is still seen.
    async fn fill(&self, rpc: &Rpc<'_>, nonce: u64, old: Option<ChainTx>) -> Step {
        let (mut tip, mut cap) = self.fees(rpc).await?;
        let mut versions = old.map(|t| t.versions).unwrap_or_default();
        for v in &versions {
            let bumped = tx::bump(
                &tx::Eip1559 {
                    chain_id: self.evm.chain.chain_id,
                    nonce,
                    max_priority_fee_per_gas: v.max_priority_fee_per_gas,
                    max_fee_per_gas: v.max_fee_per_gas,
                    gas_limit: FILLER_GAS,
                    to: None,
                    value: 0,
                    data: Vec::new(),
                },
                super::settler::FEE_BUMP_PERCENT,
            );
            tip = tip.max(bumped.max_priority_fee_per_gas);
            cap = cap.max(bumped.max_fee_per_gas);
        }
        let relayer = self.relayer_address();
        let unsigned = tx::Eip1559 {
            chain_id: self.evm.chain.chain_id,
            nonce,
            max_priority_fee_per_gas: tip,
            max_fee_per_gas: cap.max(tip),
            gas_limit: FILLER_GAS,
            to: Some(relayer),
            value: 0,
            data: Vec::new(),
        };
        let filler = self.sign(&unsigned)?;
        let mut record = ChainTx::signed(
            nonce,
            Vec::new(),
            Address(relayer),
            "0x".into(),
            FILLER_GAS,
            filler,
            self.ctx.now,
        );
        versions.append(&mut record.versions);
        record.versions = versions;
        record.error = Some("fills a nonce a reorganization freed".into());
        let stored = record.clone();
        self.commit(move |s| s.put_chain_tx(&stored))?;
        worker::console_warn!(
            "merchant {}: nonce {nonce} filled with a transaction that does nothing",
            self.ctx.merchant.id
        );
        self.broadcast(rpc, &record).await
    }

    /// Each pool's state as the chain has it at the head (`ops::market::resync`).
    async fn resync_pools(&self, rpc: &Rpc<'_>, head: &Head) -> Step {
        let store = self.store();
        let mut pools = Vec::new();
        for t in store.tokens()? {
            if let Some(p) = store.pool(&t.address)?.filter(|p| p.chain.is_some()) {
                pools.push((t.address, p.address));
            }
        }
        if pools.is_empty() {
            return Ok(());
        }
        let mut requests = Vec::new();
        for (_, pool) in &pools {
            for data in [market::slot0(), market::liquidity()] {
                let call = CallRequest {
                    from: None,
                    to: pool.0,
                    data,
                };
                requests.push(r::eth_call(rpc.id(), &call, BlockTag::Number(head.number)));
            }
        }
        let answers = rpc.batch(requests).await?;
        let mut states = Vec::new();
        for ((token, _), pair) in pools.iter().zip(answers.chunks(2)) {
            let read = |k: usize| -> Step<Vec<u8>> {
                let v = pair
                    .get(k)
                    .cloned()
                    .ok_or_else(|| Fail::Transport("a pool read went unanswered".into()))?
                    .map_err(Fail::Node)?;
                Ok(r::data_result(&v)?)
            };
            let (sqrt_price, tick) = market::decode_slot0(&read(0)?)?;
            let liquidity = market::decode_liquidity(&read(1)?)?;
            states.push((
                *token,
                State {
                    sqrt_price,
                    tick,
                    liquidity,
                },
            ));
        }
        let at = ChainPoint {
            block: head.number,
            log_index: u64::MAX,
        };
        self.commit(move |s| {
            for (token, state) in &states {
                tokenpad_core::ops::market::resync(s, token, state, at)?;
            }
            Ok(())
        })
        .map_err(|e| Error::internal(format!("pool resync: {}", e.message)).into())
    }
}
