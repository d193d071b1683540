//! Holders' EIP-3009 nonces on an EVM chain: a holder-signed transfer takes its holder's next
//! nonce (0, 1, 2, ...) when it is queued, in the same transaction as the movement, and keeps
//! it (`Intent::auth_nonce`): signed again after a revert it carries the same one, and no two
//! movements ever share one, a refused movement's included. The treasury's own transfers, and
//! everything on the embedded chain, take none.

use crate::common::{tok, Fx};
use crate::settle::{distribute, evm, plan_all, receipt, settle_all, sign, token, LIMITS};
use serde_json::json;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Usdc;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::intent::{Account, Action, Intent, IntentStatus};
use tokenpad_core::model::token::{Token, TokenCode};
use tokenpad_core::ops::ledger::{self, Outflow};
use tokenpad_core::ops::settle;
use tokenpad_core::store::Store;

/// `user` passes `amount` of `t` to `to`: a holder-signed transfer.
fn pass(fx: &mut Fx, t: &TokenAddress, user: &str, to: Address, amount: u64) {
    let holder = fx.holder(user);
    let body = json!({"tokenAddress": t.address().to_checksum(), "amount": amount, "toAddress": to.to_checksum()});
    let out = Outflow::Transfer(crate::common::body(&body).unwrap());
    ledger::move_out(&mut fx.store, &fx.ctx, &holder.user_id, &out).unwrap();
}

