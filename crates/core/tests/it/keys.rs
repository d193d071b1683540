//! The merchant's API keys (`ops::keys`, `wire::keys`): made, listed, rolled with a grace
//! period, revoked; checked as every request checks its key; never shown twice.

use crate::common::Fx;
use serde_json::json;
use tokenpad_core::auth::new_key;
use tokenpad_core::model::key::{KeyKind, KeyStatus};
use tokenpad_core::ops::keys::{self, TOUCH_EVERY_MS};
use tokenpad_core::store::keys::KeyStore;
use tokenpad_core::wire::keys::{self as wire, KeyAnswer, KeyOp};
use tokenpad_core::wire::op::Parts;
use tokenpad_core::ErrorCode;

const HOUR: u64 = 3600 * 1000;

/// A merchant with its two first keys; the secret key's text.
fn merchant() -> (Fx, String) {
    let mut fx = Fx::new();
    let id = fx.ctx.merchant.id.clone();
    let sk = new_key(KeyKind::Secret, &id, &[1; 32]);
    let pk = new_key(KeyKind::Public, &id, &[2; 32]);
    for (kind, key) in [(KeyKind::Secret, &sk), (KeyKind::Public, &pk)] {
        let r = keys::record(kind, keys::DEFAULT_NAME, key, fx.ctx.now);
        fx.store.put_api_key(&r).unwrap();
    }
    (fx, sk)
}

fn works(fx: &Fx, key: &str) -> Result<KeyKind, ErrorCode> {
    let all = fx.store.api_keys().unwrap();
    keys::check(&all, &fx.ctx.merchant.id, key, fx.ctx.now)
        .map(|(kind, _, _)| kind)
        .map_err(|e| e.code)
}

fn decode(route: &str, params: &[&str], body: serde_json::Value) -> Result<KeyOp, ErrorCode> {
    let params: Vec<String> = params.iter().map(|s| s.to_string()).collect();
    let query = Default::default();
    let parts = Parts {
        params: &params,
        query: &query,
        body: &body,
    };
    let route = tokenpad_core::wire::Route::new(match route {
        "create" => "createKey",
        "roll" => "rollKey",
        _ => "revokeKey",
    });
    wire::decode(route, &parts)
        .map(|op| op.unwrap())
        .map_err(|e| e.code)
}

#[test]
fn a_new_key_works_beside_the_others_and_is_listed_without_its_secret() {
    let (mut fx, sk) = merchant();
    let made = keys::create(&mut fx.store, &fx.ctx, KeyKind::Secret, "Orders", &[9; 32]).unwrap();
    assert_eq!(works(&fx, &made.key), Ok(KeyKind::Secret));
    assert_eq!(works(&fx, &sk), Ok(KeyKind::Secret));
    let listed = keys::list(&fx.store, fx.ctx.now).unwrap();
    assert_eq!(listed.len(), 3);
    let text = serde_json::to_string(&listed).unwrap();
    assert!(!text.contains(&made.key));
    assert_eq!(
        listed
            .iter()
            .find(|k| k.id == made.record.id)
            .unwrap()
            .last4
            .as_deref(),
        Some(&made.key[made.key.len() - 4..])
    );
    // Another merchant's key shape, a made-up key: refused alike.
    let other = made
        .key
        .replacen(fx.ctx.merchant.id.as_str(), &"f".repeat(32), 1);
    assert_eq!(works(&fx, &other), Err(ErrorCode::InvalidApiKey));
    assert_eq!(
        works(
            &fx,
            &new_key(KeyKind::Secret, &fx.ctx.merchant.id, &[7; 32])
        ),
        Err(ErrorCode::InvalidApiKey)
    );
}

#[test]
fn last_use_moves_at_most_once_a_minute() {
    let (mut fx, sk) = merchant();
    let all = fx.store.api_keys().unwrap();
    let (_, id, touch) = keys::check(&all, &fx.ctx.merchant.id, &sk, fx.ctx.now).unwrap();
    assert_eq!(id, all[0].id);
    let touched = touch.expect("a first use is written");
    assert_eq!(touched.last_used_at, Some(fx.ctx.now));
    fx.store.put_api_key(&touched).unwrap();
    let all = fx.store.api_keys().unwrap();
    let later = fx.ctx.now + TOUCH_EVERY_MS - 1;
    assert!(keys::check(&all, &fx.ctx.merchant.id, &sk, later)
        .unwrap()
        .2
        .is_none());
    let (_, _, touch) = keys::check(&all, &fx.ctx.merchant.id, &sk, later + 1).unwrap();
    assert_eq!(touch.unwrap().last_used_at, Some(later + 1));
}

