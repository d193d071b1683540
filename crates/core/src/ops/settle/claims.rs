//! Claims travel with the tokens.
//!
//! A pool that paid an outside address more than the ledger had left in it owes that address
//! the difference (`observe`, `ops::undo`): the rest was booked to tokenpad's own swaps not
//! mined yet. On chain the address holds it; in the ledger it is owed. When that address
//! sends on more than the ledger knows it has, the difference is those claims, and they go
//! with what it sent, oldest first:
//!
//! - sent back to the side that owes it (a trader selling into the pool it bought from, the
//!   last leg of a sandwich around a holder's swap): the debt is settled and nothing moves.
//!   The pool has it on chain again, and in the ledger it never left;
//! - sent elsewhere: the debt is owed to the receiver now, and the payment reaches it.
//!
//! Before, the ledger moved only what it knew the sender had, and the pool's debt stayed
//! with the sender: a pool refilled by the sender paid the sender, which no longer had it on
//! chain, and the pool came out short by as much (seed 23461 of the hostile simulator).
//!
//! What went is journaled with the log (`Observation::claims`), so a reorganization that
//! removes the log gives the claims back to the sender ([`restore`]).

use crate::error::Result;
use crate::model::amount::Units;
use crate::model::intent::{Owed, OwedSince, Side};
use crate::model::settlement::{Claim, Observation};
use crate::model::token::Token;
use crate::ops::undo;
use crate::store::Store;

/// Up to `short` of what is owed to `from` goes to `to` (see the module); what went.
pub(super) fn carry(t: &mut Token, from: &Side, to: &Side, short: Units) -> Result<Vec<Claim>> {
    let mut went = Vec::new();
    if from == to {
        return Ok(went);
    }
    let (mut left, mut k) = (short, 0);
    while !left.is_zero() {
        let Some(d) = t.owed.get_mut(k) else { break };
        if &d.to != from {
            k += 1;
            continue;
        }
        let n = d.amount.min(left);
        d.amount = d.amount.minus(n)?;
        // The debt's records are its debtor's (a holder's reversal after a rewind): a debt
        // owed to a sender outside the custody has no record of its creditor's.
        let (by, since, records) = (d.by.clone(), d.since, d.records.clone());
        if d.amount.is_zero() {
            t.owed.remove(k);
        } else {
            k += 1;
        }
        let settled = &by == to;
        if !settled {
            undo::owe(t, by.clone(), to.clone(), n, since, records);
        }
        went.push(Claim {
            by,
            since,
            amount: n,
            settled,
        });
        left = left.minus(n)?;
    }
    Ok(went)
}

/// A reorganization removed the log `o`: its claims are owed to its sender again. What the
/// receiver was paid of one meanwhile goes back to the side that paid it, as far as the
/// receiver still has it; the rest the receiver owes that side.
pub(super) fn restore(store: &mut dyn Store, t: &mut Token, o: &Observation) -> Result<()> {
    let (from, to) = (o.from.side(), o.to.side());
    for c in o.claims.iter().rev() {
        if !c.settled {
            let still = take(t, &c.by, &to, c.since, c.amount)?;
            let paid = c.amount.minus(still)?;
            let back = undo::give_back(store, t, &to, &c.by, paid)?;
            let since = OwedSince::Rewound {
                block: o.block,
                log_index: o.log_index,
            };
            undo::owe(
                t,
                to.clone(),
                c.by.clone(),
                paid.minus(back)?,
                since,
                vec![],
            );
        }
        undo::owe(t, c.by.clone(), from.clone(), c.amount, c.since, vec![]);
    }
    Ok(())
}

/// Takes up to `n` of the debts of `by` to `to` since `since`, newest first; how much.
fn take(t: &mut Token, by: &Side, to: &Side, since: OwedSince, n: Units) -> Result<Units> {
    let mine = |d: &Owed| &d.by == by && &d.to == to && d.since == since;
    let mut got = Units::ZERO;
    while got < n {
        let Some(k) = t.owed.iter().rposition(mine) else {
            break;
        };
        let Some(d) = t.owed.get_mut(k) else { break };
        let m = d.amount.min(n.minus(got)?);
        d.amount = d.amount.minus(m)?;
        if d.amount.is_zero() {
            t.owed.remove(k);
        }
        got = got.plus(m)?;
    }
    Ok(got)
}
