//! Undoing refused movements that build on each other (`ops::undo`): a movement refused after
//! what it brought was passed on cannot take all of it back at once; what it could not take is
//! owed, and the undo of the movement that passed it on pays it, so once every refusal is in,
//! the ledger says what the chain does. Each case here was the simulator's (crates/sim) or is
//! the same chain of undos in another shape.

use crate::common::{assert_conserved, body, tok, usdc_address, Fx};
use crate::market_chain::{at, buy, market_of, mine_next, pool, swap_event, USDC};
use crate::settle::{distribute, evm, receipt, sign, token, LIMITS};
use serde_json::json;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::{Units, Usdc};
use tokenpad_core::model::chain::PoolEvent;
use tokenpad_core::model::history::TxType;
use tokenpad_core::model::holder::Holder;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::intent::IntentStatus;
use tokenpad_core::ops::ledger::{self, Outflow};
use tokenpad_core::ops::market::{self, SellRequest};
use tokenpad_core::ops::settle::observe::{observe, Observed};
use tokenpad_core::ops::settle::plan::{plan, Call, Limits};
use tokenpad_core::ops::settle::reorg::rewind;
use tokenpad_core::ops::settle::{self};
use tokenpad_core::store::Store;

fn sell(fx: &mut Fx, t: &TokenAddress, amount: Units) {
    let whole = amount.raw() / tok("1");
    assert_eq!(amount.raw() % tok("1"), 0, "sell whole tokens");
    let req: SellRequest =
        body(&json!({"tokenAddress": t, "tokenAmount": whole.to_string()})).unwrap();
    let user = crate::common::user("dave").unwrap();
    market::sell(&mut fx.store, &fx.ctx, &user, &req).unwrap();
}

/// Seed 2055 (`--steps 600`): dave buys, sells part of what he bought before the buy is mined,
/// and both revert, the buy first. Undoing the buy could take back only what dave still had;
/// undoing the sell then gave him all of it back, and the ledger ended 420 tokens above the
/// chain.
#[test]
fn a_refused_buy_and_a_refused_sell_of_what_it_bought_leave_the_holder_as_before() {
    let (mut fx, t) = market_of(1_000_000);
    let dave = fx.holder("dave");
    let before = pool(&fx, &t);
    let usdc_before = fx.active(&usdc_address(), &dave.address);
    let r = buy(&mut fx, json!({"tokenAddress": t, "usdcAmount": 10})).unwrap();
    assert!(r.booked.tokens.raw() > tok("420"));
    sell(&mut fx, &t, Units::new(tok("420")));
    mine_next(&mut fx, Call::Swap, None);
    mine_next(&mut fx, Call::Swap, None);
    let failed = fx.store.failed_intents(10).unwrap();
    assert_eq!(failed.len(), 2);
    assert!(failed.iter().all(|i| i.status == IntentStatus::Failed));
    assert_eq!(
        fx.active(&t, &dave.address),
        0,
        "the chain gave dave nothing"
    );
    assert_eq!(fx.active(&usdc_address(), &dave.address), usdc_before);
    let p = pool(&fx, &t);
    assert_eq!(p.token_reserve, before.token_reserve);
    assert_eq!(p.usdc_reserve, before.usdc_reserve);
    assert_eq!(p.sqrt_price_x96, before.sqrt_price_x96);
    assert!(owes_nothing(&fx, &t));
    // dave's reversals show all of each movement undone: the buy's grew by the 420 the sell's
    // undo paid back for him.
    let mut reversed: Vec<u128> = fx
        .store
        .history
        .iter()
        .filter(|h| h.kind == TxType::Reversal && h.token == t)
        .map(|h| h.amount.raw())
        .collect();
    reversed.sort_unstable();
    assert_eq!(reversed, [tok("420"), r.booked.tokens.raw()]);
    assert_conserved(&fx.store);
}

/// No debt is left in `t` or USDC.
fn owes_nothing(fx: &Fx, t: &TokenAddress) -> bool {
    fx.token(t).owed.is_empty() && fx.token(&usdc_address()).owed.is_empty()
}

/// Sends the next planned transaction, mined at `block`; `events` is what its receipt shows
/// (None: it reverted).
fn mine_at(fx: &mut Fx, block: u64, events: Option<Vec<PoolEvent>>) {
    let batches = plan(&fx.store, LIMITS, |t| *t != usdc_address()).unwrap();
    let nonce = fx.store.relayer().unwrap().next_nonce.unwrap_or(0);
    let tx = sign(fx, nonce, &batches[0]);
    let mut m = receipt(&tx, events.is_some());
    (m.block, m.events) = (block, events.unwrap_or_default());
    let ctx = fx.ctx.clone();
    settle::mined(&mut fx.store, &ctx, nonce, &m).unwrap();
    assert_conserved(&fx.store);
}

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

