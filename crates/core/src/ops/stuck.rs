//! When a merchant's settlement on an EVM chain is stuck, and what an operator can do about it
//! (`GET /admin/merchants/:merchantId/chain`, the settler's report to `/health` and
//! `GET /admin/chain`). Read from the settler's own records, never from the chain:
//!
//! - **parked** movements (`Intent::parked`): held for an operator at once, however recent;
//! - a transaction **signed or sent and not mined** for longer than the threshold;
//! - the relayer's trouble (**out of gas**, the **node failing**, a **token without code**)
//!   standing longer than the threshold, timed from when that kind of trouble began (the
//!   relayer's error text changes with the fees it quotes, so its own time cannot say);
//! - a **queued** movement older than the threshold;
//! - **debts unpaid** with nothing open to pay them (`Token::owed`, [`Unpaid`]), for longer
//!   than the threshold: a debt is what a movement the chain will refuse, or a transfer still
//!   to arrive, pays; with none open for so long, the ledger books value where the chain does
//!   not have it, and reconciliation shows where.
//!
//! Not stuck but **waiting**: a release whose unlock time the chain's clock has not reached,
//! and what its beneficiary does next with that token (the settler holds it behind the
//! release); and what a holder does with what a revert of ours not final yet was to bring it,
//! or a success not final yet that did not move it (`settle::hold`): said apart so an
//! operator knows nothing needs doing.

use crate::model::address::Address;
use crate::model::decimal::Decimal;
use crate::model::ids::MerchantId;
use crate::model::intent::{Action, Intent, IntentStatus, Reserve, Side};
use crate::model::settlement::ChainTx;
use crate::model::settlement::{NO_CODE, OUT_OF_GAS, WRONG_FACTORY};
use crate::model::time::{Millis, Timestamp};
use crate::model::token::Token;
use crate::ops::settle::hold::{Behind, Holding, Wait};
use serde::{Deserialize, Serialize};

/// What holds a merchant's settlement up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum IssueKind {
    /// Movements held for an operator: a revert of ours the settler cannot repair alone (the
    /// treasury lacking what it sends), or gas that never sufficed.
    Parked,
    /// A transaction signed or sent and not mined for longer than the threshold.
    Unmined,
    /// The relayer lacks the ETH for gas, for longer than the threshold.
    OutOfGas,
    /// The chain's node did not answer the settler, or refused it, for longer than the
    /// threshold.
    NodeFailing,
    /// A token's movements wait for a deployment that has no code on chain, for longer than
    /// the threshold.
    TokenMissing,
    /// Token deployments wait: `CHAIN_FACTORY` deploys another token code than this
    /// release's (its tokens would land where the ledger does not look), for longer than the
    /// threshold.
    WrongFactory,
    /// Movements queued for longer than the threshold.
    Queued,
    /// Debts the ledger holds (what a side owes another after the chain refused a movement
    /// built on it, or paid out what the ledger had booked elsewhere) with no movement open
    /// to pay them, for longer than the threshold.
    Unpaid,
    /// Not stuck: releases wait for the chain's clock to reach their unlock time.
    ChainClock,
    /// Not stuck: movements wait behind a revert of ours until its receipt is final
    /// (`CHAIN_FINALITY` blocks deep), when the settler acts on it.
    Finality,
}

impl IssueKind {
    /// The relayer's trouble its error (`Relayer::error`, the settler's words) says: out of
    /// gas, a token without code, or else the node.
    pub fn of_relayer_error(error: &str) -> IssueKind {
        if error.contains(OUT_OF_GAS) {
            IssueKind::OutOfGas
        } else if error.contains(NO_CODE) {
            IssueKind::TokenMissing
        } else if error.contains(WRONG_FACTORY) {
            IssueKind::WrongFactory
        } else {
            IssueKind::NodeFailing
        }
    }
}

/// One thing that holds settlement up (or, `chain_clock`, makes it wait), with what to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "SettlementIssue"))]
#[serde(rename_all = "camelCase")]
pub struct Issue {
    pub kind: IssueKind,
    /// How many movements (or transactions, for `unmined`) it holds up.
    pub count: u64,
    /// Since when (the oldest of them; the service's clock).
    pub since: Timestamp,
    /// What is wrong, for people. Never a secret: no RPC URL, no node's error text.
    pub what: String,
    /// What an operator can do.
    pub action: String,
}

/// The relayer's trouble, and since when (the service's clock): kept across rounds while it is
/// of one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trouble {
    pub kind: IssueKind,
    pub since: Millis,
}