#[test]
fn a_migrated_key_learns_its_last_four_characters_at_its_first_use() {
    let mut fx = Fx::new();
    let sk = new_key(KeyKind::Secret, &fx.ctx.merchant.id, &[5; 32]);
    let hash = tokenpad_core::auth::key_hash(&sk);
    let old = keys::migrated(KeyKind::Secret, &hash, 1);
    assert_eq!(old.last4, None);
    assert_eq!(
        old.id,
        keys::migrated(KeyKind::Secret, &hash, 2).id,
        "the same id each time"
    );
    fx.store.put_api_key(&old).unwrap();
    let all = fx.store.api_keys().unwrap();
    let (_, _, touch) = keys::check(&all, &fx.ctx.merchant.id, &sk, fx.ctx.now).unwrap();
    let touched = touch.unwrap();
    assert_eq!(touched.last4.as_deref(), Some("0505"));
    assert_eq!(touched.public_key, None, "a secret key is never kept");
}

#[test]
fn a_public_key_is_kept_whole_and_an_older_one_is_learnt_at_its_first_use() {
    let mut fx = Fx::new();
    let id = fx.ctx.merchant.id.clone();
    let pk = new_key(KeyKind::Public, &id, &[6; 32]);
    let made = keys::record(KeyKind::Public, "Web", &pk, fx.ctx.now);
    assert_eq!(made.public_key.as_deref(), Some(pk.as_str()));
    let listed = wire::KeyInfo::of(&made, fx.ctx.now);
    assert_eq!(listed.public_key.as_deref(), Some(pk.as_str()));

    let older = new_key(KeyKind::Public, &id, &[7; 32]);
    let old = keys::migrated(KeyKind::Public, &tokenpad_core::auth::key_hash(&older), 1);
    fx.store.put_api_key(&old).unwrap();
    let all = fx.store.api_keys().unwrap();
    // Used at once (its last use not stale): learnt all the same.
    let (_, _, touch) = keys::check(&all, &id, &older, fx.ctx.now).unwrap();
    let learnt = touch.unwrap();
    assert_eq!(learnt.public_key.as_deref(), Some(older.as_str()));
    fx.store.put_api_key(&learnt).unwrap();
    let all = fx.store.api_keys().unwrap();
    let (_, _, touch) = keys::check(&all, &id, &older, fx.ctx.now + 1).unwrap();
    assert!(
        touch.is_none(),
        "learnt once, then written at most once a minute again"
    );
}

#[test]
fn a_rolled_key_works_through_its_grace_period_then_never() {
    let (mut fx, sk) = merchant();
    let id = keys::list(&fx.store, fx.ctx.now).unwrap()[0].id.clone();
    let (old, made) = keys::roll(&mut fx.store, &fx.ctx, &id, 2, &[3; 32]).unwrap();
    assert_eq!(old.status(fx.ctx.now), KeyStatus::Expiring);
    assert_eq!(old.expires_at, Some(fx.ctx.now + 2 * HOUR));
    assert_eq!(made.record.name, keys::DEFAULT_NAME);
    fx.ctx.now += 2 * HOUR - 1;
    assert_eq!(works(&fx, &sk), Ok(KeyKind::Secret));
    fx.ctx.now += 1;
    assert_eq!(works(&fx, &sk), Err(ErrorCode::InvalidApiKey));
    assert_eq!(works(&fx, &made.key), Ok(KeyKind::Secret));
    // An ended key cannot be rolled again.
    let e = keys::roll(&mut fx.store, &fx.ctx, &id, 0, &[4; 32]).unwrap_err();
    assert_eq!(e.code, ErrorCode::KeyRevoked);
}

#[test]
fn a_roll_with_no_grace_replaces_the_key_at_once_and_a_public_key_rolls_too() {
    let (mut fx, _) = merchant();
    let public = keys::list(&fx.store, fx.ctx.now).unwrap()[1].clone();
    assert_eq!(public.kind, KeyKind::Public);
    let (old, made) = keys::roll(&mut fx.store, &fx.ctx, &public.id, 0, &[6; 32]).unwrap();
    assert_eq!(old.status(fx.ctx.now), KeyStatus::Revoked);
    assert!(made.key.starts_with("pk_"));
    assert_eq!(works(&fx, &made.key), Ok(KeyKind::Public));
}

