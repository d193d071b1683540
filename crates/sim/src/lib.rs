//! tokenpad's seeded simulator, in the spirit of TigerBeetle's: the functional core (every
//! operation, through the same decoding and `wire::apply` as HTTP requests) with its
//! in-memory store, run the merchant object's way (`node`), settling on a simulated EVM chain
//! (`chain`) through the core's settlement round, the worker's (`settler`, over the ports of
//! `chain_port`), driven by a seed through long random histories: holders, rewards, spends, transfers, withdrawals, presales with
//! their launches, refunds and locks, pools and trades (others' too), token creations and
//! deployments, sessions, webhooks; with faults: the object stopping between any two steps of
//! a settlement round or of a request, answers lost before or after a commit, requests sent
//! twice, transactions reverted, held (for a while or forever), dropped and replaced, the
//! node down, a webhook receiver down or slow, the clock jumping; and a chain that says no the
//! way chains do: every transaction charged its gas and out of gas past its limit, the gas
//! repriced, the relayer's nonce taken from outside, and (in hostile worlds, `--hostile`)
//! reorganizations, between rounds and in the middle of one (`chain_port::MidRound`). After
//! every step the invariants of `check` hold.
//!
//! A seed names its history (`gen`): rerunning the seed runs the same history. A failing one
//! is shrunk to the shortest history that still fails the same invariant (`shrink`), which is
//! printed step by step; it runs from its steps alone (no randomness is drawn while running).

// A test harness: a broken invariant must stop it loudly, and its tables are indexed by
// construction.
#![allow(clippy::indexing_slicing)]

pub mod bug;
pub mod chain;
pub mod chain_port;
pub mod check;
pub mod debts;
pub mod gen;
pub mod node;
pub mod requests;
pub mod settler;
pub mod shell;
pub mod step;
pub mod webhooks;
pub mod world;

use bug::Bug;
use check::Violation;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use step::Step;
use world::World;

/// What a history did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub steps: u64,
    pub answered: u64,
    pub intents: usize,
    pub blocks: u64,
    pub events: usize,
    /// How many of each: events by type, chain movements by kind and outcome
    /// (`Transfer confirmed`), answers by status.
    pub counts: std::collections::BTreeMap<String, u64>,
    /// SHA-256 of the final state: the ledger (every table of the store), the chain's
    /// contracts, receipts and logs, and what the webhook receiver got. The same seed gives
    /// the same digest on every run and machine.
    pub digest: String,
}

impl Summary {
    /// Adds another history's figures to these.
    pub fn add(&mut self, s: &Summary) {
        self.steps += s.steps;
        self.answered += s.answered;
        self.intents += s.intents;
        self.blocks += s.blocks;
        self.events += s.events;
        for (k, v) in &s.counts {
            *self.counts.entry(k.clone()).or_default() += v;
        }
        self.digest =
            tokenpad_core::crypto::sha256_hex(format!("{}{}", self.digest, s.digest).as_bytes());
    }
}

/// A history that broke an invariant: at which step, and the (shrunk) history.
#[derive(Clone, Debug)]
pub struct Failure {
    pub seed: u64,
    /// The length the seed's history was drawn with (`--steps`).
    pub steps: usize,
    /// The bug planted, if any (`--plant`).
    pub bug: Option<Bug>,
    /// Drawn in a hostile world (`--hostile`).
    pub hostile: bool,
    pub violation: Violation,
    /// The steps up to and including the one that failed.
    pub history: Vec<Step>,
    /// How long the history drawn from the seed was, up to its failing step, before shrinking.
    pub drawn: usize,
}

impl Failure {
    /// The command that runs this seed again (and prints this again).
    pub fn rerun(&self) -> String {
        let plant = self
            .bug
            .map(|b| format!(" --plant {b}"))
            .unwrap_or_default();
        let hostile = if self.hostile { " --hostile" } else { "" };
        // The thread's settings the history was drawn and run with.
        let own = if node::chain_usdc() == tokenpad_core::model::token::USDC_ADDRESS.0 {
            ""
        } else {
            " --own-usdc"
        };
        let launches = if gen::launches() { " --launches" } else { "" };
        let whales = if gen::whales() { " --whales" } else { "" };
        format!(
            "cargo run -p tokenpad-sim -- --seed {} --steps {}{plant}{hostile}{own}{launches}{whales}",
            self.seed, self.steps
        )
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "seed {} breaks {}", self.seed, self.violation)?;
        writeln!(
            f,
            "shortest failing history ({} steps, shrunk from {}):",
            self.history.len(),
            self.drawn
        )?;
        for (i, s) in self.history.iter().enumerate() {
            writeln!(f, "  {i:>4}  {s}")?;
        }
        write!(f, "rerun: {}", self.rerun())
    }
}

