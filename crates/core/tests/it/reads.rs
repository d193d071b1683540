//! Reads write nothing (their routes declare it, `Op::writes`): the worker runs them outside
//! a transaction and seals no events after them, so a read that wrote would write outside
//! the guarantees every write has. Every read route of the routing table is decoded as the edge decodes it, checked to be
//! a read, and applied through `wire::apply` as each kind of caller (secret key, public key,
//! a holder's session) to a merchant with tokens, holders, a presale and a session: the store
//! must be the same afterwards, whether the read answered or refused.

use crate::common::{self, Fx};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use tokenpad_core::error::Result;
use tokenpad_core::model::holder::NewWallet;
use tokenpad_core::model::session::SessionId;
use tokenpad_core::ops::session::access::Caller;
use tokenpad_core::session_token::SigningKey;
use tokenpad_core::wire::op::{Op, Parts};
use tokenpad_core::wire::routes::rows;
use tokenpad_core::wire::{self, Shell};

/// A shell for the core alone: fixed randomness, no real sealing.
struct TestShell {
    n: u8,
}

impl Shell for TestShell {
    fn random16(&mut self) -> Result<[u8; 16]> {
        self.n = self.n.wrapping_add(1);
        Ok([self.n; 16])
    }
    fn new_wallet(&mut self) -> Result<NewWallet> {
        self.n = self.n.wrapping_add(1);
        Ok(NewWallet {
            address: common::wallet(200u8.wrapping_add(self.n)).address,
            sealed_key: "sealed".into(),
        })
    }
    fn base_url(&self) -> &str {
        "https://tokenpad.test"
    }
    fn new_secret(&mut self, _aad: &[u8]) -> Result<([u8; 32], String)> {
        Ok(([9; 32], "sealed".into()))
    }
    fn allow_private_urls(&self) -> bool {
        false
    }
    fn session_key(&self) -> Result<SigningKey> {
        Ok(SigningKey::derive(&[7; 32], common::MERCHANT_ID))
    }
}

/// A sample value for each path parameter, naming what the fixture holds where it can.
fn param(name: &str, token: &str) -> String {
    match name {
        ":userId" | ":holder" => "alice".into(),
        ":tokenAddress" => token.into(),
        ":presaleId" => "p-1".into(),
        _ => "unknown-id".into(),
    }
}

/// Every route of the table that the merchant's object answers and that changes nothing by
/// HTTP's meaning (it takes no idempotency key), decoded with sample parameters (and the
/// query a quote needs).
fn read_ops(token: &str) -> Vec<(&'static str, Op)> {
    let query: BTreeMap<String, String> = [
        ("tokenAddress", token),
        ("tokenAmount", "1"),
        ("id", "unknown-id"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let mut ops = Vec::new();
    for (method, pattern, route, _, _) in rows() {
        if route.writes() || *route == tokenpad_core::wire::routes::LIVE {
            continue;
        }
        let params: Vec<String> = pattern
            .split('/')
            .filter(|s| s.starts_with(':'))
            .map(|s| param(s, token))
            .collect();
        let parts = Parts {
            params: &params,
            query: &query,
            body: &Value::Null,
        };
        if let Some(op) = Op::decode(*route, &parts).unwrap_or_else(|e| {
            panic!("{method} {pattern} does not decode: {e:?}");
        }) {
            ops.push((*pattern, op));
        }
    }
    ops
}

#[test]
fn every_read_route_is_a_read_and_no_write_is() {
    let ops = read_ops("0x0000000000000000000000000000000000000001");
    assert!(ops.len() >= 15, "only {} read routes decoded", ops.len());
    for (pattern, op) in &ops {
        assert!(!op.writes(), "{pattern} decodes to {op:?}, counted a write");
    }
    // Writes of each kind: a move, a holder, a webhook, a session, a setting.
    let writes = [
        (
            "POST",
            "/holder/alice/spend",
            json!({ "tokenAddress": "0x0000000000000000000000000000000000000001", "amount": 1 }),
        ),
        ("PUT", "/holder/alice", Value::Null),
        (
            "POST",
            "/merchant/webhooks",
            json!({ "url": "https://example.com/hook", "events": ["holder.created"] }),
        ),
        (
            "POST",
            "/holder/alice/session",
            json!({ "scopes": ["read"] }),
        ),
        (
            "PATCH",
            "/merchant/settings",
            json!({ "privateMode": true }),
        ),
    ];
    for (method, path, body) in writes {
        let m = tokenpad_core::wire::routes::route(method, path).expect("routes");
        let query = BTreeMap::new();
        let parts = Parts {
            params: &m.params,
            query: &query,
            body: &body,
        };
        let op = Op::decode(m.route, &parts)
            .expect("decodes")
            .expect("an op");
        assert!(op.writes(), "{method} {path} counted a read");
    }
}

#[test]
fn reads_leave_the_store_as_it_was() {
    let mut fx = Fx::new();
    let token = fx.create_token(json!({ "name": "Alpha", "symbol": "ALPHA" }));
    fx.holder("alice");
    fx.holder("bob");
    common::distribute(
        &mut fx.store,
        &fx.ctx,
        &token.to_checksum(),
        &json!({ "sendToId": "alice", "amount": common::num("5") }),
    )
    .expect("distribute");
    common::create_presale(
        &mut fx.store,
        &fx.ctx,
        &crate::presale::body("100", json!({})),
        "p-1",
    )
    .expect("presale");
    let session = tokenpad_core::ops::session::create(
        &mut fx.store,
        &fx.ctx,
        &common::user("alice").expect("userId"),
        &common::body(&json!({ "scopes": ["read", "spend"], "limits": [{ "tokenAddress": token.to_checksum(), "maxPerSession": 1 }] }))
            .expect("session request"),
        SessionId("00000000-0000-4000-8000-000000000001".into()),
        &SigningKey::derive(&[7; 32], common::MERCHANT_ID),
    )
    .expect("session")
    .session;

    let callers = [Caller::Secret, Caller::Public, Caller::Session(session)];
    let mut answered = 0;
    for (pattern, op) in read_ops(&token.to_checksum()) {
        for caller in &callers {
            let before = format!("{:?}", fx.store);
            let reply =
                wire::scope::authorize(&fx.store, caller.clone(), &fx.ctx.merchant, op.clone())
                    .and_then(|permitted| {
                        wire::apply(&mut fx.store, &fx.ctx, permitted, &mut TestShell { n: 0 })
                    });
            answered += usize::from(reply.is_ok());
            assert!(
                before == format!("{:?}", fx.store),
                "{pattern} as {caller:?} changed the store"
            );
        }
    }
    // Most reads answer (the rest refuse: an unknown id, a scope): the check saw real work.
    assert!(answered >= 20, "only {answered} reads answered");
}
