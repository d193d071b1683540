//! The invariants, checked after every step. Each failure is a [`Violation`] naming which.
//!
//! - **conservation**, per token: `totalSupply = app + merchant + liquidity + escrow + pooled +
//!   Σ balances`, with Σ recomputed from every balance, and `held = Σ`;
//! - **no overdraft**: no balance or reserve below zero in the ledger (its arithmetic is
//!   checked, so a negative would have been an error), and no transaction the ledger sent
//!   reverts on chain for want of funds, unless behind an older movement of a token it needs
//!   that an injected revert sent back, or built on an older movement to its spender that the
//!   chain refused for its own reason and that was never carried out (a holder passing on what
//!   a buy was to bring, the buy refused: the ledger books optimistically, and both refusals
//!   net): the ledger never moves what the chain does not hold;
//! - **exactly once per intent**: no movement is carried out on chain twice; a confirmed one
//!   exactly once (once the settler followed any reorganization), a failed one never; and a movement fails only for its own reason, never
//!   because it reverted for want of funds behind an older movement of a token it needs that a
//!   fault sent back and that landed later (it may have needed what that one brings);
//! - **no value lost or created by a failed transaction of ours**: a transaction that failed
//!   on chain (reverted, ran out of gas) moved nothing there (no log of it is left), and a
//!   movement fails in the ledger (refused: undone, its value given back or taken away) only
//!   on a receipt of the chain's own refusal: never on one that ran out of gas or that a fault
//!   reverted (those are ours: their value goes out again), never on no receipt at all;
//! - **exactly once per idempotency key** (`world.rs`, as the answers come): every answer under
//!   a key is the first one, and a request sent twice changes nothing the second time;
//! - **ledger equals chain** once everything settled (`Step::Settle`; after reorganizations
//!   too: once the settler followed them and nothing is open): every balance the
//!   ledger says the chain holds (`ops::settle::reconcile::expected`: holders, treasury, pools,
//!   lock contract) is the chain's, so is every row of a merchant token it follows outside
//!   the custody, every open pool's price is the chain's (what the ledger quotes trades at),
//!   and no holder has on chain what the ledger does not know;
//! - **no debt left** once everything settled: a debt (`Token::owed`) is what a movement still
//!   open pays (its refusal's undo, or a transfer that arrives), and with none open it is value
//!   the ledger books where the chain does not have it;
//! - **webhooks**: a resource's events reach an endpoint in order; once settled, every
//!   delivery is done.

use crate::chain::{gas, reorg, SimChain};
use crate::node::Node;
use crate::webhooks::Received;
use std::collections::BTreeMap;
use std::fmt;
use tokenpad_core::model::intent::IntentStatus;
use tokenpad_core::model::token::TokenKind;
use tokenpad_core::ops::settle::reconcile;
use tokenpad_core::store::mem::MemStore;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub invariant: &'static str,
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.invariant, self.detail)
    }
}

pub fn violation(invariant: &'static str, detail: impl Into<String>) -> Violation {
    Violation {
        invariant,
        detail: detail.into(),
    }
}

pub type Check = Result<(), Violation>;