fn summary(w: &World) -> Summary {
    let mut counts = w.statuses.clone();
    counts.extend(w.debts.counts());
    for e in w.node.store.log.events.values() {
        *counts
            .entry(format!("event {}", e.kind.as_str()))
            .or_default() += 1;
    }
    for i in &w.node.store.intents {
        let kind = format!("{:?}", i.action);
        let kind = kind.split([' ', '{']).next().unwrap_or_default();
        *counts
            .entry(format!("movement {kind} {:?}", i.status))
            .or_default() += 1;
    }
    for r in w.chain.receipts.values() {
        let outcome = match r.reason.as_deref() {
            None => "mined",
            Some(chain::gas::OUT_OF_GAS) => "out of gas",
            Some(chain::INJECTED_OUT_OF_GAS) => "out of gas (injected)",
            Some(_) => "reverted",
        };
        *counts.entry(format!("receipt {outcome}")).or_default() += 1;
    }
    *counts.entry("chain reorganizations".into()).or_default() += w.chain.blocks.reorgs;
    *counts
        .entry("chain transactions held forever".into())
        .or_default() += w.chain.held.len() as u64;
    for t in w.node.store.chain_txs.values() {
        *counts
            .entry(format!("relayer tx {:?}", t.state))
            .or_default() += 1;
    }
    for (kind, n) in &w.chain.blocks.undone {
        *counts.entry(format!("reorg undid {kind}")).or_default() += n;
    }
    Summary {
        steps: w.steps,
        answered: w.answered,
        intents: w.node.store.intents.len(),
        blocks: w.chain.block,
        events: w.node.store.log.events.len(),
        counts,
        digest: tokenpad_core::crypto::sha256_hex(
            format!(
                "{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
                w.node.store, w.chain.state, w.chain.receipts, w.chain.logs, w.received
            )
            .as_bytes(),
        ),
    }
}

/// How every history ends: everything settled, then past every lock's unlock (presales lock
/// for at most two days) and settled again, so releases run too.
const TAIL: [Step; 3] = [
    Step::Settle,
    Step::Wait { ms: 4 * 86_400_000 },
    Step::Settle,
];

/// Draws seed `seed`'s history of `len` steps (and the final `TAIL`) and runs it; the
/// history, and where it failed if it did.
pub fn draw(seed: u64, len: usize) -> (Vec<Step>, Result<Summary, Violation>) {
    draw_with(seed, len, None)
}

/// `draw`, with `bug` planted in the service.
pub fn draw_with(
    seed: u64,
    len: usize,
    bug: Option<Bug>,
) -> (Vec<Step>, Result<Summary, Violation>) {
    draw_opts(seed, len, bug, false)
}

/// `draw_with`, in a hostile world when `hostile` (the chain reorganizes too).
pub fn draw_opts(
    seed: u64,
    len: usize,
    bug: Option<Bug>,
    hostile: bool,
) -> (Vec<Step>, Result<Summary, Violation>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut world = World::with_bug(bug);
    if hostile {
        world.harden();
    }
    let (mut n, mut lost) = (0, Vec::new());
    let mut history = Vec::with_capacity(len + TAIL.len());
    for i in 0..len + TAIL.len() {
        let step = match i.checked_sub(len) {
            Some(t) => TAIL[t].clone(),
            None => gen::next(&mut rng, &world, &mut n, &mut lost),
        };
        let outcome = world.apply(&step);
        history.push(step);
        if let Err(v) = outcome {
            return (history, Err(v));
        }
    }
    (history, Ok(summary(&world)))
}

/// Runs a history from its steps; the index of the step that broke an invariant, and which.
pub fn replay(history: &[Step]) -> Result<Summary, (usize, Violation)> {
    replay_with(history, None)
}

/// `replay`, with `bug` planted in the service.
pub fn replay_with(history: &[Step], bug: Option<Bug>) -> Result<Summary, (usize, Violation)> {
    let mut world = World::with_bug(bug);
    // A history that reorganizes the chain runs in a hostile world (from its steps alone).
    let reorg = |s: &Step| match s {
        Step::Chain(step::ChainFault::Reorg { .. }) => true,
        Step::Alarm { round, .. } => round.reorg.is_some(),
        _ => false,
    };
    if history.iter().any(reorg) {
        world.harden();
    }
    for (i, step) in history.iter().enumerate() {
        world.apply(step).map_err(|v| (i, v))?;
    }
    Ok(summary(&world))
}