const OUTSIDE: Address = Address([0x99; 20]);

fn log(token: TokenAddress, from: Address, to: Address, amount: u128, block: u64) -> Observed {
    Observed {
        token,
        from,
        to,
        amount: Units::new(amount),
        hash: format!("0x{:064x}", 0x0ff_0000 + block),
        block,
        log_index: u64::from(token == usdc_address()),
    }
}

/// An outside trader buys 50 USDC worth (block 11), dave 100 USDC worth (mined as quoted,
/// block 12); dave sells all of it, and the outside trader's sell of all it bought is mined
/// first (block 13), taking more USDC than the ledger had left in the pool.
fn outside_sell_first() -> OutsideFirst {
    let (mut fx, t) = market_of(20_000);
    let ctx = fx.ctx.clone();
    let dave = fx.holder("dave");
    let p0 = pool(&fx, &t);
    let ob = p0.buy_with(Usdc::new(50 * USDC)).unwrap();
    let (a, b) = (p0.address, OUTSIDE);
    observe(
        &mut fx.store,
        &ctx,
        &log(usdc_address(), b, a, 50 * USDC, 11),
    )
    .unwrap();
    observe(&mut fx.store, &ctx, &log(t, a, b, ob.tokens.raw(), 11)).unwrap();
    let tokens = i128::try_from(ob.tokens.raw()).unwrap();
    let e = swap_event(&p0, -tokens, 50 * USDC as i128, &ob.after, at(11, 2));
    market::follow(&mut fx.store, &[e]).unwrap();
    let r = buy(&mut fx, json!({"tokenAddress": t, "usdcAmount": 100})).unwrap();
    let q = r.trade.tokens.raw();
    let dq = -i128::try_from(q).unwrap();
    let e = swap_event(&ob.after, dq, 100 * USDC as i128, &r.trade.after, at(12, 0));
    mine_at(&mut fx, 12, Some(vec![e]));
    assert_eq!(fx.active(&t, &dave.address), q);
    assert_eq!(pool(&fx, &t).usdc_reserve, Usdc::new(150 * USDC));
    // dave sells all of it (whole tokens); the ledger books him the least he accepts.
    sell(&mut fx, &t, Units::new(q / tok("1") * tok("1")));
    let booked = fx.active(&usdc_address(), &dave.address) - (1_000 - 100) * USDC;
    let os = r.trade.after.sell(ob.tokens).unwrap();
    let x = os.usdc.raw();
    assert!(
        x > 150 * USDC - booked,
        "the case: {x} > {}",
        150 * USDC - booked
    );
    observe(&mut fx.store, &ctx, &log(t, b, a, ob.tokens.raw(), 13)).unwrap();
    observe(&mut fx.store, &ctx, &log(usdc_address(), a, b, x, 13)).unwrap();
    let e = swap_event(
        &r.trade.after,
        tokens,
        -i128::try_from(x).unwrap(),
        &os.after,
        at(13, 2),
    );
    market::follow(&mut fx.store, &[e]).unwrap();
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
    assert_eq!(
        fx.active(&usdc_address(), &dave.address),
        (1_000 - 100) * USDC
    );
    assert_eq!(fx.active(t, &dave.address), c.dave);
    assert_eq!(pool(fx, t).token_reserve, tokens, "the chain's pool");
    assert_eq!(
        pool(fx, t).usdc_reserve,
        Usdc::new(usdc),
        "the chain's pool"
    );
    assert_eq!(fx.token(&usdc_address()).pooled.raw(), usdc);
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
    assert_eq!(c.fx.token(&usdc_address()).owed.len(), 1);
    assert_eq!(rewind(&mut c.fx.store, &ctx, 12).unwrap().observations, 2);
    assert!(owes_nothing(&c.fx, &c.t));
    mine_at(&mut c.fx, 14, None);
    assert_refused_sell(&c, c.pooled.minus(c.bought).unwrap(), 150 * USDC);
    assert_eq!(c.fx.active(&c.t, &OUTSIDE), c.bought.raw());
}

/// One case of the transfer chain: which of the reward (to alice), alice's transfer to bob and
/// bob's to carol the chain refuses by itself (a fault); the others revert for want of what
/// the one before did not bring. What each then holds.
struct Chain {
    refused: [bool; 3],
    alice: u64,
    bob: u64,
    carol: u64,
}