pub fn conservation(store: &MemStore) -> Check {
    let bad = |d: String| Err(violation("conservation", d));
    for ((token, owner), b) in &store.balances {
        if !store.tokens.iter().any(|t| &t.address == token) {
            return bad(format!("a balance of {owner} in unknown token {token}"));
        }
        if b.total().is_none() {
            return bad(format!("the balance of {owner} in {token} overflows"));
        }
    }
    for t in &store.tokens {
        let mut sum: u128 = 0;
        for ((tk, _), b) in &store.balances {
            if tk == &t.address {
                let Some(s) = b.total().and_then(|x| sum.checked_add(x.raw())) else {
                    return bad(format!("{}: Σ balances overflows", t.symbol));
                };
                sum = s;
            }
        }
        if t.held.raw() != sum {
            return bad(format!(
                "{} ({}): held {} != Σ balances {sum}",
                t.symbol,
                t.address,
                t.held.raw()
            ));
        }
        let accounted = [
            t.remaining_app_supply,
            t.merchant_supply,
            t.liquidity_supply,
            t.escrow,
            t.pooled,
        ]
        .iter()
        .try_fold(sum, |acc, x| acc.checked_add(x.raw()));
        if accounted != Some(t.total_supply.raw()) {
            return bad(format!(
                "{} ({}): total {} != app {} + merchant {} + liquidity {} + escrow {} + pooled {} + Σ {sum}",
                t.symbol, t.address, t.total_supply.raw(), t.remaining_app_supply.raw(), t.merchant_supply.raw(),
                t.liquidity_supply.raw(), t.escrow.raw(), t.pooled.raw()
            ));
        }
        if t.remaining_app_supply > t.starting_app_supply {
            return bad(format!(
                "{}: more app supply left than it started with",
                t.symbol
            ));
        }
        if let Some(p) = store.pools.get(&t.address) {
            if p.token_reserve != t.pooled {
                return bad(format!(
                    "{}: pooled {} != its pool's reserve {}",
                    t.symbol,
                    t.pooled.raw(),
                    p.token_reserve.raw()
                ));
            }
        }
    }
    let in_pools: u128 = store.pools.values().map(|p| p.usdc_reserve.raw()).sum();
    let usdc = crate::node::chain_usdc();
    if let Some(usdc) = store.tokens.iter().find(|t| t.address.address() == usdc) {
        if usdc.pooled.raw() < in_pools {
            return bad(format!(
                "USDC pooled {} < Σ pools' USDC {in_pools}",
                usdc.pooled.raw()
            ));
        }
    }
    Ok(())
}

pub fn no_overdraft(chain: &SimChain) -> Check {
    for (hash, why) in &chain.natural_reverts {
        if why.contains("InsufficientBalance") {
            return Err(violation(
                "no overdraft",
                format!("transaction {hash} reverted on chain: {why}"),
            ));
        }
    }
    Ok(())
}

/// No holder's authorization is refused as already used: each movement a holder signs has a
/// nonce of its own (its holder's counter, taken when it was queued), and sending it again
/// sends the same one in a transaction that can land only once. A refusal here would fail a
/// holder's movement for nothing (the ledger undoes it, so no other check would see it).
pub fn authorizations_once(chain: &SimChain) -> Check {
    for (hash, why) in &chain.natural_reverts {
        if why.contains("AuthorizationUsedOrCanceled") {
            return Err(violation(
                "each authorization nonce once",
                format!("transaction {hash} reverted on chain: {why}"),
            ));
        }
    }
    Ok(())
}

/// A failed transaction moved nothing on chain, and the ledger refuses a movement only on the
/// chain's own refusal (see the module): a limit too low or a fault is ours, and its value is
/// queued again, not refused away.
pub fn failed_is_ours_to_send_again(store: &MemStore, chain: &SimChain, finality: u64) -> Check {
    let name = "no value lost or created by a failed transaction of ours";
    let failed: std::collections::BTreeSet<&str> = chain
        .receipts
        .values()
        .filter(|r| !r.success)
        .map(|r| r.hash.as_str())
        .collect();
    if let Some(l) = chain.logs.iter().find(|l| failed.contains(l.tx.as_str())) {
        return Err(violation(
            name,
            format!("transaction {} failed on chain and left a log: {l:?}", l.tx),
        ));
    }
    for i in store
        .intents
        .iter()
        .filter(|i| i.status == IntentStatus::Failed)
    {
        let receipt = i.hash.as_ref().and_then(|h| chain.receipts.get(h));
        let ours = match receipt {
            Some(r) if r.success => Some("a receipt that says it succeeded"),
            Some(r) if r.injected => Some("a revert a fault injected"),
            Some(r) if r.reason.as_deref() == Some(gas::OUT_OF_GAS) => {
                Some("a receipt that ran out of gas")
            }
            Some(_) => None,
            // A reorganization deeper than the finality waited for may have taken it away.
            None if chain.blocks.reorgs > 0 && finality < reorg::MAX_DEPTH => None,
            None => Some("no receipt on chain"),
        };
        if let Some(why) = ours {
            return Err(violation(
                name,
                format!(
                    "intent {} was refused (failed, undone) on {why} ({:?}): {:?}",
                    i.id, i.hash, i.action
                ),
            ));
        }
    }
    Ok(())
}

/// Whether the settler followed the chain: every checkpoint is still the chain's (a
/// reorganization since is not followed yet; the newest alone may be the new chain's, taken
/// by a round the chain reorganized under).
pub fn followed(store: &MemStore, chain: &SimChain) -> bool {
    store
        .relayer
        .checkpoints
        .iter()
        .all(|c| chain.block_hash(c.block).as_deref() == Some(c.hash.as_str()))
}

