//! A simulated world: the merchant's object (`Node`), the chain, a webhook receiver, and the
//! clients' memory of what they asked and were answered. `apply` runs one step and checks
//! every invariant after it.

use crate::chain::SimChain;
use crate::check::{self, violation, Check};
use crate::node::{Answer, Cut, Node, Request};
use crate::requests::{self, outside};
use crate::settler::{self, RoundFaults};
use crate::step::{ChainFault, Fault, Outside, Step, Who};
use crate::webhooks::{self, Received, Receiver};
use std::collections::BTreeMap;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::idempotency::TTL;
use tokenpad_core::store::idempotency::IdempotencyStore;

/// The answer a key must replay, and until when.
struct Expected {
    path: String,
    body: serde_json::Value,
    answer: Answer,
    until: Millis,
}

pub struct World {
    pub node: Node,
    pub chain: SimChain,
    pub received: Received,
    webhook_order: check::WebhookOrder,
    /// Requests whose answer was lost, by number: the client retries them.
    lost: BTreeMap<u32, Request>,
    /// The first answer under each (caller, key).
    answers: BTreeMap<(Option<String>, String), Expected>,
    /// Steps run, and requests answered (a summary).
    pub steps: u64,
    pub answered: u64,
    /// Answers by route and status (`POST /holder/:userId/spend 422`).
    pub statuses: BTreeMap<String, u64>,
    /// Whether histories drawn for this world reorganize the chain (`ChainFault::Reorg`).
    pub hostile: bool,
    /// The debts the ledger held after some step (`--stats`).
    pub debts: crate::debts::Seen,
}

impl World {
    pub fn new() -> World {
        let node = Node::new();
        let evm = node.chain.clone();
        let (usdc, locker, factory) = match &evm {
            tokenpad_core::model::chain::ChainMode::Evm(e) => (
                e.usdc,
                e.locker.unwrap_or(Address([0xfd; 20])),
                e.markets
                    .as_ref()
                    .map_or(Address([0xfb; 20]), |m| m.uniswap_factory),
            ),
            tokenpad_core::model::chain::ChainMode::Embedded => {
                (Address([0; 20]), Address([0xfd; 20]), Address([0xfb; 20]))
            }
        };
        let mut chain = SimChain::new(node.merchant.address, usdc, locker, factory);
        chain.now = node.now;
        World {
            node,
            chain,
            received: Vec::new(),
            webhook_order: check::WebhookOrder::default(),
            lost: BTreeMap::new(),
            answers: BTreeMap::new(),
            steps: 0,
            answered: 0,
            statuses: BTreeMap::new(),
            hostile: false,
            debts: crate::debts::Seen::default(),
        }
    }

    /// A world whose service has `bug` planted (`crate::bug`).
    pub fn with_bug(bug: Option<crate::bug::Bug>) -> World {
        let mut w = World::new();
        w.node.bug = bug;
        w
    }

    /// Makes this world hostile: its histories reorganize the chain, and the service waits
    /// for `CHAIN_FINALITY` = the deepest reorganization (`chain::reorg::MAX_DEPTH`) before it
    /// takes a receipt as final (a reverted one is acted on only then).
    pub fn harden(&mut self) {
        self.hostile = true;
        if let tokenpad_core::model::chain::ChainMode::Evm(e) = &mut self.node.chain {
            e.finality = crate::chain::reorg::MAX_DEPTH;
        }
    }

