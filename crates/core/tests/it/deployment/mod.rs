//! Memecoin and airdrop deployments over the real core (MemStore): the validation table of
//! contract section 9, then the lifecycle on the embedded chain (pending with a known token
//! address and transaction hash, mined one block later into a Token like any other, or
//! failed), the status JSON and the overview page's data.

mod lifecycle;
mod parsing;
mod pool_reserve;
mod validation;

use crate::common::{self, assert_conserved, Fx};
use serde_json::{json, Value};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::chain::BLOCK_MS;
use tokenpad_core::model::deployment::{DeploySpec, Deployment, DeploymentKind as K};
use tokenpad_core::model::ids::{uuid_v4, DeploymentId};
use tokenpad_core::ops;
use tokenpad_core::wire::deployment::DeploymentStatusResult;

pub const BASE: &str = "https://tokenpad.example";

/// A distinct, valid address for index `i`.
pub fn addr(i: u32) -> Address {
    let mut b = [0u8; 20];
    b[0] = 0xa1;
    b[16..].copy_from_slice(&i.to_be_bytes());
    Address(b)
}

pub fn addr_text(i: u32) -> String {
    addr(i).to_checksum()
}

pub fn memecoin() -> Value {
    json!({
        "name": "Pepe Two", "symbol": "PEPE2", "totalSupply": 1000000, "initialPrice": 0.0001,
        "network": "base", "marketplace": true,
        "recipient": { "address": addr_text(1), "amount": 100000 },
    })
}

pub fn airdrop() -> Value {
    json!({
        "name": "Drop", "symbol": "DROP", "totalSupply": 1000, "initialPrice": "0.5",
        "network": "base-sepolia", "marketplace": false,
        "airdrop": { "addresses": [addr_text(10), addr_text(11), addr_text(12)], "supply": 100 },
        "recipient": { "address": addr_text(1), "amount": 50 },
    })
}

/// `base` with `path` (dotted) set to `value`, or removed when `value` is None.
pub fn with(mut base: Value, path: &str, value: Option<Value>) -> Value {
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts.pop().unwrap();
    let mut node = &mut base;
    for p in parts {
        if !node.get(p).is_some_and(Value::is_object) {
            node[p] = json!({});
        }
        node = node.get_mut(p).unwrap();
    }
    let map = node.as_object_mut().unwrap();
    match value {
        Some(v) => {
            map.insert(last.to_string(), v);
        }
        None => {
            map.remove(last);
        }
    }
    base
}

/// The body decoded as the template's request, then validated into its record.
pub fn parse(kind: K, body: Value) -> Result<DeploySpec, tokenpad_core::Error> {
    common::deploy_spec(kind, &body)
}

// ---------------------------------------------------------------------------------------------
// Lifecycle helpers.

pub fn create(fx: &mut Fx, kind: K, body: Value, n: u8) -> Deployment {
    try_create(fx, kind, body, n).unwrap()
}

/// `create`, its refusal kept.
pub fn try_create(
    fx: &mut Fx,
    kind: K,
    body: Value,
    n: u8,
) -> Result<Deployment, tokenpad_core::Error> {
    let spec = parse(kind, body).unwrap();
    let mut id = [0u8; 16];
    id[0] = 0xde;
    id[15] = n;
    let id = DeploymentId::new_unchecked(uuid_v4(id));
    ops::deployment::create(&mut fx.store, &fx.ctx, spec, id)
}

pub fn mine(fx: &mut Fx) {
    fx.advance(BLOCK_MS);
    ops::due::run_due(&mut fx.store, &fx.ctx).unwrap();
    assert_conserved(&fx.store);
}

/// The status answer, as JSON.
pub fn status(fx: &Fx, d: &Deployment) -> Value {
    let d = ops::deployment::find(&fx.store, &d.id, Some(d.kind)).unwrap();
    common::json(&DeploymentStatusResult::of(&d, BASE))
}
