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
//! - A release waits for the chain's own clock to reach its unlock time (the contract skips
//!   one its block finds early), and what its beneficiary does next with that token (a
//!   transfer, a swap) waits behind it: it spends what the release brings.
//! - A parked movement (`Intent::parked`) is not sent, and what may depend on it waits
//!   behind it: its recipient's own movements of the tokens it moves (a parked sell: the USDC
//!   it was to bring too; a parked pool opening: the whole token).
//! - So does what may depend on a movement whose transaction reverted in a block that is not
//!   final yet, or succeeded there without moving it (`unshown`: its token had no code when
//!   it was mined). Nothing is done about either until it is (`receipt`), and what it was
//!   to bring has not arrived: its recipient's own movements of the tokens it moves (for a
//!   swap, the token and USDC) would revert for want of it, spend gas, and spend attempts of
//!   theirs (`ATTEMPTS_BEHIND`) on a failure that is ours. They go once the revert is acted on.
//! - And what depends on a movement held back for any of these waits behind it in turn
//!   ([`Behind`]): a buy held behind a revert holds its buyer's transfer of what it buys, and
//!   a holder's payment into the treasury held back holds the treasury's movements of that
//!   token back to that holder (a presale's refund returns what the purchase brings).
//!   Nothing else of the treasury's waits: its balance does not hang on one payment.

use super::receipt::needs;
use crate::error::Result;
use crate::model::address::Address;
use crate::model::ids::TokenAddress;
use crate::model::intent::{Account, Action, Intent, IntentStatus};
use crate::model::settlement::TxState;
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
/// timestamp, UNIX seconds), which releases wait for (None: every release is due).
pub fn plan(
    store: &dyn Store,
    limits: Limits,
    batchable: impl Fn(&TokenAddress) -> bool,
    chain_time: Option<u64>,
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
    let mut held: BTreeSet<TokenAddress> = BTreeSet::new();
    let unarrived = unarrived(store, &open)?;
    let mut behind = Behind::default();
    for i in open {
        if i.status != IntentStatus::Queued {
            continue;
        }
        let early = match &i.action {
            Action::Release { unlock_at, .. } => chain_time.is_some_and(|now| now < *unlock_at),
            _ => false,
        };
        if i.parked.is_some() || early {
            if matches!(i.action, Action::OpenPool { .. }) {
                held.insert(i.token);
            } else {
                // Its recipient's own movements of what it was to bring (a sell's USDC too)
                // wait behind it.
                behind.hold(&i);
            }
            continue;
        }
        if unarrived.waits(&i) || behind.waits(&i) {
            // What it brings has not arrived either: what its recipient does next with it
            // waits too, or it would go out ahead of what funds it.
            behind.hold(&i);
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
        if (call != Call::Deploy && deploying.contains(&i.token)) || held.contains(&i.token) {
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
            // token may overtake it: the next round takes them.
            held.insert(i.token);
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

/// What movements not carried out in blocks not final yet were to bring: held as [`Behind`]
/// holds a movement (see the module). Those of a reverted transaction, and a success's
/// `unshown` ones (it moved nothing for them: a token without code when it was mined). Both
/// go again only once final. `open`: the open intents.
pub fn unarrived(store: &dyn Store, open: &[Intent]) -> Result<Behind> {
    let missing: BTreeSet<u64> = store
        .unfinal_chain_txs()?
        .into_iter()
        .flat_map(|tx| match tx.state {
            TxState::Reverted => tx.intents,
            TxState::Mined => tx.unshown,
            TxState::Signed | TxState::Sent | TxState::Abandoned => Vec::new(),
        })
        .collect();
    let mut out = Behind::default();
    for i in open.iter().filter(|i| missing.contains(&i.id)) {
        out.hold(i);
    }
    Ok(out)
}

/// What waits behind movements held back this round (a parked or early movement, one behind
/// a revert not final yet, and what waits behind those), which would spend what has not
/// arrived: each one's recipient's own movements of the tokens it moves; and, behind a
/// holder's payment into the treasury, the treasury's movements of that token back to that
/// holder (a refund returns what the payment brings). Held in turn, those hold what depends
/// on them.
#[derive(Debug, Default)]
pub struct Behind {
    /// (token, wallet): what a held movement was to bring the wallet.
    brought: BTreeSet<(TokenAddress, Address)>,
    /// (token, wallet): the wallet's held payments of the token into the treasury.
    paid_in: BTreeSet<(TokenAddress, Address)>,
}

impl Behind {
    /// Nothing held.
    pub const fn new() -> Behind {
        Behind {
            brought: BTreeSet::new(),
            paid_in: BTreeSet::new(),
        }
    }

    /// `i` is held back: what its recipient does next with the tokens it moves waits, and
    /// so does what the treasury returns of a payment of it.
    pub fn hold(&mut self, i: &Intent) {
        if let Some(a) = i.action.recipient() {
            for t in needs(i.token, &i.action) {
                self.brought.insert((t, a));
            }
        }
        if let Action::Transfer {
            from: Account::Wallet(a),
            to: Account::Treasury,
            ..
        } = i.action
        {
            self.paid_in.insert((i.token, a));
        }
    }

    /// Whether `i` spends, of a token it needs, what a movement held back was to bring.
    pub fn waits(&self, i: &Intent) -> bool {
        let spends = i.action.spender().is_some_and(|a| {
            needs(i.token, &i.action)
                .iter()
                .any(|t| self.brought.contains(&(*t, a)))
        });
        spends
            || matches!(i.action, Action::Transfer {
                from: Account::Treasury,
                to: Account::Wallet(a),
                ..
            } if self.paid_in.contains(&(i.token, a)))
    }
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
