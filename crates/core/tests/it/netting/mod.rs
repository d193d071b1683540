//! Undoing refused movements that build on each other (`ops::undo`): a movement refused after
//! what it brought was passed on cannot take all of it back at once; what it could not take is
//! owed, and the undo of the movement that passed it on pays it, so once every refusal is in,
//! the ledger says what the chain does. Each case here was the simulator's (crates/sim) or is
//! the same chain of undos in another shape.

mod claims;
mod pools;

use crate::common::{assert_conserved, body, tok, Fx};
use crate::market_chain::{buy, market_of, mine_next, pool, USDC};
use crate::settle::{
    distribute, evm, plan_all, plan_of, receipt_of, settle_all, sign, token, LIMITS,
};
use serde_json::json;
use tokenpad_core::model::amount::{Units, Usdc};
use tokenpad_core::model::chain::PoolEvent;
use tokenpad_core::model::history::TxType;
use tokenpad_core::model::holder::Holder;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::intent::IntentStatus;
use tokenpad_core::ops::ledger::{self, Outflow};
use tokenpad_core::ops::market::{self, SellRequest};
use tokenpad_core::ops::settle;
use tokenpad_core::ops::settle::plan::{Call, Limits};
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
    let usdc_before = fx.active(&fx.usdc(), &dave.address);
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
    assert_eq!(fx.active(&fx.usdc(), &dave.address), usdc_before);
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
    fx.token(t).owed.is_empty() && fx.token(&fx.usdc()).owed.is_empty()
}

/// Sends the next planned transaction, mined at `block`; `events` is what its receipt shows
/// (None: it reverted).
fn mine_at(fx: &mut Fx, block: u64, events: Option<Vec<PoolEvent>>) {
    let batches = plan_of(fx, LIMITS);
    let nonce = fx.store.relayer().unwrap().next_nonce.unwrap_or(0);
    let tx = sign(fx, nonce, &batches[0]);
    let mut m = receipt_of(fx, &tx, events.is_some());
    (m.block, m.events) = (block, events.unwrap_or_default());
    let ctx = fx.ctx.clone();
    settle::mined(&mut fx.store, &ctx, nonce, &m).unwrap();
    assert_conserved(&fx.store);
}

/// One case of the transfer chain: which of zoe's transfer to alice (of a reward settled
/// before: zoe's balance on chain is what a refusal of it models taken, as a reorganization
/// of a deposit would), alice's transfer to bob and bob's to carol the chain refuses by
/// itself (a fault); the others revert for want of what the one before did not bring. What
/// each then holds.
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
        distribute(&mut fx, &t, "zoe", 10);
        settle_all(&mut fx);
        let zoe = fx.holder("zoe");
        let (alice, bob, carol) = (fx.holder("alice"), fx.holder("bob"), fx.holder("carol"));
        for (from, to) in [(&zoe, &alice), (&alice, &bob), (&bob, &carol)] {
            let req =
                json!({"tokenAddress": t, "amount": 10, "toAddress": to.address.to_checksum()});
            let out = Outflow::Transfer(body(&req).unwrap());
            ledger::move_out(&mut fx.store, &fx.ctx, &from.user_id, &out).unwrap();
        }
        let one = Limits {
            per_batch: 1,
            batches: 10,
        };
        let batches = plan_all(&fx, one);
        assert_eq!(batches.len(), 3);
        let first = fx.store.relayer().unwrap().next_nonce.unwrap();
        let txs: Vec<_> = batches
            .iter()
            .enumerate()
            .map(|(k, b)| sign(&mut fx, first + k as u64, b))
            .collect();
        // Mined in order: each lands unless refused or short of what the one before brings.
        let mut landed = true;
        let ctx = fx.ctx.clone();
        for (k, tx) in txs.iter().enumerate() {
            landed = landed && !c.refused[k];
            let nonce = first + k as u64;
            let m = receipt_of(&fx, tx, landed);
            settle::mined(&mut fx.store, &ctx, nonce, &m).unwrap();
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
        let kept: u128 = want.iter().sum();
        assert_eq!(
            fx.active(&t, &zoe.address),
            tok("10") - kept,
            "case {n}: zoe keeps what did not leave her"
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
    let supply = fx.token(&fx.usdc()).total_supply;
    ledger::deposit_usdc(&mut fx.store, &fx.ctx, &h.address, Usdc::new(7 * USDC)).unwrap();
    assert_eq!(
        fx.token(&fx.usdc()).total_supply.raw(),
        supply.raw() + 7 * USDC
    );
    mine_next(&mut fx, Call::Mint, None);
    assert_eq!(fx.active(&fx.usdc(), &h.address), 0);
    assert_eq!(fx.token(&fx.usdc()).total_supply, supply);
    assert_conserved(&fx.store);
}
