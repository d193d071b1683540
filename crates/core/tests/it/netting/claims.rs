//! A pool that paid an outside trader tokens the ledger had booked to a holder's buy not mined
//! yet owes the trader; when the trader sends those tokens on, the claim goes with them
//! (`ops::settle::claims`). Hostile seed 23461: the trader sold them back into the pool (a
//! sandwich's last leg), the holder's buy was mined after all, and the ledger's pool ended
//! short of the chain's by the debt, paid to a trader that no longer had the tokens.

use super::pools::{log, outside_buy, OUTSIDE};
use super::{mine_at, owes_nothing};
use crate::common::{assert_conserved, Fx};
use crate::market_chain::{at, buy, market_of, pool, swap_event, USDC};
use crate::settle::CHAIN_USDC;
use serde_json::json;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::{Units, Usdc};
use tokenpad_core::model::history::TxType;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::intent::Side;
use tokenpad_core::model::pool::{Pool, Trade};
use tokenpad_core::ops::market;
use tokenpad_core::ops::settle::observe::observe;
use tokenpad_core::ops::settle::reorg::rewind;
use tokenpad_core::store::Store;

/// dave's buy of 100 USDC waits; an outside trader's buy, mined first (block 11), takes more
/// tokens than the ledger has left in the pool. The pool as the chain had it before, the
/// outside buy, and what the ledger booked dave.
struct Front {
    fx: Fx,
    t: TokenAddress,
    chain: Pool,
    ob: Trade,
    booked: Units,
}

const DAVE_USDC: u128 = 100 * USDC;

fn front_run() -> Front {
    front_run_to(None)
}

/// `front_run`, the outside buy's tokens going to the holder `recipient` when one is named
/// (another's swap may name any recipient), else to the trader.
fn front_run_to(recipient: Option<&str>) -> Front {
    let (mut fx, t) = market_of(1_000);
    let to = recipient.map_or(OUTSIDE, |user| fx.holder(user).address);
    let chain = pool(&fx, &t);
    let r = buy(&mut fx, json!({"tokenAddress": t, "usdcAmount": 100})).unwrap();
    let booked = r.booked.tokens;
    let left = pool(&fx, &t).token_reserve;
    let ob = outside_buy(&mut fx, &t, &chain, 400 * USDC, to, 11);
    assert!(
        ob.tokens > left,
        "the case: {} > {}",
        ob.tokens.raw(),
        left.raw()
    );
    // The pool owes the recipient what it paid beyond what the ledger had left.
    let owed = ob.tokens.minus(left).unwrap();
    assert_eq!(fx.token(&t).owed.len(), 1);
    assert_eq!(fx.token(&t).owed[0].amount, owed);
    assert_eq!(fx.active(&t, &to), left.raw());
    assert_conserved(&fx.store);
    Front {
        fx,
        t,
        chain,
        ob,
        booked,
    }
}

/// The trader sells all it bought back into the pool (block 13): what it sent beyond what
/// the ledger knew it had settles the pool's debt. The pool after the sell.
fn sold_back(f: &mut Front) -> Trade {
    let ctx = f.fx.ctx.clone();
    let os = f.ob.after.sell(f.ob.tokens).unwrap();
    let (a, b) = (f.chain.address, OUTSIDE);
    let x = os.usdc.raw();
    observe(
        &mut f.fx.store,
        &ctx,
        &log(f.t, b, a, f.ob.tokens.raw(), 13),
    )
    .unwrap();
    observe(&mut f.fx.store, &ctx, &log(CHAIN_USDC, a, b, x, 13)).unwrap();
    let tokens = i128::try_from(f.ob.tokens.raw()).unwrap();
    let e = swap_event(
        &f.ob.after,
        tokens,
        -i128::try_from(x).unwrap(),
        &os.after,
        at(13, 2),
    );
    market::follow(&mut f.fx.store, &[e]).unwrap();
    assert_conserved(&f.fx.store);
    os
}

/// The trader sends all it bought to alice, a holder (block 13): her address, and how much.
fn sent_to_alice(f: &mut Front) -> (Address, u128) {
    let ctx = f.fx.ctx.clone();
    let alice = f.fx.holder("alice").address;
    let n = f.ob.tokens.raw();
    observe(&mut f.fx.store, &ctx, &log(f.t, OUTSIDE, alice, n, 13)).unwrap();
    (alice, n)
}

