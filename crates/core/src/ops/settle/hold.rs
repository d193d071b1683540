//! Which queued movements the settler holds back, and why: one walk, which the plan
//! ([`super::plan`]) follows to leave them out of a round and the operator's report
//! (`ops::stuck`) follows to say what each one waits behind, so the two cannot drift apart.
//!
//! - A parked movement (`Intent::parked`) is not sent, and what may depend on it waits
//!   behind it: its recipient's own movements of the tokens it moves (a parked sell: the USDC
//!   it was to bring too; a parked pool opening: the whole token).
//! - A release waits for the chain's own clock to reach its unlock time (the contract skips
//!   one its block finds early), and what its beneficiary does next with that token (a
//!   transfer, a swap) waits behind it: it spends what the release brings.
//! - So does what may depend on a movement whose transaction reverted in a block that is not
//!   final yet, or succeeded there without moving it (`unshown`: its token had no code when
//!   it was mined). Nothing is done about either until it is (`receipt`), and what it was
//!   to bring has not arrived: its recipient's own movements of the tokens it moves (for a
//!   swap, the token and USDC) would revert for want of it, spend gas, and spend attempts of
//!   theirs (`ATTEMPTS_BEHIND`) on a failure that is ours. They go once the revert is acted on.
//! - And what depends on a movement held back for any of these waits behind it in turn
//!   ([`Behind`]), with the same cause (a sell held with its token behind the pool's opening
//!   holds its holder's spends of the USDC it brings): a buy held behind a revert holds its
//!   buyer's transfer of what it buys, and a holder's payment into the treasury held back
//!   holds the treasury's movements of that token back to that holder (a presale's refund
//!   returns what the purchase brings), and a pool's opening that pays USDC (a launch's
//!   raise, which is what the purchases paid in). Nothing else of the treasury's waits: its
//!   balance does not hang on one payment.

use super::needs::needs;
use crate::error::Result;
use crate::model::address::Address;
use crate::model::ids::TokenAddress;
use crate::model::intent::{Account, Action, Intent};
use crate::model::settlement::TxState;
use crate::store::Store;
use std::collections::{BTreeMap, BTreeSet};

/// Why a queued movement is held back this round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// It is parked for an operator.
    Parked,
    /// A release the chain's clock has not reached.
    Early,
    /// It depends on a parked movement (or its token's pool opening is parked).
    AfterParked,
    /// It depends on a release the chain's clock has not reached.
    AfterClock,
    /// It depends on a revert of ours not final yet, or a success not final yet that did not
    /// move what it was to bring.
    AfterUnarrived,
    /// It depends on a movement the plan holds back this round for its own reasons (its
    /// token's deployment not confirmed yet, the round full: [`Holding::queued`]); it goes in
    /// a round after that one.
    AfterQueued,
}

/// The walk over a round's queued movements, oldest first: [`Holding::check`] each one.
/// What a held movement was to bring is kept apart by cause, so a movement is said with what
/// holds it; the plan holds a movement for any of them.
#[derive(Debug)]
pub struct Holding<'a> {
    /// What reverts and unshown successes not final yet were to bring ([`unarrived`]); the
    /// chain's USDC with it.
    unarrived: &'a Behind,
    after_parked: Behind,
    after_clock: Behind,
    after_unarrived: Behind,
    after_queued: Behind,
    /// Tokens held whole behind their pool's opening, parked or held back, with why: what
    /// follows an opening trades in its pool.
    whole: BTreeMap<TokenAddress, Wait>,
}

