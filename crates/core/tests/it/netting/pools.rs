//! Undoing refused swaps while another trader's swaps move the same pool: the pool's debt when
//! the ledger follows a swap that pays out what it had booked to its own (seed 4045), a
//! reorganization of that swap, a swap of its own mined above its bound meanwhile, and a
//! reorganization that removes such a swap and its top-up.

use super::{mine_at, owes_nothing, sell};
use crate::common::{assert_conserved, body, tok, Fx};
use crate::market_chain::{at, buy, market_of, pool, swap_event, USDC};
use crate::settle::CHAIN_USDC;
use serde_json::json;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::{Units, Usdc};
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::pool::{Pool, Trade};
use tokenpad_core::ops::market::{self, SellRequest};
use tokenpad_core::ops::settle::observe::{observe, Observed};
use tokenpad_core::ops::settle::reorg::rewind;
use tokenpad_core::store::Store;

/// Seed 4045's history, up to dave's sell being refused: the pool's token, what the outside
/// trader bought, and what its sell took out of the pool (the chain's pool then holds
/// 150 USDC less that).
struct OutsideFirst {
    fx: Fx,
    t: TokenAddress,
    bought: Units,
    took: u128,
    /// dave's tokens, and the pool's after the outside sell.
    dave: u128,
    pooled: Units,
}

pub(super) const OUTSIDE: Address = Address([0x99; 20]);

pub(super) fn log(
    token: TokenAddress,
    from: Address,
    to: Address,
    amount: u128,
    block: u64,
) -> Observed {
    Observed {
        token,
        from,
        to,
        amount: Units::new(amount),
        hash: format!("0x{:064x}", 0x0ff_0000 + block),
        block,
        log_index: u64::from(token == CHAIN_USDC),
    }
}

/// An outside buy of `usdc` from the pool `before` (as the chain has it), its tokens to `to`,
/// mined at `block`: its two Transfer logs observed and its Swap event followed.
pub(super) fn outside_buy(
    fx: &mut Fx,
    t: &TokenAddress,
    before: &Pool,
    usdc: u128,
    to: Address,
    block: u64,
) -> Trade {
    let ctx = fx.ctx.clone();
    let ob = before.buy_with(Usdc::new(usdc)).unwrap();
    let a = before.address;
    observe(
        &mut fx.store,
        &ctx,
        &log(CHAIN_USDC, OUTSIDE, a, usdc, block),
    )
    .unwrap();
    observe(&mut fx.store, &ctx, &log(*t, a, to, ob.tokens.raw(), block)).unwrap();
    let tokens = i128::try_from(ob.tokens.raw()).unwrap();
    let e = swap_event(before, -tokens, usdc as i128, &ob.after, at(block, 2));
    market::follow(&mut fx.store, &[e]).unwrap();
    ob
}

/// The outside trader's sell `os` (of `tokens`, the tokens it bought) from the pool `before`,
/// mined at block 13: its two Transfer logs observed and its Swap event followed.
fn outside_sell_mined(fx: &mut Fx, t: &TokenAddress, before: &Pool, os: &Trade, tokens: i128) {
    let ctx = fx.ctx.clone();
    let (a, b, x) = (before.address, OUTSIDE, os.usdc.raw());
    observe(&mut fx.store, &ctx, &log(*t, b, a, os.tokens.raw(), 13)).unwrap();
    observe(&mut fx.store, &ctx, &log(CHAIN_USDC, a, b, x, 13)).unwrap();
    let e = swap_event(
        before,
        tokens,
        -i128::try_from(x).unwrap(),
        &os.after,
        at(13, 2),
    );
    market::follow(&mut fx.store, &[e]).unwrap();
}

