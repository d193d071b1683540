//! Which queued intents go out next, and how they group into chain calls.
//!
//! - A token's deployment goes alone, and nothing else of that token goes out until it is
//!   confirmed (a call to an address without code "succeeds" and does nothing).
//! - Transfers of one token group into one batch call, in the order they were made (order
//!   matters within a token: a holder spends what it received just before); different
//!   tokens' balances are independent, so their batches may interleave. A batch holds either
//!   the treasury's own transfers (rewards, allocations, refunds: the relayer sends them
//!   itself, with no signature per movement) or holders' (each signed by its holder): a run of
//!   one kind after the other starts a new batch, so the order holds. An intent whose batch
//!   reverted goes alone (`solo`), and so does every transfer of a token the chain cannot
//!   batch (USDC: Circle's contract has no batch call).
//! - A token's locks into tokenpad's lock contract group into one call, and so do its
//!   releases.
//! - Test-USDC mints (the local faucet) go one per transaction, and so do a pool's opening
//!   and each swap (the market contract's calls). A token's transfers made after its swap
//!   start a new batch behind it: they may spend what the swap brings.
//! - What the settler holds back (a parked movement, a release the chain's clock has not
//!   reached, what spends what a revert of ours not final yet was to bring, and what depends
//!   on any of those in turn) is not sent: [`super::hold`] says which, and why. So is what
//!   depends on a movement this plan leaves for a later round (its token deploying, the
//!   round full): [`Holding::queued`].

use super::hold::{unarrived, Holding};
use crate::error::Result;
use crate::model::ids::TokenAddress;
use crate::model::intent::{Account, Action, Intent, IntentStatus};
use crate::store::Store;
use std::collections::{BTreeMap, BTreeSet};

/// What one transaction calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// The factory deploys the token.
    Deploy,
    /// The token moves balances (one transfer, or a batch of them).
    Transfers,
    /// Test USDC is minted.
    Mint,
    /// tokenpad's market opens the token's pool.
    OpenPool,
    /// tokenpad's market swaps for a holder in the token's pool.
    Swap,
    /// The treasury's tokens into tokenpad's lock contract (a batch of locks).
    Lock,
    /// The lock contract releases due locks to their beneficiaries (a batch).
    Release,
}

/// One transaction to send: its call and the intents it settles, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    pub token: TokenAddress,
    pub call: Call,
    pub intents: Vec<Intent>,
}

/// How much one round of settlement sends.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Movements per batch transaction (gas grows with each).
    pub per_batch: usize,
    /// Transactions per round.
    pub batches: usize,
}

/// How far into the outbox one round looks.
const LOOKAHEAD: u32 = 5_000;

/// The next transactions to send, oldest intent first. `batchable` says whether a token's
/// contract has the batch call; `chain_time` is the chain's clock (its newest block's
/// timestamp, UNIX seconds), which releases wait for (None: every release is due); `usdc`
/// the chain's USDC (`ChainMode::usdc`).
pub fn plan(
    store: &dyn Store,
    limits: Limits,
    batchable: impl Fn(&TokenAddress) -> bool,
    chain_time: Option<u64>,
    usdc: TokenAddress,
) -> Result<Vec<Batch>> {
    let open = store.open_intents(LOOKAHEAD)?;
    let deploying: BTreeSet<TokenAddress> = open
        .iter()
        .filter(|i| matches!(i.action, Action::Deploy { .. }))
        .map(|i| i.token)
        .collect();
    let mut batches: Vec<Batch> = Vec::new();
    // The batch of each token still taking transfers this round.
    let mut filling: BTreeMap<TokenAddress, usize> = BTreeMap::new();
    // Tokens whose next movement did not fit this round: nothing later of them overtakes it.
    let mut full: BTreeSet<TokenAddress> = BTreeSet::new();
    let unarrived = unarrived(store, &open, usdc)?;
    let mut holding = Holding::new(&unarrived);
    for i in open {
        if i.status != IntentStatus::Queued {
            continue;
        }
        let early = match &i.action {
            Action::Release { unlock_at, .. } => chain_time.is_some_and(|now| now < *unlock_at),
            _ => false,
        };
        if holding.check(&i, early).is_some() {
            continue;
        }
        let call = match i.action {
            Action::Deploy { .. } => Call::Deploy,
            Action::Transfer { .. } => Call::Transfers,
            Action::Mint { .. } => Call::Mint,
            Action::OpenPool { .. } => Call::OpenPool,
            Action::Swap { .. } => Call::Swap,
            Action::Lock { .. } => Call::Lock,
            Action::Release { .. } => Call::Release,
        };
        if (call != Call::Deploy && deploying.contains(&i.token)) || full.contains(&i.token) {
            holding.queued(&i);
            continue;
        }
        let joins = !i.solo
            && match call {
                Call::Transfers => batchable(&i.token),
                Call::Lock | Call::Release => true,
                Call::Deploy | Call::Mint | Call::OpenPool | Call::Swap => false,
            };
        if joins {
            if let Some(b) = filling.get(&i.token).and_then(|at| batches.get_mut(*at)) {
                let same_kind = b.call == call
                    && b.intents.first().map(from_treasury) == Some(from_treasury(&i));
                if b.intents.len() < limits.per_batch && same_kind {
                    b.intents.push(i);
                    continue;
                }
            }
        }
        if batches.len() >= limits.batches {
            // Full for this round; and to keep order within a token, nothing later of this
            // token may overtake it: the next round takes them (and what depends on them).
            full.insert(i.token);
            holding.queued(&i);
            continue;
        }
        if joins {
            filling.insert(i.token, batches.len());
        } else {
            filling.remove(&i.token);
        }
        batches.push(Batch {
            token: i.token,
            call,
            intents: vec![i],
        });
    }
    Ok(batches)
}

/// Whether a movement is the treasury's own (sent by the relayer with no signature).
pub fn from_treasury(i: &Intent) -> bool {
    matches!(
        i.action,
        Action::Transfer {
            from: Account::Treasury,
            ..
        }
    )
}
