//! What time and money say (status), what a presale must be (creation), and who may buy.

use super::{body, usdc, END, P, START};
use crate::common::{self, json as to_json, num, Fx, T0};
use serde_json::{json, Value};
use tokenpad_core::model::presale::Status;
use tokenpad_core::store::Store;
use tokenpad_core::wire::holder::HolderFull;
use tokenpad_core::wire::presale::Presale as PresaleView;
use tokenpad_core::ErrorCode;

#[test]
fn status_is_a_function_of_time_and_money() {
    let mut p = P::new("100", json!({}));
    let s = |p: &P, at: u64| p.get().status(at);
    assert_eq!(s(&p, START * 1000 - 1), Status::Pending);
    assert_eq!(s(&p, START * 1000), Status::Active);
    assert_eq!(s(&p, END * 1000 - 1), Status::Active);
    assert_eq!(s(&p, END * 1000), Status::Ended);
    p.buyer("a", "100");
    p.open();
    p.buy("a", "100").unwrap();
    // Target reached: completed at once, whatever the time.
    assert_eq!(s(&p, START * 1000), Status::Completed);
    assert_eq!(s(&p, END * 1000 + 1), Status::Completed);
}

#[test]
fn creation_rules() {
    let fx = Fx::new();
    let table: Vec<(Value, &str, &str)> = vec![
        (json!({ "name": null }), "invalid_request", "name"),
        (
            json!({ "description": "" }),
            "invalid_request",
            "description",
        ),
        (
            json!({ "startTimestamp": "soon" }),
            "invalid_request",
            "startTimestamp",
        ),
        (
            json!({ "endTimestamp": START }),
            "invalid_request",
            "endTimestamp",
        ),
        (
            json!({ "startTimestamp": 1, "endTimestamp": T0 / 1000 - 1 }),
            "invalid_request",
            "endTimestamp",
        ),
        (
            json!({ "targetUsdcAmount": num("1.999999") }),
            "invalid_amount",
            "targetUsdcAmount",
        ),
        (
            json!({ "targetUsdcAmount": num("200000.000001") }),
            "invalid_amount",
            "targetUsdcAmount",
        ),
        (
            json!({ "targetUsdcAmount": "abc" }),
            "invalid_amount",
            "targetUsdcAmount",
        ),
        (json!({ "tokenInfo": null }), "invalid_request", "tokenInfo"),
        (
            json!({ "tokenInfo": { "symbol": "X", "imageUrl": "https://x.y/i.png" } }),
            "invalid_request",
            "tokenInfo.name",
        ),
        (
            json!({ "tokenInfo": { "name": "X", "symbol": "B D", "imageUrl": "https://x.y/i.png" } }),
            "invalid_request",
            "tokenInfo.symbol",
        ),
        (
            json!({ "tokenInfo": { "name": "X", "symbol": "X", "imageUrl": "ftp://x" } }),
            "invalid_image_url",
            "tokenInfo.imageUrl",
        ),
        (
            json!({ "tokenInfo": { "name": "X", "symbol": "X", "imageUrl": "https://x.y/\u{0}<b>\"" } }),
            "invalid_image_url",
            "tokenInfo.imageUrl",
        ),
        (
            json!({ "tokenInfo": { "name": "X", "symbol": "X" } }),
            "invalid_request",
            "tokenInfo.imageUrl",
        ),
        (
            json!({ "tokenInfo": { "name": "X", "symbol": "X", "imageUrl": "https://x.y/i.png", "deploymentConfig": { "lockupPercentage": 12 } } }),
            "invalid_request",
            "tokenInfo.deploymentConfig.lockupPercentage",
        ),
        (
            json!({ "tokenInfo": { "name": "X", "symbol": "X", "imageUrl": "https://x.y/i.png", "deploymentConfig": { "lockupPercentage": 29 } } }),
            "invalid_request",
            "tokenInfo.deploymentConfig.lockupPercentage",
        ),
        (
            json!({ "tokenInfo": { "name": "X", "symbol": "X", "imageUrl": "https://x.y/i.png", "metadata": { "xLink": 5 } } }),
            "invalid_request",
            "tokenInfo.metadata.xLink",
        ),
        (
            json!({ "lockDuration": 366 }),
            "invalid_request",
            "lockDuration",
        ),
        (
            json!({ "lockDuration": 1.5 }),
            "invalid_request",
            "lockDuration",
        ),
        (
            json!({ "autoLaunch": "yes" }),
            "invalid_request",
            "autoLaunch",
        ),
    ];
    for (extra, code, field) in table {
        let mut store = fx.store.clone();
        let err = common::create_presale(&mut store, &fx.ctx, &body("100", extra.clone()), "x")
            .unwrap_err();
        assert_eq!(err.code.as_str(), code, "{extra}");
        assert_eq!(err.details.unwrap()["field"], field, "{extra}");
    }
    // Defaults: lockDuration 7, autoLaunch true, lockupPercentage 25; bounds inclusive.
    let mut store = fx.store.clone();
    let p = common::create_presale(&mut store, &fx.ctx, &body("2", json!({})), "d").unwrap();
    assert_eq!(
        (p.lock_days, p.auto_launch, p.token_info.lockup_percentage),
        (7, true, 25)
    );
    common::create_presale(
        &mut store,
        &fx.ctx,
        &body("200000", json!({ "lockDuration": 0 })),
        "e",
    )
    .unwrap();
    let v = to_json(&PresaleView::read(&store, &p, fx.ctx.now).unwrap());
    assert_eq!(v["purchasedUsdcAmount"], 0);
    assert_eq!(v["status"], "pending");
    assert_eq!(v["participants"], json!([]));
    assert_eq!(
        v["tokenInfo"],
        json!({ "name": "Moon", "symbol": "MOON", "imageUrl": "https://example.com/moon.png" })
    );
    for hidden in [
        "signerAddress",
        "lockDuration",
        "completionState",
        "presaleInfo",
        "tokenDeploymentInfo",
    ] {
        assert!(v.get(hidden).is_none(), "public form shows {hidden}");
    }
}

