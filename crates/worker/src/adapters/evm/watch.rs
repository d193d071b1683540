//! The settler's first step: watching what it sent. A receipt of any version of a
//! transaction settles its intents in the ledger; a transaction never broadcast is sent now
//! (the same bytes); one unmined for long is sent again if the node lost it, or replaced with
//! the same nonce and a higher fee; if its nonce went to another transaction, its intents go
//! back to the queue.

use super::rpc::{Fail, Rpc};
use super::settler::{Head, Settler, Step, FEE_BUMP_PERCENT, MAX_VERSIONS};
use std::collections::BTreeMap;
use tokenpad_core::crypto::hex0x;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::ids::LockId;
use tokenpad_core::model::intent::Action;
use tokenpad_core::model::settlement::{ChainTx, TxState};
use tokenpad_core::ops::settle::{self, Mined, Transferred};
use tokenpad_core::store::Store;
use tokenpad_core::Error;
use tokenpad_evm::rpc::{self as r, BlockTag};
use tokenpad_evm::{calls, logs, reads, tx};

impl Settler<'_> {
    pub(super) async fn watch(&self, rpc: &Rpc<'_>, head: &Head) -> Step {
        let open = self.store().open_chain_txs()?;
        if open.is_empty() {
            return Ok(());
        }
        let mut asked = Vec::new();
        let mut requests = Vec::new();
        for t in &open {
            for v in &t.versions {
                let hash = r::parse_hex_fixed::<32>(&v.hash)?;
                requests.push(r::eth_get_transaction_receipt(rpc.id(), hash));
                asked.push((t.nonce, v.hash.clone()));
            }
        }
        let answers = rpc.batch(requests).await?;
        let mut mined: BTreeMap<u64, (String, r::Receipt)> = BTreeMap::new();
        for ((nonce, hash), answer) in asked.into_iter().zip(answers) {
            let value = answer.map_err(Fail::Node)?;
            if let Some(receipt) = r::parse_receipt(&value)? {
                mined.insert(nonce, (hash, receipt));
            }
        }
        for t in &open {
            match mined.remove(&t.nonce) {
                Some((hash, receipt)) => self.settle(rpc, t, hash, receipt, head).await?,
                None if t.state == TxState::Signed => self.broadcast(rpc, t).await?,
                None => {
                    let waited = self.ctx.now.saturating_sub(t.sent_at.unwrap_or(0));
                    if waited >= self.evm.replace_after_ms {
                        self.unstick(rpc, t).await?;
                    }
                }
            }
        }
        Ok(())
    }

    async fn settle(
        &self,
        rpc: &Rpc<'_>,
        t: &ChainTx,
        hash: String,
        receipt: r::Receipt,
        head: &Head,
    ) -> Step {
        let reason = if receipt.status {
            None
        } else {
            Some(self.revert_reason(rpc, t, receipt.block_number).await)
        };
        let market = self.evm.chain.markets.as_ref().map(|m| m.market.0);
        if t.is_filler() && t.versions.last().is_none_or(|v| v.hash != hash) {
            worker::console_error!(
                "merchant {}: nonce {} was filled, yet the transaction it filled was mined ({hash}): reconcile",
                self.ctx.merchant.id,
                t.nonce
            );
        }
        let m = Mined {
            hash,
            block: receipt.block_number,
            block_hash: receipt.block_hash.map(|h| hex0x(&h)),
            // A receipt from a block past the head read at the round's start.
            head: head.number.max(receipt.block_number),
            success: receipt.status,
            gas_used: receipt.gas_used,
            reason,
            events: super::pools::pool_events(&receipt.logs, market),
            released: self.released(rpc, t, &receipt).await?,
            // What it moved: a success is proof of a movement only with its log (a call to
            // a token without code succeeds and moves nothing).
            transfers: receipt
                .logs
                .iter()
                .filter_map(logs::decode_transfer)
                .map(|l| Transferred {
                    token: Address(l.token),
                    from: Address(l.from),
                    to: Address(l.to),
                    amount: Units::new(l.value),
                })
                .collect(),
        };
        if !m.success {
            worker::console_warn!(
                "merchant {}: transaction {} (nonce {}) reverted: {}",
                self.ctx.merchant.id,
                m.hash,
                t.nonce,
                m.reason.as_deref().unwrap_or("")
            );
        }
        let (ctx, nonce) = (self.ctx.clone(), t.nonce);
        self.commit(move |s| settle::mined(s, &ctx, nonce, &m))?;
        Ok(())
    }

    /// The ledger's locks among `t`'s releases that are released on chain: those its
    /// receipt's `Released` events name, and those the lock contract skipped because it had
    /// released them already (anyone may release a due lock: the tokens are the buyer's, and
    /// the release is done; read from `locks(key)` at the receipt's block). The rest it
    /// skipped as not due yet.
    async fn released(
        &self,
        rpc: &Rpc<'_>,
        t: &ChainTx,
        receipt: &r::Receipt,
    ) -> Step<Vec<LockId>> {
        let Some(locker) = self.evm.chain.locker else {
            return Ok(Vec::new());
        };
        let keys = tokenpad_evm::locker::released(&receipt.logs, locker.0);
        let store = self.store();
        let builder = self.builder(&store);
        let mut out = Vec::new();
        let mut skipped = Vec::new();
        for id in &t.intents {
            if let Some(i) = store.intent(*id)? {
                if let Action::Release { lock, .. } = &i.action {
                    let key = builder.lock_key(lock);
                    if keys.contains(&key) {
                        out.push(lock.clone());
                    } else {
                        skipped.push((lock.clone(), key));
                    }
                }
            }
        }
        if skipped.is_empty() || !receipt.status {
            return Ok(out);
        }
        let at = BlockTag::Number(receipt.block_number);
        let requests = skipped
            .iter()
            .map(|(_, key)| {
                let call = r::CallRequest {
                    from: None,
                    to: locker.0,
                    data: reads::lock_at(*key),
                };
                r::eth_call(rpc.id(), &call, at)
            })
            .collect();
        for ((lock, _), answer) in skipped.into_iter().zip(rpc.batch(requests).await?) {
            let data = r::data_result(&answer.map_err(Fail::Node)?)?;
            if reads::decode_lock(&data)?.released {
                out.push(lock);
            }
        }
        Ok(out)
    }

    /// Why a mined transaction reverted: the call replayed on the state before its block.
    async fn revert_reason(&self, rpc: &Rpc<'_>, t: &ChainTx, block: u64) -> String {
        let (Ok(data), Some(prior)) = (r::parse_hex_data(&t.data), block.checked_sub(1)) else {
            return "the transaction reverted".into();
        };
        let call = r::CallRequest {
            from: Some(self.relayer_address()),
            to: t.to.0,
            data,
        };
        match rpc
            .call(r::eth_call(rpc.id(), &call, BlockTag::Number(prior)))
            .await
        {
            Err(Fail::Node(e)) => match e.revert_data() {
                Some(data) => calls::revert_reason(&data),
                None => e.message,
            },
            // Out of gas, or state that changed within the block: the replay passes.
            _ => format!(
                "the transaction reverted (out of gas at {}, or state changed within its block)",
                t.gas_limit
            ),
        }
    }

    /// A transaction unmined for long: sent again if the node lost it, else replaced with a
    /// higher fee; abandoned if its nonce went to another transaction.
    async fn unstick(&self, rpc: &Rpc<'_>, t: &ChainTx) -> Step {
        let latest = t
            .latest()
            .ok_or_else(|| Error::internal("a transaction without a version"))?;
        let hash = r::parse_hex_fixed::<32>(&latest.hash)?;
        let known = r::parse_transaction(
            &rpc.call(r::eth_get_transaction_by_hash(rpc.id(), hash))
                .await?,
        )?;
        if known.is_none() {
            let count = self.chain_nonce(rpc).await?;
            if count > t.nonce {
                // No version of ours has a receipt (watch asked), yet the nonce is used.
                let nonce = t.nonce;
                self.commit(move |s| {
                    settle::abandoned(s, nonce, "its nonce was used by another transaction")
                })?;
                return Ok(());
            }
            if count < t.nonce {
                // A nonce below it is free on the chain (a reorganization, a node that lost
                // its last blocks): it waits behind that gap until it is taken again.
                self.fill_gaps(rpc).await?;
            }
            // Dropped from the node's pool: the same bytes again.
            return self.broadcast(rpc, t).await;
        }
        if t.versions.len() >= MAX_VERSIONS {
            return self.broadcast(rpc, t).await;
        }
        self.replace(rpc, t).await
    }

    /// Signs a same-nonce replacement with higher fees, stores it, and sends it.
    pub(super) async fn replace(&self, rpc: &Rpc<'_>, t: &ChainTx) -> Step {
        let latest = t
            .latest()
            .ok_or_else(|| Error::internal("a transaction without a version"))?;
        let (tip, cap) = self.fees(rpc).await?;
        let previous = self.unsigned(t, latest.max_priority_fee_per_gas, latest.max_fee_per_gas)?;
        let mut next = tx::bump(&previous, FEE_BUMP_PERCENT);
        next.max_priority_fee_per_gas = next.max_priority_fee_per_gas.max(tip);
        next.max_fee_per_gas = next.max_fee_per_gas.max(cap);
        let mut replaced = t.clone();
        replaced.versions.push(self.sign(&next)?);
        replaced.state = TxState::Signed;
        let stored = replaced.clone();
        self.commit(move |s| settle::replaced(s, &stored))?;
        self.broadcast(rpc, &replaced).await
    }
}