const CHAINS: [Chain; 7] = [
    Chain {
        refused: [false, false, false],
        alice: 0,
        bob: 0,
        carol: 10,
    },
    Chain {
        refused: [true, false, false],
        alice: 0,
        bob: 0,
        carol: 0,
    },
    Chain {
        refused: [false, true, false],
        alice: 10,
        bob: 0,
        carol: 0,
    },
    Chain {
        refused: [false, false, true],
        alice: 0,
        bob: 10,
        carol: 0,
    },
    Chain {
        refused: [true, true, false],
        alice: 0,
        bob: 0,
        carol: 0,
    },
    Chain {
        refused: [false, true, true],
        alice: 10,
        bob: 0,
        carol: 0,
    },
    Chain {
        refused: [true, false, true],
        alice: 0,
        bob: 0,
        carol: 0,
    },
];

/// What `h`'s history of `t` says it holds: every record in, less every record out (a refused
/// movement's record stays, and its `reversal` records take it back).
fn explained(fx: &Fx, t: &TokenAddress, h: &Holder) -> u128 {
    let (mut inflow, mut outflow) = (0u128, 0u128);
    for r in fx
        .store
        .history
        .iter()
        .filter(|r| r.user_id == h.user_id && r.token == *t)
    {
        if r.to == h.address {
            inflow += r.amount.raw();
        }
        if r.from == h.address {
            outflow += r.amount.raw();
        }
    }
    inflow - outflow
}

#[test]
fn a_chain_of_refused_transfers_ends_as_the_chain_does() {
    for (n, c) in CHAINS.iter().enumerate() {
        let mut fx = evm();
        let t = token(&mut fx);
        let app = fx.token(&t).remaining_app_supply.raw();
        distribute(&mut fx, &t, "alice", 10);
        let (alice, bob, carol) = (fx.holder("alice"), fx.holder("bob"), fx.holder("carol"));
        for (from, to) in [(&alice, &bob), (&bob, &carol)] {
            let req =
                json!({"tokenAddress": t, "amount": 10, "toAddress": to.address.to_checksum()});
            let out = Outflow::Transfer(body(&req).unwrap());
            ledger::move_out(&mut fx.store, &fx.ctx, &from.user_id, &out).unwrap();
        }
        let one = Limits {
            per_batch: 1,
            batches: 10,
        };
        let batches = plan(&fx.store, one, |_| true).unwrap();
        assert_eq!(batches.len(), 3);
        let txs: Vec<_> = batches
            .iter()
            .enumerate()
            .map(|(k, b)| sign(&mut fx, 1 + k as u64, b))
            .collect();
        // Mined in order: each lands unless refused or short of what the one before brings.
        let mut landed = true;
        let ctx = fx.ctx.clone();
        for (k, tx) in txs.iter().enumerate() {
            landed = landed && !c.refused[k];
            let nonce = 1 + k as u64;
            settle::mined(&mut fx.store, &ctx, nonce, &receipt(tx, landed)).unwrap();
            assert_conserved(&fx.store);
        }
        let held = [
            fx.active(&t, &alice.address),
            fx.active(&t, &bob.address),
            fx.active(&t, &carol.address),
        ];
        let want = [
            tok(&c.alice.to_string()),
            tok(&c.bob.to_string()),
            tok(&c.carol.to_string()),
        ];
        assert_eq!(held, want, "case {n}: alice, bob, carol");
        for (h, balance) in [&alice, &bob, &carol].into_iter().zip(want) {
            assert_eq!(
                explained(&fx, &t, h),
                balance,
                "case {n}: {}'s history",
                h.user_id
            );
        }
        let given: u128 = want.iter().sum();
        assert_eq!(
            fx.token(&t).remaining_app_supply.raw(),
            app - given,
            "case {n}"
        );
        assert!(fx.store.open_intents(10).unwrap().is_empty(), "case {n}");
        assert!(owes_nothing(&fx, &t), "case {n}");
    }
}

/// The faucet's mint refused: the holder's test USDC is taken back and the supply shrinks by
/// as much (undoing into `Minted` used to grow it by as much again, breaking conservation).
#[test]
fn a_refused_faucet_mint_shrinks_the_supply_back() {
    let mut fx = evm();
    let _ = token(&mut fx);
    let h = fx.holder("erin");
    let supply = fx.token(&usdc_address()).total_supply;
    ledger::deposit_usdc(&mut fx.store, &fx.ctx, &h.address, Usdc::new(7 * USDC)).unwrap();
    assert_eq!(
        fx.token(&usdc_address()).total_supply.raw(),
        supply.raw() + 7 * USDC
    );
    mine_next(&mut fx, Call::Mint, None);
    assert_eq!(fx.active(&usdc_address(), &h.address), 0);
    assert_eq!(fx.token(&usdc_address()).total_supply, supply);
    assert_conserved(&fx.store);
}
