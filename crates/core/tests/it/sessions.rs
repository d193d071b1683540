//! Holder sessions through the core, read as their contract: which scope allows which
//! operation, for which holder (`wire::scope::authorize`), and what a session's limits let
//! move (`wire::scope::charge`, which the operation's transaction runs first). Sessions are
//! made by `ops::session::create` from the request body the merchant's server sends, and
//! operations are decoded from their routes the way the edge decodes them.
//!
//! Not here: an idempotent retry is replayed by the worker before any charge (the worker's
//! `idempotency::replay`), so that it is not charged twice is tested over HTTP
//! (tests/http/sessions.test.mjs).

use crate::common::{self, num, op, tok, units, usdc_address, Fx};
use serde_json::{json, Value};
use tokenpad_core::model::amount::USDC_DECIMALS;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::session::{Scope, Session, SessionId};
use tokenpad_core::ops::session::access::Caller;
use tokenpad_core::session_token::SigningKey;
use tokenpad_core::store::session::SessionStore;
use tokenpad_core::wire::op::Op;
use tokenpad_core::wire::scope as wire_session;
use tokenpad_core::{ErrorCode, Result};

const OUTSIDE: &str = "0x000000000000000000000000000000000000dEaD";

/// A merchant with two tokens (`a`, `b`) and two holders, alice and bob.
struct World {
    fx: Fx,
    key: SigningKey,
    a: TokenAddress,
    b: TokenAddress,
    sessions: u8,
}

impl World {
    fn new() -> World {
        let mut fx = Fx::new();
        let a = fx.create_token(json!({ "name": "Alpha", "symbol": "ALPHA" }));
        let b = fx.create_token(json!({ "name": "Beta", "symbol": "BETA" }));
        fx.holder("alice");
        fx.holder("bob");
        let key = SigningKey::derive(&[7; 32], common::MERCHANT_ID);
        World {
            fx,
            key,
            a,
            b,
            sessions: 0,
        }
    }

    /// `POST /holder/:userId/session` with `body`: the session it made.
    fn session(&mut self, user_id: &str, body: Value) -> Session {
        self.sessions += 1;
        let id = SessionId(format!(
            "00000000-0000-4000-8000-0000000000{:02x}",
            self.sessions
        ));
        let req = common::body(&body).expect("valid session request");
        let user_id = common::user(user_id).expect("valid userId");
        tokenpad_core::ops::session::create(
            &mut self.fx.store,
            &self.fx.ctx,
            &user_id,
            &req,
            id,
            &self.key,
        )
        .expect("session created")
        .session
    }

    /// A session of alice with these scopes and no limits.
    fn scoped(&mut self, scopes: &[Scope]) -> Session {
        let names: Vec<&str> = scopes.iter().map(|s| s.as_str()).collect();
        self.session("alice", json!({ "scopes": names }))
    }

    /// A session of alice that may spend and transfer, with these limits.
    fn limited(&mut self, limits: Value) -> Session {
        self.session(
            "alice",
            json!({ "scopes": ["spend", "transfer", "buy-presale"], "limits": limits }),
        )
    }

    fn authorize(&self, s: &Session, op: &Op) -> Result<()> {
        let caller = Caller::Session(s.clone());
        wire_session::authorize(&self.fx.store, caller, &self.fx.ctx.merchant, op.clone()).map(drop)
    }

    fn charge(&mut self, s: &Session, op: &Op) -> Result<()> {
        wire_session::charge(
            &mut self.fx.store,
            &tokenpad_core::model::token::USDC_ADDRESS,
            &Caller::Session(s.clone()),
            op,
        )
    }

    /// The session as stored now.
    fn stored(&self, s: &Session) -> Session {
        self.fx.store.session(&s.id).expect("read").expect("stored")
    }

    /// What session `s` has moved of `token`, in base units.
    fn spent(&self, s: &Session, token: &TokenAddress) -> u128 {
        self.stored(s).limit_of(token).expect("a limit").spent.raw()
    }