/// The (signer, nonce) of every queued transfer, in order: None for the treasury's.
fn nonces(fx: &Fx) -> Vec<(Option<Address>, Option<u64>)> {
    fx.store
        .intents
        .iter()
        .filter_map(|i| match &i.action {
            Action::Transfer { from, .. } => Some((
                match from {
                    Account::Wallet(a) => Some(*a),
                    Account::Treasury => None,
                },
                i.auth_nonce,
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn each_holder_counts_its_own_nonces_from_zero_across_tokens() {
    let mut fx = evm();
    let t = token(&mut fx);
    distribute(&mut fx, &t, "alice", 10);
    distribute(&mut fx, &t, "bob", 10);
    let (alice, bob) = (fx.holder("alice").address, fx.holder("bob").address);
    pass(&mut fx, &t, "alice", bob, 1);
    pass(&mut fx, &t, "bob", alice, 1);
    pass(&mut fx, &t, "alice", bob, 2);
    // USDC too: the same holder's counter (a nonce is its holder's, whatever the token)
    ledger::deposit_usdc(&mut fx.store, &fx.ctx, &alice, Usdc::new(5_000_000)).unwrap();
    let usdc = fx.ctx.chain.usdc();
    pass(&mut fx, &usdc, "alice", bob, 1);
    pass(&mut fx, &t, "alice", bob, 3);
    assert_eq!(
        nonces(&fx),
        [
            (None, None),
            (None, None),
            (Some(alice), Some(0)),
            (Some(bob), Some(0)),
            (Some(alice), Some(1)),
            (Some(alice), Some(2)),
            (Some(alice), Some(3)),
        ]
    );
    // Settling changes none of them.
    settle_all(&mut fx);
    let after: Vec<_> = nonces(&fx).into_iter().map(|(_, n)| n).collect();
    assert_eq!(
        after,
        [None, None, Some(0), Some(0), Some(1), Some(2), Some(3)]
    );
}

#[test]
fn a_refused_transfer_keeps_its_nonce_and_the_next_takes_a_new_one() {
    let mut fx = evm();
    let t = token(&mut fx);
    distribute(&mut fx, &t, "alice", 10);
    settle_all(&mut fx);
    let bob = fx.holder("bob").address;
    pass(&mut fx, &t, "alice", bob, 4);
    let batches = plan_all(&fx, LIMITS);
    assert_eq!(batches.len(), 1);
    let first = batches[0].intents[0].clone();
    assert_eq!(first.auth_nonce, Some(0));
    // The chain refuses it (her balance there lacks it): undone, failed for good.
    let tx = sign(&mut fx, 1, &batches[0]);
    let ctx = fx.ctx.clone();
    settle::mined(&mut fx.store, &ctx, 1, &receipt(&tx, false)).unwrap();
    let refused = fx.store.intent(first.id).unwrap().unwrap();
    assert_eq!(refused.status, IntentStatus::Failed);
    assert_eq!(refused.auth_nonce, Some(0), "kept");
    let alice = fx.holder("alice").address;
    assert_eq!(fx.active(&t, &alice), tok("10"), "undone");
    // Her next transfer never reuses the refused one's nonce.
    pass(&mut fx, &t, "alice", bob, 4);
    let next = fx.store.intents.last().unwrap();
    assert_eq!(next.auth_nonce, Some(1));
    settle_all(&mut fx);
    assert_eq!(fx.store.intents.last().unwrap().auth_nonce, Some(1));
}

#[test]
fn a_reverted_batch_sends_its_movements_again_with_the_same_nonces() {
    let mut fx = evm();
    let t = token(&mut fx);
    distribute(&mut fx, &t, "alice", 10);
    distribute(&mut fx, &t, "bob", 10);
    settle_all(&mut fx);
    let (alice, bob) = (fx.holder("alice").address, fx.holder("bob").address);
    pass(&mut fx, &t, "alice", bob, 1);
    pass(&mut fx, &t, "bob", alice, 1);
    pass(&mut fx, &t, "alice", bob, 1);
    let batches = plan_all(&fx, LIMITS);
    assert_eq!(batches[0].intents.len(), 3, "one batch of the three");
    let before: Vec<_> = batches[0]
        .intents
        .iter()
        .map(|i| (i.id, i.auth_nonce))
        .collect();
    // The batch reverts (out of gas, say): its movements go again, each alone.
    let tx = sign(&mut fx, 1, &batches[0]);
    let ctx = fx.ctx.clone();
    let mut mined = receipt(&tx, false);
    mined.reason = Some("out of gas".into());
    settle::mined(&mut fx.store, &ctx, 1, &mined).unwrap();
    let again = plan_all(&fx, LIMITS);
    let resent: Vec<_> = again
        .iter()
        .flat_map(|b| b.intents.iter().map(|i| (i.id, i.auth_nonce)))
        .collect();
    assert_eq!(resent, before, "the same movements, the same nonces");
    settle_all(&mut fx);
    assert_eq!(nonces(&fx).len(), 5, "no movement was queued twice");
}

#[test]
fn nothing_is_counted_on_the_embedded_chain_nor_for_the_treasury() {
    let mut fx = Fx::new();
    let t = fx.create_token(json!({"name": "Alpha", "symbol": "ALPHA", "canDistribute": true}));
    fx.holder("alice");
    crate::common::distribute(
        &mut fx.store,
        &fx.ctx.clone(),
        &t.address().to_checksum(),
        &json!({"sendToId": "alice", "amount": 5}),
    )
    .unwrap();
    let bob = fx.holder("bob").address;
    pass(&mut fx, &t, "alice", bob, 1);
    assert!(
        fx.store.intents.is_empty(),
        "the embedded chain queues nothing"
    );
    assert!(fx.store.auth_nonces.is_empty(), "and counts nothing");
    let mut evm = evm();
    let t = token(&mut evm);
    distribute(&mut evm, &t, "alice", 10);
    assert!(
        evm.store.auth_nonces.is_empty(),
        "the treasury signs no authorization"
    );
}

#[test]
fn records_from_before_read_as_before() {
    // An intent stored before nonces were counted has none (the settler derives it).
    let mut fx = evm();
    let t = token(&mut fx);
    distribute(&mut fx, &t, "alice", 10);
    pass(&mut fx, &t, "alice", Address([0x42; 20]), 1);
    let counted = fx.store.intents.last().unwrap().clone();
    let mut old = serde_json::to_value(&counted).unwrap();
    assert_eq!(old["auth_nonce"], json!(0));
    old.as_object_mut().unwrap().remove("auth_nonce");
    let read: Intent = serde_json::from_value(old).unwrap();
    assert_eq!(read.auth_nonce, None);
    let treasury = fx.store.intents[1].clone();
    assert!(
        !serde_json::to_value(&treasury)
            .unwrap()
            .as_object()
            .unwrap()
            .contains_key("auth_nonce"),
        "written only where there is one"
    );
    // A token recorded before its code was kept has the plain calls only; a new one the
    // current build's.
    let token_now = fx.token(&t);
    assert_eq!(token_now.code, TokenCode::Packed);
    let mut old = serde_json::to_value(&token_now).unwrap();
    old.as_object_mut().unwrap().remove("code");
    let read: Token = serde_json::from_value(old).unwrap();
    assert_eq!(read.code, TokenCode::Plain);
}
