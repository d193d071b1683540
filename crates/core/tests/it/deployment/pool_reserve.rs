//! A memecoin's pool opens from its liquidity reserve (the supply less the recipient's) at its
//! initial price: a reserve too small for a position there is refused when the deployment is
//! asked for, never accepted to fail forever when it is mined (the simulator found both: the
//! recipient given the whole supply, and 1,698 base units at $0.07).

use super::{mine, status, try_create, with};
use crate::common::Fx;
use serde_json::json;
use tokenpad_core::error::ErrorCode as C;
use tokenpad_core::model::deployment::DeploymentKind as K;

fn tiny() -> serde_json::Value {
    json!({
        "name": "Dust", "symbol": "DUST", "totalSupply": "0.000000000000001906",
        "initialPrice": "0.070955", "network": "base", "marketplace": true,
    })
}

#[test]
fn a_memecoin_whose_pool_cannot_open_is_refused_when_asked_for() {
    let mut fx = Fx::new();
    let refused = [
        (
            with(super::memecoin(), "recipient.amount", Some(json!(1000000))),
            "recipient.amount",
        ),
        (
            with(
                tiny(),
                "recipient",
                Some(json!({ "address": super::addr_text(1), "amount": "0.000000000000000208" })),
            ),
            "recipient.amount",
        ),
        (tiny(), "totalSupply"),
    ];
    for (i, (body, field)) in refused.into_iter().enumerate() {
        let e = try_create(&mut fx, K::Memecoin, body, 1).unwrap_err();
        assert_eq!(e.code, C::InvalidAmount, "{i}: {e:?}");
        let d = e.details.unwrap();
        assert_eq!(d["field"], field, "{i}");
        assert!(d.contains_key("liquiditySupply"), "{i}");
    }
    // The whole supply to the recipient with noLp: no pool, nothing to refuse.
    let no_lp = with(
        with(super::memecoin(), "recipient.amount", Some(json!(1000000))),
        "noLp",
        Some(json!(true)),
    );
    let d = try_create(&mut fx, K::Memecoin, no_lp, 2).unwrap();
    // A pool that can open: mined, it succeeds.
    let ok = try_create(&mut fx, K::Memecoin, super::memecoin(), 3).unwrap();
    mine(&mut fx);
    for d in [d, ok] {
        assert_eq!(status(&fx, &d)["data"]["status"], "success");
    }
}
