//! The settler, as the worker's (`adapters/evm/settler.rs`) runs a round, against the
//! simulated chain: watch what was sent (a receipt of any version settles its intents; one
//! never broadcast goes now; one unmined for long is sent again if the node lost it, replaced
//! with the same nonce otherwise, abandoned if its nonce went to another), send what is
//! queued (each batch signed and stored before it is broadcast), scan the new blocks' logs
//! (deposits, pools). Every step reports to the ledger in a transaction of its own.
//!
//! Faults a round can meet: the object stops after storing a signed transaction and before
//! broadcasting it (`crash_after_sign`), a broadcast's answer is lost (`lose_sends`), the node
//! does not answer at all (`node_down`).

use crate::bug::Bug;
use crate::chain::{LogKind, Sent, SentTx, SimChain};
use crate::node::{Node, BASE_URL};
use std::collections::BTreeMap;
use tokenpad_core::crypto::{hex0x, keccak256};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::chain::PoolEvent;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::intent::{Intent, IntentStatus};
use tokenpad_core::model::settlement::{ChainTx, TxState, TxVersion};
use tokenpad_core::model::token::{TokenKind, USDC_ADDRESS};
use tokenpad_core::ops::settle::observe::{observe, Observed};
use tokenpad_core::ops::settle::plan::{plan, Call, Limits};
use tokenpad_core::ops::settle::{self, Mined};
use tokenpad_core::store::Store;
use tokenpad_core::{wire, Error, Result};

/// Replacements of one nonce, at most (the worker's MAX_VERSIONS).
const MAX_VERSIONS: usize = 12;
/// A transaction unmined this long is looked at again (CHAIN_REPLACE_AFTER_MS in tests).
pub const REPLACE_AFTER: u64 = 5_000;

/// A round's faults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoundFaults {
    /// The object stops after storing this many signed transactions, before broadcasting it.
    pub crash_after_sign: Option<u8>,
    /// Broadcasts reach the node; their answers are lost.
    pub lose_sends: bool,
    /// The node does not answer: the round stops at once.
    pub node_down: bool,
    /// Movements per batch this round (CHAIN_BATCH).
    pub per_batch: u8,
}

