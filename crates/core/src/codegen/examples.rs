//! `components.examples` of openapi.json: a request and a response example for every
//! operation, generated, never written by hand.
//!
//! A merchant in memory (a `MemStore`, the core the worker runs) goes through a day of
//! tokenpad: a token, holders, rewards, spends, a pool and trades, a memecoin and an airdrop,
//! presales, webhooks, a session. Each request is routed and decoded as the edge does it
//! (`routes::route`, `Op::decode`: so the service accepts it) and applied as the merchant's
//! object applies it (`wire::apply`); its answer is serialized from its wire type. The routes
//! the shell answers itself (health, admin, the deployment page) take their examples through
//! their wire types (`typed`: read into the type, written back). Fixed clock and randomness:
//! the same examples every run.

use super::examples_admin::{admin_examples, typed};
use super::examples_world::{str_at, As, World, BLOCK_MS, DEAD, MERCHANT_ID, R};
use crate::ops;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Every example, by name (`<operationId>.request`, `<operationId>.<status>`).
pub fn examples() -> R<BTreeMap<String, Value>> {
    let mut w = World::new()?;
    let secret = As::Secret;

    // A token, its job, its switch.
    let job = w.record("createToken", "POST", "/merchant/create-token", Some(json!({
        "name": "Acme Points", "symbol": "ACME", "totalSupply": 1000000000, "canDistribute": true
    })), &secret)?;
    let job_id = str_at(&job, "/jobId")?.to_string();
    w.advance(BLOCK_MS)?;
    let done = w.record("getJob", "GET", &format!("/jobs/{job_id}"), None, &secret)?;
    w.record(
        "getCreateTokenStatus",
        "GET",
        &format!("/merchant/create-token/status/{job_id}"),
        None,
        &secret,
    )?;
    let token = str_at(&done, "/data/address")?.to_string();
    w.record(
        "patchToken",
        "PATCH",
        &format!("/merchant/token/{token}"),
        Some(json!({ "canDistribute": true })),
        &secret,
    )?;

    // Holders and the ledger.
    w.record("putHolder", "PUT", "/holder/alice", None, &secret)?;
    w.record("putHolder", "PUT", "/holder/alice", None, &secret)?;
    let bob = w.send("PUT", "/holder/bob", None, &secret)?.1;
    let bob_address = str_at(&bob, "/address")?.to_string();
    w.record(
        "distribute",
        "POST",
        &format!("/token/{token}/distribute"),
        Some(json!({ "sendToId": "alice", "amount": "250" })),
        &secret,
    )?;
    w.record(
        "reward",
        "POST",
        &format!("/token/{token}/reward"),
        Some(json!({ "sendTo": "bob", "amount": 10 })),
        &secret,
    )?;
    w.record(
        "spend",
        "POST",
        "/holder/alice/spend",
        Some(json!({ "tokenAddress": token, "amount": "12.5" })),
        &secret,
    )?;
    w.record(
        "transfer",
        "POST",
        "/holder/alice/transfer",
        Some(json!({ "tokenAddress": token, "amount": 5, "toAddress": bob_address })),
        &secret,
    )?;
    w.record(
        "withdraw",
        "POST",
        "/holder/alice/withdraw",
        Some(json!({ "tokenAddress": token, "amount": "2.25", "toAddress": DEAD })),
        &secret,
    )?;
    let alice = w.send("GET", "/holder/alice", None, &As::Public)?.1;
    let alice_address = str_at(&alice, "/address")?.to_string();
    for a in [&alice_address, &bob_address] {
        let to = crate::model::address::Address::parse(a)
            .ok_or_else(|| format!("not an address: {a}"))?;
        ops::ledger::deposit_usdc(
            &mut w.store,
            &w.ctx,
            &to,
            crate::model::amount::Usdc::new(500_000_000),
        )
        .map_err(|e| e.message)?;
    }

    // A pool and trades.
    w.record(
        "createLiquidity",
        "POST",
        &format!("/token/{token}/liquidity"),
        Some(json!({ "initialStartingPrice": "0.01", "amount": 1000000 })),
        &secret,
    )?;
    w.record(
        "buyQuote",
        "GET",
        &format!("/holder/alice/buy/quote?tokenAddress={token}&usdcAmount=20"),
        None,
        &secret,
    )?;
    w.record(
        "buy",
        "POST",
        "/holder/alice/buy",
        Some(json!({ "tokenAddress": token, "usdcAmount": 20, "slippageBps": 500 })),
        &secret,
    )?;
    w.record(
        "sellQuote",
        "GET",
        &format!("/holder/alice/sell/quote?tokenAddress={token}&tokenAmount=500"),
        None,
        &secret,
    )?;
    w.record(
        "sell",
        "POST",
        "/holder/alice/sell",
        Some(json!({ "tokenAddress": token, "tokenAmount": 500, "minAmountOut": "4.5" })),
        &secret,
    )?;

    // Reads.
    w.record(
        "getToken",
        "GET",
        &format!("/token/{token}?holdersLimit=10"),
        None,
        &As::Public,
    )?;
    w.record("listTokens", "GET", "/merchant/all-tokens", None, &secret)?;
    w.record("getHolder", "GET", "/holder/alice", None, &As::Public)?;
    w.record(
        "getHolderTokenBalance",
        "GET",
        &format!("/holder/alice/token/{token}"),
        None,
        &As::Public,
    )?;
    w.record(
        "listHolderTransactions",
        "GET",
        "/holder/alice/transactions?limit=3",
        None,
        &secret,
    )?;

    // A memecoin and an airdrop.
    let meme = w.record("createMemecoin", "POST", "/template/memecoin", Some(json!({
        "name": "Pepe Two", "symbol": "PEPE2", "totalSupply": 1000000, "initialPrice": "0.0001", "network": "base",
        "marketplace": true, "recipient": { "address": DEAD, "amount": 100000 }
    })), &secret)?;
    let drop = w.record("createAirdrop", "POST", "/template/airdrop", Some(json!({
        "name": "Drop", "symbol": "DROP", "totalSupply": 1000, "initialPrice": 0.5, "network": "base-sepolia", "marketplace": false,
        "airdrop": { "addresses": ["0x1111111111111111111111111111111111111111", "0x2222222222222222222222222222222222222222"], "supply": 100 },
        "recipient": { "address": DEAD, "amount": 50 }
    })), &secret)?;
    w.advance(BLOCK_MS)?;
    let (meme, drop) = (
        str_at(&meme, "/id")?.to_string(),
        str_at(&drop, "/id")?.to_string(),
    );
    w.record(
        "getMemecoinStatus",
        "GET",
        &format!("/template/memecoin/status/{meme}"),
        None,
        &secret,
    )?;
    w.record(
        "getMemecoinStatusByQuery",
        "GET",
        &format!("/memecoin/status?id={meme}"),
        None,
        &secret,
    )?;
    w.record(
        "postMemecoinStatus",
        "POST",
        "/memecoin/status",
        Some(json!({ "id": meme })),
        &secret,
    )?;
    w.record(
        "getAirdropStatus",
        "GET",
        &format!("/template/airdrop/status/{drop}"),
        None,
        &secret,
    )?;
    w.record(
        "getAirdropStatusByQuery",
        "GET",
        &format!("/airdrop/status?id={drop}"),
        None,
        &secret,
    )?;
    w.record(
        "postAirdropStatus",
        "POST",
        "/airdrop/status",
        Some(json!({ "id": drop })),
        &secret,
    )?;

    // Presales: one bought into and resolved, one resolved under the interface's name.
    let now = w.ctx.now / 1000;
    let presale = |name: &str, symbol: &str, target: u32| {
        json!({
            "name": name, "description": format!("The {symbol} presale"), "startTimestamp": now, "endTimestamp": now + 86_400,
            "targetUsdcAmount": target, "lockDuration": 7,
            "tokenInfo": { "name": name, "symbol": symbol, "imageUrl": format!("https://example.com/{}.png", symbol.to_lowercase()) }
        })
    };
    let moon = w.record(
        "createPresale",
        "POST",
        "/merchant/presale",
        Some(presale("Moon", "MOON", 100)),
        &secret,
    )?;
    let star = w
        .send(
            "POST",
            "/merchant/presale",
            Some(presale("Star", "STAR", 10)),
            &secret,
        )?
        .1;
    let (moon, star) = (
        str_at(&moon, "/id")?.to_string(),
        str_at(&star, "/id")?.to_string(),
    );
    w.record(
        "buyPresale",
        "POST",
        "/holder/alice/buy-presale",
        Some(json!({ "presaleId": moon, "usdcAmount": 60 })),
        &secret,
    )?;
    w.send(
        "POST",
        "/holder/bob/buy-presale",
        Some(json!({ "presaleId": moon, "usdcAmount": "15.5" })),
        &secret,
    )?;
    w.send(
        "POST",
        "/holder/bob/buy-presale",
        Some(json!({ "presaleId": star, "usdcAmount": 8 })),
        &secret,
    )?;
    w.record(
        "getPresale",
        "GET",
        &format!("/token/presales/{moon}"),
        None,
        &As::Public,
    )?;
    w.record(
        "getMerchantPresale",
        "GET",
        &format!("/merchant/presale/{moon}"),
        None,
        &secret,
    )?;
    w.record("listPresales", "GET", "/merchant/presales", None, &secret)?;
    w.record(
        "resolvePresale",
        "POST",
        "/merchant/presale/resolve",
        Some(json!({ "presaleId": moon })),
        &secret,
    )?;
    w.record(
        "resolvePresaleAlias",
        "POST",
        "/resolve-presale",
        Some(json!({ "presaleId": star })),
        &secret,
    )?;
    for _ in 0..6 {
        w.advance(BLOCK_MS)?;
    }
    w.record(
        "listParkedWork",
        "GET",
        "/merchant/parked-work",
        None,
        &secret,
    )?;
    w.record("getMerchantChain", "GET", "/merchant/chain", None, &secret)?;

    // Events and webhooks.
    let events = w.record(
        "listEvents",
        "GET",
        "/merchant/events?types=presale.*&limit=2",
        None,
        &secret,
    )?;
    let event = str_at(&events, "/data/0/id")?.to_string();
    w.record(
        "getEvent",
        "GET",
        &format!("/merchant/events/{event}"),
        None,
        &secret,
    )?;
    let hook = w.record("createWebhook", "POST", "/merchant/webhooks", Some(json!({
        "url": "https://hooks.example.com/tokenpad", "events": ["presale.*", "transaction.*"], "description": "Orders service"
    })), &secret)?;
    let hook = str_at(&hook, "/id")?.to_string();
    w.record("listWebhooks", "GET", "/merchant/webhooks", None, &secret)?;
    w.record(
        "getWebhook",
        "GET",
        &format!("/merchant/webhooks/{hook}"),
        None,
        &secret,
    )?;
    w.record(
        "updateWebhook",
        "PATCH",
        &format!("/merchant/webhooks/{hook}"),
        Some(json!({ "events": ["*"] })),
        &secret,
    )?;
    let delivery = w.record(
        "testWebhook",
        "POST",
        &format!("/merchant/webhooks/{hook}/test"),
        None,
        &secret,
    )?;
    let delivery = str_at(&delivery, "/id")?.to_string();
    w.record(
        "listDeliveries",
        "GET",
        &format!("/merchant/webhooks/{hook}/deliveries?limit=5"),
        None,
        &secret,
    )?;
    w.record(
        "replayDelivery",
        "POST",
        &format!("/merchant/webhooks/{hook}/deliveries/{delivery}/replay"),
        None,
        &secret,
    )?;
    w.record(
        "deleteWebhook",
        "DELETE",
        &format!("/merchant/webhooks/{hook}"),
        None,
        &secret,
    )?;

    // A holder's session, the merchant's settings.
    let usdc = crate::model::token::USDC_ADDRESS.to_checksum();
    let session = w.record("createSession", "POST", "/holder/alice/session", Some(json!({
        "scopes": ["read", "buy-presale"], "ttlSeconds": 900, "limits": [{ "tokenAddress": usdc, "maxPerSession": 50 }]
    })), &secret)?;
    let token_text = str_at(&session, "/token")?.to_string();
    w.record(
        "getSession",
        "GET",
        "/session",
        None,
        &As::Session(token_text),
    )?;
    w.record(
        "revokeSessions",
        "DELETE",
        "/holder/alice/sessions",
        None,
        &secret,
    )?;
    w.record("getSettings", "GET", "/merchant/settings", None, &secret)?;
    w.record(
        "patchSettings",
        "PATCH",
        "/merchant/settings",
        Some(json!({ "privateMode": false })),
        &secret,
    )?;

    // The merchant's keys: one made, rolled with an hour's grace, the old one revoked.
    let made = w.record(
        "createKey",
        "POST",
        "/keys",
        Some(json!({ "name": "Orders service" })),
        &secret,
    )?;
    let made = str_at(&made, "/key/id")?.to_string();
    w.record(
        "rollKey",
        "POST",
        &format!("/keys/{made}/roll"),
        Some(json!({ "graceHours": 1 })),
        &secret,
    )?;
    w.record(
        "revokeKey",
        "POST",
        &format!("/keys/{made}/revoke"),
        None,
        &secret,
    )?;
    w.record("listKeys", "GET", "/keys", None, &secret)?;

    let mut out = w.out;
    // A key shown in an example is not one (too short, as `createMerchant`'s): nothing in the
    // document is a secret key's shape.
    for name in ["createKey.201", "rollKey.201"] {
        if let Some(v) = out.get_mut(name) {
            let last4 = str_at(v, "/key/last4")?.to_string();
            if let Some(key) = v.get_mut("apiKey") {
                *key = json!(format!("sk_{MERCHANT_ID}_{}{last4}", "0f".repeat(14)));
            }
        }
    }
    out.extend(admin_examples(MERCHANT_ID, &token, &alice_address)?);
    out.extend(super::examples_account::account_examples(MERCHANT_ID)?);
    // A merchant's answer read back through its own type, as the admin ones are: a field the
    // type would not read is a field the schema does not describe.
    if let Some(v) = out.get("getHolder.200") {
        typed::<crate::wire::holder::HolderFull>(v)?;
    }
    Ok(out)
}

/// `components.examples`: each example as an Example Object, in name order.
pub fn components() -> R<Vec<(String, Value)>> {
    Ok(examples()?
        .into_iter()
        .map(|(name, value)| {
            let mut e = Map::new();
            let (op, what) = name.split_once('.').unwrap_or((name.as_str(), ""));
            let summary = if what == "request" {
                format!("A {op} request")
            } else {
                format!("What {op} answered ({what})")
            };
            e.insert("summary".into(), Value::String(summary));
            e.insert("value".into(), value);
            (name, Value::Object(e))
        })
        .collect())
}
