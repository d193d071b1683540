//! What a revert of the relayer's means (`ops::settle::receipt`): out of gas is ours (sent
//! again with more, parked after `MAX_OUT_OF_GAS`, never undone); a movement of the treasury's
//! own that reverts is parked for an operator, never undone at a holder's cost; only a
//! movement the chain may refuse for a reason outside us (a holder's own transfer, a swap) is
//! undone; and nothing is done about a revert before its receipt is final.

use crate::common::{assert_conserved, body, tok, Fx};
use crate::settle::{distribute, evm, landed, plan_all, receipt, settle_all, sign, token, LIMITS};
use serde_json::json;
use tokenpad_core::model::history::{ChainStatus, TxType};
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::intent::IntentStatus;
use tokenpad_core::model::settlement::{ChainTx, TxState};
use tokenpad_core::ops::ledger::{self, Outflow};
use tokenpad_core::ops::settle::plan::Limits;
use tokenpad_core::ops::settle::{self, Mined, MAX_OUT_OF_GAS};
use tokenpad_core::store::Store;

/// `from` sends `amount` of `t` to `to` (a transfer its holder signs: the chain may refuse it).
pub(crate) fn pass_on(fx: &mut Fx, t: &TokenAddress, from: &str, to: &str, amount: u64) {
    let to = fx.holder(to).address.to_checksum();
    let from = fx.holder(from).user_id;
    let req = json!({"tokenAddress": t.address().to_checksum(), "amount": amount, "toAddress": to});
    let out = Outflow::Transfer(body(&req).unwrap());
    ledger::move_out(&mut fx.store, &fx.ctx, &from, &out).unwrap();
}

/// A reward of `amount` to `user`, settled.
fn rewarded(fx: &mut Fx, t: &TokenAddress, user: &str, amount: u64) {
    distribute(fx, t, user, amount);
    settle_all(fx);
}

/// Signs the next planned batch at the relayer's next nonce.
fn next(fx: &mut Fx, limits: Limits) -> ChainTx {
    let batches = plan_all(fx, limits);
    let nonce = fx.store.relayer().unwrap().next_nonce.unwrap_or(0);
    sign(fx, nonce, &batches[0])
}

pub(crate) fn mine(fx: &mut Fx, tx: &ChainTx, m: &Mined) {
    let ctx = fx.ctx.clone();
    settle::mined(&mut fx.store, &ctx, tx.nonce, m).unwrap();
    assert_conserved(&fx.store);
}

/// A receipt that ran out of gas: all of its limit used.
fn out_of_gas(tx: &ChainTx) -> Mined {
    Mined {
        gas_used: tx.gas_limit,
        reason: Some("out of gas".into()),
        ..receipt(tx, false)
    }
}

/// An EVM chain whose receipts are final `blocks` deep: a revert waits that long to be acted on.
fn evm_final_after(blocks: u64) -> Fx {
    let mut fx = evm();
    if let tokenpad_core::model::chain::ChainMode::Evm(e) = &mut fx.ctx.chain {
        e.finality = blocks;
    }
    fx
}

const ONE: Limits = Limits {
    per_batch: 1,
    batches: 1,
};

#[test]
fn a_reverted_batch_splits_and_a_refused_movement_is_undone() {
    let mut fx = evm();
    let t = token(&mut fx);
    rewarded(&mut fx, &t, "alice", 10);
    rewarded(&mut fx, &t, "bob", 5);
    pass_on(&mut fx, &t, "alice", "carol", 10);
    pass_on(&mut fx, &t, "bob", "carol", 5);
    let (alice, carol) = (fx.holder("alice"), fx.holder("carol"));
    let tx = next(&mut fx, LIMITS);
    assert_eq!(
        tx.intents.len(),
        2,
        "one batch of the two holders' transfers"
    );
    mine(&mut fx, &tx, &receipt(&tx, false));
    // Back in the queue, one per transaction.
    let batches = plan_all(&fx, LIMITS);
    let sizes: Vec<usize> = batches.iter().map(|b| b.intents.len()).collect();
    assert_eq!(sizes, [1, 1]);
    let first = sign(&mut fx, tx.nonce + 1, &batches[0]);
    let second = sign(&mut fx, tx.nonce + 2, &batches[1]);
    mine(&mut fx, &first, &receipt(&first, false));
    let m = landed(&fx, &second);
    mine(&mut fx, &second, &m);

    // Alice's 10 never left her on chain: the ledger gave them back, visibly, with the
    // chain's reason; bob's 5 reached carol.
    assert_eq!(fx.active(&t, &alice.address), tok("10"));
    assert_eq!(fx.active(&t, &carol.address), tok("5"));
    let failed = fx.store.failed_intents(10).unwrap();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].error.as_deref(), Some("ERC20InsufficientBalance"));
    let alice_records: Vec<_> = fx
        .store
        .history
        .iter()
        .filter(|r| r.user_id == alice.user_id && r.kind != TxType::Distribute)
        .map(|r| (r.kind, r.chain_status, r.reason.clone()))
        .collect();
    let why = Some("ERC20InsufficientBalance".to_string());
    assert_eq!(
        alice_records,
        [
            (TxType::TransferOut, ChainStatus::Failed, why.clone()),
            (TxType::Reversal, ChainStatus::Failed, why)
        ]
    );
}