    fn spend(&self, token: &TokenAddress, amount: Value) -> Op {
        op(
            "POST",
            "/holder/alice/spend",
            json!({ "tokenAddress": token.to_checksum(), "amount": amount }),
        )
    }

    fn transfer(&self, token: &TokenAddress, amount: Value) -> Op {
        op(
            "POST",
            "/holder/alice/transfer",
            json!({ "tokenAddress": token.to_checksum(), "amount": amount, "toAddress": OUTSIDE }),
        )
    }
}

fn buy_presale(usdc_amount: Value) -> Op {
    op(
        "POST",
        "/holder/alice/buy-presale",
        json!({ "presaleId": "moon", "usdcAmount": usdc_amount }),
    )
}

/// The refusal's code, and its `details.limit` or `details.scope` when it names one.
fn refusal(r: Result<()>) -> (ErrorCode, Option<String>) {
    let e = r.expect_err("refused");
    let named = e.details.as_ref().and_then(|d| {
        d.get("limit")
            .or_else(|| d.get("scope"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    (e.code, named)
}

fn refused_by(limit: &str) -> (ErrorCode, Option<String>) {
    (ErrorCode::SessionLimitExceeded, Some(limit.to_owned()))
}

#[test]
fn each_scope_allows_its_operations_and_no_other() {
    let mut w = World::new();
    let a = w.a.to_checksum();
    let alice = w.fx.holder("alice").address.to_checksum();
    // Every holder operation a session may run, and the one scope that allows it.
    let table: Vec<(Scope, Op)> = vec![
        (Scope::Read, op("GET", "/holder/alice", Value::Null)),
        (
            Scope::Read,
            op("GET", "/holder/alice/transactions", Value::Null),
        ),
        (
            Scope::Read,
            op("GET", &format!("/holder/alice/token/{a}"), Value::Null),
        ),
        (
            Scope::Read,
            op("GET", &format!("/holder/{alice}/token/{a}"), Value::Null),
        ),
        (Scope::BuyPresale, buy_presale(json!(1))),
        (Scope::Transfer, w.transfer(&w.a, json!(1))),
        (Scope::Spend, w.spend(&w.a, json!(1))),
    ];
    for granted in Scope::ALL {
        let s = w.scoped(&[granted]);
        for (needs, op) in &table {
            let got = w.authorize(&s, op);
            if *needs == granted {
                assert!(got.is_ok(), "{granted} should allow {op:?}: {got:?}");
            } else {
                assert_eq!(
                    refusal(got),
                    (ErrorCode::InsufficientScope, Some(needs.as_str().into())),
                    "{granted} should not allow {op:?}"
                );
            }
        }
    }
    // Every scope at once allows every one of them.
    let all = w.scoped(&Scope::ALL);
    for (_, op) in &table {
        assert!(w.authorize(&all, op).is_ok(), "{op:?}");
    }
}

#[test]
fn a_read_only_token_is_refused_a_transfer() {
    let mut w = World::new();
    let s = w.session("alice", json!({}));
    assert_eq!(s.scopes, vec![Scope::Read], "read-only by default");
    let e = w
        .authorize(&s, &w.transfer(&w.a, json!(1)))
        .expect_err("refused");
    assert_eq!(e.code, ErrorCode::InsufficientScope);
    assert_eq!(e.status(), 403);
    let d = e.details.expect("details");
    assert_eq!(d.get("scope"), Some(&json!("transfer")));
    assert_eq!(d.get("scopes"), Some(&json!(["read"])));
}

#[test]
fn a_session_acts_for_its_own_holder_only_and_says_nothing_of_another() {
    let mut w = World::new();
    let a = w.a.to_checksum();
    let bob = w.fx.holder("bob").address.to_checksum();
    let everything = w.scoped(&Scope::ALL);
    let read_only = w.scoped(&[Scope::Read]);
    let bobs = [
        op("GET", "/holder/bob", Value::Null),
        op("GET", &format!("/holder/bob/token/{a}"), Value::Null),
        op("GET", &format!("/holder/{bob}/token/{a}"), Value::Null),
        op(
            "POST",
            "/holder/bob/spend",
            json!({ "tokenAddress": a, "amount": 1 }),
        ),
    ];
    for op in &bobs {
        for s in [&everything, &read_only] {
            // The holder is checked before the scope: never insufficient_scope for bob.
            assert_eq!(
                refusal(w.authorize(s, op)),
                (ErrorCode::SessionHolderMismatch, None),
                "{op:?} with {:?}",
                s.scopes
            );
        }
    }
}

#[test]
fn a_session_runs_no_secret_key_operation_and_reads_what_is_public() {
    let mut w = World::new();
    let a = w.a.to_checksum();
    let s = w.scoped(&Scope::ALL);
    let secret_only = [
        op(
            "POST",
            "/holder/alice/withdraw",
            json!({ "tokenAddress": a, "amount": 1, "toAddress": OUTSIDE }),
        ),
        op(
            "POST",
            &format!("/token/{a}/distribute"),
            json!({ "sendToId": "alice", "amount": 1 }),
        ),
        op("PUT", "/holder/carol", Value::Null),
        op("POST", "/holder/alice/session", json!({})),
        op("DELETE", "/holder/alice/sessions", Value::Null),
        op("GET", "/merchant/all-tokens", Value::Null),
    ];
    for op in &secret_only {
        assert_eq!(
            refusal(w.authorize(&s, op)),
            (ErrorCode::SecretKeyRequired, None),
            "{op:?}"
        );
    }
    let spend_only = w.scoped(&[Scope::Spend]);
    for op in [
        op("GET", &format!("/token/{a}"), Value::Null),
        op("GET", "/token/presales/moon", Value::Null),
        op("GET", "/session", Value::Null),
    ] {
        assert!(w.authorize(&spend_only, &op).is_ok(), "{op:?}");
    }
}

#[test]
fn a_per_operation_limit_accepts_the_limit_and_refuses_one_unit_more() {
    let mut w = World::new();
    let s = w.limited(json!([{ "tokenAddress": w.a.to_checksum(), "maxPerOperation": 10 }]));
    let over = w.spend(&w.a, num("10.000000000000000001"));
    assert_eq!(refusal(w.charge(&s, &over)), refused_by("maxPerOperation"));
    assert_eq!(w.spent(&s, &w.a), 0, "a refusal counts nothing");
    // At the limit: accepted, and again (no per-session limit: operations do not add up).
    for n in 1..=3u128 {
        w.charge(&s, &w.spend(&w.a, json!(10)))
            .expect("at the limit");
        assert_eq!(w.spent(&s, &w.a), tok("10") * n);
    }
    assert_eq!(
        refusal(w.charge(&s, &w.transfer(&w.a, json!(11)))),
        refused_by("maxPerOperation")
    );
}

#[test]
fn a_per_session_limit_counts_every_movement_of_the_session() {
    let mut w = World::new();
    let s = w.limited(json!([{ "tokenAddress": w.a.to_checksum(), "maxPerSession": 100 }]));
    w.charge(&s, &w.spend(&w.a, json!(40))).expect("40 of 100");
    w.charge(&s, &w.transfer(&w.a, json!(40)))
        .expect("80 of 100");
    assert_eq!(w.spent(&s, &w.a), tok("80"));
    let e = w
        .charge(&s, &w.spend(&w.a, json!(21)))
        .expect_err("101 of 100");
    assert_eq!(e.code, ErrorCode::SessionLimitExceeded);
    let d = e.details.expect("details");
    assert_eq!(d.get("limit"), Some(&json!("maxPerSession")));
    assert_eq!(d.get("remaining"), Some(&json!(num("20"))));
    assert_eq!(w.spent(&s, &w.a), tok("80"), "a refusal counts nothing");
    w.charge(&s, &w.transfer(&w.a, json!(20)))
        .expect("exactly 100 of 100");
    assert_eq!(w.spent(&s, &w.a), tok("100"));
    assert_eq!(
        refusal(w.charge(&s, &w.spend(&w.a, num("0.000000000000000001")))),
        refused_by("maxPerSession")
    );
    // Another session of the same holder has its own count.
    let fresh = w.limited(json!([{ "tokenAddress": w.a.to_checksum(), "maxPerSession": 100 }]));
    w.charge(&fresh, &w.spend(&w.a, json!(100)))
        .expect("a new session");
}

#[test]
fn both_limits_together_each_refuse_what_it_bounds() {
    let mut w = World::new();
    let s = w.limited(json!([{
        "tokenAddress": w.a.to_checksum(), "maxPerOperation": 30, "maxPerSession": 50
    }]));
    w.charge(&s, &w.spend(&w.a, json!(30))).expect("30");
    assert_eq!(
        refusal(w.charge(&s, &w.spend(&w.a, json!(31)))),
        refused_by("maxPerOperation")
    );
    assert_eq!(
        refusal(w.charge(&s, &w.spend(&w.a, json!(21)))),
        refused_by("maxPerSession")
    );
    w.charge(&s, &w.spend(&w.a, json!(20))).expect("50 of 50");
    assert_eq!(w.spent(&s, &w.a), tok("50"));
}

#[test]
fn a_limit_on_one_token_does_not_count_another() {
    let mut w = World::new();
    let s = w.limited(json!([
        { "tokenAddress": w.a.to_checksum(), "maxPerSession": 10 },
        { "tokenAddress": w.b.to_checksum(), "maxPerSession": 10 },
    ]));
    w.charge(&s, &w.spend(&w.a, json!(10))).expect("all of a");
    assert_eq!(
        refusal(w.charge(&s, &w.spend(&w.a, json!(1)))),
        refused_by("maxPerSession")
    );
    assert_eq!(w.spent(&s, &w.b), 0);
    w.charge(&s, &w.spend(&w.b, json!(10)))
        .expect("b's limit is its own");
    assert_eq!(
        (w.spent(&s, &w.a), w.spent(&s, &w.b)),
        (tok("10"), tok("10"))
    );
}

#[test]
fn with_limits_only_the_tokens_listed_move_and_without_limits_nothing_is_counted() {
    let mut w = World::new();
    let s = w.limited(json!([{ "tokenAddress": w.a.to_checksum(), "maxPerSession": 10 }]));
    assert_eq!(
        refusal(w.charge(&s, &w.spend(&w.b, json!(1)))),
        refused_by("token")
    );
    assert_eq!(w.stored(&s), s, "a refusal writes nothing");

    let free = w.limited(json!(null));
    assert!(free.limits.is_empty());
    w.charge(&free, &w.spend(&w.b, json!(1_000_000)))
        .expect("no limits: the scopes and the balance bound it");
    assert_eq!(w.stored(&free), free, "nothing counted");
    // Reads are not charged, even with limits.
    w.charge(&s, &op("GET", "/holder/alice", Value::Null))
        .expect("a read");
    assert_eq!(w.stored(&s), s);
}

#[test]
fn a_presale_purchase_counts_against_the_usdc_limit() {
    let mut w = World::new();
    let usdc = usdc_address();
    let s = w.limited(json!([{ "tokenAddress": usdc.to_checksum(), "maxPerSession": 50 }]));
    w.charge(&s, &buy_presale(json!(30)))
        .expect("30 of 50 USDC");
    assert_eq!(
        refusal(w.charge(&s, &buy_presale(json!(21)))),
        refused_by("maxPerSession")
    );
    w.charge(&s, &buy_presale(json!(20)))
        .expect("50 of 50 USDC");
    assert_eq!(w.spent(&s, &usdc), units("50", USDC_DECIMALS));
    // The USDC limit does not let the session move another token.
    assert_eq!(
        refusal(w.charge(&s, &w.spend(&w.a, json!(1)))),
        refused_by("token")
    );
}
