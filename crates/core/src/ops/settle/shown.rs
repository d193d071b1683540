//! Whether a successful receipt shows the movements it carried.
//!
//! A success is not proof that a movement happened: a call to an address without code
//! succeeds and does nothing (a token whose deployment a reorganization took back, and whose
//! deployment reverted when it was sent again, while the transfers behind it were mined
//! again). What a movement of a token moves, the token says in a `Transfer` log, which the
//! receipt carries; a movement whose log is missing did not happen, and is ours to send again
//! (`receipt`): never confirmed, never refused.
//!
//! Judged by their logs, as the contracts emit them (`contracts/`):
//!
//! - a **transfer** (the treasury's `transfer`/`batchTransfer`, a holder's
//!   `transferWithAuthorization` alone or in a batch, USDC's): `Transfer(from, to, amount)`
//!   from the token, the treasury being the merchant's address (the relayer);
//! - a **mint** (test USDC): `Transfer(0, to, amount)`;
//! - a **lock** batch: the lock contract's `receiveWithAuthorization` of the batch's total,
//!   `Transfer(treasury, locker, total)`. Logs are summed per token, sender and receiver, so
//!   one log of a total shows the movements it adds up, and a batch's own logs each one.
//!
//! Not judged here: a deployment (its success is its code), a release (the lock contract's
//! `Released` events and its state: `Mined::released`), a pool's opening and a swap (the
//! pool's and the market's events, which their confirmation requires: `ops::market`). A
//! movement of nothing proves nothing and needs no log.

use super::intents::intent;
use crate::error::Result;
use crate::model::address::Address;
use crate::model::amount::Units;
use crate::model::intent::{Account, Action, Intent};
use crate::model::settlement::ChainTx;
use crate::ops::Ctx;
use crate::store::Store;
use std::collections::BTreeMap;

/// An ERC-20 `Transfer` log of a receipt: `token` (its address on the chain) moved `amount`
/// from `from` to `to` (`from` the zero address for a mint).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transferred {
    pub token: Address,
    pub from: Address,
    pub to: Address,
    pub amount: Units,
}

/// The `Transfer` log a movement leaves, if it is judged by one (see the module).
fn leaves(ctx: &Ctx, i: &Intent) -> Option<Transferred> {
    let token = ctx.chain.on_chain(i.token).address();
    let account = |a: &Account| match a {
        Account::Treasury => ctx.merchant.address,
        Account::Wallet(w) => *w,
    };
    let (from, to, amount) = match &i.action {
        Action::Transfer { from, to, amount } => (account(from), account(to), *amount),
        Action::Mint { to, amount } => (Address([0; 20]), *to, *amount),
        Action::Lock { amount, .. } => (ctx.merchant.address, ctx.chain.locker()?, *amount),
        Action::Deploy { .. }
        | Action::OpenPool { .. }
        | Action::Swap { .. }
        | Action::Release { .. } => return None,
    };
    Some(Transferred {
        token,
        from,
        to,
        amount,
    })
}

/// The intents of `tx` (by id) whose movement its successful receipt does not show, with its
/// `Transfer` logs `transfers`.
pub(super) fn unshown(
    store: &dyn Store,
    ctx: &Ctx,
    tx: &ChainTx,
    transfers: &[Transferred],
) -> Result<Vec<u64>> {
    let mut logged: BTreeMap<(Address, Address, Address), u128> = BTreeMap::new();
    for t in transfers {
        let n = logged.entry((t.token, t.from, t.to)).or_default();
        *n = n.saturating_add(t.amount.raw());
    }
    let mut out = Vec::new();
    for id in &tx.intents {
        let i = intent(store, *id)?;
        let Some(want) = leaves(ctx, &i) else {
            continue;
        };
        let want_n = want.amount.raw();
        if want_n == 0 {
            continue;
        }
        let left = logged.entry((want.token, want.from, want.to)).or_default();
        match left.checked_sub(want_n) {
            Some(rest) => *left = rest,
            None => out.push(i.id),
        }
    }
    Ok(out)
}
