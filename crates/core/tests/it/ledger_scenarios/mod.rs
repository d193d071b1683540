//! Table-driven ledger scenarios over the real core (MemStore): each row is a sequence of
//! operations with the exact expected outcome of each, then the expected balances and pools.
//! After every step the store must be conserved, and a refused step must have written nothing.
//! Then history, holder and token JSON shapes, the token job lifecycle and get-or-create.

mod history;
mod lifecycle;
mod rows;
mod table;
mod views;

use crate::common::{self, assert_conserved, usdc_address, wallet, Fx, Kind};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::ids::{TokenAddress, UserId};
use tokenpad_core::ops::history::HistoryQuery;
use tokenpad_core::ops::ledger::Receipt;
use tokenpad_core::wire::ledger::TxPage;

// ---------------------------------------------------------------------------------------------
// The world every scenario starts from.

pub struct World {
    pub fx: Fx,
    pub names: BTreeMap<&'static str, Address>,
}

const HOLDERS: [&str; 3] = ["alice", "bob", "carol"];

pub fn world() -> World {
    let mut fx = Fx::new();
    let mut names = BTreeMap::new();
    names.insert(
        "A",
        fx.create_token(json!({"name": "Alpha", "symbol": "ALPHA"}))
            .address(),
    );
    names.insert(
        "B",
        fx.create_token(json!({"name": "Beta", "symbol": "BETA"}))
            .address(),
    );
    names.insert(
        "NODIST",
        fx.create_token(json!({"name": "Closed", "symbol": "SHUT", "canDistribute": false}))
            .address(),
    );
    // totalSupply 100: app 15, merchant 5, liquidity 80.
    names.insert(
        "SMALL",
        fx.create_token(json!({"name": "Small", "symbol": "SMALL", "totalSupply": 100}))
            .address(),
    );
    names.insert("USDC", usdc_address().address());
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
    pub fn addr(&self, name: &str) -> Address {
        *self
            .names
            .get(name)
            .unwrap_or_else(|| panic!("no name {name}"))
    }

    /// The named address as a token's address.
    pub fn token(&self, name: &str) -> TokenAddress {
        TokenAddress(self.addr(name))
    }

    /// `$name` is that address, checksummed; `$lc:name` the same in lowercase. Other text is
    /// used as is.
    pub fn text(&self, s: &str) -> String {
        if let Some(name) = s.strip_prefix("$lc:") {
            self.addr(name).to_checksum().to_ascii_lowercase()
        } else if let Some(name) = s.strip_prefix('$') {
            self.addr(name).to_checksum()
        } else {
            s.to_string()
        }
    }

    pub fn resolve(&self, v: &Value) -> Value {
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

    pub fn decimals(&self, token: &str) -> u8 {
        self.fx.token(&self.token(token)).decimals
    }
}

pub fn assert_tx_hash(v: &Value) {
    let s = v.as_str().expect("hash is a string");
    assert!(
        s.len() == 66 && s.starts_with("0x") && s[2..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{s}"
    );
}

// ---------------------------------------------------------------------------------------------
// Helpers for the tests of the submodules.

pub fn do_dist(w: &mut World, token: &str, user: &str, amount: Value) -> String {
    let body = json!({"sendToId": user, "amount": amount});
    let path = w.addr(token).to_checksum();
    let hash = common::distribute(&mut w.fx.store, &w.fx.ctx, &path, &body).unwrap();
    assert_conserved(&w.fx.store);
    hash
}

pub fn do_out(
    w: &mut World,
    kind: Kind,
    user: &str,
    token: &str,
    amount: Value,
    to: &str,
) -> Receipt {
    let mut body = json!({"tokenAddress": w.addr(token).to_checksum(), "amount": amount});
    if kind != Kind::Spend {
        body["toAddress"] = Value::String(w.addr(to).to_checksum());
    }
    let r = common::move_out(&mut w.fx.store, &w.fx.ctx, kind, user, &body).unwrap();
    assert_conserved(&w.fx.store);
    r
}

pub fn do_deposit(w: &mut World, who: &str, usdc_units: u128) -> String {
    let address = w.addr(who);
    let h = common::deposit(&mut w.fx.store, &w.fx.ctx, &address, usdc_units).unwrap();
    assert_conserved(&w.fx.store);
    h
}

pub fn query(limit: Option<&str>, cursor: Option<&str>, token: Option<&str>) -> HistoryQuery {
    HistoryQuery::parse(limit, cursor, token).unwrap()
}

/// One page of a user's history, as the JSON clients see.
pub fn page(w: &World, user: &str, q: &HistoryQuery) -> Value {
    let user = UserId::parse(user).unwrap();
    let p = tokenpad_core::ops::history::page(&w.fx.store, &user, q).unwrap();
    common::json(&TxPage::of(p, None))
}

pub fn data(v: &Value) -> &Vec<Value> {
    v["data"].as_array().unwrap()
}

pub fn field_strs<'a>(v: &'a Value, field: &str) -> Vec<&'a str> {
    data(v).iter().map(|r| r[field].as_str().unwrap()).collect()
}

pub fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

pub fn set(items: &[&'static str]) -> BTreeSet<&'static str> {
    items.iter().copied().collect()
}
