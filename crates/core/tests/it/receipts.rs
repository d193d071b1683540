//! What a receipt proves (`ops::settle::receipt`, `shown`). A success is proof of a movement
//! only where its `Transfer` log shows it (a call to a token without code "succeeds" and moves
//! nothing): one it does not show is not confirmed, and once the receipt is final it goes
//! again, never refused. And a revert for want of funds behind an older movement of its token
//! that was still open is judged as of its block, not when it is final (by then that one may
//! have landed).

use crate::common::{assert_conserved, tok, Fx};
use crate::reverts::{mine, pass_on};
use crate::settle::{
    distribute, evm, landed, logs, plan_all, plan_of, receipt, settle_all, sign, token,
};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::{Units, Usdc};
use tokenpad_core::model::chain::ChainMode;
use tokenpad_core::model::history::ChainStatus;
use tokenpad_core::model::intent::IntentStatus;
use tokenpad_core::model::settlement::{ChainTx, TxState};
use tokenpad_core::ops::ledger;
use tokenpad_core::ops::settle::plan::Limits;
use tokenpad_core::ops::settle::reorg::{self, Dropped};
use tokenpad_core::ops::settle::{self, Mined, Transferred, MAX_UNSHOWN};
use tokenpad_core::store::Store;

const ONE: Limits = Limits {
    per_batch: 10,
    batches: 1,
};

/// Receipts `blocks` deep are final.
fn finality(fx: &mut Fx, blocks: u64) {
    if let ChainMode::Evm(e) = &mut fx.ctx.chain {
        e.finality = blocks;
    }
}

/// Signs the next planned transaction.
fn next(fx: &mut Fx) -> ChainTx {
    let batches = plan_of(fx, ONE);
    let nonce = fx.store.relayer().unwrap().next_nonce.unwrap_or(0);
    sign(fx, nonce, &batches[0])
}

fn finalize(fx: &mut Fx, tx: &ChainTx) {
    let ctx = fx.ctx.clone();
    settle::finalize(&mut fx.store, &ctx, tx.nonce).unwrap();
    assert_conserved(&fx.store);
}

/// `m`, read while its block is the newest (not final when the finality is above 0).
fn unfinal(m: Mined) -> Mined {
    Mined {
        block_hash: Some(format!("0x{:064x}", 0xb10c_0000 + m.block)),
        ..m
    }
}

fn statuses(fx: &Fx, tx: &ChainTx) -> Vec<IntentStatus> {
    tx.intents
        .iter()
        .map(|id| fx.store.intent(*id).unwrap().unwrap().status)
        .collect()
}

/// An address no movement here involves.
const OTHER: Address = Address([0x42; 20]);

/// `tx` lands, its receipt read while its block is the newest (`unfinal`) or final.
fn land(fx: &mut Fx, tx: &ChainTx, read_unfinal: bool) {
    let m = landed(fx, tx);
    let m = if read_unfinal { unfinal(m) } else { m };
    mine(fx, tx, &m);
}

/// What the receipt of a landed transaction carries, changed.
type Edit = fn(&mut Vec<Transferred>);

