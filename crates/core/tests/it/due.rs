//! Due work with a poisoned item: it is retried with a backoff, parked at its fifth failure
//! in a row with its error kept, and never holds up the items behind it.

use crate::common::{wallet, Fx};
use serde_json::json;
use tokenpad_core::error::{Error, ErrorCode};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::balance::Lock;
use tokenpad_core::model::ids::{JobId, LockId, TokenAddress};
use tokenpad_core::model::job::JobStatus;
use tokenpad_core::model::time::SECOND;
use tokenpad_core::ops::due::{self, Retry, MAX_ATTEMPTS};
use tokenpad_core::ops::job;
use tokenpad_core::store::{DueKey, Store};
use tokenpad_core::wire::merchant::{ParkedKind, ParkedWork};

/// An unlock of a lock whose token does not exist: every run of it fails (404 token).
fn poison(fx: &mut Fx) -> String {
    let id = LockId::new_unchecked("poisoned-lock");
    let lock = Lock {
        id: id.clone(),
        token: TokenAddress(Address([0x77; 20])),
        owner: wallet(9).address,
        amount: Units::new(1),
        unlock_at: fx.ctx.now,
        vault: false,
    };
    fx.store.put_lock(&lock).unwrap();
    let key = DueKey::Unlock(id);
    fx.store.schedule(&key, fx.ctx.now).unwrap();
    key.encode()
}

#[test]
fn a_poisoned_item_is_retried_then_parked_and_blocks_nothing() {
    let mut fx = Fx::new();
    let poisoned = poison(&mut fx);
    let j = fx.submit_token(json!({"name": "Gamma", "symbol": "GAM"}));

    // Run after run, as requests and the alarm would: the poisoned item fails each time it is
    // due, and is due again only after its backoff (1, 2, 4, 8 s).
    let start = fx.ctx.now;
    let mut failures = Vec::new();
    for _ in 0..40 {
        due::run_due(&mut fx.store, &fx.ctx).unwrap();
        if let Some(f) = fx.store.due_failure(&poisoned).unwrap() {
            if failures.last() != Some(&f.attempts) {
                failures.push(f.attempts);
            }
        }
        fx.advance(SECOND);
    }
    assert_eq!(failures, (1..=MAX_ATTEMPTS).collect::<Vec<_>>());

    // The job behind it ran on time.
    assert_eq!(
        job::find(&fx.store, &j.id).unwrap().status,
        JobStatus::Success
    );

    // Parked: off the schedule, its error kept.
    let f = fx.store.due_failure(&poisoned).unwrap().unwrap();
    assert_eq!(f.code, ErrorCode::TokenNotFound);
    assert_eq!(f.first_failed_at, start);
    let parked_at = f.parked_at.unwrap();
    assert_eq!(parked_at - start, 15 * SECOND, "1 + 2 + 4 + 8 s of backoff");
    assert!(fx.store.next_due().unwrap().is_none());
    assert_eq!(fx.store.parked().unwrap(), vec![f.clone()]);

    // The merchant sees it.
    let view = ParkedWork::of(&fx.store.parked().unwrap());
    assert!(!view.has_more);
    assert_eq!(view.data.len(), 1);
    let item = &view.data[0];
    assert_eq!(item.kind, ParkedKind::Unlock);
    assert_eq!(item.id, "poisoned-lock");
    assert_eq!(item.attempts, MAX_ATTEMPTS);
    assert_eq!(item.code, ErrorCode::TokenNotFound);
    assert!(!item.message.is_empty());
}

#[test]
fn failures_back_off_and_a_success_forgets_them() {
    let mut fx = Fx::new();
    // A job key whose job does not exist runs (and does nothing): it succeeds.
    let key = DueKey::Job(JobId::new_unchecked("gone")).encode();
    let err = Error::internal("storage: disk I/O error");
    let now = fx.ctx.now;
    assert_eq!(
        due::record_failure(&mut fx.store, &key, &err, now).unwrap(),
        Retry::At(now + SECOND)
    );
    assert_eq!(
        due::record_failure(&mut fx.store, &key, &err, now).unwrap(),
        Retry::At(now + 2 * SECOND)
    );
    assert_eq!(
        fx.store.first_due(now + 2 * SECOND).unwrap().unwrap().0,
        key
    );
    due::run_item(&mut fx.store, &fx.ctx, &key, now).unwrap();
    assert!(fx.store.due_failure(&key).unwrap().is_none());
    assert!(fx.store.next_due().unwrap().is_none());

    // An internal error's message is never shown to the merchant.
    for _ in 0..MAX_ATTEMPTS {
        due::record_failure(&mut fx.store, &key, &err, now).unwrap();
    }
    let view = ParkedWork::of(&fx.store.parked().unwrap());
    assert_eq!(view.data[0].message, "Internal error");
    assert_eq!(view.data[0].code, ErrorCode::Internal);
    assert_eq!(view.data[0].kind, ParkedKind::Job);
}