/// An outside trader buys 50 USDC worth (block 11), dave 100 USDC worth (mined as quoted,
/// block 12); dave sells all of it, and the outside trader's sell of all it bought is mined
/// first (block 13), taking more USDC than the ledger had left in the pool.
fn outside_sell_first() -> OutsideFirst {
    let (mut fx, t) = market_of(20_000);
    let dave = fx.holder("dave");
    let p0 = pool(&fx, &t);
    let ob = outside_buy(&mut fx, &t, &p0, 50 * USDC, OUTSIDE, 11);
    let tokens = i128::try_from(ob.tokens.raw()).unwrap();
    let r = buy(&mut fx, json!({"tokenAddress": t, "usdcAmount": 100})).unwrap();
    let q = r.trade.tokens.raw();
    let dq = -i128::try_from(q).unwrap();
    let e = swap_event(&ob.after, dq, 100 * USDC as i128, &r.trade.after, at(12, 0));
    mine_at(&mut fx, 12, Some(vec![e]));
    assert_eq!(fx.active(&t, &dave.address), q);
    assert_eq!(pool(&fx, &t).usdc_reserve, Usdc::new(150 * USDC));
    // dave sells all of it (whole tokens); the ledger books him the least he accepts.
    sell(&mut fx, &t, Units::new(q / tok("1") * tok("1")));
    let booked = fx.active(&fx.usdc(), &dave.address) - (1_000 - 100) * USDC;
    let os = r.trade.after.sell(ob.tokens).unwrap();
    let x = os.usdc.raw();
    assert!(
        x > 150 * USDC - booked,
        "the case: {x} > {}",
        150 * USDC - booked
    );
    outside_sell_mined(&mut fx, &t, &r.trade.after, &os, tokens);
    assert_conserved(&fx.store);
    OutsideFirst {
        fx,
        t,
        bought: ob.tokens,
        took: x,
        dave: q,
        pooled: os.after.token_reserve,
    }
}

