//! Table-driven ledger scenarios over the real core (MemStore): each row is a sequence of
//! operations with the exact expected outcome of each, then the expected balances and pools.
//! After every step the store must be conserved, and a refused step must have written nothing.
//! Then history, holder and token JSON shapes, the token job lifecycle and get-or-create.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{
    assert_conserved, assert_unchanged, num, obj, tok, units, usdc_address, wallet, Fx, T0,
};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use tokenpad_core::address::Address;
use tokenpad_core::chain;
use tokenpad_core::due;
use tokenpad_core::error::{Error, ErrorCode as C};
use tokenpad_core::history::{self, HistoryQuery};
use tokenpad_core::holder::{self, NewWallet};
use tokenpad_core::job::{self, JobStatus};
use tokenpad_core::ledger::{self, Outflow};
use tokenpad_core::money;
use tokenpad_core::store::Store;
use tokenpad_core::time::iso8601;
use tokenpad_core::token::token_json;

// ---------------------------------------------------------------------------------------------
// The world every scenario starts from.

struct World {
    fx: Fx,
    names: BTreeMap<&'static str, Address>,
}

const HOLDERS: [&str; 3] = ["alice", "bob", "carol"];

fn world() -> World {
    let mut fx = Fx::new();
    let mut names = BTreeMap::new();
    names.insert(
        "A",
        fx.create_token(json!({"name": "Alpha", "symbol": "ALPHA"})),
    );
    names.insert(
        "B",
        fx.create_token(json!({"name": "Beta", "symbol": "BETA"})),
    );
    names.insert(
        "NODIST",
        fx.create_token(json!({"name": "Closed", "symbol": "SHUT", "canDistribute": false})),
    );
    // totalSupply 100: app 15, merchant 5, liquidity 80.
    names.insert(
        "SMALL",
        fx.create_token(json!({"name": "Small", "symbol": "SMALL", "totalSupply": 100})),
    );
    names.insert("USDC", usdc_address());
    names.insert(
        "GHOST",
        Address::parse("0x000000000000000000000000000000000000dead").unwrap(),
    );
    for h in HOLDERS {
        let holder = fx.holder(h);
        names.insert(h, holder.address);
    }
    names.insert("ext1", wallet(200).address);
    names.insert("ext2", wallet(201).address);
    names.insert("merchant", fx.merchant_address());
    World { fx, names }
}

impl World {
    fn addr(&self, name: &str) -> Address {
        *self
            .names
            .get(name)
            .unwrap_or_else(|| panic!("no name {name}"))
    }

    /// `$name` is that address, checksummed; `$lc:name` the same in lowercase. Other text is
    /// used as is.
    fn text(&self, s: &str) -> String {
        if let Some(name) = s.strip_prefix("$lc:") {
            self.addr(name).to_checksum().to_ascii_lowercase()
        } else if let Some(name) = s.strip_prefix('$') {
            self.addr(name).to_checksum()
        } else {
            s.to_string()
        }
    }

    fn resolve(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.text(s)),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (k.clone(), self.resolve(v)))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(|v| self.resolve(v)).collect()),
            other => other.clone(),
        }
    }

    fn decimals(&self, token: &str) -> u8 {
        self.fx.token(&self.addr(token)).decimals
    }
}

// ---------------------------------------------------------------------------------------------
// Scenario tables.

