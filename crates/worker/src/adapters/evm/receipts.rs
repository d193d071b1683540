//! The receipts of the relayer's transactions, as the ledger reads them
//! (`ops::settle::Mined`): for each open transaction, a receipt of any of its versions (one
//! batch for all), with why it reverted (the call replayed on the state before its block), its
//! pools' events, and the locks it released.

use super::rpc::Fail;
use super::settler::{evm, Port};
use std::collections::BTreeMap;
use tokenpad_core::crypto::hex0x;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::ids::LockId;
use tokenpad_core::model::intent::Action;
use tokenpad_core::model::settlement::ChainTx;
use tokenpad_core::ops::settle::round::port::{Head, Step};
use tokenpad_core::ops::settle::{Mined, Transferred};
use tokenpad_core::store::Store;
use tokenpad_evm::rpc::{self as r, BlockTag};
use tokenpad_evm::{calls, logs, reads};

impl Port<'_> {
    pub(super) async fn read_receipts(
        &self,
        open: &[ChainTx],
        head: &Head,
    ) -> Step<Vec<Option<Mined>>> {
        let mut asked = Vec::new();
        let mut requests = Vec::new();
        for t in open {
            for v in &t.versions {
                let hash = r::parse_hex_fixed::<32>(&v.hash).map_err(evm)?;
                requests.push(r::eth_get_transaction_receipt(self.rpc.id(), hash));
                asked.push((t.nonce, v.hash.clone()));
            }
        }
        let answers = self.batch(requests).await?;
        let mut mined: BTreeMap<u64, (String, r::Receipt)> = BTreeMap::new();
        for ((nonce, hash), answer) in asked.into_iter().zip(answers) {
            let value = answer.map_err(|e| self.fail(Fail::Node(e)))?;
            if let Some(receipt) = r::parse_receipt(&value).map_err(evm)? {
                mined.insert(nonce, (hash, receipt));
            }
        }
        let mut out = Vec::with_capacity(open.len());
        for t in open {
            out.push(match mined.remove(&t.nonce) {
                Some((hash, receipt)) => Some(self.mined(t, hash, receipt, head).await?),
                None => None,
            });
        }
        Ok(out)
    }

    async fn mined(
        &self,
        t: &ChainTx,
        hash: String,
        receipt: r::Receipt,
        head: &Head,
    ) -> Step<Mined> {
        let reason = if receipt.status {
            None
        } else {
            Some(self.revert_reason(t, receipt.block_number).await)
        };
        let market = self.settler.evm.chain.markets.as_ref().map(|m| m.market.0);
        Ok(Mined {
            hash,
            block: receipt.block_number,
            block_hash: receipt.block_hash.map(|h| hex0x(&h)),
            // A receipt from a block past the head read at the round's start.
            head: head.number.max(receipt.block_number),
            success: receipt.status,
            gas_used: receipt.gas_used,
            reason,
            events: super::pools::pool_events(&receipt.logs, market),
            released: self.released(t, &receipt).await?,
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
        })
    }

    /// The ledger's locks among `t`'s releases that are released on chain: those its
    /// receipt's `Released` events name, and those the lock contract skipped because it had
    /// released them already (anyone may release a due lock: the tokens are the buyer's, and
    /// the release is done; read from `locks(key)` at the receipt's block). The rest it
    /// skipped as not due yet.
    async fn released(&self, t: &ChainTx, receipt: &r::Receipt) -> Step<Vec<LockId>> {
        let Some(locker) = self.settler.evm.chain.locker else {
            return Ok(Vec::new());
        };
        let keys = tokenpad_evm::locker::released(&receipt.logs, locker.0);
        let store = self.settler.store();
        let builder = self.settler.builder(&store);
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
                r::eth_call(self.rpc.id(), &call, at)
            })
            .collect();
        for ((lock, _), answer) in skipped.into_iter().zip(self.batch(requests).await?) {
            let answer = answer.map_err(|e| self.fail(Fail::Node(e)))?;
            let data = r::data_result(&answer).map_err(evm)?;
            if reads::decode_lock(&data).map_err(evm)?.released {
                out.push(lock);
            }
        }
        Ok(out)
    }

    /// Why a mined transaction reverted: the call replayed on the state before its block.
    async fn revert_reason(&self, t: &ChainTx, block: u64) -> String {
        let (Ok(data), Some(prior)) = (r::parse_hex_data(&t.data), block.checked_sub(1)) else {
            return "the transaction reverted".into();
        };
        let call = r::CallRequest {
            from: Some(self.settler.relayer_address()),
            to: t.to.0,
            data,
        };
        let id = self.rpc.id();
        match self
            .rpc
            .call(r::eth_call(id, &call, BlockTag::Number(prior)))
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
}