#[test]
fn a_success_confirms_only_the_movements_its_logs_show() {
    // (case, a faucet mint rather than two rewards to bob in one batch, what the receipt's
    // logs are, how many of its movements, from the first, it shows)
    let cases: [(&str, bool, Edit, usize); 9] = [
        ("rewards, as the token logs them", false, |_| {}, 2),
        (
            "rewards, no log (a token without code)",
            false,
            Vec::clear,
            0,
        ),
        (
            "rewards, another token's logs",
            false,
            |l| l.iter_mut().for_each(|t| t.token = OTHER),
            0,
        ),
        (
            "rewards, to someone else",
            false,
            |l| l.iter_mut().for_each(|t| t.to = OTHER),
            0,
        ),
        (
            "rewards, from someone else",
            false,
            |l| l.iter_mut().for_each(|t| t.from = OTHER),
            0,
        ),
        (
            "rewards, the second's log one unit short",
            false,
            |l| l[1].amount = Units::new(l[1].amount.raw() - 1),
            1,
        ),
        (
            "rewards, one log of their total (as a lock batch's)",
            false,
            |l| {
                let total = l[0].amount.raw() + l[1].amount.raw();
                l.truncate(1);
                l[0].amount = Units::new(total);
            },
            2,
        ),
        ("a faucet mint, as test USDC logs it", true, |_| {}, 1),
        ("a faucet mint, no log", true, Vec::clear, 0),
    ];
    for (name, faucet, edit, shown) in cases {
        let mut fx = evm();
        let t = token(&mut fx);
        let bob = fx.holder("bob");
        let (asset, held) = if faucet {
            let usdc = Usdc::new(5_000_000);
            ledger::deposit_usdc(&mut fx.store, &fx.ctx, &bob.address, usdc).unwrap();
            (fx.usdc(), 5_000_000)
        } else {
            distribute(&mut fx, &t, "bob", 2);
            distribute(&mut fx, &t, "bob", 3);
            (t, tok("5"))
        };
        let tx = next(&mut fx);
        assert_eq!(tx.intents.len(), if faucet { 1 } else { 2 }, "{name}");
        let mut transfers = logs(&fx, &tx);
        edit(&mut transfers);
        let m = Mined {
            transfers,
            ..receipt(&tx, true)
        };
        mine(&mut fx, &tx, &m);
        // Final at once (finality 0): what it did not show is back in the queue, as never
        // sent; nothing is refused, and the ledger keeps every movement.
        let want: Vec<IntentStatus> = (0..tx.intents.len())
            .map(|k| {
                if k < shown {
                    IntentStatus::Confirmed
                } else {
                    IntentStatus::Queued
                }
            })
            .collect();
        assert_eq!(statuses(&fx, &tx), want, "{name}");
        assert!(fx.store.failed_intents(10).unwrap().is_empty(), "{name}");
        assert_eq!(fx.active(&asset, &bob.address), held, "{name}: kept");
        let stored = fx.store.chain_tx(tx.nonce).unwrap().unwrap();
        assert_eq!(stored.state, TxState::Mined, "{name}");
        assert_eq!(stored.unshown, tx.intents[shown..], "{name}");
        for id in &tx.intents[shown..] {
            let i = fx.store.intent(*id).unwrap().unwrap();
            assert_eq!(i.unshown, 1, "{name}");
            assert!(
                i.error.as_deref().unwrap().contains("without moving it"),
                "{name}: {:?}",
                i.error
            );
            for seq in &i.records {
                let rec = fx.store.history_at(*seq).unwrap().unwrap();
                assert_eq!(rec.chain_status, ChainStatus::Pending, "{name}");
            }
        }
        // Sent again, it lands.
        settle_all(&mut fx);
        assert!(fx.store.open_intents(10).unwrap().is_empty(), "{name}");
        assert_eq!(fx.active(&asset, &bob.address), held, "{name}");
    }
}

#[test]
fn a_success_that_moved_nothing_waits_for_finality_then_goes_again_and_is_parked_at_last() {
    let mut fx = evm();
    finality(&mut fx, 3);
    let t = token(&mut fx);
    distribute(&mut fx, &t, "bob", 5);
    let bob = fx.holder("bob");
    let tx = next(&mut fx);
    let nothing = unfinal(receipt(&tx, true));
    mine(&mut fx, &tx, &nothing);
    // Not final: nothing is done yet, and nothing is confirmed.
    assert_eq!(statuses(&fx, &tx), [IntentStatus::Submitted]);
    let stored = fx.store.chain_tx(tx.nonce).unwrap().unwrap();
    assert!(stored.is_unfinal());
    assert_eq!(stored.unshown, tx.intents);
    let rec = fx.store.history.last().unwrap().clone();
    assert_eq!(rec.chain_status, ChainStatus::Submitted);

    // A reorganization drops it; the same bytes are mined again, on a token with code now.
    let ctx = fx.ctx.clone();
    assert_eq!(
        reorg::dropped(&mut fx.store, &ctx, tx.nonce).unwrap(),
        Dropped::Resent
    );
    assert!(fx
        .store
        .chain_tx(tx.nonce)
        .unwrap()
        .unwrap()
        .unshown
        .is_empty());
    assert_eq!(statuses(&fx, &tx), [IntentStatus::Submitted]);
    land(&mut fx, &tx, true);
    assert_eq!(statuses(&fx, &tx), [IntentStatus::Confirmed]);
    finalize(&mut fx, &tx);
    assert_eq!(statuses(&fx, &tx), [IntentStatus::Confirmed]);

    // Another reward, never shown: sent again each time the receipt is final, then parked.
    distribute(&mut fx, &t, "bob", 7);
    for n in 1..=MAX_UNSHOWN + 1 {
        let tx = next(&mut fx);
        mine(&mut fx, &tx, &unfinal(receipt(&tx, true)));
        assert_eq!(statuses(&fx, &tx), [IntentStatus::Submitted]);
        finalize(&mut fx, &tx);
        let i = fx.store.intent(tx.intents[0]).unwrap().unwrap();
        assert_eq!((i.status, i.unshown), (IntentStatus::Queued, n));
        assert_eq!(i.parked.is_some(), n > MAX_UNSHOWN, "{n}: {:?}", i.parked);
    }
    assert!(plan_all(&fx, ONE).is_empty());
    assert!(
        fx.store.failed_intents(10).unwrap().is_empty(),
        "never refused"
    );
    assert_eq!(fx.active(&t, &bob.address), tok("12"));
    assert_eq!(settle::retry_parked(&mut fx.store).unwrap(), 1);
    settle_all(&mut fx);
    assert!(fx.store.open_intents(10).unwrap().is_empty());
}