enum Op {
    /// distribute on a token path (`$name` or raw text) with a body.
    Dist(&'static str, Value),
    /// spend / transfer / withdraw by a userId with a body.
    Out(Outflow, &'static str, Value),
    /// deposit_usdc to a named address, in USDC base units.
    Deposit(&'static str, u128),
    /// A presale-style lock put directly in the store: (token, holder, whole tokens).
    Lock(&'static str, &'static str, &'static str),
}

fn dist(token: &'static str, body: Value) -> Op {
    Op::Dist(token, body)
}
fn spend(user: &'static str, body: Value) -> Op {
    Op::Out(Outflow::Spend, user, body)
}
fn transfer(user: &'static str, body: Value) -> Op {
    Op::Out(Outflow::Transfer, user, body)
}
fn withdraw(user: &'static str, body: Value) -> Op {
    Op::Out(Outflow::Withdraw, user, body)
}

fn outflow_name(k: Outflow) -> &'static str {
    match k {
        Outflow::Spend => "spend",
        Outflow::Transfer => "transfer",
        Outflow::Withdraw => "withdraw",
    }
}

impl Op {
    fn describe(&self) -> String {
        match self {
            Op::Dist(t, b) => format!("distribute {t} {b}"),
            Op::Out(k, u, b) => format!("{} {u:?} {b}", outflow_name(*k)),
            Op::Deposit(who, n) => format!("deposit {who} {n}"),
            Op::Lock(t, who, n) => format!("lock {t} {who} {n}"),
        }
    }
}

/// What a scenario ends with: amounts in whole units of the token.
enum Exp {
    /// Active balance of a named address.
    Bal(&'static str, &'static str, &'static str),
    Locked(&'static str, &'static str, &'static str),
    App(&'static str, &'static str),
    Merch(&'static str, &'static str),
    Total(&'static str, &'static str),
}

type Want = Result<(), C>;
const OK: Want = Ok(());

struct Scenario {
    name: &'static str,
    steps: Vec<(Op, Want)>,
    expect: Vec<Exp>,
}

fn apply(w: &mut World, op: &Op) -> Result<(), Error> {
    match op {
        Op::Dist(t, body) => {
            let path = w.text(t);
            let body = obj(w.resolve(body));
            let out = ledger::distribute(&mut w.fx.store, &w.fx.ctx, &path, &body)?;
            assert_eq!(out["success"], true);
            assert_tx_hash(&out["transactionHash"]);
            Ok(())
        }
        Op::Out(kind, user, body) => {
            let body = obj(w.resolve(body));
            let r = ledger::move_out(&mut w.fx.store, &w.fx.ctx, user, *kind, &body)?;
            assert_tx_hash(&Value::String(r.hash));
            Ok(())
        }
        Op::Deposit(who, amount) => {
            let address = w.addr(who);
            ledger::deposit_usdc(&mut w.fx.store, &w.fx.ctx, &address, *amount).map(|h| {
                assert_tx_hash(&Value::String(h));
            })
        }
        Op::Lock(t, who, amount) => {
            let (token, owner) = (w.addr(t), w.addr(who));
            w.fx.lock(&token, &owner, tok(amount));
            Ok(())
        }
    }
}

fn assert_tx_hash(v: &Value) {
    let s = v.as_str().expect("hash is a string");
    assert!(
        s.len() == 66 && s.starts_with("0x") && s[2..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{s}"
    );
}

fn run(s: &Scenario) {
    let mut w = world();
    for (i, (op, want)) in s.steps.iter().enumerate() {
        let what = format!("{} / step {i}: {}", s.name, op.describe());
        w.fx.advance(1_000);
        let before = w.fx.store.clone();
        let got = apply(&mut w, op);
        assert_conserved(&w.fx.store);
        match (&got, want) {
            (Ok(()), Ok(())) => {
                if !matches!(op, Op::Lock(..)) {
                    assert!(
                        w.fx.store.history.len() > before.history.len(),
                        "{what}: no history written"
                    );
                }
            }
            (Err(e), Err(code)) => {
                assert_eq!(e.code, *code, "{what}: {e}");
                assert_unchanged(&before, &w.fx.store, &what);
            }
            (Ok(()), Err(code)) => panic!("{what}: succeeded, wanted {}", code.as_str()),
            (Err(e), Ok(())) => panic!("{what}: failed with {e}"),
        }
    }
    for e in &s.expect {
        let (label, got, want) = match e {
            Exp::Bal(t, who, amt) => (
                format!("active {t} of {who}"),
                w.fx.active(&w.addr(t), &w.addr(who)),
                units(amt, w.decimals(t)),
            ),
            Exp::Locked(t, who, amt) => (
                format!("locked {t} of {who}"),
                w.fx.balance(&w.addr(t), &w.addr(who)).locked,
                units(amt, w.decimals(t)),
            ),
            Exp::App(t, amt) => (
                format!("remainingAppSupply of {t}"),
                w.fx.token(&w.addr(t)).remaining_app_supply,
                units(amt, w.decimals(t)),
            ),
            Exp::Merch(t, amt) => (
                format!("merchantSupply of {t}"),
                w.fx.token(&w.addr(t)).merchant_supply,
                units(amt, w.decimals(t)),
            ),
            Exp::Total(t, amt) => (
                format!("totalSupply of {t}"),
                w.fx.token(&w.addr(t)).total_supply,
                units(amt, w.decimals(t)),
            ),
        };
        assert_eq!(got, want, "{}: {label}", s.name);
    }
}

#[rustfmt::skip] // one row per step reads best as a table
fn scenarios() -> Vec<Scenario> {
    use Exp::*;
    let e = Err::<(), C>;
    vec![
        Scenario {
            name: "distribute by id and by address, any case, exact decimals",
            steps: vec![
                (dist("$A", json!({"sendToId": "alice", "amount": 100})), OK),
                (dist("$A", json!({"sendToAddress": "$bob", "amount": "2.5"})), OK),
                (dist("$A", json!({"sendToAddress": "$lc:carol", "amount": num("1e3")})), OK),
                (dist("$A", json!({"sendToId": "alice", "amount": num("0.1")})), OK),
                (dist("$A", json!({"sendToId": "alice", "amount": "0.2"})), OK),
                (dist("$lc:A", json!({"sendToId": "bob", "amount": "0.000000000000000001"})), OK),
                (dist("$A", json!({"sendToId": "carol", "amount": num("2.5E-1")})), OK),
            ],
            expect: vec![
                Bal("A", "alice", "100.3"),
                Bal("A", "bob", "2.500000000000000001"),
                Bal("A", "carol", "1000.25"),
                App("A", "149998896.949999999999999999"),
                Merch("A", "50000000"),
                Total("A", "1000000000"),
                Bal("B", "alice", "0"),
            ],
        },
        Scenario {
            name: "distribute refusals change nothing",
            steps: vec![
                (dist("$A", json!({"amount": 1})), e(C::InvalidRequest)),
                (dist("$A", json!({"sendToId": "alice", "sendToAddress": "$alice", "amount": 1})), e(C::InvalidRequest)),
                (dist("$A", json!({"sendToId": null, "sendToAddress": null, "amount": 1})), e(C::InvalidRequest)),
                (dist("$A", json!({"sendToAddress": "$ext1", "amount": 1})), e(C::HolderNotFound)),
                (dist("$A", json!({"sendToAddress": "$merchant", "amount": 1})), e(C::HolderNotFound)),
                (dist("$A", json!({"sendToId": "nobody", "amount": 1})), e(C::HolderNotFound)),
                (dist("$A", json!({"sendToId": "ALICE", "amount": 1})), e(C::HolderNotFound)),
                (dist("$A", json!({"sendToId": "", "amount": 1})), e(C::InvalidRequest)),
                (dist("$A", json!({"sendToId": "a\u{7}b", "amount": 1})), e(C::InvalidUserId)),
                (dist("$A", json!({"sendToId": 7, "amount": 1})), e(C::InvalidRequest)),
                (dist("$A", json!({"sendToAddress": "0x1234", "amount": 1})), e(C::InvalidAddress)),
                (dist("$A", json!({"sendToAddress": 5, "amount": 1})), e(C::InvalidRequest)),
                (dist("$A", json!({"sendToId": "alice"})), e(C::InvalidRequest)),
                (dist("$A", json!({"sendToId": "alice", "amount": null})), e(C::InvalidRequest)),
                (dist("$A", json!({"sendToId": "alice", "amount": 0})), e(C::InvalidAmount)),
                (dist("$A", json!({"sendToId": "alice", "amount": "0.0"})), e(C::InvalidAmount)),
                (dist("$A", json!({"sendToId": "alice", "amount": -1})), e(C::InvalidAmount)),
                (dist("$A", json!({"sendToId": "alice", "amount": "-1"})), e(C::InvalidAmount)),
                (dist("$A", json!({"sendToId": "alice", "amount": num("-0")})), e(C::InvalidAmount)),
                (dist("$A", json!({"sendToId": "alice", "amount": "abc"})), e(C::InvalidAmount)),
                (dist("$A", json!({"sendToId": "alice", "amount": ""})), e(C::InvalidAmount)),
                (dist("$A", json!({"sendToId": "alice", "amount": "NaN"})), e(C::InvalidAmount)),
                (dist("$A", json!({"sendToId": "alice", "amount": num("1e400")})), e(C::InvalidAmount)),
                (dist("$A", json!({"sendToId": "alice", "amount": "1e400"})), e(C::InvalidAmount)),
                (dist("$A", json!({"sendToId": "alice", "amount": "0.0000000000000000001"})), e(C::InvalidAmount)),
                (dist("$A", json!({"sendToId": "alice", "amount": num("1.0000000000000000001")})), e(C::InvalidAmount)),
                (dist("$A", json!({"sendToId": "alice", "amount": true})), e(C::InvalidAmount)),
                (dist("$A", json!({"sendToId": "alice", "amount": [1]})), e(C::InvalidAmount)),
                (dist("$A", json!({"sendToId": "alice", "amount": {"v": 1}})), e(C::InvalidAmount)),
                (dist("$GHOST", json!({"sendToId": "alice", "amount": 1})), e(C::TokenNotFound)),
                (dist("0xnothex", json!({"sendToId": "alice", "amount": 1})), e(C::InvalidAddress)),
                (dist("$NODIST", json!({"sendToId": "alice", "amount": 1})), e(C::RewardAllocationDisabled)),
                (dist("$USDC", json!({"sendToId": "alice", "amount": 1})), e(C::RewardAllocationDisabled)),
                (dist("$A", json!({"sendToId": "alice", "amount": "150000000.000000000000000001"})), e(C::InsufficientAppSupply)),
                // u128::MAX base units: parses, then is more than the app supply.
                (dist("$A", json!({"sendToId": "alice", "amount": "340282366920938463463.374607431768211455"})), e(C::InsufficientAppSupply)),
                // u128::MAX + 1 base units does not parse.
                (dist("$A", json!({"sendToId": "alice", "amount": "340282366920938463463.374607431768211456"})), e(C::InvalidAmount)),
            ],
            expect: vec![
                Bal("A", "alice", "0"),
                App("A", "150000000"),
                Merch("A", "50000000"),
            ],
        },
        Scenario {
            name: "the app supply runs out exactly",
            steps: vec![
                (dist("$SMALL", json!({"sendToId": "alice", "amount": 10})), OK),
                (dist("$SMALL", json!({"sendToId": "bob", "amount": "5.000000000000000001"})), e(C::InsufficientAppSupply)),
                (dist("$SMALL", json!({"sendToId": "bob", "amount": 5})), OK),
                (dist("$SMALL", json!({"sendToId": "alice", "amount": "0.000000000000000001"})), e(C::InsufficientAppSupply)),
            ],
            expect: vec![
                Bal("SMALL", "alice", "10"),
                Bal("SMALL", "bob", "5"),
                App("SMALL", "0"),
                Merch("SMALL", "5"),
                Total("SMALL", "100"),
            ],
        },
        Scenario {
            name: "spend moves tokens to the merchant supply",
            steps: vec![
                (dist("$A", json!({"sendToId": "alice", "amount": 10})), OK),
                (spend("alice", json!({"tokenAddress": "$A", "amount": 4})), OK),
                (spend("alice", json!({"tokenAddress": "$lc:A", "amount": "6.000000000000000001"})), e(C::InsufficientBalance)),
                (spend("alice", json!({"tokenAddress": "$lc:A", "amount": 6})), OK),
                (spend("alice", json!({"tokenAddress": "$A", "amount": 1})), e(C::InsufficientBalance)),
                (spend("alice", json!({"tokenAddress": "$B", "amount": 1})), e(C::InsufficientBalance)),
                (spend("alice", json!({"tokenAddress": "$GHOST", "amount": 1})), e(C::TokenNotFound)),
                (spend("alice", json!({"amount": 1})), e(C::InvalidRequest)),
                (spend("alice", json!({"tokenAddress": "nope", "amount": 1})), e(C::InvalidAddress)),
                (spend("alice", json!({"tokenAddress": 12, "amount": 1})), e(C::InvalidAddress)),
                (spend("alice", json!({"tokenAddress": "$A", "amount": 0})), e(C::InvalidAmount)),
                (spend("alice", json!({"tokenAddress": "$A", "amount": "abc"})), e(C::InvalidAmount)),
                (spend("alice", json!({"tokenAddress": "$A"})), e(C::InvalidRequest)),
                (spend("nobody", json!({"tokenAddress": "$A", "amount": 1})), e(C::HolderNotFound)),
                (spend("", json!({"tokenAddress": "$A", "amount": 1})), e(C::InvalidUserId)),
            ],
            expect: vec![
                Bal("A", "alice", "0"),
                Bal("A", "merchant", "0"),
                Merch("A", "50000010"),
                App("A", "149999990"),
            ],
        },
        Scenario {
            name: "transfer to a holder, an external address, the merchant wallet",
            steps: vec![
                (dist("$A", json!({"sendToId": "alice", "amount": 100})), OK),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": 30, "toAddress": "$bob"})), OK),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": 20, "toAddress": "$lc:ext1"})), OK),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": 10, "toAddress": "$merchant"})), OK),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": 1, "toAddress": "$alice"})), e(C::SelfTransfer)),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": 1, "toAddress": "$lc:alice"})), e(C::SelfTransfer)),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": 1000, "toAddress": "$alice"})), e(C::SelfTransfer)),
                (transfer("bob", json!({"tokenAddress": "$A", "amount": 30, "toAddress": "$ext1"})), OK),
                (transfer("bob", json!({"tokenAddress": "$A", "amount": 1, "toAddress": "$ext1"})), e(C::InsufficientBalance)),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": 1})), e(C::InvalidRequest)),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": 1, "toAddress": "0x123"})), e(C::InvalidAddress)),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": 1, "toAddress": 42})), e(C::InvalidAddress)),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": "abc", "toAddress": "$bob"})), e(C::InvalidAmount)),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": 41, "toAddress": "$bob"})), e(C::InsufficientBalance)),
                (transfer("carol", json!({"tokenAddress": "$A", "amount": 1, "toAddress": "$bob"})), e(C::InsufficientBalance)),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": 40, "toAddress": "$carol"})), OK),
            ],
            expect: vec![
                Bal("A", "alice", "0"),
                Bal("A", "bob", "0"),
                Bal("A", "carol", "40"),
                Bal("A", "ext1", "50"),
                Bal("A", "merchant", "0"),
                Merch("A", "50000010"),
                App("A", "149999900"),
            ],
        },
        Scenario {
            name: "withdraw out of custody",
            steps: vec![
                (dist("$A", json!({"sendToId": "bob", "amount": 5})), OK),
                (withdraw("bob", json!({"tokenAddress": "$A", "amount": 5, "toAddress": "$ext2"})), OK),
                (withdraw("bob", json!({"tokenAddress": "$A", "amount": 1, "toAddress": "$ext2"})), e(C::InsufficientBalance)),
                (dist("$A", json!({"sendToAddress": "$alice", "amount": 3})), OK),
                (withdraw("alice", json!({"tokenAddress": "$A", "amount": 1, "toAddress": "$carol"})), OK),
                (withdraw("alice", json!({"tokenAddress": "$A", "amount": 1, "toAddress": "$merchant"})), OK),
                (withdraw("alice", json!({"tokenAddress": "$A", "amount": 1, "toAddress": "$alice"})), e(C::SelfTransfer)),
                (withdraw("alice", json!({"tokenAddress": "$A", "amount": "1.5", "toAddress": "not an address"})), e(C::InvalidAddress)),
                (withdraw("alice", json!({"tokenAddress": "$A", "amount": 1})), e(C::InvalidRequest)),
                (withdraw("alice", json!({"tokenAddress": "$GHOST", "amount": 1, "toAddress": "$ext2"})), e(C::TokenNotFound)),
                (withdraw("zed", json!({"tokenAddress": "$A", "amount": 1, "toAddress": "$ext2"})), e(C::HolderNotFound)),
            ],
            expect: vec![
                Bal("A", "bob", "0"),
                Bal("A", "ext2", "5"),
                Bal("A", "alice", "1"),
                Bal("A", "carol", "1"),
                Merch("A", "50000001"),
            ],
        },
        Scenario {
            name: "locked tokens cannot move",
            steps: vec![
                (dist("$A", json!({"sendToId": "alice", "amount": 10})), OK),
                (Op::Lock("A", "alice", "50"), OK),
                (spend("alice", json!({"tokenAddress": "$A", "amount": 20})), e(C::TokensLocked)),
                (spend("alice", json!({"tokenAddress": "$A", "amount": 60})), e(C::TokensLocked)),
                (spend("alice", json!({"tokenAddress": "$A", "amount": "60.000000000000000001"})), e(C::InsufficientBalance)),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": 10, "toAddress": "$bob"})), OK),
                (withdraw("alice", json!({"tokenAddress": "$A", "amount": 1, "toAddress": "$ext1"})), e(C::TokensLocked)),
                (spend("alice", json!({"tokenAddress": "$A", "amount": 50})), e(C::TokensLocked)),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": 51, "toAddress": "$bob"})), e(C::InsufficientBalance)),
            ],
            expect: vec![
                Bal("A", "alice", "0"),
                Locked("A", "alice", "50"),
                Bal("A", "bob", "10"),
                Merch("A", "50000000"),
            ],
        },
        Scenario {
            name: "USDC: deposit, spend, transfer, withdraw",
            steps: vec![
                (Op::Deposit("alice", 12_500_000), OK),
                (Op::Deposit("ext1", 1), e(C::HolderNotFound)),
                (Op::Deposit("merchant", 1), e(C::HolderNotFound)),
                (spend("alice", json!({"tokenAddress": "$USDC", "amount": "2.5"})), OK),
                (spend("alice", json!({"tokenAddress": "$USDC", "amount": "0.0000001"})), e(C::InvalidAmount)),
                (spend("alice", json!({"tokenAddress": "$lc:USDC", "amount": num("0.000001")})), OK),
                (transfer("alice", json!({"tokenAddress": "$USDC", "amount": 5, "toAddress": "$bob"})), OK),
                (withdraw("bob", json!({"tokenAddress": "$USDC", "amount": 5, "toAddress": "$ext1"})), OK),
                (withdraw("bob", json!({"tokenAddress": "$USDC", "amount": "0.000001", "toAddress": "$ext1"})), e(C::InsufficientBalance)),
                (dist("$USDC", json!({"sendToId": "alice", "amount": 1})), e(C::RewardAllocationDisabled)),
                (spend("alice", json!({"tokenAddress": "$USDC", "amount": 5})), e(C::InsufficientBalance)),
            ],
            expect: vec![
                Bal("USDC", "alice", "4.999999"),
                Bal("USDC", "bob", "0"),
                Bal("USDC", "ext1", "5"),
                Merch("USDC", "2.500001"),
                Total("USDC", "12.5"),
                App("USDC", "0"),
            ],
        },
        Scenario {
            name: "USDC deposits that would overflow are refused",
            steps: vec![
                (Op::Deposit("alice", u128::MAX), OK),
                (Op::Deposit("bob", 1), e(C::InvalidAmount)),
                (Op::Deposit("alice", 1), e(C::InvalidAmount)),
            ],
            expect: vec![
                Bal("USDC", "alice", "340282366920938463463374607431768.211455"),
                Total("USDC", "340282366920938463463374607431768.211455"),
            ],
        },
        Scenario {
            name: "tokens are independent",
            steps: vec![
                (dist("$A", json!({"sendToId": "alice", "amount": 7})), OK),
                (dist("$B", json!({"sendToId": "alice", "amount": 3})), OK),
                (spend("alice", json!({"tokenAddress": "$B", "amount": 4})), e(C::InsufficientBalance)),
                (spend("alice", json!({"tokenAddress": "$B", "amount": 3})), OK),
                (transfer("alice", json!({"tokenAddress": "$A", "amount": 7, "toAddress": "$bob"})), OK),
            ],
            expect: vec![
                Bal("A", "alice", "0"),
                Bal("B", "alice", "0"),
                Bal("A", "bob", "7"),
                Bal("B", "bob", "0"),
                Merch("A", "50000000"),
                Merch("B", "50000003"),
                App("B", "149999997"),
            ],
        },
    ]
}