#[test]
fn buying_rules() {
    let mut p = P::new("100", json!({}));
    p.buyer("a", "80");
    p.buyer("b", "50");
    let code = |r: tokenpad_core::Result<_>| r.unwrap_err().code;
    assert_eq!(
        code(p.buy("a", "10")),
        ErrorCode::PresaleNotActive,
        "before start"
    );
    p.open();
    assert_eq!(code(p.buy("nobody", "10")), ErrorCode::HolderNotFound);
    assert_eq!(code(p.buy("a", "0")), ErrorCode::InvalidAmount);
    assert_eq!(code(p.buy("a", "0.0000001")), ErrorCode::InvalidAmount);
    assert_eq!(code(p.buy("a", "81")), ErrorCode::InsufficientBalance);
    p.buy("a", "60").unwrap();
    let err = p.buy("b", "41").unwrap_err();
    assert_eq!(err.code, ErrorCode::TargetExceeded);
    assert_eq!(err.details.unwrap()["remaining"], 40);
    p.buy("b", "10").unwrap();
    p.buy("a", "5").unwrap();
    let got = p.get();
    assert_eq!(got.purchased.raw(), usdc("75"));
    assert_eq!(got.participant_count, 2, "one entry per buyer");
    assert_eq!(p.fx.store.participants(&got.id).unwrap().len(), 2);
    let v = to_json(&PresaleView::read(&p.fx.store, &got, p.fx.ctx.now).unwrap());
    assert_eq!(v["participants"][0]["usdcAmount"], 65);
    assert_eq!(
        v["participants"][0]["tokenPercentage"].to_string(),
        "86.666666"
    );
    // The buyer's holder view lists the position.
    let h = p.fx.holder("a");
    let items = to_json(&HolderFull::read(&p.fx.store, &h).unwrap())["presales"].clone();
    let items = items.as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["metadata"]["presaleId"], "p-1");
    assert_eq!(items[0]["metadata"]["progress"], 75);
    assert_eq!(items[0]["value"], 65);
    // Ended: no more buying.
    p.fx.ctx.now = END * 1000;
    assert_eq!(code(p.buy("b", "1")), ErrorCode::PresaleNotActive);
}