#[test]
fn a_final_success_whose_unshown_movements_went_again_is_filled_when_dropped() {
    let mut fx = evm();
    let t = token(&mut fx);
    distribute(&mut fx, &t, "bob", 5);
    let tx = next(&mut fx);
    mine(&mut fx, &tx, &receipt(&tx, true));
    assert_eq!(statuses(&fx, &tx), [IntentStatus::Queued]);
    // Its block is gone: the same bytes must not run, the reward goes in another transaction.
    let ctx = fx.ctx.clone();
    assert_eq!(
        reorg::dropped(&mut fx.store, &ctx, tx.nonce).unwrap(),
        Dropped::Fill
    );
    assert_eq!(statuses(&fx, &tx), [IntentStatus::Queued]);
}

#[test]
fn a_revert_behind_an_older_open_movement_is_judged_as_of_its_block() {
    // (whether the older reward landed before the revert, what becomes of alice's transfer)
    for (older_landed_first, then) in [
        (false, IntentStatus::Confirmed),
        (true, IntentStatus::Failed),
    ] {
        let mut fx = evm();
        finality(&mut fx, 3);
        let t = token(&mut fx);
        // A reward to alice, and alice passing 4 of it on before it settled.
        distribute(&mut fx, &t, "alice", 10);
        let reward = next(&mut fx);
        if older_landed_first {
            land(&mut fx, &reward, true);
        }
        pass_on(&mut fx, &t, "alice", "bob", 4);
        let spend = next(&mut fx);
        if !older_landed_first {
            // The reward runs out of gas (ours); alice's transfer, mined after it, reverts for
            // want of what it would have brought.
            let oog = Mined {
                gas_used: reward.gas_limit,
                reason: Some("out of gas".into()),
                ..receipt(&reward, false)
            };
            mine(&mut fx, &reward, &unfinal(oog));
        }
        mine(&mut fx, &spend, &unfinal(receipt(&spend, false)));
        assert_eq!(statuses(&fx, &spend), [IntentStatus::Submitted]);
        finalize(&mut fx, &reward);
        if !older_landed_first {
            // The reward goes again and lands before alice's revert is final.
            let again = next(&mut fx);
            assert_eq!(again.intents, reward.intents);
            land(&mut fx, &again, false);
        }
        finalize(&mut fx, &spend);
        if then == IntentStatus::Confirmed {
            // It may have needed what the reward brings: it goes again, and lands.
            assert_eq!(statuses(&fx, &spend), [IntentStatus::Queued]);
            let again = next(&mut fx);
            assert_eq!(again.intents, spend.intents);
            land(&mut fx, &again, false);
        }
        assert_eq!(
            statuses(&fx, &spend),
            [then],
            "older landed first: {older_landed_first}"
        );
        let bob = fx.holder("bob");
        let has = if then == IntentStatus::Failed {
            0
        } else {
            tok("4")
        };
        assert_eq!(fx.active(&t, &bob.address), has);
    }
}