/// dave's sell was refused: he has his tokens and his USDC as before it, the pool `tokens`
/// and `usdc`.
fn assert_refused_sell(c: &OutsideFirst, tokens: Units, usdc: u128) {
    let (fx, t) = (&c.fx, &c.t);
    let dave = fx
        .store
        .holder_by_user(&crate::common::user("dave").unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(fx.active(&fx.usdc(), &dave.address), (1_000 - 100) * USDC);
    assert_eq!(fx.active(t, &dave.address), c.dave);
    assert_eq!(pool(fx, t).token_reserve, tokens, "the chain's pool");
    assert_eq!(
        pool(fx, t).usdc_reserve,
        Usdc::new(usdc),
        "the chain's pool"
    );
    assert_eq!(fx.token(&fx.usdc()).pooled.raw(), usdc);
    assert!(owes_nothing(fx, t));
    assert_conserved(&fx.store);
}

/// Seed 4045 (`--steps 600`): the outside trader's sell, mined first, takes USDC the ledger
/// had already booked to dave, and dave's sell reverts. Following the outside sell took from
/// the ledger's pool only what it had left; undoing dave's sell then put all of his USDC back,
/// and the ledger's pool ended above the chain's by what it had not been able to take.
#[test]
fn an_outside_sell_mined_before_a_refused_sell_leaves_the_pool_as_the_chain_has_it() {
    let mut c = outside_sell_first();
    mine_at(&mut c.fx, 14, None);
    assert_refused_sell(&c, c.pooled, 150 * USDC - c.took);
}

/// A reorganization removes the outside sell after dave's refused sell paid what the pool
/// owed since it: the pool gets back all the outside sell took, paid part included.
#[test]
fn a_reorganization_gives_back_what_a_pool_paid_of_its_debt() {
    let mut c = outside_sell_first();
    let ctx = c.fx.ctx.clone();
    mine_at(&mut c.fx, 14, None);
    assert_eq!(rewind(&mut c.fx.store, &ctx, 12).unwrap().observations, 2);
    assert_refused_sell(&c, c.pooled.minus(c.bought).unwrap(), 150 * USDC);
    assert_eq!(c.fx.active(&c.t, &OUTSIDE), c.bought.raw());
}

/// The same reorganization before dave's sell is refused: the debt is forgiven, and the
/// refused sell's undo then owes nothing.
#[test]
fn a_reorganization_forgives_what_a_pool_owed_since_the_log() {
    let mut c = outside_sell_first();
    let ctx = c.fx.ctx.clone();
    assert_eq!(c.fx.token(&c.fx.usdc()).owed.len(), 1);
    assert_eq!(rewind(&mut c.fx.store, &ctx, 12).unwrap().observations, 2);
    assert!(owes_nothing(&c.fx, &c.t));
    mine_at(&mut c.fx, 14, None);
    assert_refused_sell(&c, c.pooled.minus(c.bought).unwrap(), 150 * USDC);
    assert_eq!(c.fx.active(&c.t, &OUTSIDE), c.bought.raw());
}

/// One USDC from outside arrives at the pool, followed at `block`.
fn arrives(c: &mut OutsideFirst, block: u64) {
    let ctx = c.fx.ctx.clone();
    let a = pool(&c.fx, &c.t).address;
    let usdc = log(CHAIN_USDC, OUTSIDE, a, USDC, block);
    observe(&mut c.fx.store, &ctx, &usdc).unwrap();
}

/// The same reorganization, when USDC arrived at the pool after the outside sell (block 14)
/// and paid part of what the pool owed since it: that payment is owed again when its log
/// goes, then forgiven with the rest. Before, the rewind of the arrival found the pool's USDC
/// gone (paid on) and had the pool owe it anew, while the outside sell's rewind gave the
/// payment back to the pool as well: the pool held it twice, and owed it (hostile seed 392
/// of the simulator with `--whales`).
#[test]
fn a_reorganization_owes_again_what_a_removed_arrival_paid_of_a_pool_debt() {
    let mut c = outside_sell_first();
    let ctx = c.fx.ctx.clone();
    let owed = c.fx.token(&c.fx.usdc()).owed[0].amount;
    arrives(&mut c, 14);
    let paid = c.fx.token(&c.fx.usdc()).owed[0].amount;
    assert_eq!(owed.minus(paid).unwrap().raw(), USDC, "the case: it paid");
    assert_eq!(rewind(&mut c.fx.store, &ctx, 12).unwrap().observations, 3);
    assert!(
        owes_nothing(&c.fx, &c.t),
        "{:?}",
        c.fx.token(&c.fx.usdc()).owed
    );
    mine_at(&mut c.fx, 15, None);
    assert_refused_sell(&c, c.pooled.minus(c.bought).unwrap(), 150 * USDC);
    assert_eq!(c.fx.active(&c.t, &OUTSIDE), c.bought.raw());
}

/// USDC arrives at the pool (block 15) and pays part of what it owes; dave's refused sell
/// (block 14, followed after it) pays the rest and refills the pool. A reorganization that
/// removes only the arrival takes it back from the pool, which still has it, and the debt
/// stays paid: what refilled the pool would have paid it. (Hostile seed 275 with `--whales`,
/// against a first version of `reorg::unpay` that owed every payment again: the pool ended
/// above the chain's by the arrival, and owing it.)
#[test]
fn a_removed_arrival_the_pool_still_has_goes_back_and_its_debt_stays_paid() {
    let mut c = outside_sell_first();
    let ctx = c.fx.ctx.clone();
    arrives(&mut c, 15);
    mine_at(&mut c.fx, 14, None);
    assert!(owes_nothing(&c.fx, &c.t));
    assert_eq!(rewind(&mut c.fx.store, &ctx, 14).unwrap().observations, 1);
    assert_refused_sell(&c, c.pooled, 150 * USDC - c.took);
}

/// Two of dave's sells wait; the outside trader's sell, mined first, takes more USDC than the
/// ledger left in the pool, so the pool owes; then the first of dave's sells is mined, paying
/// him a little more than it booked (its bound), and the second is refused. The top-up is out
/// of a pool the ledger has emptied: it is owed too, and the refused sell's undo pays both.
#[test]
fn a_sell_mined_above_its_bound_while_its_pool_owes_is_topped_up_by_the_next_undo() {
    let (mut fx, t) = market_of(20_000);
    let ctx = fx.ctx.clone();
    let dave = fx.holder("dave");
    let (outside, bought) = (400_000, 300);
    let p0 = pool(&fx, &t);
    let ob = p0.buy_with(Usdc::new(outside)).unwrap();
    let (a, b) = (p0.address, OUTSIDE);
    observe(&mut fx.store, &ctx, &log(CHAIN_USDC, b, a, outside, 11)).unwrap();
    observe(&mut fx.store, &ctx, &log(t, a, b, ob.tokens.raw(), 11)).unwrap();
    let tokens = i128::try_from(ob.tokens.raw()).unwrap();
    let e = swap_event(&p0, -tokens, outside as i128, &ob.after, at(11, 2));
    market::follow(&mut fx.store, &[e]).unwrap();
    let r = buy(&mut fx, json!({"tokenAddress": t, "usdcAmount": bought})).unwrap();
    let q = r.trade.tokens.raw();
    let dq = -i128::try_from(q).unwrap();
    let e = swap_event(
        &ob.after,
        dq,
        (bought * USDC) as i128,
        &r.trade.after,
        at(12, 0),
    );
    mine_at(&mut fx, 12, Some(vec![e]));
    // A tenth at the default bound, the rest at exactly its quote.
    let first = Units::new(q / 10 / tok("1") * tok("1"));
    let rest = Units::new((q - first.raw()) / tok("1") * tok("1"));
    let usdc0 = fx.active(&fx.usdc(), &dave.address);
    sell(&mut fx, &t, first);
    let booked = fx.active(&fx.usdc(), &dave.address) - usdc0;
    let quote = pool(&fx, &t).sell(rest).unwrap().usdc.raw();
    let min = format!("{}.{:06}", quote / USDC, quote % USDC);
    let whole = (rest.raw() / tok("1")).to_string();
    let req: SellRequest =
        body(&json!({"tokenAddress": t, "tokenAmount": whole, "minAmountOut": min})).unwrap();
    let user = crate::common::user("dave").unwrap();
    market::sell(&mut fx.store, &fx.ctx, &user, &req).unwrap();
    let left = pool(&fx, &t).usdc_reserve.raw();
    // The outside sell, mined first, takes more than that.
    let os = r.trade.after.sell(ob.tokens).unwrap();
    let x = os.usdc.raw();
    assert!(x > left, "the case: {x} > {left}");
    outside_sell_mined(&mut fx, &t, &r.trade.after, &os, tokens);
    // dave's first sell is mined, above its bound.
    let sa = os.after.sell(first).unwrap();
    assert!(
        sa.usdc.raw() > booked,
        "the case: {} > {booked}",
        sa.usdc.raw()
    );
    let ft = i128::try_from(first.raw()).unwrap();
    let e = swap_event(
        &os.after,
        ft,
        -i128::try_from(sa.usdc.raw()).unwrap(),
        &sa.after,
        at(14, 0),
    );
    mine_at(&mut fx, 14, Some(vec![e]));
    // The second is refused.
    mine_at(&mut fx, 15, None);
    let chain_pool = outside + bought * USDC - x - sa.usdc.raw();
    assert_eq!(
        pool(&fx, &t).usdc_reserve.raw(),
        chain_pool,
        "the chain's pool"
    );
    assert_eq!(pool(&fx, &t).token_reserve, sa.after.token_reserve);
    assert_eq!(fx.active(&fx.usdc(), &dave.address), usdc0 + sa.usdc.raw());
    assert_eq!(fx.active(&t, &dave.address), q - first.raw());
    assert!(owes_nothing(&fx, &t));
    assert_conserved(&fx.store);
}

/// A whale buys nearly all of a small pool, and dave's buy is booked at the whale's price.
/// The whale sells it all back, mined first (not followed yet), so dave's buy is mined at the
/// old price, far above its bound: the ledger's pool tops him up with what it has and owes
/// him the rest (`market::follow`). A reorganization then removes dave's buy. What the pool
/// owed of the top-up is forgiven, and only what it paid comes back from dave. Before, the
/// whole top-up was taken back: what dave had paid the pool's debt to him, and he kept as
/// much as it owed (hostile seed 55 of the simulator with `--whales`).
#[test]
fn a_top_up_the_pool_owed_is_forgiven_when_a_reorganization_removes_its_swap() {
    use crate::market_chain::mine_next;
    use tokenpad_core::model::intent::OwedSince;
    use tokenpad_core::ops::settle::plan::Call;
    use tokenpad_core::ops::settle::reorg::{dropped, Dropped};

    let (mut fx, t) = market_of(20_000);
    let ctx = fx.ctx.clone();
    let dave = fx.holder("dave");
    let p0 = pool(&fx, &t);
    let ob = outside_buy(&mut fx, &t, &p0, 10_000 * USDC, OUTSIDE, 11);
    buy(&mut fx, json!({"tokenAddress": t, "usdcAmount": 20})).unwrap();
    let booked = fx.active(&t, &dave.address);
    let left = pool(&fx, &t).token_reserve;
    // The whale's sale, mined first; dave's buy after it.
    let os = ob.after.sell(ob.tokens).unwrap();
    let mined = os.after.buy_with(Usdc::new(20 * USDC)).unwrap();
    let got = mined.tokens.raw();
    assert!(
        got > booked + left.raw(),
        "the case: {got} > {booked} + {left:?}"
    );
    let e = swap_event(
        &os.after,
        -i128::try_from(got).unwrap(),
        (20 * USDC) as i128,
        &mined.after,
        at(13, 0),
    );
    let nonce = fx.store.relayer().unwrap().next_nonce.unwrap_or(0);
    mine_next(&mut fx, Call::Swap, Some(vec![e]));
    let swap = fx.store.chain_tx(nonce).unwrap().unwrap().intents[0];
    let owed = fx.token(&t).owed;
    assert_eq!(owed.len(), 1, "{owed:?}");
    assert_eq!(owed[0].since, OwedSince::TopUp(swap));
    assert_eq!(owed[0].amount.raw(), got - booked - left.raw());
    assert_eq!(fx.active(&t, &dave.address), booked + left.raw());

    assert_eq!(
        dropped(&mut fx.store, &ctx, nonce).unwrap(),
        Dropped::Resent
    );
    assert_eq!(fx.active(&t, &dave.address), booked, "as booked again");
    assert_eq!(
        pool(&fx, &t).token_reserve,
        left,
        "what the pool paid is back"
    );
    assert!(owes_nothing(&fx, &t));
    assert_conserved(&fx.store);
}

/// After dave's buy (block 12), outside traders move the pool's USDC: 30 in (block 13), 130
/// out (block 14), 120 in (block 15); dave then sells all he has, booked against that USDC. A
/// reorganization removes blocks 13 to 15. Undoing the last buy finds the pool short (dave's
/// sell has most of it) and the pool owes the rest; undoing the sale then gives the pool 130,
/// which pays that debt first. Before, the pool kept the 130 and its debt both, and the
/// buy's arrival mined again paid the debt instead of the pool: it ended above the chain's by
/// what the debt had left, and owing it (hostile seed 983 of the simulator with `--whales`).
#[test]
fn what_a_rewind_gives_back_to_a_pool_pays_what_it_owes_first() {
    let (mut fx, t) = market_of(20_000);
    let ctx = fx.ctx.clone();
    let dave = fx.holder("dave");
    let p0 = pool(&fx, &t);
    let ob = outside_buy(&mut fx, &t, &p0, 50 * USDC, OUTSIDE, 11);
    let r = buy(&mut fx, json!({"tokenAddress": t, "usdcAmount": 100})).unwrap();
    let q = r.trade.tokens.raw();
    let dq = -i128::try_from(q).unwrap();
    let e = swap_event(&ob.after, dq, 100 * USDC as i128, &r.trade.after, at(12, 0));
    mine_at(&mut fx, 12, Some(vec![e]));
    let a = p0.address;
    for (from, to, usdc, block) in [
        (OUTSIDE, a, 30, 13),
        (a, OUTSIDE, 130, 14),
        (OUTSIDE, a, 120, 15),
    ] {
        observe(
            &mut fx.store,
            &ctx,
            &log(CHAIN_USDC, from, to, usdc * USDC, block),
        )
        .unwrap();
    }
    assert_eq!(pool(&fx, &t).usdc_reserve, Usdc::new(170 * USDC));
    let usdc0 = fx.active(&fx.usdc(), &dave.address);
    sell(&mut fx, &t, Units::new(q / tok("1") * tok("1")));
    let booked = fx.active(&fx.usdc(), &dave.address) - usdc0;
    assert!(
        170 * USDC - booked < 120 * USDC,
        "the case: the last buy is short"
    );
    assert_eq!(rewind(&mut fx.store, &ctx, 12).unwrap().observations, 3);
    assert!(owes_nothing(&fx, &t), "{:?}", fx.token(&fx.usdc()).owed);
    assert_eq!(
        pool(&fx, &t).usdc_reserve.raw(),
        150 * USDC - booked,
        "the chain's pool, less dave's sell"
    );
    assert_conserved(&fx.store);
}