    /// Runs `step`, then checks every invariant.
    pub fn apply(&mut self, step: &Step) -> Check {
        self.steps += 1;
        let fault = match step {
            Step::Chain(ChainFault::HoldForever { .. }) => Some("a node holds transactions"),
            Step::Chain(ChainFault::Reprice { .. }) => Some("gas repriced"),
            Step::Chain(ChainFault::Reorg { .. }) => Some("a reorganization"),
            Step::Alarm { round, .. } if round.reorg.is_some() => {
                Some("a reorganization mid-round")
            }
            Step::Outside(Outside::TakeNonce) => Some("the relayer's nonce taken"),
            _ => None,
        };
        if let Some(f) = fault {
            *self.statuses.entry(format!("fault {f}")).or_default() += 1;
        }
        match step {
            Step::Call {
                n,
                req,
                who,
                keyed,
                fault,
            } => {
                let mut request = requests::build(&self.node.store, self.node.now / 1000, req);
                if *who == Who::Session {
                    request.session = requests::holder_of(req).map(requests::user);
                }
                if *keyed {
                    request.key = Some(format!("k{n}"));
                }
                self.call(*n, request, *fault)?;
            }
            Step::Retry { n } => {
                if let Some(request) = self.lost.remove(n) {
                    self.call(*n, request, Fault::None)?;
                }
            }
            Step::Alarm { round, receiver } => self.alarm(*round, *receiver)?,
            Step::Mine {
                revert,
                hold,
                older,
                lag_s,
            } => {
                // The new block's timestamp: the service's clock less the chain's lag, never
                // before its parent's (a chain's block times do not go back; a round that read
                // the head's time may send what that time allows, a release).
                self.chain.now = self
                    .chain
                    .now
                    .max(self.node.now.saturating_sub(Millis::from(*lag_s) * 1000));
                // Reverts are injected into batches (each of their movements then goes alone)
                // and into single swaps and deployments, whose undo is whole; not into a single
                // transfer, whose undo takes back only what is still there (the rest, by design,
                // a difference reconciliation shows).
                self.chain.mine(*revert, *hold, *older, |tx| {
                    tx.intents.len() > 1
                        || tx.intents.iter().all(|(_, _, a)| {
                            matches!(
                                a,
                                tokenpad_core::model::intent::Action::Swap { .. }
                                    | tokenpad_core::model::intent::Action::Deploy { .. }
                            )
                        })
                });
            }
            Step::Drop { mask } => self.chain.drop_pending(*mask),
            Step::Wait { ms } => {
                // Time passes; the chain's head keeps the time it was mined at until the next
                // block.
                self.node.now += ms;
            }
            Step::Outside(o) => self.outside(o),
            Step::Chain(ChainFault::HoldForever { mask }) => self.chain.hold_forever(*mask),
            Step::Chain(ChainFault::Reprice { percent }) => {
                self.chain.gas_percent = u64::from(*percent);
            }
            Step::Chain(ChainFault::Reorg { depth, requeue }) => {
                self.chain.reorg(u64::from(*depth), *requeue);
            }
            Step::Faucet { user, usdc } => {
                let _ = self.node.faucet(&requests::user(*user), usdc.0);
            }
            Step::Settle => self.settle()?,
        }
        self.debts.note(&self.node.store);
        self.check()
    }

    fn check(&mut self) -> Check {
        check::conservation(&self.node.store)?;
        check::no_overdraft(&self.chain)?;
        check::authorizations_once(&self.chain)?;
        check::once_per_intent(&self.node.store, &self.chain)?;
        check::followups_kept(&self.node)?;
        let finality = self.node.chain.finality();
        check::failed_is_ours_to_send_again(&self.node.store, &self.chain, finality)?;
        self.webhook_order.check(&self.received)
    }