#[test]
fn ledger_scenario_table() {
    let all = scenarios();
    let mut names = BTreeSet::new();
    for s in &all {
        assert!(names.insert(s.name), "duplicate scenario {}", s.name);
        run(s);
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers for the tests below.

fn do_dist(w: &mut World, token: &str, user: &str, amount: Value) -> String {
    let body = obj(json!({"sendToId": user, "amount": amount}));
    let path = w.addr(token).to_checksum();
    let out = ledger::distribute(&mut w.fx.store, &w.fx.ctx, &path, &body).unwrap();
    assert_conserved(&w.fx.store);
    out["transactionHash"].as_str().unwrap().to_string()
}

fn do_out(
    w: &mut World,
    kind: Outflow,
    user: &str,
    token: &str,
    amount: Value,
    to: &str,
) -> ledger::Receipt {
    let mut body = json!({"tokenAddress": w.addr(token).to_checksum(), "amount": amount});
    if kind != Outflow::Spend {
        body["toAddress"] = Value::String(w.addr(to).to_checksum());
    }
    let r = ledger::move_out(&mut w.fx.store, &w.fx.ctx, user, kind, &obj(body)).unwrap();
    assert_conserved(&w.fx.store);
    r
}

fn do_deposit(w: &mut World, who: &str, usdc_units: u128) -> String {
    let address = w.addr(who);
    let h = ledger::deposit_usdc(&mut w.fx.store, &w.fx.ctx, &address, usdc_units).unwrap();
    assert_conserved(&w.fx.store);
    h
}

fn query(limit: Option<&str>, cursor: Option<&str>, token: Option<&str>) -> HistoryQuery {
    HistoryQuery::parse(limit, cursor, token).unwrap()
}

fn page(w: &World, user: &str, q: &HistoryQuery) -> Value {
    history::page(&w.fx.store, user, q).unwrap()
}

fn data(v: &Value) -> &Vec<Value> {
    v["data"].as_array().unwrap()
}

fn field_strs<'a>(v: &'a Value, field: &str) -> Vec<&'a str> {
    data(v).iter().map(|r| r[field].as_str().unwrap()).collect()
}

fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

fn set(items: &[&'static str]) -> BTreeSet<&'static str> {
    items.iter().copied().collect()
}

// ---------------------------------------------------------------------------------------------
// History.

#[test]
fn history_records_every_movement_newest_first() {
    let mut w = world();
    let mut times = Vec::new();
    w.fx.advance(1_000);
    times.push(w.fx.ctx.now);
    let h1 = do_dist(&mut w, "A", "alice", json!(10));
    w.fx.advance(1_000);
    times.push(w.fx.ctx.now);
    let h2 = do_out(&mut w, Outflow::Spend, "alice", "A", json!(1), "").hash;
    w.fx.advance(1_000);
    times.push(w.fx.ctx.now);
    let h3 = do_out(&mut w, Outflow::Transfer, "alice", "A", json!(2), "bob").hash;
    w.fx.advance(1_000);
    times.push(w.fx.ctx.now);
    let h4 = do_out(&mut w, Outflow::Withdraw, "alice", "A", json!(3), "ext1").hash;
    w.fx.advance(1_000);
    times.push(w.fx.ctx.now);
    let h5 = do_deposit(&mut w, "alice", 5_000_000);
    let hashes = [&h1, &h2, &h3, &h4, &h5];
    let unique: BTreeSet<&&String> = hashes.iter().collect();
    assert_eq!(unique.len(), 5, "transaction hashes are unique");

    let all = page(&w, "alice", &query(None, None, None));
    assert_eq!(all["has_more"], false);
    assert_eq!(all["next_cursor"], Value::Null);
    assert_eq!(
        field_strs(&all, "type"),
        ["deposit", "withdraw", "transfer_out", "spend", "distribute"]
    );
    assert_eq!(
        field_strs(&all, "context"),
        ["Deposit", "Withdraw", "Transfer", "Transfer", "Airdrop"]
    );
    assert_eq!(
        field_strs(&all, "transactionHash"),
        [&h5, &h4, &h3, &h2, &h1].map(String::as_str)
    );
    let stamps: Vec<String> = times.iter().rev().map(|t| iso8601(*t)).collect();
    assert_eq!(field_strs(&all, "timestamp"), stamps);

    let (a, alice, bob, ext1, merchant, usdc) = (
        w.addr("A").to_checksum(),
        w.addr("alice").to_checksum(),
        w.addr("bob").to_checksum(),
        w.addr("ext1").to_checksum(),
        w.addr("merchant").to_checksum(),
        usdc_address().to_checksum(),
    );
    let rows = data(&all);
    let expect = [
        (&usdc, "USDC", "5", Address::ZERO.to_checksum(), &alice),
        (&a, "ALPHA", "3", alice.clone(), &ext1),
        (&a, "ALPHA", "2", alice.clone(), &bob),
        (&a, "ALPHA", "1", alice.clone(), &merchant),
        (&a, "ALPHA", "10", a.clone(), &alice),
    ];
    for (row, (token, symbol, amount, from, to)) in rows.iter().zip(expect) {
        assert_eq!(
            keys(row),
            set(&[
                "id",
                "transactionHash",
                "type",
                "context",
                "tokenAddress",
                "symbol",
                "amount",
                "from",
                "to",
                "timestamp",
                "blockNumber"
            ])
        );
        assert!(row["blockNumber"].as_u64().is_some_and(|b| b > 0), "{row}");
        assert_eq!(row["tokenAddress"], *token, "{row}");
        assert_eq!(row["symbol"], symbol, "{row}");
        assert_eq!(row["amount"].to_string(), amount, "{row}");
        assert_eq!(row["from"], from, "{row}");
        assert_eq!(row["to"], *to, "{row}");
    }

    // The holder-to-holder transfer is in both histories, under one hash and two ids.
    let bobs = page(&w, "bob", &query(None, None, None));
    assert_eq!(field_strs(&bobs, "type"), ["transfer_in"]);
    let inbound = &data(&bobs)[0];
    assert_eq!(inbound["transactionHash"], h3.as_str());
    assert_eq!(inbound["from"], alice.as_str());
    assert_eq!(inbound["to"], bob.as_str());
    assert_eq!(inbound["amount"].to_string(), "2");
    assert_eq!(inbound["context"], "Transfer");
    assert_ne!(inbound["id"], rows[2]["id"]);

    // Record ids are unique across the whole store.
    let ids: BTreeSet<&str> = w.fx.store.history.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), w.fx.store.history.len());
    // Nobody else has records; an unknown user has none.
    assert!(data(&page(&w, "carol", &query(None, None, None))).is_empty());
    assert!(data(&page(&w, "nobody", &query(None, None, None))).is_empty());
}