#[test]
fn revoking_stops_a_key_at_once_but_never_the_last_live_one() {
    let (mut fx, sk) = merchant();
    let first = keys::list(&fx.store, fx.ctx.now).unwrap()[0].id.clone();
    let e = keys::revoke(&mut fx.store, &fx.ctx, &first).unwrap_err();
    assert_eq!(e.code, ErrorCode::LastLiveKey);
    assert_eq!(works(&fx, &sk), Ok(KeyKind::Secret), "nothing changed");
    let made = keys::create(&mut fx.store, &fx.ctx, KeyKind::Secret, "Second", &[8; 32]).unwrap();
    let revoked = keys::revoke(&mut fx.store, &fx.ctx, &first).unwrap();
    assert_eq!(revoked.revoked_at, Some(fx.ctx.now));
    assert_eq!(works(&fx, &sk), Err(ErrorCode::InvalidApiKey));
    // Again: nothing changes.
    assert_eq!(
        keys::revoke(&mut fx.store, &fx.ctx, &first).unwrap(),
        revoked
    );
    let e = keys::revoke(&mut fx.store, &fx.ctx, &made.record.id).unwrap_err();
    assert_eq!(e.code, ErrorCode::LastLiveKey);
    let e = keys::revoke(&mut fx.store, &fx.ctx, "key_nope").unwrap_err();
    assert_eq!(e.code, ErrorCode::KeyNotFound);
    // Listed 30 days after it stopped, then forgotten at the next key write.
    fx.ctx.now += keys::KEEP_ENDED_MS + 1;
    assert_eq!(keys::list(&fx.store, fx.ctx.now).unwrap().len(), 2);
    keys::create(&mut fx.store, &fx.ctx, KeyKind::Secret, "Third", &[10; 32]).unwrap();
    assert!(fx.store.api_keys().unwrap().iter().all(|k| k.id != first));
}

#[test]
fn at_most_ten_keys_of_a_kind_work() {
    let (mut fx, _) = merchant();
    for n in 0..9u8 {
        keys::create(&mut fx.store, &fx.ctx, KeyKind::Secret, "k", &[20 + n; 32]).unwrap();
    }
    let e = keys::create(&mut fx.store, &fx.ctx, KeyKind::Secret, "k", &[40; 32]).unwrap_err();
    assert_eq!(e.code, ErrorCode::KeyLimitReached);
    // A roll that keeps the old key working needs room too; one with no grace does not.
    let id = keys::list(&fx.store, fx.ctx.now).unwrap()[0].id.clone();
    let e = keys::roll(&mut fx.store, &fx.ctx, &id, 1, &[41; 32]).unwrap_err();
    assert_eq!(e.code, ErrorCode::KeyLimitReached);
    keys::roll(&mut fx.store, &fx.ctx, &id, 0, &[42; 32]).unwrap();
}

#[test]
fn requests_decode_with_their_bounds() {
    assert!(matches!(
        decode("create", &[], json!({ "name": "Orders" })),
        Ok(KeyOp::Create(_))
    ));
    assert_eq!(
        decode("create", &[], json!({ "name": "a\u{202e}b" })).unwrap_err(),
        ErrorCode::InvalidText
    );
    assert_eq!(
        decode("create", &[], json!({})).unwrap_err(),
        ErrorCode::InvalidRequest
    );
    match decode("roll", &["key_1"], serde_json::Value::Null) {
        Ok(KeyOp::Roll(id, r)) => {
            assert_eq!(id, "key_1");
            assert_eq!(r.grace_hours(), keys::DEFAULT_GRACE_HOURS);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        decode("roll", &["key_1"], json!({ "graceHours": 25 })).unwrap_err(),
        ErrorCode::InvalidRequest
    );
    assert!(decode("roll", &["key_1"], json!({ "graceHours": 0 })).is_ok());
}

#[test]
fn a_write_that_showed_a_key_is_never_replayed() {
    let (mut fx, _) = merchant();
    let made = keys::create(&mut fx.store, &fx.ctx, KeyKind::Secret, "Orders", &[9; 32]).unwrap();
    let answer = KeyAnswer::Created(serde_json::from_value(json!({
        "key": serde_json::to_value(tokenpad_core::wire::keys::KeyInfo::of(&made.record, fx.ctx.now)).unwrap(),
        "apiKey": made.key,
    })).unwrap());
    let kept = wire::kept_instead(&answer).expect("kept as a refusal");
    assert_eq!(kept.code, ErrorCode::KeyAlreadyShown);
    assert!(!serde_json::to_string(&kept.to_body())
        .unwrap()
        .contains(&made.key));
}