/// The shortest history found that still breaks `invariant`: chunks of steps are taken out,
/// from halves down to single steps, keeping each removal after which it still fails
/// (delta debugging); it ends at its failing step.
pub fn shrink(history: &[Step], invariant: &str, bug: Option<Bug>) -> Vec<Step> {
    let fails = |h: &[Step]| match replay_with(h, bug) {
        Err((i, v)) if v.invariant == invariant => Some(i),
        _ => None,
    };
    let mut best: Vec<Step> = history.to_vec();
    let Some(end) = fails(&best) else { return best };
    best.truncate(end + 1);
    let mut chunk = best.len() / 2;
    while chunk >= 1 {
        let mut start = 0;
        while start < best.len() {
            let mut candidate = best.clone();
            let stop = (start + chunk).min(candidate.len());
            candidate.drain(start..stop);
            match fails(&candidate) {
                Some(end) => {
                    candidate.truncate(end + 1);
                    best = candidate;
                }
                None => start += chunk,
            }
        }
        chunk /= 2;
    }
    best
}

/// Seed `seed`: its history of `len` steps, shrunk when it fails.
pub fn run_seed(seed: u64, len: usize) -> Result<Summary, Failure> {
    run_seed_with(seed, len, None)
}

/// `run_seed`, with `bug` planted in the service.
pub fn run_seed_with(seed: u64, len: usize, bug: Option<Bug>) -> Result<Summary, Failure> {
    run_seed_opts(seed, len, bug, false)
}

/// `run_seed_with`, in a hostile world when `hostile` (`draw_opts`).
pub fn run_seed_opts(
    seed: u64,
    len: usize,
    bug: Option<Bug>,
    hostile: bool,
) -> Result<Summary, Failure> {
    let (history, outcome) = draw_opts(seed, len, bug, hostile);
    match outcome {
        Ok(s) => Ok(s),
        Err(violation) => {
            let drawn = history.len();
            let history = shrink(&history, violation.invariant, bug);
            let violation = replay_with(&history, bug)
                .err()
                .map_or(violation, |(_, v)| v);
            Err(Failure {
                seed,
                steps: len,
                bug,
                hostile,
                violation,
                history,
                drawn,
            })
        }
    }
}

/// The seeds CI runs (`scripts/test.sh`'s `sim` step: `cargo run -p tokenpad-sim -- --ci`),
/// and their length.
pub const CI_SEEDS: std::ops::Range<u64> = 0..24;
pub const CI_STEPS: usize = 400;
/// The seeds CI also runs in a hostile world (`--hostile`: the chain reorganizes, and the
/// service waits `CHAIN_FINALITY` blocks), at `CI_STEPS`.
pub const HOSTILE_CI_SEEDS: std::ops::Range<u64> = 0..100;
/// And these, hostile, at `LONG_STEPS`: a bug hid at 1,000 steps that 400 never reached (seed
/// 5119, `tests/hostile.rs`). Affordable since the in-memory store's copy costs what a
/// transaction changed, not the store's size (about 1 s a seed in a debug build).
pub const LONG_HOSTILE_CI_SEEDS: std::ops::Range<u64> = 5000..5020;
pub const LONG_STEPS: usize = 1000;
/// And these, hostile, at `CI_STEPS`, on a chain whose USDC is its own (`--own-usdc`: Base
/// Sepolia's address, as on a testnet or a local node), not Base's: settlement once took
/// what a swap needs of USDC to be Base's, a bug no history on Base's address could show.
pub const OWN_USDC_CI_SEEDS: std::ops::Range<u64> = 0..50;
/// And these, hostile, at `LONG_STEPS`, with small pools and whales (`--whales`): pools that
/// owe an outside trader, its claims carried on, a top-up a pool owed removed by a
/// reorganization (seed 55). Seeds 7, 13, 14, 24 and 25 make debts.
pub const WHALES_CI_SEEDS: std::ops::Range<u64> = 0..30;
/// And these with whales, at `LONG_STEPS`: each found a bug beyond `WHALES_CI_SEEDS`
/// (55, 392 and 983 in the ledger, replayed in `tests/claim_regressions.rs`; 275 in a first
/// fix of 392's, `netting/pools.rs` in the core's tests).
pub const WHALES_REGRESSION_SEEDS: [u64; 4] = [55, 275, 392, 983];
/// The few `cargo test -p tokenpad-sim` runs on every build (the CI seeds run in their own
/// step).
pub const SMOKE_SEEDS: std::ops::Range<u64> = 0..3;
/// Seeds that found a bug outside the CI seeds (beyond their number or their length), each
/// with the length it was found at: `--ci` runs them too, after the CI seeds. A change to the
/// generator changes what a seed draws, so their shrunk histories are also replayed as they
/// were found (tests/regressions.rs).
pub const REGRESSION_SEEDS: [(u64, usize); 2] = [
    // A buy and a sell of what it bought both refused: undoing them must net (`ops::undo`).
    (2055, 600),
    // An outside sell mined before a holder's sell, which is refused: the pool's debt.
    (4045, 600),
];