impl Trouble {
    /// The trouble the relayer's error says now, keeping `before`'s start while it is of the
    /// same kind (None: the relayer has no error).
    pub fn now(error: Option<&str>, before: Option<Trouble>, now: Millis) -> Option<Trouble> {
        let kind = IssueKind::of_relayer_error(error?);
        Some(match before {
            Some(b) if b.kind == kind => b,
            _ => Trouble { kind, since: now },
        })
    }
}

/// Since when the ledger has held debts with nothing open to pay them (the service's clock):
/// kept across rounds while it lasts.
pub struct Unpaid;

impl Unpaid {
    /// Whether debts count: nothing is open (what is open may pay them), so the tokens are
    /// worth reading.
    pub fn idle(open: &[Intent], txs: &[ChainTx]) -> bool {
        open.is_empty() && txs.is_empty()
    }

    /// Since when, now: `before`'s start while it lasts, `now` when it begins, None when no
    /// debt is left or something is open.
    pub fn now(
        tokens: &[Token],
        open: &[Intent],
        txs: &[ChainTx],
        before: Option<Millis>,
        now: Millis,
    ) -> Option<Millis> {
        let owing = tokens.iter().any(|t| !t.owed.is_empty());
        (owing && Unpaid::idle(open, txs)).then(|| before.unwrap_or(now))
    }
}

/// A merchant's settlement as its object holds it.
pub struct Settling<'a> {
    pub merchant: &'a MerchantId,
    /// The relayer wallet (the treasury), which an operator funds.
    pub relayer: Address,
    pub chain_id: u64,
    /// Open intents, oldest first.
    pub open: &'a [Intent],
    /// Transactions signed and not mined.
    pub txs: &'a [ChainTx],
    pub trouble: Option<Trouble>,
    /// The chain's clock (UNIX seconds) as the last round read it; None: not known.
    pub chain_time: Option<u64>,
    pub now: Millis,
    /// `CHAIN_STUCK_AFTER_MS`.
    pub after: Millis,
    /// What reverts (and successes that did not move them) of ours not final yet were to
    /// bring (`settle::hold::unarrived`).
    pub unarrived: &'a Behind,
    /// The merchant's tokens, with their debts (`Token::owed`).
    pub tokens: &'a [Token],
    /// Since when debts have been unpaid with nothing open ([`Unpaid::now`]).
    pub unpaid: Option<Millis>,
}

/// One side of a debt, for people: an address, or which of the token's reserves.
fn side(s: &Side) -> String {
    match s {
        Side::Row(a) => a.to_checksum(),
        Side::Locked(a, lock) => format!("{} (locked in {lock})", a.to_checksum()),
        Side::Reserve(Reserve::Pooled(_)) => "the token's pool".into(),
        Side::Reserve(Reserve::Minted) => "the supply (new to the ledger)".into(),
        Side::Reserve(Reserve::App) => "the treasury's app supply".into(),
        Side::Reserve(Reserve::Merchant) => "the treasury's merchant supply".into(),
        Side::Reserve(Reserve::Liquidity) => "the treasury's liquidity supply".into(),
        Side::Reserve(Reserve::Escrow) => "the presales' escrow".into(),
    }
}

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

fn minutes(ms: Millis) -> String {
    if ms < 120_000 {
        format!("{} s", ms / 1000)
    } else {
        format!("{} min", ms / 60_000)
    }
}

/// The queued movements as the settler's walk (`settle::hold`) finds them: free to go, parked,
/// or held back, by what they wait behind.
#[derive(Default)]
struct Held<'a> {
    /// Free to go: queued but held by nothing.
    free: Vec<&'a Intent>,
    /// Parked for an operator.
    parked: Vec<&'a Intent>,
    /// Releases the chain's clock has not reached.
    early: Vec<&'a Intent>,
    /// Behind a parked movement.
    after_parked: Vec<&'a Intent>,
    /// Behind a release the chain's clock has not reached.
    clock: Vec<&'a Intent>,
    /// Behind a revert of ours not final yet (or a success that did not move what it was to
    /// bring).
    revert: Vec<&'a Intent>,
}