#[test]
fn an_undo_takes_back_only_what_is_still_there() {
    let mut fx = evm();
    let t = token(&mut fx);
    rewarded(&mut fx, &t, "zoe", 10);
    pass_on(&mut fx, &t, "zoe", "alice", 10);
    // Alice passes 6 on before zoe's transfer settles; the chain refuses zoe's.
    pass_on(&mut fx, &t, "alice", "bob", 6);
    let tx = next(&mut fx, ONE);
    mine(&mut fx, &tx, &receipt(&tx, false));
    let alice = fx.holder("alice");
    assert_eq!(
        fx.active(&t, &alice.address),
        0,
        "4 taken back; 6 had gone on"
    );
    let reversal = fx
        .store
        .history
        .iter()
        .find(|r| r.kind == TxType::Reversal)
        .unwrap();
    assert_eq!(reversal.amount.raw(), tok("4"));
}

#[test]
fn a_treasury_movement_that_reverts_is_parked_never_undone() {
    let mut fx = evm();
    let t = token(&mut fx);
    distribute(&mut fx, &t, "alice", 10);
    let alice = fx.holder("alice");
    let tx = next(&mut fx, LIMITS);
    mine(&mut fx, &tx, &receipt(&tx, false));
    // A reward only the treasury sends: its revert is ours to repair. Alice keeps it.
    let open = fx.store.open_intents(10).unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].status, IntentStatus::Queued);
    assert!(
        open[0]
            .parked
            .as_deref()
            .unwrap()
            .contains("ERC20InsufficientBalance"),
        "{:?}",
        open[0].parked
    );
    assert_eq!(fx.active(&t, &alice.address), tok("10"));
    assert!(fx.store.failed_intents(10).unwrap().is_empty());
    assert!(fx.store.history.iter().all(|r| r.kind != TxType::Reversal));
    let rec = fx.store.history.last().unwrap();
    assert_eq!(rec.chain_status, ChainStatus::Pending);
    // Parked: not sent until an operator retries it; then it settles.
    assert!(plan_all(&fx, LIMITS).is_empty());
    assert_eq!(settle::retry_parked(&mut fx.store).unwrap(), 1);
    settle_all(&mut fx);
    assert!(fx.store.open_intents(10).unwrap().is_empty());
    assert_eq!(
        fx.store.history.last().unwrap().chain_status,
        ChainStatus::Confirmed
    );
}

#[test]
fn out_of_gas_goes_again_in_its_batch_then_parks_and_is_never_undone() {
    let mut fx = evm();
    let t = token(&mut fx);
    rewarded(&mut fx, &t, "alice", 10);
    pass_on(&mut fx, &t, "alice", "bob", 4);
    pass_on(&mut fx, &t, "alice", "carol", 3);
    for n in 1..=MAX_OUT_OF_GAS {
        let tx = next(&mut fx, LIMITS);
        assert_eq!(
            tx.intents.len(),
            2,
            "still one batch: gas is not the batch's fault"
        );
        mine(&mut fx, &tx, &out_of_gas(&tx));
        let open = fx.store.open_intents(10).unwrap();
        assert!(open.iter().all(|i| i.out_of_gas == n && i.parked.is_none()));
        assert!(open.iter().all(|i| !i.solo));
    }
    let tx = next(&mut fx, LIMITS);
    mine(&mut fx, &tx, &out_of_gas(&tx));
    let open = fx.store.open_intents(10).unwrap();
    assert_eq!(open.len(), 2);
    assert!(open.iter().all(|i| i
        .parked
        .as_deref()
        .is_some_and(|p| p.contains("ran out of gas 4 time(s)"))));
    assert!(fx.store.failed_intents(10).unwrap().is_empty());
    assert!(fx.store.history.iter().all(|r| r.kind != TxType::Reversal));
    let (alice, bob) = (fx.holder("alice"), fx.holder("bob"));
    assert_eq!(fx.active(&t, &alice.address), tok("3"));
    assert_eq!(fx.active(&t, &bob.address), tok("4"));
    // Retried, with the count back at 0, they settle.
    assert_eq!(settle::retry_parked(&mut fx.store).unwrap(), 2);
    assert!(fx
        .store
        .open_intents(10)
        .unwrap()
        .iter()
        .all(|i| i.out_of_gas == 0));
    settle_all(&mut fx);
    assert!(fx.store.open_intents(10).unwrap().is_empty());
}