#[test]
fn a_trader_selling_back_what_a_pool_owed_it_settles_the_debt() {
    let mut f = front_run();
    let os = sold_back(&mut f);
    assert_eq!(f.fx.active(&f.t, &OUTSIDE), 0, "the trader sold all it had");
    assert!(owes_nothing(&f.fx, &f.t));
    // dave's buy is mined after the sandwich, at least what it booked.
    let mined = os.after.buy_with(Usdc::new(DAVE_USDC)).unwrap();
    assert!(mined.tokens >= f.booked);
    let dt = -i128::try_from(mined.tokens.raw()).unwrap();
    let e = swap_event(&os.after, dt, DAVE_USDC as i128, &mined.after, at(14, 0));
    mine_at(&mut f.fx, 14, Some(vec![e]));
    let dave = f.fx.holder("dave");
    assert_eq!(f.fx.active(&f.t, &dave.address), mined.tokens.raw());
    let p = pool(&f.fx, &f.t);
    assert_eq!(
        p.token_reserve, mined.after.token_reserve,
        "the chain's pool"
    );
    assert_eq!(p.usdc_reserve, mined.after.usdc_reserve, "the chain's pool");
    assert!(owes_nothing(&f.fx, &f.t));
    assert_conserved(&f.fx.store);
}

#[test]
fn a_reorganization_of_the_sell_back_owes_the_trader_again() {
    let mut f = front_run();
    let ctx = f.fx.ctx.clone();
    let before = (f.fx.token(&f.t).owed, f.fx.active(&f.t, &OUTSIDE));
    let reserve = pool(&f.fx, &f.t).token_reserve;
    sold_back(&mut f);
    assert_eq!(rewind(&mut f.fx.store, &ctx, 12).unwrap().observations, 2);
    assert_eq!((f.fx.token(&f.t).owed, f.fx.active(&f.t, &OUTSIDE)), before);
    assert_eq!(pool(&f.fx, &f.t).token_reserve, reserve);
    assert_conserved(&f.fx.store);
}

/// The trader sends what it bought to alice, a holder (a deposit), and dave's buy is refused
/// (the pool no longer has its tokens): the refusal's undo pays the pool's debt to alice, and
/// her deposit's record grows to all she got on chain.
#[test]
fn a_claim_sent_to_a_holder_is_paid_to_the_holder() {
    let mut f = front_run();
    let (alice, n) = sent_to_alice(&mut f);
    assert_eq!(f.fx.active(&f.t, &OUTSIDE), 0);
    assert!(f.fx.active(&f.t, &alice) < n, "the rest is owed to her");
    mine_at(&mut f.fx, 14, None);
    assert_eq!(f.fx.active(&f.t, &alice), n);
    assert_eq!(deposited(&f), Some(n));
    let p = pool(&f.fx, &f.t);
    assert_eq!(
        p.token_reserve, f.ob.after.token_reserve,
        "the chain's pool"
    );
    assert!(owes_nothing(&f.fx, &f.t));
    assert_conserved(&f.fx.store);
}

/// The same send to alice, removed by a reorganization before dave's buy is mined: her
/// deposit is reversed and the pool owes the trader again.
#[test]
fn a_reorganization_of_a_claim_sent_on_owes_its_sender_again() {
    let mut f = front_run();
    let ctx = f.fx.ctx.clone();
    let before = (f.fx.token(&f.t).owed, f.fx.active(&f.t, &OUTSIDE));
    let (alice, _) = sent_to_alice(&mut f);
    assert_eq!(rewind(&mut f.fx.store, &ctx, 12).unwrap().observations, 1);
    assert_eq!((f.fx.token(&f.t).owed, f.fx.active(&f.t, &OUTSIDE)), before);
    assert_eq!(f.fx.active(&f.t, &alice), 0);
    assert_conserved(&f.fx.store);
}

/// The amount of the holder's deposit record of the token.
fn deposited(f: &Front) -> Option<u128> {
    f.fx.store
        .history
        .iter()
        .find(|h| h.kind == TxType::Deposit && h.token == f.t)
        .map(|h| h.amount.raw())
}