#[test]
fn withdraw_to_a_holder_is_in_the_recipients_history() {
    let mut w = world();
    do_dist(&mut w, "A", "alice", json!(3));
    let h = do_out(&mut w, Outflow::Withdraw, "alice", "A", json!(1), "carol").hash;
    let carol = page(&w, "carol", &query(None, None, None));
    assert_eq!(field_strs(&carol, "type"), ["transfer_in"]);
    assert_eq!(field_strs(&carol, "transactionHash"), [h.as_str()]);
    let alice = page(&w, "alice", &query(None, None, None));
    assert_eq!(field_strs(&alice, "type"), ["withdraw", "distribute"]);
}

/// Alice gets 23 ALPHA, 5 BETA and 3 USDC records, interleaved with bob's.
fn busy_world() -> World {
    let mut w = world();
    for i in 0..23u32 {
        w.fx.advance(1_000);
        do_dist(&mut w, "A", "alice", json!(i + 1));
        if i % 5 == 0 {
            do_dist(&mut w, "B", "alice", json!(i + 1));
            do_dist(&mut w, "A", "bob", json!(1));
        }
        if i % 8 == 0 {
            do_deposit(&mut w, "alice", 1_000_000);
        }
    }
    w
}

/// Follows next_cursor from the first page; checks every page's shape, returns the ids.
fn walk(w: &World, user: &str, limit: u32, token: Option<&str>) -> Vec<String> {
    let limit_text = limit.to_string();
    let mut cursor: Option<String> = None;
    let mut ids = Vec::new();
    for _ in 0..1_000 {
        let q = query(Some(&limit_text), cursor.as_deref(), token);
        let p = page(w, user, &q);
        let rows = data(&p);
        ids.extend(rows.iter().map(|r| r["id"].as_str().unwrap().to_string()));
        if p["has_more"] == true {
            assert_eq!(rows.len(), limit as usize, "a page with more is full");
            cursor = Some(p["next_cursor"].as_str().unwrap().to_string());
        } else {
            assert_eq!(p["next_cursor"], Value::Null);
            assert!(rows.len() <= limit as usize);
            return ids;
        }
    }
    panic!("paging did not end");
}