/// Why a round stopped early: the node (a fault), or the ledger (a bug, or a refusal the
/// simulator reports).
pub enum Stop {
    Node,
    Crash,
    Ledger(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Stop {
        Stop::Ledger(e)
    }
}

type Step<T = ()> = std::result::Result<T, Stop>;

fn version_hash(nonce: u64, version: usize) -> String {
    let mut seed = b"sim tx".to_vec();
    seed.extend_from_slice(&nonce.to_be_bytes());
    seed.extend_from_slice(&(version as u64).to_be_bytes());
    hex0x(&keccak256(&seed))
}

/// The ledger's report of a chain step, in a transaction, its events rendered with it.
fn commit<T>(node: &mut Node, f: impl FnOnce(&mut dyn Store) -> Result<T>) -> Result<T> {
    node.txn(|s, _| {
        let out = f(s)?;
        wire::event::seal(s, BASE_URL)?;
        Ok(out)
    })
}

/// One settlement round.
pub fn round(
    node: &mut Node,
    chain: &mut SimChain,
    faults: RoundFaults,
) -> std::result::Result<(), Error> {
    if faults.node_down {
        return Ok(());
    }
    // Hook: a reorganization is followed first (`follow.rs`).
    let outcome = crate::follow::follow(node, chain)
        .map_err(Stop::from)
        .and_then(|()| watch(node, chain, faults))
        .and_then(|()| send(node, chain, faults))
        .and_then(|()| scan(node, chain));
    match outcome {
        Ok(()) | Err(Stop::Node) | Err(Stop::Crash) => Ok(()),
        Err(Stop::Ledger(e)) => Err(e),
    }
}

/// What `t` carries, as the chain sees it: each intent's movement, and the counted nonces
/// its holders signed.
type Carried = (
    Vec<(u64, TokenAddress, tokenpad_core::model::intent::Action)>,
    BTreeMap<u64, u64>,
);

fn intents_of(node: &Node, t: &ChainTx) -> Result<Carried> {
    let intents = t
        .intents
        .iter()
        .map(|id| {
            node.store
                .intent(*id)?
                .ok_or_else(|| Error::internal(format!("intent {id} is missing")))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(carried(node, &intents))
}

fn carried(node: &Node, intents: &[Intent]) -> Carried {
    let mut nonces = BTreeMap::new();
    for i in intents {
        if let Some(n) = i.auth_nonce {
            let shared = node.bug == Some(Bug::SharesAuthNonces);
            nonces.insert(i.id, if shared { 0 } else { n });
        }
    }
    let moves = intents
        .iter()
        .map(|i| (i.id, i.token, i.action.clone()))
        .collect();
    (moves, nonces)
}

/// The gas limit a batch goes with (hook: the worker's `adapters/evm/gas.rs`): the chain's
/// estimate (`eth_estimateGas`) with a quarter and 30 k more, doubled for each time its
/// movements ran out of gas (three times at most).
fn gas_limit(node: &Node, chain: &SimChain, tx: &SentTx, out_of_gas: u32) -> u64 {
    let estimate = chain.estimate_gas(tx);
    if node.bug == Some(Bug::GasLimitTooLow) {
        return estimate.saturating_sub(1);
    }
    estimate.saturating_add(estimate / 4).saturating_add(30_000) << out_of_gas.min(3)
}

/// Sends the latest version of `t` (again: the same bytes twice are harmless).
fn broadcast(node: &mut Node, chain: &mut SimChain, t: &ChainTx, faults: RoundFaults) -> Step {
    let latest = t
        .latest()
        .ok_or_else(|| Error::internal("a transaction without a version"))?;
    let (intents, auth_nonces) = intents_of(node, t)?;
    let sent = chain.broadcast(SentTx {
        nonce: t.nonce,
        hash: latest.hash.clone(),
        intents,
        auth_nonces,
        gas_limit: t.gas_limit,
    });
    if faults.lose_sends {
        return Err(Stop::Node);
    }
    debug_assert!(matches!(
        sent,
        Sent::Accepted | Sent::AlreadyKnown | Sent::NonceTooLow
    ));
    let (nonce, now) = (t.nonce, node.now);
    commit(node, move |s| {
        if let Some(mut stored) = s.chain_tx(nonce)? {
            if stored.is_open() {
                stored.state = TxState::Sent;
                stored.sent_at = Some(now);
                stored.error = None;
                s.put_chain_tx(&stored)?;
            }
        }
        Ok(())
    })?;
    Ok(())
}

fn watch(node: &mut Node, chain: &mut SimChain, faults: RoundFaults) -> Step {
    let open = node.store.open_chain_txs()?;
    for t in open {
        let receipt = t
            .versions
            .iter()
            .find_map(|v| chain.receipts.get(&v.hash).cloned());
        if let Some(r) = receipt {
            // A transaction that ran out of gas (or an injected fault, which is one) used all
            // of its limit: the receipt says how much.
            let misread = node.bug == Some(Bug::OutOfGasAsRefusal) && !r.success;
            let m = Mined {
                hash: r.hash.clone(),
                block: r.block,
                block_hash: chain.block_hash(r.block),
                head: r.block,
                success: r.success,
                gas_used: if misread { 50_000 } else { r.gas_used },
                reason: r.reason.clone(),
                events: r.events.clone(),
                released: r.released.clone(),
                transfers: r.transfers.clone(),
            };
            let ctx = node.ctx();
            commit(node, move |s| {
                settle::mined(s, &ctx, r.nonce, &m)?;
                // Hook: the receipt's block is watched (`follow.rs`).
                crate::follow::watched(s, &m, ctx.chain.finality())
            })?;
        } else if t.state == TxState::Signed {
            broadcast(node, chain, &t, faults)?;
        } else if node.now.saturating_sub(t.sent_at.unwrap_or(0)) >= REPLACE_AFTER {
            let Some(latest) = t.latest() else { continue };
            if !chain.knows(&latest.hash) {
                if chain.nonce > t.nonce {
                    let nonce = t.nonce;
                    commit(node, move |s| {
                        settle::abandoned(s, nonce, "its nonce was used by another transaction")
                    })?;
                } else {
                    broadcast(node, chain, &t, faults)?;
                }
            } else if t.versions.len() < MAX_VERSIONS {
                let mut replaced = t.clone();
                replaced.versions.push(TxVersion {
                    hash: version_hash(t.nonce, t.versions.len()),
                    raw: "0x02".into(),
                    max_fee_per_gas: latest.max_fee_per_gas.saturating_mul(5) / 4 + 1,
                    max_priority_fee_per_gas: latest.max_priority_fee_per_gas.saturating_mul(5) / 4
                        + 1,
                    signed_at: node.now,
                });
                replaced.state = TxState::Signed;
                let stored = replaced.clone();
                commit(node, move |s| settle::replaced(s, &stored))?;
                broadcast(node, chain, &replaced, faults)?;
            }
        }
    }
    Ok(())
}

fn send(node: &mut Node, chain: &mut SimChain, faults: RoundFaults) -> Step {
    let limits = Limits {
        per_batch: usize::from(faults.per_batch.max(1)),
        batches: 16,
    };
    let usdc = USDC_ADDRESS;
    let planned = plan(&node.store, limits, |t| *t != usdc, Some(chain.now / 1_000))?;
    // A token without code holds its transfers back (a call to it would move nothing).
    let batches: Vec<_> = planned
        .into_iter()
        .filter(|b| {
            b.call != Call::Transfers || b.token == usdc || chain.has_code(&b.token.address())
        })
        .collect();
    let first = node.store.relayer()?.next_nonce.unwrap_or(chain.nonce);
    for (nonce, (signed, b)) in (first..).zip(batches.iter().enumerate()) {
        let (intents, auth_nonces) = carried(node, &b.intents);
        let probe = SentTx {
            nonce,
            hash: String::new(),
            intents,
            auth_nonces,
            gas_limit: 0,
        };
        let out_of_gas = b.intents.iter().map(|i| i.out_of_gas).max().unwrap_or(0);
        let limit = gas_limit(node, chain, &probe, out_of_gas);
        let record = ChainTx::signed(
            nonce,
            b.intents.iter().map(|i| i.id).collect(),
            b.token.address(),
            "0x".into(),
            limit,
            TxVersion {
                hash: version_hash(nonce, 0),
                raw: "0x02".into(),
                max_fee_per_gas: 2,
                max_priority_fee_per_gas: 1,
                signed_at: node.now,
            },
            node.now,
        );
        let stored = record.clone();
        let forget = node.bug == Some(Bug::ForgetsToMarkSent);
        commit(node, move |s| {
            settle::signed(s, &stored)?;
            if forget {
                for id in &stored.intents {
                    if let Some(mut i) = s.intent(*id)? {
                        i.status = IntentStatus::Queued;
                        s.put_intent(&i)?;
                    }
                }
            }
            Ok(())
        })?;
        if faults.crash_after_sign == Some(u8::try_from(signed).unwrap_or(u8::MAX)) {
            return Err(Stop::Crash);
        }
        broadcast(node, chain, &record, faults)?;
    }
    Ok(())
}

/// The new blocks' logs the worker's scan reads: Transfers of the merchant's tokens, USDC to
/// its holders and into and out of its pools, and its pools' own events.
fn scan(node: &mut Node, chain: &SimChain) -> Step {
    let head = chain.block.saturating_sub(1);
    let Some(scanned) = node.store.relayer()?.scanned_block else {
        let ctx = node.ctx();
        commit(node, move |s| {
            let mut r = s.relayer()?;
            r.scanned_block = Some(head);
            crate::follow::checkpoint(&mut r, chain, ctx.chain.finality());
            s.put_relayer(&r)
        })?;
        return Ok(());
    };
    if scanned >= head {
        return Ok(());
    }
    let tokens: Vec<Address> = node
        .store
        .tokens()?
        .iter()
        .filter(|t| t.kind == TokenKind::Merchant)
        .map(|t| t.address.address())
        .collect();
    let holders: Vec<Address> = node.store.holders.iter().map(|h| h.address).collect();
    let pools: Vec<Address> = node.store.pools.values().map(|p| p.address).collect();
    let mut observed = Vec::new();
    let mut events = Vec::new();
    for l in chain
        .logs
        .iter()
        .filter(|l| l.block > scanned && l.block <= head)
    {
        match &l.kind {
            LogKind::Transfer {
                token,
                from,
                to,
                amount,
            } => {
                let wanted = tokens.contains(token)
                    || (*token == chain.usdc
                        && (holders.contains(to) || pools.contains(to) || pools.contains(from)));
                if wanted {
                    observed.push(Observed {
                        token: TokenAddress(*token),
                        from: *from,
                        to: *to,
                        amount: Units::new(*amount),
                        hash: l.tx.clone(),
                        block: l.block,
                        log_index: l.index,
                    });
                }
            }
            LogKind::Pool(
                e @ (PoolEvent::Swap { pool, .. } | PoolEvent::Liquidity { pool, .. }),
            ) if pools.contains(pool) => {
                events.push(e.clone());
            }
            LogKind::Pool(_) => {}
        }
    }
    let ctx = node.ctx();
    commit(node, move |s| {
        for o in &observed {
            observe(s, &ctx, o)?;
        }
        tokenpad_core::ops::market::follow(s, &events)?;
        let mut r = s.relayer()?;
        r.scanned_block = Some(head);
        crate::follow::checkpoint(&mut r, chain, ctx.chain.finality());
        s.put_relayer(&r)
    })?;
    Ok(())
}