pub fn once_per_intent(store: &MemStore, chain: &SimChain) -> Check {
    // Asked only of a confirmed movement the chain does not have: it hashes every checkpoint.
    let mut followed_now = None;
    for (id, n) in &chain.executed {
        if *n > 1 {
            let i = store
                .intents
                .get(usize::try_from(*id).unwrap_or(0).saturating_sub(1));
            return Err(violation(
                "exactly once per intent",
                format!("intent {id} was carried out {n} times on chain: {i:?}"),
            ));
        }
    }
    for i in &store.intents {
        let waited = chain.reverted_behind.get(&i.id).into_iter().flatten();
        let landed: Vec<u64> = waited
            .filter(|(_, o)| chain.executed.contains_key(o))
            .map(|(_, o)| *o)
            .collect();
        if i.status == IntentStatus::Failed && !landed.is_empty() {
            return Err(violation(
                "a movement fails for its own reason",
                format!(
                    "intent {} failed for want of funds behind older movements of its token that a fault sent back and that landed later ({landed:?}): {:?}",
                    i.id, i.action
                ),
            ));
        }
        let n = chain.executed.get(&i.id).copied().unwrap_or(0);
        let ok = match i.status {
            // A reorganization the settler has not followed yet may have taken it away.
            IntentStatus::Confirmed => {
                n == 1 || (n == 0 && !*followed_now.get_or_insert_with(|| followed(store, chain)))
            }
            IntentStatus::Failed => n == 0,
            IntentStatus::Queued | IntentStatus::Submitted => n <= 1,
        };
        if !ok {
            return Err(violation(
                "exactly once per intent",
                format!(
                    "intent {} is {:?} in the ledger and was carried out {n} times on chain: {:?}",
                    i.id, i.status, i.action
                ),
            ));
        }
    }
    Ok(())
}

/// Whether everything settled: no movement open, no transaction unmined, the scan at the head.
pub fn settled(node: &Node, chain: &SimChain) -> bool {
    let store = &node.store;
    let scanned = store.relayer.scanned_block;
    store.intents.iter().all(|i| !i.is_open())
        && store.chain_txs.values().all(|t| !t.is_open())
        && chain.mempool.is_empty()
        && scanned == Some(chain.block.saturating_sub(1))
}