/// The outside buy names alice, a holder, its recipient: what the pool could not give her is
/// owed to her, and dave's buy, refused, pays it. Her deposit's record grows to all she got.
#[test]
fn a_deposit_the_pool_was_short_of_grows_as_the_refused_buy_pays_it() {
    let mut f = front_run_to(Some("alice"));
    let alice = f.fx.holder("alice").address;
    let n = f.ob.tokens.raw();
    let first = deposited(&f).expect("her deposit's record");
    assert!(first < n, "the rest is owed to her: {first} of {n}");
    mine_at(&mut f.fx, 14, None);
    assert_eq!(f.fx.active(&f.t, &alice), n);
    assert_eq!(deposited(&f), Some(n));
    assert!(owes_nothing(&f.fx, &f.t));
    assert_conserved(&f.fx.store);
}

/// An outside buy of `usdc` from the pool as the ledger has it (no swap of its own waits):
/// how many tokens it brought `to`.
fn outside_buy_now(fx: &mut Fx, t: &TokenAddress, usdc: u128, to: Address, block: u64) -> u128 {
    let before = pool(fx, t);
    outside_buy(fx, t, &before, usdc, to, block).tokens.raw()
}

/// The amount of `user`'s record of `kind` in the token `t`.
fn record_of(fx: &Fx, t: &TokenAddress, user: &str, kind: TxType) -> Option<u128> {
    fx.store
        .history
        .iter()
        .find(|h| h.kind == kind && h.token == *t && h.user_id.as_str() == user)
        .map(|h| h.amount.raw())
}

/// A debt a rewind left a holder owing an outside trader, carried on when the trader sends
/// the tokens to another holder, keeps the debtor's reversal record: alice got the trader's
/// tokens and spent 40 % of them; a reorganization removed the deposit, so she owes the
/// trader that 40 %; the trader sends all of them to carol (the debt is hers now); then a buy
/// names alice its recipient, and what she owes goes to carol first. Both records show all of
/// it: carol's deposit, and alice's reversal of the deposit the chain no longer has.
#[test]
fn a_rewound_debt_carried_on_still_grows_its_debtors_reversal() {
    let (mut fx, t) = market_of(1_000);
    let ctx = fx.ctx.clone();
    let (alice, carol) = (fx.holder("alice").address, fx.holder("carol").address);
    let k = outside_buy_now(&mut fx, &t, 10 * USDC, OUTSIDE, 11);
    observe(&mut fx.store, &ctx, &log(t, OUTSIDE, alice, k, 12)).unwrap();
    let spent = Units::new(k * 2 / 5);
    let mut b = fx.store.balance(&t, &alice).unwrap();
    b.active = b.active.minus(spent).unwrap();
    fx.store.put_balance(&t, &alice, &b).unwrap();
    let mut tk = fx.token(&t);
    tk.held = tk.held.minus(spent).unwrap();
    tk.merchant_supply = tk.merchant_supply.plus(spent).unwrap();
    fx.store.put_token(&tk).unwrap();
    assert_eq!(rewind(&mut fx.store, &ctx, 11).unwrap().observations, 1);
    let reversed = k - spent.raw();
    assert_eq!(
        record_of(&fx, &t, "alice", TxType::Reversal),
        Some(reversed)
    );
    assert_eq!(
        fx.token(&t).owed.len(),
        1,
        "alice owes the trader what she spent"
    );
    assert_conserved(&fx.store);

    observe(&mut fx.store, &ctx, &log(t, OUTSIDE, carol, k, 13)).unwrap();
    assert_eq!(
        fx.token(&t).owed[0].to,
        Side::Row(carol),
        "the debt went with the tokens"
    );
    assert_eq!(fx.active(&t, &carol), reversed);
    let m = outside_buy_now(&mut fx, &t, 20 * USDC, alice, 14);
    assert!(m >= spent.raw(), "the case: {m} pays the debt");
    assert_eq!(fx.active(&t, &carol), k);
    assert_eq!(fx.active(&t, &alice), m - spent.raw());
    assert_eq!(record_of(&fx, &t, "carol", TxType::Deposit), Some(k));
    assert_eq!(record_of(&fx, &t, "alice", TxType::Reversal), Some(k));
    assert!(owes_nothing(&fx, &t));
    assert_conserved(&fx.store);
}