impl<'a> Holding<'a> {
    pub fn new(unarrived: &'a Behind) -> Holding<'a> {
        Holding {
            unarrived,
            after_parked: Behind::new(unarrived.usdc),
            after_clock: Behind::new(unarrived.usdc),
            after_unarrived: Behind::new(unarrived.usdc),
            after_queued: Behind::new(unarrived.usdc),
            whole: BTreeMap::new(),
        }
    }

    /// Whether the queued movement `i` is held back, and why (None: it may go). `early`: it is
    /// a release the chain's clock has not reached. Called for each queued movement in order:
    /// a held one holds what depends on it after it.
    pub fn check(&mut self, i: &Intent, early: bool) -> Option<Wait> {
        if i.parked.is_some() {
            if matches!(i.action, Action::OpenPool { .. }) {
                self.whole.insert(i.token, Wait::AfterParked);
            } else {
                // Its recipient's own movements of what it was to bring (a sell's USDC too)
                // wait behind it.
                self.after_parked.hold(i);
            }
            return Some(Wait::Parked);
        }
        if early {
            self.after_clock.hold(i);
            return Some(Wait::Early);
        }
        let on_parked = self.after_parked.waits(i);
        let on_clock = self.after_clock.waits(i);
        let on_unarrived = self.unarrived.waits(i) || self.after_unarrived.waits(i);
        let on_queued = self.after_queued.waits(i);
        // What it brings has not arrived either: what its recipient does next with it waits
        // too, or it would go out ahead of what funds it.
        for (on, after) in [
            (on_parked, &mut self.after_parked),
            (on_clock, &mut self.after_clock),
            (on_unarrived, &mut self.after_unarrived),
            (on_queued, &mut self.after_queued),
        ] {
            if on {
                after.hold(i);
            }
        }
        let wait = if on_parked {
            Some(Wait::AfterParked)
        } else if on_clock {
            Some(Wait::AfterClock)
        } else if on_unarrived {
            Some(Wait::AfterUnarrived)
        } else if on_queued {
            Some(Wait::AfterQueued)
        } else {
            // Held with its token behind the pool's opening: what it was to bring (a sell's
            // USDC) has not come either, so what depends on it waits with the same cause.
            let whole = self.whole.get(&i.token).copied();
            if let Some(w) = whole {
                self.after(w).hold(i);
            }
            whole
        };
        if let (Some(w), Action::OpenPool { .. }) = (wait, &i.action) {
            self.whole.entry(i.token).or_insert(w);
        }
        wait
    }

    /// What waits behind a movement held for `cause`, said with that cause.
    fn after(&mut self, cause: Wait) -> &mut Behind {
        match cause {
            Wait::Parked | Wait::AfterParked => &mut self.after_parked,
            Wait::Early | Wait::AfterClock => &mut self.after_clock,
            Wait::AfterUnarrived => &mut self.after_unarrived,
            Wait::AfterQueued => &mut self.after_queued,
        }
    }

    /// The plan holds `i` back this round though the walk let it go (its token's deployment
    /// is not confirmed yet, or the round is full): what depends on it waits too, or it would
    /// go out ahead of what funds it (a holder's USDC payment ahead of the sell that brings
    /// it, while the sold token is deployed again after a reorganization).
    pub fn queued(&mut self, i: &Intent) {
        self.after_queued.hold(i);
    }
}

/// What movements not carried out in blocks not final yet were to bring: held as [`Behind`]
/// holds a movement (see the module). Those of a reverted transaction, and a success's
/// `unshown` ones (it moved nothing for them: a token without code when it was mined). Both
/// go again only once final. `open`: the open intents; `usdc`: the chain's USDC
/// (`ChainMode::usdc`).
pub fn unarrived(store: &dyn Store, open: &[Intent], usdc: TokenAddress) -> Result<Behind> {
    let missing: BTreeSet<u64> = store
        .unfinal_chain_txs()?
        .into_iter()
        .flat_map(|tx| match tx.state {
            TxState::Reverted => tx.intents,
            TxState::Mined => tx.unshown,
            TxState::Signed | TxState::Sent | TxState::Abandoned => Vec::new(),
        })
        .collect();
    let mut out = Behind::new(usdc);
    for i in open.iter().filter(|i| missing.contains(&i.id)) {
        out.hold(i);
    }
    Ok(out)
}

/// What waits behind movements held back (a parked or early movement, one behind a revert
/// not final yet, and what waits behind those), which would spend what has not arrived: each
/// one's recipient's own movements of the tokens it moves; and, behind a holder's payment
/// into the treasury, the treasury's movements of that token back to that holder (a refund
/// returns what the payment brings), and behind a payment of USDC, a pool's opening that pays
/// USDC (a launch pays its raise). Held in turn, those hold what depends on them.
#[derive(Debug)]
pub struct Behind {
    /// The chain's USDC (see [`needs`]).
    usdc: TokenAddress,
    /// (token, wallet): what a held movement was to bring the wallet.
    brought: BTreeSet<(TokenAddress, Address)>,
    /// (token, wallet): the wallet's held payments of the token into the treasury.
    paid_in: BTreeSet<(TokenAddress, Address)>,
}

impl Behind {
    /// Nothing held, on a chain whose USDC is `usdc`.
    pub const fn new(usdc: TokenAddress) -> Behind {
        Behind {
            usdc,
            brought: BTreeSet::new(),
            paid_in: BTreeSet::new(),
        }
    }

    /// `i` is held back: what its recipient does next with the tokens it moves waits, and
    /// so does what the treasury returns of a payment of it.
    pub fn hold(&mut self, i: &Intent) {
        if let Some(a) = i.action.recipient() {
            for t in needs(self.usdc, i.token, &i.action) {
                self.brought.insert((t, a));
            }
        }
        if let Action::Transfer {
            from: Account::Wallet(a),
            to: Account::Treasury,
            ..
        } = i.action
        {
            self.paid_in.insert((self.own(i), a));
        }
    }

    /// Whether `i` spends, of a token it needs, what a movement held back was to bring.
    pub fn waits(&self, i: &Intent) -> bool {
        let spends = i.action.spender().is_some_and(|a| {
            needs(self.usdc, i.token, &i.action)
                .iter()
                .any(|t| self.brought.contains(&(*t, a)))
        });
        let returns = matches!(i.action, Action::Transfer {
            from: Account::Treasury,
            to: Account::Wallet(a),
            ..
        } if self.paid_in.contains(&(self.own(i), a)));
        // Sent ahead of a purchase, a launch's opening would revert for want of the raise.
        let opens_on_the_raise = matches!(i.action, Action::OpenPool { usdc, .. }
            if !usdc.is_zero() && self.paid_in.iter().any(|(t, _)| *t == self.usdc));
        spends || returns || opens_on_the_raise
    }

    /// The token `i` moves of its own, USDC under the chain's address.
    fn own(&self, i: &Intent) -> TokenAddress {
        needs(self.usdc, i.token, &i.action)[0]
    }
}