pub fn ledger_equals_chain(node: &Node, chain: &SimChain) -> Check {
    let ctx = node.ctx();
    let expected = reconcile::expected(&node.store, &ctx)
        .map_err(|e| violation("ledger equals chain", format!("reconciliation failed: {e}")))?;
    let mut seen = BTreeMap::new();
    for e in &expected {
        let on_chain = chain.balance(&e.token.address(), &e.owner);
        seen.insert((e.token.address(), e.owner), ());
        if on_chain != e.ledger.raw() {
            let who = e
                .user_id
                .as_ref()
                .map_or_else(|| e.owner.to_checksum(), |u| format!("{u} ({})", e.owner));
            return Err(violation(
                "ledger equals chain",
                format!(
                    "{} of {who}: the ledger says {}, the chain {on_chain}",
                    e.symbol,
                    e.ledger.raw()
                ),
            ));
        }
    }
    // Each pool's price as the chain has it: what the ledger quotes trades at. (After a
    // reorganization the ledger reads it again: `ops::market::resync`.)
    for (token, p) in &node.store.pools {
        let Some(on_chain) = chain.state.pools.get(&token.address()) else {
            continue;
        };
        if p.position.id.is_some() && p.sqrt_price_x96 != on_chain.state.sqrt_price {
            return Err(violation(
                "ledger equals chain",
                format!(
                    "the pool of {token}: the ledger prices it at sqrt {}, the chain at {}",
                    p.sqrt_price_x96, on_chain.state.sqrt_price
                ),
            ));
        }
    }
    // Every row the ledger follows outside the custody (an outside trader's, a wallet that
    // deposits or is withdrawn to, an airdrop's), of a merchant token: reconciliation leaves
    // them out (they are no one's liability), yet a row booked wrong there is value booked
    // wrong somewhere (seed 23461 left an outsider a pool's debt it no longer held on chain).
    // (A presale's signer's rows are the treasury's on chain: `reconcile::expected`.)
    let signers: Vec<_> = node.store.presales.iter().map(|p| p.signer).collect();
    for ((token, owner), b) in &node.store.balances {
        if seen.contains_key(&(token.address(), *owner)) || signers.contains(owner) {
            continue;
        }
        let Some(t) = node.store.tokens.iter().find(|t| t.address == *token) else {
            continue;
        };
        if t.kind != TokenKind::Merchant {
            continue;
        }
        let on_chain = chain.balance(&token.address(), owner);
        let ledger = b
            .active
            .plus(b.locked)
            .map_err(|e| violation("conservation", e.to_string()))?;
        if on_chain != ledger.raw() {
            return Err(violation(
                "ledger equals chain",
                format!(
                    "{} of {} (outside the custody): the ledger says {}, the chain {on_chain}",
                    t.symbol,
                    owner.to_checksum(),
                    ledger.raw()
                ),
            ));
        }
    }
    // A holder holding on chain what the ledger does not know of.
    for h in &node.store.holders {
        for ((token, owner), amount) in chain.balances() {
            if *owner == h.address && *amount > 0 && !seen.contains_key(&(*token, *owner)) {
                return Err(violation(
                    "ledger equals chain",
                    format!(
                        "{} holds {amount} of {token} on chain, which the ledger does not know",
                        h.user_id
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// No token owes anything (see the module), once everything settled.
pub fn no_debt_left(store: &MemStore) -> Check {
    let Some((t, d)) = store
        .tokens
        .iter()
        .find_map(|t| t.owed.first().map(|d| (t, d)))
    else {
        return Ok(());
    };
    Err(violation(
        "no debt left",
        format!(
            "{:?} owes {:?} {} of {} (since {:?}) with nothing open to pay it",
            d.by,
            d.to,
            d.amount.raw(),
            t.symbol,
            d.since
        ),
    ))
}

/// A resource's events reach each endpoint in order (a retried one again, before the next).
/// Kept across steps: each check reads only what arrived since the last (what arrived is only
/// ever added to), so a long history is not read again at every step.
#[derive(Default)]
pub struct WebhookOrder {
    /// How many deliveries of `got` were read.
    read: usize,
    /// The last event each (endpoint, resource) got.
    last: BTreeMap<(String, String), u64>,
}

impl WebhookOrder {
    pub fn check(&mut self, got: &Received) -> Check {
        for (hook, event, resource) in got.iter().skip(self.read) {
            self.read += 1;
            if resource.starts_with("webhook:") {
                continue;
            }
            let key = (hook.clone(), resource.clone());
            if let Some(prev) = self.last.get(&key) {
                if event < prev {
                    return Err(violation(
                        "webhook order",
                        format!("{resource}: event {event} reached {hook} after event {prev}"),
                    ));
                }
            }
            self.last.insert(key, *event);
        }
        Ok(())
    }
}

/// Every deployment the ledger made has its follow-up (its owner in the registry) queued: a
/// follow-up is written in its operation's transaction, so none is lost when the object
/// stops right after a commit.
pub fn followups_kept(node: &Node) -> Check {
    for id in node.store.deployments.keys() {
        let key = format!("owner:{id}");
        if !node.followups.contains(&key) {
            return Err(violation(
                "a follow-up per deployment",
                format!("deployment {id} has no follow-up queued"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokenpad_core::model::address::Address;
    use tokenpad_core::model::amount::Units;
    use tokenpad_core::model::ids::TokenAddress;
    use tokenpad_core::model::intent::{Owed, OwedSince, Reserve, Side};
    use tokenpad_core::model::token::{Network, Token};

    #[test]
    fn a_debt_left_once_settled_is_a_violation() {
        let mut store = MemStore::default();
        let usdc = TokenAddress(Address([1; 20]));
        let mut t = Token::usdc(usdc, Network::Local, Address([2; 20]), 0);
        store.tokens.push(t.clone());
        assert_eq!(no_debt_left(&store), Ok(()));
        t.owed.push(Owed {
            by: Side::Row(Address([3; 20])),
            to: Side::Reserve(Reserve::Minted),
            amount: Units::new(7),
            since: OwedSince::Intent(4),
            records: Vec::new(),
        });
        store.tokens[0] = t;
        let Err(v) = no_debt_left(&store) else {
            unreachable!("a debt left passed");
        };
        assert_eq!(v.invariant, "no debt left");
        assert!(v.detail.contains("owes Reserve(Minted) 7 of USDC"), "{v}");
    }
}