#[test]
fn nothing_is_done_about_a_revert_until_its_receipt_is_final() {
    let mut fx = evm_final_after(3);
    let t = token(&mut fx);
    rewarded(&mut fx, &t, "alice", 10);
    pass_on(&mut fx, &t, "alice", "bob", 4);
    let (alice, bob) = (fx.holder("alice"), fx.holder("bob"));
    let tx = next(&mut fx, LIMITS);
    let m = Mined {
        block_hash: Some(format!("0x{:064x}", 0xb10c)),
        ..receipt(&tx, false)
    };
    mine(&mut fx, &tx, &m);
    let stored = fx.store.chain_tx(tx.nonce).unwrap().unwrap();
    assert_eq!(stored.state, TxState::Reverted);
    assert!(stored.is_unfinal());
    let open = fx.store.open_intents(10).unwrap();
    assert_eq!(open[0].status, IntentStatus::Submitted, "nothing done yet");
    assert_eq!(fx.active(&t, &bob.address), tok("4"));
    assert!(fx
        .store
        .relayer()
        .unwrap()
        .checkpoints
        .iter()
        .any(|c| c.block == m.block));
    // Three blocks on, it is final: refused, and undone.
    let ctx = fx.ctx.clone();
    settle::finalize(&mut fx.store, &ctx, tx.nonce).unwrap();
    assert!(fx.store.chain_tx(tx.nonce).unwrap().unwrap().finalized);
    assert_eq!(fx.store.failed_intents(10).unwrap().len(), 1);
    assert_eq!(fx.active(&t, &bob.address), 0);
    assert_eq!(fx.active(&t, &alice.address), tok("10"));
    assert_conserved(&fx.store);
}

#[test]
fn what_a_revert_not_final_yet_was_to_bring_is_not_spent_until_it_is() {
    let mut fx = evm_final_after(3);
    let t = token(&mut fx);
    rewarded(&mut fx, &t, "zoe", 10);
    rewarded(&mut fx, &t, "carol", 5);
    pass_on(&mut fx, &t, "zoe", "alice", 10);
    let tx = next(&mut fx, ONE);
    let m = Mined {
        block_hash: Some(format!("0x{:064x}", 0xb10c)),
        ..receipt(&tx, false)
    };
    mine(&mut fx, &tx, &m);
    // Alice passes on what zoe's reverted transfer was to bring her; carol passes on her own.
    pass_on(&mut fx, &t, "alice", "bob", 4);
    pass_on(&mut fx, &t, "carol", "bob", 5);
    let (alice, carol) = (fx.holder("alice"), fx.holder("carol"));
    let spenders = |fx: &Fx| -> Vec<_> {
        plan_all(fx, LIMITS)
            .iter()
            .flat_map(|b| b.intents.iter().filter_map(|i| i.action.spender()))
            .collect()
    };
    assert_eq!(
        spenders(&fx),
        [carol.address],
        "alice's waits: it would revert for want of what has not arrived"
    );
    // Final: zoe's transfer is refused and undone, and nothing waits on it any more.
    let ctx = fx.ctx.clone();
    settle::finalize(&mut fx.store, &ctx, tx.nonce).unwrap();
    let queued: Vec<_> = fx
        .store
        .open_intents(10)
        .unwrap()
        .into_iter()
        .filter(|i| i.status == IntentStatus::Queued)
        .filter_map(|i| i.action.spender())
        .collect();
    assert!(queued.contains(&alice.address), "{queued:?}");
    assert_eq!(spenders(&fx), queued);
    assert_conserved(&fx.store);
}
