//! `GET /merchant/chain`, the merchant's own view of its settlement
//! (`wire::merchant_chain`): nothing of a relayer on the embedded chain; on an EVM chain the
//! relayer's record as the settler keeps it (its balance as digits, why settlement is
//! stopped, with no URL in it), the movements open, the transactions in flight, and the
//! parked movements, mapped as the operator's view maps them.

use super::common::Fx;
use super::settle::{distribute, evm, sign, token, LIMITS};
use crate::settle::plan_all;
use tokenpad_core::model::time::Timestamp;
use tokenpad_core::store::Store;
use tokenpad_core::wire::chain::{ChainTxReport, ParkedMovement};
use tokenpad_core::wire::merchant_chain::MerchantChain;

#[test]
fn the_embedded_chain_has_no_relayer_and_nothing_in_flight() {
    let fx = Fx::new();
    let v = MerchantChain::of(&fx.store, &fx.ctx).unwrap();
    assert_eq!(v.kind, "embedded");
    assert_eq!((v.chain_id, v.relayer.is_none()), (None, true));
    assert_eq!(v.open_movements, 0);
    assert!(v.transactions.is_empty() && v.failed.is_empty() && v.parked.is_empty());
}

#[test]
fn an_evm_merchant_sees_its_relayer_its_movements_and_no_url_in_an_error() {
    let mut fx = evm();
    let t = token(&mut fx);
    // Before any round read it: no balance, settlement not stopped.
    let v = MerchantChain::of(&fx.store, &fx.ctx).unwrap();
    let r = v.relayer.unwrap();
    assert_eq!((v.kind.as_str(), v.chain_id), ("evm", Some(31_337)));
    assert_eq!(r.address, fx.merchant_address());
    assert_eq!(
        (r.balance_wei, r.balance_at, r.stopped),
        (None, None, false)
    );
    assert_eq!(r.next_nonce, fx.store.relayer().unwrap().next_nonce);

    // A round read the balance, and the node failed with a text naming a URL.
    let mut rec = fx.store.relayer().unwrap();
    assert!(rec.note_balance(
        340_282_366_920_938_463_463_374_607_431_768_211_455,
        fx.ctx.now
    ));
    rec.error = Some(
        "the chain's node refused: over quota, see https://rpc.example/v2/SECRETKEY (code -32005)"
            .into(),
    );
    rec.error_at = Some(fx.ctx.now);
    fx.store.put_relayer(&rec).unwrap();
    // Two rewards queued; one goes out in a transaction, the other is parked.
    distribute(&mut fx, &t, "alice", 5);
    let batches = plan_all(&fx, LIMITS);
    let tx = sign(&mut fx, 7, &batches[0]);
    distribute(&mut fx, &t, "bob", 5);
    let open = fx.store.open_intents(100).unwrap();
    let mut parked = open.last().unwrap().clone();
    parked.parked = Some("reverted: see http://node.example/KEY".into());
    parked.parked_at = Some(fx.ctx.now);
    fx.store.put_intent(&parked).unwrap();

    let v = MerchantChain::of(&fx.store, &fx.ctx).unwrap();
    let r = v.relayer.unwrap();
    assert_eq!(
        r.balance_wei.as_deref(),
        Some("340282366920938463463374607431768211455")
    );
    assert_eq!(r.balance_at, Some(Timestamp::at(fx.ctx.now)));
    assert!(r.stopped);
    assert_eq!(
        r.error.as_deref(),
        Some("the chain's node refused: over quota, see [url] (code -32005)")
    );
    assert_eq!(v.open_movements, 2);
    assert_eq!(v.transactions, vec![ChainTxReport::of(&tx)]);
    assert_eq!(v.transactions[0].hashes, vec![tx.versions[0].hash.clone()]);
    assert_eq!(v.parked, vec![ParkedMovement::of(&parked)]);
    assert_eq!(v.parked[0].why, "reverted: see [url]");
    assert_eq!(v.parked[0].movement, "transfer");
}