    /// Sends a request (twice, with `Fault::Twice`) and checks its answer against what its key
    /// answered before.
    fn call(&mut self, n: u32, request: Request, fault: Fault) -> Check {
        let cut = match fault {
            Fault::LostBefore => Some(Cut::BeforeCommit),
            Fault::LostAfter => Some(Cut::AfterCommit),
            Fault::None | Fault::Twice => None,
        };
        let answer = self.node.api(&request, cut);
        if cut.is_some() {
            if request.key.is_some() {
                self.lost.insert(n, request.clone());
            }
            // What it committed, if anything, is what a retry must replay.
            self.learn(&request)?;
            return Ok(());
        }
        let Some(first) = answer else { return Ok(()) };
        self.answered += 1;
        let route = tokenpad_core::wire::routes::route(
            request.method,
            request.path.split('?').next().unwrap_or_default(),
        )
        .map_or("?", |m| m.pattern);
        *self
            .statuses
            .entry(format!(
                "answer {} {route} {}",
                request.method, first.status
            ))
            .or_default() += 1;
        if std::env::var_os("SIM_TRACE").is_some() {
            eprintln!(
                "  -> {} {} {}: {}",
                request.method,
                request.path,
                first.status,
                first.body.chars().take(160).collect::<String>()
            );
        }
        self.compare(&request, &first)?;
        self.learn(&request)?;
        if fault == Fault::Twice {
            // What fell due meanwhile runs first (the second arrival runs it too): only the
            // request itself must change nothing the second time.
            self.node.run_due();
            // A copy shares all but what changes after it (`store::mem`'s persistent maps).
            let before = self.node.store.clone();
            let again = self.node.api(&request, None);
            let Some(again) = again else { return Ok(()) };
            if request.key.is_some() {
                if (again.status, &again.body) != (first.status, &first.body) {
                    return Err(violation(
                        "exactly once per idempotency key",
                        format!(
                            "{} {} sent twice under {:?}: {} {} then {} {}",
                            request.method,
                            request.path,
                            request.key,
                            first.status,
                            first.body,
                            again.status,
                            again.body
                        ),
                    ));
                }
                if first.status < 500 && self.node.store != before {
                    return Err(violation(
                        "exactly once per idempotency key",
                        format!(
                            "{} {} sent twice under {:?}: the second changed the store",
                            request.method, request.path, request.key
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The answer the store now keeps under the request's key, as the answer it must replay.
    fn learn(&mut self, request: &Request) -> Check {
        let Some(key) = &request.key else {
            return Ok(());
        };
        let scope = (request.session.clone(), key.clone());
        if self
            .answers
            .get(&scope)
            .is_some_and(|e| e.until > self.node.now)
        {
            return Ok(());
        }
        let kept_under = match &request.session {
            None => "secret".to_string(),
            Some(u) => format!("holder:{u}"),
        };
        let since = self.node.now.saturating_sub(TTL);
        if let Ok(Some(kept)) = self
            .node
            .store
            .kept_answer(&format!("{kept_under}\n{key}"), since)
        {
            self.answers.insert(
                scope,
                Expected {
                    path: request.path.clone(),
                    body: request.body.clone(),
                    answer: Answer {
                        status: kept.status,
                        body: kept.body,
                        replayed: true,
                    },
                    until: kept.created_at + TTL,
                },
            );
        }
        Ok(())
    }

    /// An answer under a key answered before must be that answer, replayed.
    fn compare(&self, request: &Request, got: &Answer) -> Check {
        let Some(key) = &request.key else {
            return Ok(());
        };
        let Some(e) = self.answers.get(&(request.session.clone(), key.clone())) else {
            return Ok(());
        };
        if e.until <= self.node.now || e.path != request.path || e.body != request.body {
            return Ok(());
        }
        // A credential refused (a session expired or revoked since) runs nothing, before any
        // replay: no effect, and no answer to compare.
        if matches!(got.status, 401 | 403) && !got.replayed {
            return Ok(());
        }
        if got.status != e.answer.status || got.body != e.answer.body || !got.replayed {
            return Err(violation(
                "exactly once per idempotency key",
                format!(
                    "{} {} under {key}: first answered {} {}, now {} {} (replayed: {})",
                    request.method,
                    request.path,
                    e.answer.status,
                    e.answer.body,
                    got.status,
                    got.body,
                    got.replayed
                ),
            ));
        }
        Ok(())
    }

    fn alarm(&mut self, round: RoundFaults, receiver: Receiver) -> Check {
        // A movement the ledger failed for good is no longer waited for.
        let store = &self.node.store;
        self.chain.reverted_open.retain(|(_, id)| {
            store
                .intents
                .iter()
                .find(|i| i.id == *id)
                .is_none_or(|i| i.status != tokenpad_core::model::intent::IntentStatus::Failed)
        });
        self.node.run_due();
        settler::round(&mut self.node, &mut self.chain, round).map_err(|e| {
            violation(
                "settlement",
                format!("the ledger refused what the chain reported: {e}"),
            )
        })?;
        webhooks::deliver(&mut self.node, receiver, &mut self.received)
            .map_err(|e| violation("webhooks", format!("delivery failed: {e}")))?;
        Ok(())
    }

    fn outside(&mut self, o: &Outside) {
        let trader = Address([0x7a; 20]);
        match o {
            Outside::TakeNonce => self.chain.outside_nonce(),
            Outside::Trade {
                token,
                buy,
                usdc,
                tokens,
            } => {
                let list = requests::tokens(&self.node.store);
                let Some(t) = list.get(usize::from(*token) % list.len().max(1)) else {
                    return;
                };
                let Some(t) = Address::parse(t).map(TokenAddress) else {
                    return;
                };
                let held = self.chain.balance(&t.address(), &trader);
                // Sells what a buy gave it; with nothing, it buys first.
                let (buy, amount) = if *buy || held == 0 {
                    (true, usdc.0)
                } else {
                    (false, tokens.0.min(held))
                };
                let _ = self.chain.outside_trade(trader, &t, buy, amount);
            }
            Outside::Send {
                from,
                token,
                to,
                amount,
            } => {
                let list = requests::tokens(&self.node.store);
                let Some(t) = list.get(usize::from(*token) % list.len().max(1)) else {
                    return;
                };
                let Some(t) = Address::parse(t).map(TokenAddress) else {
                    return;
                };
                let to_id = requests::user(*to);
                let Some(h) = self
                    .node
                    .store
                    .holders
                    .iter()
                    .find(|h| h.user_id.as_str() == to_id)
                else {
                    return;
                };
                // The fourth sender is the outside trader: what it bought in a pool, with
                // what a pool owes it (`ops::settle::claims`), goes to a holder.
                let from = if *from == 3 { trader } else { outside(*from) };
                let have = self.chain.balance(&t.address(), &from);
                let amount = amount.0.min(have);
                if amount > 0 {
                    let _ = self.chain.outside_send(&t, from, h.address, amount);
                }
            }
        }
    }

    /// Heals every fault and runs the object and the chain until everything settled (moving
    /// the clock a day at a time while something waits on time, ten days at most); then the
    /// ledger must equal the chain, and every webhook delivery must be done.
    fn settle(&mut self) -> Check {
        let round = RoundFaults {
            per_batch: 50,
            ..RoundFaults::default()
        };
        for day in 0..=10 {
            // The operator sends again what was parked (movements that ran out of gas past
            // `MAX_OUT_OF_GAS` times in a row, under injected faults).
            self.node
                .txn(|s, _| tokenpad_core::ops::settle::retry_parked(s))
                .map_err(|e| violation("settlement finishes", e.to_string()))?;
            for _ in 0..12 {
                self.node.now += 6_000;
                self.chain.now = self.node.now;
                self.alarm(round, Receiver::Up)?;
                self.chain.mine(0, 0, false, |_| false);
                self.alarm(round, Receiver::Up)?;
                if check::settled(&self.node, &self.chain) && !webhooks::open_deliveries(&self.node)
                {
                    self.check()?;
                    check::ledger_equals_chain(&self.node, &self.chain)?;
                    return check::no_debt_left(&self.node.store);
                }
            }
            if day < 10 {
                self.node.now += 86_400_000;
            }
        }
        let open: Vec<String> = self
            .node
            .store
            .intents
            .iter()
            .filter(|i| i.is_open())
            .map(|i| format!("{} {:?} {:?}", i.id, i.status, i.action))
            .collect();
        Err(violation(
            "settlement finishes",
            format!(
                "still open after ten days: {open:?}; open deliveries: {}",
                webhooks::open_deliveries(&self.node)
            ),
        ))
    }
}

impl Default for World {
    fn default() -> Self {
        World::new()
    }
}