#[test]
fn history_paging_covers_every_record_exactly_once() {
    let w = busy_world();
    let all = page(&w, "alice", &query(Some("200"), None, None));
    assert_eq!(all["has_more"], false);
    let all_ids: Vec<String> = field_strs(&all, "id")
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(all_ids.len(), 23 + 5 + 3);
    // Default page size is 50: everything fits.
    assert_eq!(data(&page(&w, "alice", &query(None, None, None))).len(), 31);
    for limit in [1, 2, 5, 7, 30, 31, 32, 200] {
        assert_eq!(walk(&w, "alice", limit, None), all_ids, "limit {limit}");
    }
    // Newest first: timestamps never increase down the list.
    let stamps = field_strs(&all, "timestamp");
    assert!(stamps.windows(2).all(|p| p[0] >= p[1]));
    // An empty cursor is the first page.
    let first = page(&w, "alice", &query(Some("3"), Some(""), None));
    assert_eq!(field_strs(&first, "id"), all_ids[..3].to_vec());
}

#[test]
fn history_filters_by_token() {
    let w = busy_world();
    let a = w.addr("A").to_checksum();
    for (token, n) in [
        (a.clone(), 23),
        (a.to_ascii_lowercase(), 23),
        (w.addr("B").to_checksum(), 5),
        (usdc_address().to_checksum(), 3),
        (w.addr("SMALL").to_checksum(), 0),
    ] {
        let all = page(&w, "alice", &query(Some("200"), None, Some(&token)));
        let rows = data(&all);
        assert_eq!(rows.len(), n, "{token}");
        assert!(rows.iter().all(|r| r["tokenAddress"]
            .as_str()
            .unwrap()
            .eq_ignore_ascii_case(&token)));
        let ids: Vec<String> = field_strs(&all, "id")
            .into_iter()
            .map(String::from)
            .collect();
        for limit in [1, 4, 23] {
            assert_eq!(
                walk(&w, "alice", limit, Some(&token)),
                ids,
                "{token} {limit}"
            );
        }
    }
    // Bob only has his own ALPHA records.
    let bob = page(&w, "bob", &query(None, None, Some(&a)));
    assert_eq!(data(&bob).len(), 5);
    assert!(field_strs(&bob, "to")
        .iter()
        .all(|t| *t == w.addr("bob").to_checksum()));
}

#[test]
fn history_query_validation() {
    for limit in ["0", "201", "abc", "-1", "1.5", "", "1e2", "99999999999"] {
        let err = HistoryQuery::parse(Some(limit), None, None)
            .err()
            .unwrap_or_else(|| panic!("limit {limit:?} accepted"));
        assert_eq!(err.code, C::InvalidRequest, "limit {limit:?}");
        assert_eq!(err.details.unwrap()["field"], "limit");
    }
    for limit in ["1", "50", "200"] {
        assert!(
            HistoryQuery::parse(Some(limit), None, None).is_ok(),
            "{limit}"
        );
    }
    assert_eq!(query(None, None, None).limit, 50);
    for cursor in ["abc", "c", "c0", "x5", "c-1", "c1.5", "5", "cabc"] {
        let err = HistoryQuery::parse(None, Some(cursor), None)
            .err()
            .unwrap_or_else(|| panic!("cursor {cursor:?} accepted"));
        assert_eq!(err.code, C::InvalidCursor, "cursor {cursor:?}");
    }
    assert!(query(None, Some(""), None).before.is_none());
    assert!(query(None, None, Some("")).token.is_none());
    for token in ["0x12", "abc", "0xZZ00000000000000000000000000000000000000"] {
        let err = HistoryQuery::parse(None, None, Some(token))
            .err()
            .unwrap_or_else(|| panic!("token {token:?} accepted"));
        assert_eq!(err.code, C::InvalidAddress, "token {token:?}");
    }
}

#[test]
fn a_cursor_from_another_query_still_only_goes_older() {
    let w = busy_world();
    let all_ids: Vec<String> =
        field_strs(&page(&w, "alice", &query(Some("200"), None, None)), "id")
            .into_iter()
            .map(String::from)
            .collect();
    let p = page(&w, "alice", &query(Some("10"), None, None));
    let cursor = p["next_cursor"].as_str().unwrap().to_string();
    let rest = page(&w, "alice", &query(Some("200"), Some(&cursor), None));
    assert_eq!(field_strs(&rest, "id"), all_ids[10..].to_vec());
}

// ---------------------------------------------------------------------------------------------
// Holder and token JSON.