impl Settling<'_> {
    fn retry(&self) -> String {
        format!("POST /admin/merchants/{}/chain/retry", self.merchant)
    }

    fn old(&self, at: Millis) -> bool {
        self.now.saturating_sub(at) > self.after
    }

    /// A release the chain's clock has not reached: the settler holds it (its beneficiary's
    /// own movements of the token wait behind it).
    fn early(&self, i: &Intent) -> bool {
        let chain = self.chain_time.unwrap_or(self.now / 1000);
        matches!(&i.action, Action::Release { unlock_at, .. } if chain < *unlock_at)
    }

    /// The queued movements as the settler's walk finds them (`settle::hold`, the walk the
    /// plan follows), each held one said with what it waits behind.
    fn held(&self) -> Held<'_> {
        let mut holding = Holding::new(self.unarrived);
        let mut held = Held::default();
        for i in self
            .open
            .iter()
            .filter(|i| i.status == IntentStatus::Queued)
        {
            match holding.check(i, self.early(i)) {
                // Behind what the plan leaves for a later round: queued, as far as an
                // operator can tell (the report does not plan).
                None | Some(Wait::AfterQueued) => held.free.push(i),
                Some(Wait::Early) => held.early.push(i),
                Some(Wait::AfterParked) => held.after_parked.push(i),
                Some(Wait::AfterClock) => held.clock.push(i),
                Some(Wait::AfterUnarrived) => held.revert.push(i),
                Some(Wait::Parked) => held.parked.push(i),
            }
        }
        held
    }

    /// The report: what is stuck ([`Settling::stuck`]) and what waits
    /// ([`Settling::waiting`]), from one walk.
    pub fn report(&self) -> (Vec<Issue>, Vec<Issue>) {
        let held = self.held();
        (self.stuck_in(&held), self.waiting_in(&held))
    }

    /// What holds settlement up past the threshold (parked movements at once); empty when
    /// nothing does.
    pub fn stuck(&self) -> Vec<Issue> {
        self.stuck_in(&self.held())
    }

    fn stuck_in(&self, held: &Held<'_>) -> Vec<Issue> {
        let mut out = Vec::new();
        let parked = &held.parked;
        if let Some(first) = parked
            .iter()
            .min_by_key(|i| i.parked_at.unwrap_or(i.created_at))
        {
            let why = first.parked.clone().unwrap_or_default();
            let behind = match held.after_parked.len() {
                0 => String::new(),
                n => format!(" ({n} more wait behind them)"),
            };
            out.push(Issue {
                kind: IssueKind::Parked,
                count: count(parked.len()),
                since: Timestamp::at(first.parked_at.unwrap_or(first.created_at)),
                what: format!(
                    "{} movement(s) parked for an operator{behind}; the first: {why}",
                    parked.len()
                ),
                action: format!(
                    "Repair what parked them (each one's reason is in GET /admin/merchants/{}/chain: a treasury short of a token gets it at {}; gas that never sufficed needs the relayer funded), then {} sends them again",
                    self.merchant,
                    self.relayer.to_checksum(),
                    self.retry()
                ),
            });
        }
        let unmined: Vec<&ChainTx> = self.txs.iter().filter(|t| self.old(t.created_at)).collect();
        if let Some(first) = unmined.iter().min_by_key(|t| t.created_at) {
            out.push(Issue {
                kind: IssueKind::Unmined,
                count: count(unmined.len()),
                since: Timestamp::at(first.created_at),
                what: format!(
                    "{} transaction(s) signed and not mined for more than {} (the first: nonce {})",
                    unmined.len(),
                    minutes(self.after),
                    first.nonce
                ),
                action: "Check the chain's node (GET /health: chain.node) and the relayer's ETH: the settler sends an unmined transaction again, and replaces it with a higher fee every CHAIN_REPLACE_AFTER_MS".into(),
            });
        }
        if let Some(t) = self.trouble.filter(|t| self.old(t.since)) {
            out.push(self.trouble_issue(t));
        }
        let queued: Vec<&Intent> = held
            .free
            .iter()
            .copied()
            .filter(|i| self.old(i.created_at))
            .collect();
        if let Some(first) = queued.first() {
            out.push(Issue {
                kind: IssueKind::Queued,
                count: count(queued.len()),
                since: Timestamp::at(first.created_at),
                what: format!(
                    "{} movement(s) queued for more than {}",
                    queued.len(),
                    minutes(self.after)
                ),
                action: format!(
                    "The settler sends what is queued every round: see why it does not in GET /admin/merchants/{}/chain (relayer.error, transactions); if nothing there explains it, the merchant's alarm may not be running",
                    self.merchant
                ),
            });
        }
        out.extend(self.unpaid_issue());
        out
    }

    /// The debts left with nothing open to pay them, past the threshold: each said with its
    /// token, its amount, who owes it and to whom.
    fn unpaid_issue(&self) -> Option<Issue> {
        let since = self.unpaid.filter(|at| self.old(*at))?;
        let debts: Vec<String> = self
            .tokens
            .iter()
            .flat_map(|t| t.owed.iter().map(move |d| (t, d)))
            .map(|(t, d)| {
                let amount = Decimal::from_units(d.amount.raw(), t.decimals);
                format!(
                    "{} {} owed by {} to {}",
                    amount.as_str(),
                    t.symbol,
                    side(&d.by),
                    side(&d.to)
                )
            })
            .collect();
        Some(Issue {
            kind: IssueKind::Unpaid,
            count: count(debts.len()),
            since: Timestamp::at(since),
            what: format!(
                "{} debt(s) in the ledger with no movement open to pay them for more than {}: {}",
                debts.len(),
                minutes(self.after),
                debts.join("; ")
            ),
            action: format!(
                "GET /admin/merchants/{}/reconcile shows where the ledger and the chain hold apart because of them. A transfer the chain has not mined yet (one a reorganization removed, mined again) still pays them when it arrives; if none will, the ledger booked value where the chain does not have it: report it with this merchant's chain view",
                self.merchant
            ),
        })
    }

    fn trouble_issue(&self, t: Trouble) -> Issue {
        let relayer = self.relayer.to_checksum();
        let (what, action) = match t.kind {
            IssueKind::OutOfGas => (
                format!("The relayer {relayer} is out of gas"),
                format!(
                    "Send ETH to {relayer} on chain {}; settlement resumes by itself",
                    self.chain_id
                ),
            ),
            IssueKind::TokenMissing => (
                "A token's movements wait for a deployment that has no code on chain".to_string(),
                format!(
                    "See which token in GET /admin/merchants/{}/chain (relayer.error) and why its deployment failed",
                    self.merchant
                ),
            ),
            IssueKind::WrongFactory => (
                "Token deployments wait: CHAIN_FACTORY deploys another token code than this release's".to_string(),
                "Deploy this release's factory (scripts/deploy-contracts.mjs) and set CHAIN_FACTORY to it; deployments resume by themselves".to_string(),
            ),
            _ => (
                "The chain's node does not answer the settler, or refuses it".to_string(),
                "Check the node behind CHAIN_RPC_URL (GET /health: chain.node); settlement resumes by itself once it answers".to_string(),
            ),
        };
        Issue {
            kind: t.kind,
            count: count(self.open.len()),
            since: Timestamp::at(t.since),
            what: format!("{what}, for more than {}", minutes(self.after)),
            action,
        }
    }

    /// What waits (not stuck): releases before their unlock time on chain, and their
    /// beneficiaries' movements of those tokens behind them; movements behind a revert of
    /// ours not final yet.
    pub fn waiting(&self) -> Vec<Issue> {
        self.waiting_in(&self.held())
    }

    fn waiting_in(&self, held: &Held<'_>) -> Vec<Issue> {
        let mut out = Vec::new();
        out.extend(self.clock_issue(&held.early, &held.clock));
        if let Some(first) = held.revert.first() {
            out.push(Issue {
                kind: IssueKind::Finality,
                count: count(held.revert.len()),
                since: Timestamp::at(first.created_at),
                what: format!(
                    "{} movement(s) spend what a transaction of ours that reverted (or succeeded without moving it) was to bring: they wait until its receipt is final (CHAIN_FINALITY blocks deep) and the settler acts on it",
                    held.revert.len()
                ),
                action: "Nothing: they go out once it is final, CHAIN_FINALITY blocks after the block that holds it".into(),
            });
        }
        out
    }

    fn clock_issue(&self, early: &[&Intent], behind: &[&Intent]) -> Option<Issue> {
        let first = early.first()?;
        let next = early
            .iter()
            .filter_map(|i| match &i.action {
                Action::Release { unlock_at, .. } => Some(*unlock_at),
                _ => None,
            })
            .min()
            .unwrap_or(0);
        let clock = match self.chain_time {
            Some(t) => format!("is at {}", Timestamp::at(t.saturating_mul(1000))),
            None => "is not known yet".to_string(),
        };
        Some(Issue {
            kind: IssueKind::ChainClock,
            count: count(early.len().saturating_add(behind.len())),
            since: Timestamp::at(first.created_at),
            what: format!(
                "{} release(s) wait for the chain's clock to reach their unlock time (the first at {}; the chain's clock {clock}), and {} movement(s) of their beneficiaries behind them",
                early.len(),
                Timestamp::at(next.saturating_mul(1000)),
                behind.len()
            ),
            action: "Nothing: they go out once the chain's clock passes it (a local node's clock moves with POST /admin/time/advance)".into(),
        })
    }
}
