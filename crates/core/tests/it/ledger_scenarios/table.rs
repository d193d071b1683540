//! The scenario runner: operations, expectations, and the checks after every step.

use super::{assert_tx_hash, world, World};
use crate::common::{self, assert_conserved, assert_unchanged, tok, units, Kind};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use tokenpad_core::error::{Error, ErrorCode as C};
use tokenpad_core::model::history::ChainStatus;
use tokenpad_core::wire::ledger::DistributeResult;
use tokenpad_core::wire::settlement::Settlement;

pub enum Op {
    /// distribute on a token path (`$name` or raw text) with a body.
    Dist(&'static str, Value),
    /// spend / transfer / withdraw by a userId with a body.
    Out(Kind, &'static str, Value),
    /// deposit_usdc to a named address, in USDC base units.
    Deposit(&'static str, u128),
    /// A presale-style lock put directly in the store: (token, holder, whole tokens).
    Lock(&'static str, &'static str, &'static str),
}

pub fn dist(token: &'static str, body: Value) -> Op {
    Op::Dist(token, body)
}
pub fn spend(user: &'static str, body: Value) -> Op {
    Op::Out(Kind::Spend, user, body)
}
pub fn transfer(user: &'static str, body: Value) -> Op {
    Op::Out(Kind::Transfer, user, body)
}
pub fn withdraw(user: &'static str, body: Value) -> Op {
    Op::Out(Kind::Withdraw, user, body)
}

impl Op {
    fn describe(&self) -> String {
        match self {
            Op::Dist(t, b) => format!("distribute {t} {b}"),
            Op::Out(k, u, b) => format!("{} {u:?} {b}", k.name()),
            Op::Deposit(who, n) => format!("deposit {who} {n}"),
            Op::Lock(t, who, n) => format!("lock {t} {who} {n}"),
        }
    }
}

/// What a scenario ends with: amounts in whole units of the token.
pub enum Exp {
    /// Active balance of a named address.
    Bal(&'static str, &'static str, &'static str),
    Locked(&'static str, &'static str, &'static str),
    App(&'static str, &'static str),
    Merch(&'static str, &'static str),
    Total(&'static str, &'static str),
}

pub type Want = Result<(), C>;
pub const OK: Want = Ok(());

pub struct Scenario {
    pub name: &'static str,
    pub steps: Vec<(Op, Want)>,
    pub expect: Vec<Exp>,
}

fn apply(w: &mut World, op: &Op) -> Result<(), Error> {
    match op {
        Op::Dist(t, body) => {
            let path = w.text(t);
            let body = w.resolve(body);
            let hash = common::distribute(&mut w.fx.store, &w.fx.ctx, &path, &body)?;
            let out = common::json(&DistributeResult {
                success: true,
                settlement: Settlement {
                    transaction_hash: Some(hash),
                    chain_status: ChainStatus::Confirmed,
                    block_number: None,
                },
            });
            assert_eq!(out["success"], true);
            assert_tx_hash(&out["transactionHash"]);
            Ok(())
        }
        Op::Out(kind, user, body) => {
            let body = w.resolve(body);
            let r = common::move_out(&mut w.fx.store, &w.fx.ctx, *kind, user, &body)?;
            assert_tx_hash(&json!(r.stamp.hash));
            Ok(())
        }
        Op::Deposit(who, amount) => {
            let address = w.addr(who);
            common::deposit(&mut w.fx.store, &w.fx.ctx, &address, *amount).map(|h| {
                assert_tx_hash(&Value::String(h));
            })
        }
        Op::Lock(t, who, amount) => {
            let (token, owner) = (w.token(t), w.addr(who));
            w.fx.lock(&token, &owner, tok(amount));
            Ok(())
        }
    }
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
                w.fx.active(&w.token(t), &w.addr(who)),
                units(amt, w.decimals(t)),
            ),
            Exp::Locked(t, who, amt) => (
                format!("locked {t} of {who}"),
                w.fx.balance(&w.token(t), &w.addr(who)).locked.raw(),
                units(amt, w.decimals(t)),
            ),
            Exp::App(t, amt) => (
                format!("remainingAppSupply of {t}"),
                w.fx.token(&w.token(t)).remaining_app_supply.raw(),
                units(amt, w.decimals(t)),
            ),
            Exp::Merch(t, amt) => (
                format!("merchantSupply of {t}"),
                w.fx.token(&w.token(t)).merchant_supply.raw(),
                units(amt, w.decimals(t)),
            ),
            Exp::Total(t, amt) => (
                format!("totalSupply of {t}"),
                w.fx.token(&w.token(t)).total_supply.raw(),
                units(amt, w.decimals(t)),
            ),
        };
        assert_eq!(got, want, "{}: {label}", s.name);
    }
}

#[test]
fn ledger_scenario_table() {
    let all = super::rows::scenarios();
    let mut names = BTreeSet::new();
    for s in &all {
        assert!(names.insert(s.name), "duplicate scenario {}", s.name);
        run(s);
    }
}