#[test]
fn holder_full_json_shape() {
    let mut w = world();
    let alice = w.fx.holder("alice");
    let empty = holder::full_json(&w.fx.store, &alice, vec![]).unwrap();
    assert_eq!(
        empty,
        json!({
            "success": true,
            "id": "alice",
            "address": alice.address.to_checksum(),
            "totalValue": 0,
            "tokens": [],
            "presales": [],
            "locks": [],
        })
    );

    do_dist(&mut w, "A", "alice", json!(10));
    do_deposit(&mut w, "alice", 12_500_000);
    let item_keys = set(&[
        "id", "address", "name", "symbol", "balance", "value", "status", "type",
    ]);
    let v = holder::full_json(&w.fx.store, &alice, vec![]).unwrap();
    let tokens = v["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 2);
    let usdc = usdc_address().to_checksum();
    assert_eq!(
        tokens[0],
        json!({
            "id": usdc, "address": usdc, "name": "USD Coin", "symbol": "USDC",
            "balance": num("12.5"), "value": num("12.5"), "status": "active", "type": "token",
        })
    );
    let a = w.addr("A").to_checksum();
    assert_eq!(
        tokens[1],
        json!({
            "id": a, "address": a, "name": "Alpha", "symbol": "ALPHA",
            "balance": 10, "value": 0, "status": "active", "type": "token",
        })
    );
    for t in tokens {
        assert_eq!(keys(t), item_keys);
    }
    assert_eq!(v["totalValue"].to_string(), "12.5");

    // A price values the tokens (0.15 USD each) and re-sorts by value.
    let mut token = w.fx.token(&w.addr("A"));
    token.price = Some(units("0.15", money::PRICE_DECIMALS));
    w.fx.store.put_token(&token).unwrap();
    let v = holder::full_json(&w.fx.store, &alice, vec![]).unwrap();
    assert_eq!(v["tokens"][1]["value"].to_string(), "1.5");
    assert_eq!(v["totalValue"].to_string(), "14");
    token.price = Some(units("2", money::PRICE_DECIMALS));
    w.fx.store.put_token(&token).unwrap();
    let v = holder::full_json(&w.fx.store, &alice, vec![]).unwrap();
    assert_eq!(v["tokens"][0]["symbol"], "ALPHA");
    assert_eq!(v["tokens"][0]["value"].to_string(), "20");
    assert_eq!(v["totalValue"].to_string(), "32.5");

    // Locked balance is not an active token item.
    w.fx.lock(&w.addr("A"), &alice.address, tok("50"));
    let v = holder::full_json(&w.fx.store, &alice, vec![]).unwrap();
    assert_eq!(v["tokens"][0]["balance"].to_string(), "10");

    // Spent down to zero, an item disappears.
    do_out(&mut w, Outflow::Spend, "alice", "A", json!(10), "");
    do_out(&mut w, Outflow::Spend, "alice", "USDC", json!(12.5), "");
    let v = holder::full_json(&w.fx.store, &alice, vec![]).unwrap();
    assert_eq!(v["tokens"], json!([]));
    assert_eq!(v["totalValue"], json!(0));

    // The balance object.
    let b = holder::balance_json(&w.fx.store, &alice.address, &w.fx.token(&w.addr("A"))).unwrap();
    assert_eq!(b["balance"], json!(0));
    assert_eq!(b["lockedBalance"], json!(50));
    assert_eq!(b["decimals"], json!(18));
}

#[test]
fn token_json_lists_holders_by_balance() {
    let mut w = world();
    do_dist(&mut w, "A", "alice", json!(5));
    do_dist(&mut w, "A", "bob", json!(50));
    do_dist(&mut w, "A", "carol", json!(20));
    do_out(&mut w, Outflow::Transfer, "alice", "A", json!(2), "ext1");
    let a = w.addr("A");
    let token = w.fx.token(&a);
    let (rows, count) = w.fx.store.top_holders(&a, 100).unwrap();
    let v = token_json(&token, &rows, count);
    let holder_row = |id: String, who: &str, balance: u64| json!({"id": id, "address": w.addr(who).to_checksum(), "balance": balance, "value": 0});
    assert_eq!(
        v["holders"],
        json!([
            holder_row("bob".into(), "bob", 50),
            holder_row("carol".into(), "carol", 20),
            holder_row("alice".into(), "alice", 3),
            holder_row(w.addr("ext1").to_checksum(), "ext1", 2),
        ])
    );
    assert_eq!(v["holdersCount"], json!(4));
    assert_eq!(v["id"], v["address"]);
    assert_eq!(v["address"], a.to_checksum());
    assert_eq!(v["name"], "Alpha");
    assert_eq!(v["symbol"], "ALPHA");
    assert_eq!(v["decimals"], 18);
    assert_eq!(v["network"], "base");
    assert_eq!(v["totalSupply"], json!(1_000_000_000));
    assert_eq!(v["startingAppSupply"], json!(150_000_000));
    assert_eq!(v["remainingAppSupply"], json!(149_999_925));
    assert_eq!(v["merchantSupply"], json!(50_000_000));
    assert_eq!(v["liquiditySupply"], json!(800_000_000));
    assert_eq!(v["merchantAddress"], w.addr("merchant").to_checksum());
    assert_eq!(v["price"], Value::Null);
    assert_eq!(v["canDistribute"], true);

    // A limit cuts the list, not the count.
    let (rows, count) = w.fx.store.top_holders(&a, 2).unwrap();
    let v = token_json(&token, &rows, count);
    assert_eq!(v["holders"].as_array().unwrap().len(), 2);
    assert_eq!(v["holders"][0]["id"], "bob");
    assert_eq!(v["holdersCount"], json!(4));

    // Spending to the merchant supply is not a holder balance.
    do_out(&mut w, Outflow::Spend, "alice", "A", json!(3), "");
    let (rows, count) = w.fx.store.top_holders(&a, 100).unwrap();
    assert_eq!(count, 3);
    assert!(rows.iter().all(|r| r.owner != w.addr("merchant")));

    // With a price, values follow.
    let mut token = w.fx.token(&a);
    token.price = Some(units("0.5", money::PRICE_DECIMALS));
    w.fx.store.put_token(&token).unwrap();
    let v = token_json(&token, &rows, count);
    assert_eq!(v["holders"][0]["value"], json!(25));
    assert_eq!(v["price"].to_string(), "0.5");
}

// ---------------------------------------------------------------------------------------------
// Jobs, holders, exact decimals, receipts.

#[test]
fn token_job_lifecycle() {
    let mut fx = Fx::new();
    let job = fx.submit_token(json!({"name": "Gamma", "symbol": "GAM", "totalSupply": 1000}));
    assert_eq!(job.status, JobStatus::Pending);
    assert_eq!(job.submitted_at, T0);
    assert!(job.mined_at > T0 && job.mined_at <= T0 + chain::BLOCK_MS);
    let v = job::to_json(&fx.store, &job).unwrap();
    assert_eq!(v["status"], "pending");
    assert_eq!(v["jobId"], job.id.as_str());
    assert!(v.get("data").is_none());
    assert!(fx.store.token(&job.token_address).unwrap().is_none());

    // One millisecond before it is mined: still pending, no token.
    fx.ctx.now = job.mined_at - 1;
    assert_eq!(due::run_due(&mut fx.store, &fx.ctx).unwrap(), 0);
    let j = job::find(&fx.store, &job.id).unwrap();
    assert_eq!(j.status, JobStatus::Pending);
    assert!(fx.store.token(&job.token_address).unwrap().is_none());
    assert_eq!(fx.store.next_due().unwrap(), Some(job.mined_at));

    // Mined: the token exists, and the job reports it.
    fx.ctx.now = job.mined_at;
    assert_eq!(due::run_due(&mut fx.store, &fx.ctx).unwrap(), 1);
    let j = job::find(&fx.store, &job.id).unwrap();
    assert_eq!(j.status, JobStatus::Success);
    let token = fx.token(&job.token_address);
    assert_eq!(token.symbol, "GAM");
    assert_eq!(token.created_at, job.mined_at);
    assert_eq!(token.total_supply, tok("1000"));
    assert_eq!(token.remaining_app_supply, tok("150"));
    let v = job::to_json(&fx.store, &j).unwrap();
    assert_eq!(v["status"], "success");
    assert_eq!(v["data"]["address"], job.token_address.to_checksum());
    assert_eq!(v["data"]["holdersCount"], 0);
    assert!(v.get("error").is_none());
    assert_conserved(&fx.store);

    // Nothing more is due; running again changes nothing.
    assert_eq!(fx.store.next_due().unwrap(), None);
    let before = fx.store.clone();
    assert_eq!(due::run_due(&mut fx.store, &fx.ctx).unwrap(), 0);
    assert_unchanged(&before, &fx.store, "second run_due");

    // A second token deploys at a different address.
    let second = fx.create_token(json!({"name": "Delta", "symbol": "DEL"}));
    assert_ne!(second, job.token_address);
    assert_eq!(
        job::find(&fx.store, "no-such-job").unwrap_err().code,
        C::JobNotFound
    );
}

#[test]
fn get_or_create_is_idempotent() {
    let mut fx = Fx::new();
    let mut calls = 0u32;
    let mut next = 10u8;
    let mut make = || -> Result<NewWallet, Error> {
        calls += 1;
        next += 1;
        Ok(NewWallet {
            address: wallet(next).address,
            sealed_key: "aa".into(),
        })
    };
    let (h1, created1) =
        holder::get_or_create(&mut fx.store, &fx.ctx, "user-1", &mut make).unwrap();
    fx.advance(5_000);
    let (h2, created2) =
        holder::get_or_create(&mut fx.store, &fx.ctx, "user-1", &mut make).unwrap();
    assert!(created1);
    assert!(!created2);
    assert_eq!(h1, h2);
    assert_eq!(h1.created_at, T0);
    let (h3, created3) =
        holder::get_or_create(&mut fx.store, &fx.ctx, "user 2", &mut make).unwrap();
    assert!(created3);
    assert_ne!(h3.address, h1.address);
    assert_eq!(calls, 2, "one wallet per new userId");
    assert_eq!(fx.store.holders.len(), 2);

    // An invalid userId never asks for a wallet.
    let mut never = || -> Result<NewWallet, Error> { panic!("wallet made for an invalid userId") };
    for bad in ["", "a\nb", &"x".repeat(129)] {
        let err = holder::get_or_create(&mut fx.store, &fx.ctx, bad, &mut never).unwrap_err();
        assert_eq!(err.code, C::InvalidUserId);
    }
    // A failing wallet source creates nothing.
    let before = fx.store.clone();
    let mut failing = || -> Result<NewWallet, Error> { Err(Error::internal("no randomness")) };
    let err = holder::get_or_create(&mut fx.store, &fx.ctx, "user-3", &mut failing).unwrap_err();
    assert_eq!(err.code, C::Internal);
    assert_unchanged(&before, &fx.store, "failed wallet");
    // A colliding address is refused rather than shared.
    let mut colliding = || {
        Ok(NewWallet {
            address: h1.address,
            sealed_key: "bb".into(),
        })
    };
    let err = holder::get_or_create(&mut fx.store, &fx.ctx, "user-4", &mut colliding).unwrap_err();
    assert_eq!(err.code, C::Internal);
    assert_unchanged(&before, &fx.store, "collision");
    assert_eq!(
        holder::find(&fx.store, "user-3").unwrap_err().code,
        C::HolderNotFound
    );
}

#[test]
fn point_one_plus_point_two_is_exactly_point_three() {
    for (a, b) in [
        (num("0.1"), num("0.2")),
        (json!("0.1"), json!("0.2")),
        (json!(0.1), json!(0.2)),
    ] {
        let mut w = world();
        do_dist(&mut w, "A", "alice", a);
        do_dist(&mut w, "A", "alice", b);
        let (token, alice) = (w.addr("A"), w.addr("alice"));
        assert_eq!(w.fx.active(&token, &alice), 300_000_000_000_000_000);
        let t = w.fx.token(&token);
        let b = holder::balance_json(&w.fx.store, &alice, &t).unwrap();
        assert_eq!(b["balance"].to_string(), "0.3");
        let h = w.fx.holder("alice");
        let full = holder::full_json(&w.fx.store, &h, vec![]).unwrap();
        assert_eq!(full["tokens"][0]["balance"].to_string(), "0.3");
        let hist = page(&w, "alice", &query(None, None, None));
        let amounts: Vec<String> = data(&hist)
            .iter()
            .map(|r| r["amount"].to_string())
            .collect();
        assert_eq!(amounts, ["0.2", "0.1"]);
    }
}

#[test]
fn receipts_and_distribute_responses() {
    let mut w = world();
    let path = w.addr("A").to_checksum();
    let out = ledger::distribute(
        &mut w.fx.store,
        &w.fx.ctx,
        &path,
        &obj(json!({"sendToId": "alice", "amount": 10})),
    )
    .unwrap();
    assert_eq!(keys(&out), set(&["success", "transactionHash"]));
    assert_eq!(out["success"], true);
    assert_tx_hash(&out["transactionHash"]);

    let r = do_out(&mut w, Outflow::Transfer, "alice", "A", json!("2.5"), "bob");
    let v = r.to_json();
    assert_eq!(
        v,
        json!({
            "success": true,
            "transactionHash": r.hash,
            "from": w.addr("alice").to_checksum(),
            "to": w.addr("bob").to_checksum(),
            "amount": num("2.5"),
            "tokenAddress": path,
        })
    );
    let r = do_out(&mut w, Outflow::Spend, "alice", "A", json!(1), "");
    assert_eq!(r.to, w.addr("merchant"));
    assert_eq!(r.from, w.addr("alice"));
}

#[test]
fn spend_goes_to_the_tokens_own_merchant_address() {
    let mut w = world();
    let ext2 = w.addr("ext2");
    let custom = w.fx.create_token(
        json!({"name": "Custom", "symbol": "CUS", "merchantAddress": ext2.to_checksum().to_ascii_lowercase()}),
    );
    w.names.insert("CUS", custom);
    assert_eq!(w.fx.token(&custom).merchant_address, ext2);
    do_dist(&mut w, "CUS", "alice", json!(10));
    let r = do_out(&mut w, Outflow::Spend, "alice", "CUS", json!(4), "");
    assert_eq!(r.to, ext2);
    let r = do_out(&mut w, Outflow::Transfer, "alice", "CUS", json!(1), "ext2");
    assert_eq!(r.to, ext2);
    let t = w.fx.token(&custom);
    assert_eq!(t.merchant_supply, tok("50000005"));
    assert_eq!(w.fx.active(&custom, &ext2), 0);
    // The merchant's own wallet is just another address for this token.
    do_out(
        &mut w,
        Outflow::Transfer,
        "alice",
        "CUS",
        json!(1),
        "merchant",
    );
    assert_eq!(w.fx.active(&custom, &w.addr("merchant")), tok("1"));
    assert_eq!(w.fx.token(&custom).merchant_supply, tok("50000005"));
}
