//! The lifecycle on the embedded chain: pending with a known address and hash, mined one
//! block later into a Token like any other, or failed; status and overview JSON.

use super::{addr, addr_text, airdrop, create, memecoin, mine, status, with, BASE};
use crate::common::{assert_conserved, json as to_json, tok, usdc_address, user, Fx};
use serde_json::{json, Value};
use tokenpad_core::error::ErrorCode as C;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::{parse_units, Price, PRICE_DECIMALS};
use tokenpad_core::model::chain::{mined_at, BLOCK_MS};
use tokenpad_core::model::deployment::{
    exchange_url, service_build_url, DeploymentKind as K, DeploymentStatus,
};
use tokenpad_core::model::ids::{is_uuid, DeploymentId, JobId, TokenAddress};
use tokenpad_core::model::token::{Network, TokenKind, TokenOrigin};
use tokenpad_core::ops;
use tokenpad_core::ops::history::HistoryQuery;
use tokenpad_core::store::{DueKey, Store};
use tokenpad_core::wire::deployment::{DeploymentOverview, PAGE_HOLDERS};
use tokenpad_core::wire::ledger::TxPage;

#[test]
fn memecoin_pending_then_success() {
    let mut fx = Fx::new();
    // A token before it, so the deploy nonce is not 0.
    fx.create_token(json!({"name": "Other", "symbol": "OTH"}));
    let d = create(&mut fx, K::Memecoin, memecoin(), 1);
    assert!(is_uuid(d.id.as_str()));
    assert_eq!(d.status, DeploymentStatus::Pending);
    assert_eq!(
        d.token_address,
        TokenAddress(Address::create(&fx.merchant_address(), 1))
    );
    let hash = d.tx_hash.clone().unwrap();
    assert_eq!(hash.len(), 66);
    assert_eq!(d.submitted_at, Some(fx.ctx.now));
    assert_eq!(d.mined_at, Some(mined_at(fx.ctx.now)));
    assert!(fx.store.token(&d.token_address).unwrap().is_none());
    assert_eq!(
        fx.store.schedule.get(&format!("deploy:{}", d.id)),
        d.mined_at.as_ref()
    );

    let pending = status(&fx, &d);
    assert_eq!(
        pending,
        json!({ "has_more": false, "data": {
            "id": d.id, "status": "pending", "tokenAddress": d.token_address.to_checksum(),
            "transactionHash": hash,
        }})
    );

    // Not yet mined one millisecond before the block.
    fx.advance(BLOCK_MS - 1);
    ops::due::run_due(&mut fx.store, &fx.ctx).unwrap();
    assert_eq!(status(&fx, &d)["data"]["status"], "pending");
    fx.advance(1);
    ops::due::run_due(&mut fx.store, &fx.ctx).unwrap();
    assert_conserved(&fx.store);

    let done = status(&fx, &d);
    let address = d.token_address.to_checksum();
    assert_eq!(
        done,
        json!({ "has_more": false, "data": {
            "id": d.id, "status": "success", "tokenAddress": address,
            "transactionHash": hash,
            "serviceBuildUrl": format!("{BASE}/deployments/{}", d.id),
            "exchangeUrl": format!("https://app.uniswap.org/swap?chain=base&inputCurrency=0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913&outputCurrency={address}"),
        }})
    );
    assert!(fx.store.schedule.is_empty());

    let t = fx.token(&d.token_address);
    assert_eq!(t.kind, TokenKind::Merchant);
    assert_eq!(t.origin, TokenOrigin::Memecoin);
    assert!(t.marketplace);
    assert_eq!(t.name, "Pepe Two");
    assert_eq!(t.symbol, "PEPE2");
    assert_eq!(t.decimals, 18);
    assert_eq!(t.total_supply.raw(), tok("1000000"));
    assert_eq!(t.starting_app_supply.raw(), 0);
    assert_eq!(t.remaining_app_supply.raw(), 0);
    assert_eq!(t.merchant_supply.raw(), 0);
    // What the recipient did not get is the memecoin's pool, opened at the usable tick
    // nearest its initial price (within 0.3 %); the few units its position cannot use stay in
    // the reserve.
    let pool = fx.store.pools.get(&d.token_address).unwrap();
    assert_eq!(t.pooled, pool.token_reserve);
    assert_eq!(
        t.liquidity_supply.raw() + pool.token_reserve.raw(),
        tok("900000")
    );
    assert!(tok("900000") - pool.token_reserve.raw() < tok("0.000001"));
    assert_eq!(pool.usdc_reserve.raw(), 0);
    // 900,000 x $0.0001.
    assert!(pool.virtual_usdc().raw().abs_diff(90_000_000) <= 270_000);
    assert_eq!(pool.price(), t.price);
    assert_eq!(t.held.raw(), tok("100000"));
    assert_eq!(t.merchant_address, fx.merchant_address());
    let asked = parse_units("0.0001", PRICE_DECIMALS).unwrap();
    assert!(t.price.unwrap().raw().abs_diff(asked) <= asked / 1000 * 3);
    assert!(!t.can_distribute);
    assert!(t.can_lp);
    assert_eq!(t.created_at, d.mined_at.unwrap());
    assert_eq!(fx.active(&d.token_address, &addr(1)), tok("100000"));
    let (holders, count) = fx.store.top_holders(&d.token_address, 100).unwrap();
    assert_eq!(count, 1);
    assert_eq!(holders[0].owner, addr(1));
    // Listed with the merchant's tokens (all-tokens filters on TokenKind::Merchant).
    assert!(fx
        .store
        .tokens()
        .unwrap()
        .iter()
        .any(|t| t.address == d.token_address && t.kind == TokenKind::Merchant));

    // Running the schedule again changes nothing.
    let before = fx.store.clone();
    let key = DueKey::decode(&format!("deploy:{}", d.id)).unwrap();
    assert_eq!(key, DueKey::Deployment(d.id.clone()));
    ops::due::run_one(&mut fx.store, &fx.ctx, &key, d.mined_at.unwrap()).unwrap();
    assert_eq!(before.tokens, fx.store.tokens);
    assert_eq!(before.balances, fx.store.balances);
    assert_eq!(before.deployments, fx.store.deployments);
    // Keys of other owners are not ours: `job:x` names a job, and running it leaves the
    // deployments alone.
    let other = DueKey::decode("job:x").unwrap();
    assert_eq!(other, DueKey::Job(JobId::new_unchecked("x")));
    ops::due::run_one(&mut fx.store, &fx.ctx, &other, fx.ctx.now).unwrap();
    assert_eq!(before.tokens, fx.store.tokens);
    assert_eq!(before.deployments, fx.store.deployments);
}

#[test]
fn airdrop_balances_of_record_and_holder_history() {
    let mut fx = Fx::new();
    let alice = fx.holder("alice");
    // Alice is an airdrop address (any case) and the recipient: her amounts add up.
    let body = json!({
        "name": "Drop", "symbol": "DROP", "totalSupply": 1000, "initialPrice": "0.5",
        "network": "sepolia", "marketplace": false,
        "airdrop": { "addresses": [alice.address.to_checksum().to_lowercase(), addr_text(11)], "supply": 100 },
        "recipient": { "address": alice.address.to_checksum(), "amount": 50 },
    });
    let d = create(&mut fx, K::Airdrop, body, 2);
    mine(&mut fx);
    let t = fx.token(&d.token_address);
    assert_eq!(t.origin, TokenOrigin::Airdrop);
    assert!(!t.marketplace);
    assert!(t.can_airdrop);
    assert_eq!(t.network, Network::Sepolia);
    assert_eq!(fx.active(&t.address, &alice.address), tok("150"));
    assert_eq!(fx.active(&t.address, &addr(11)), tok("100"));
    assert_eq!(t.held.raw(), tok("250"));
    assert_eq!(t.liquidity_supply.raw(), tok("750"));
    assert_eq!(
        t.price,
        Some(Price::new(parse_units("0.5", PRICE_DECIMALS).unwrap()))
    );

    // Alice's history shows both receipts (context Airdrop), under the deployment's hash.
    let page = ops::history::page(
        &fx.store,
        &user("alice").unwrap(),
        &HistoryQuery::parse(None, None, None).unwrap(),
    )
    .unwrap();
    let page = to_json(&TxPage::of(page, None));
    let data = page["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    for r in data {
        assert_eq!(r["type"], "distribute");
        assert_eq!(r["context"], "Airdrop");
        assert_eq!(r["transactionHash"], json!(d.tx_hash.clone().unwrap()));
        assert_eq!(r["tokenAddress"], json!(t.address.to_checksum()));
    }
    let amounts: Vec<&Value> = data.iter().map(|r| &r["amount"]).collect();
    assert!(amounts.contains(&&json!(50)) && amounts.contains(&&json!(100)));

    let s = status(&fx, &d);
    assert_eq!(
        s["data"]["exchangeUrl"],
        json!(format!(
            "https://app.uniswap.org/swap?chain=sepolia&inputCurrency=0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238&outputCurrency={}",
            t.address.to_checksum()
        ))
    );
    // The airdrop id is not a memecoin.
    let err = ops::deployment::find(&fx.store, &d.id, Some(K::Memecoin)).unwrap_err();
    assert_eq!(err.code, C::DeploymentNotFound);
    assert_eq!(err.status(), 404);
    assert!(ops::deployment::find(&fx.store, &d.id, None).is_ok());
}

#[test]
fn no_lp_gives_the_recipient_everything() {
    let mut fx = Fx::new();
    let body = with(
        with(memecoin(), "noLp", Some(json!(true))),
        "recipient.supply",
        Some(json!(1000000)),
    );
    let body = with(body, "recipient.amount", None);
    let d = create(&mut fx, K::Memecoin, body, 3);
    mine(&mut fx);
    let t = fx.token(&d.token_address);
    assert_eq!(t.liquidity_supply.raw(), 0);
    assert!(!t.can_lp);
    assert_eq!(fx.active(&t.address, &addr(1)), t.total_supply.raw());
}

#[test]
fn network_names_in_exchange_urls() {
    let a = addr(7);
    for (n, chain, usdc) in [
        (
            Network::Base,
            "base",
            "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        ),
        (
            Network::BaseSepolia,
            "base_sepolia",
            "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
        ),
        (
            Network::Sepolia,
            "sepolia",
            "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238",
        ),
    ] {
        assert_eq!(
            exchange_url(n, TokenAddress(a)),
            Some(format!(
                "https://app.uniswap.org/swap?chain={chain}&inputCurrency={usdc}&outputCurrency={}",
                a.to_checksum()
            ))
        );
    }
    // A local node has no public exchange.
    assert_eq!(exchange_url(Network::Local, TokenAddress(a)), None);
    assert_eq!(
        service_build_url(
            "http://127.0.0.1:8787/",
            &DeploymentId::new_unchecked("abc")
        ),
        "http://127.0.0.1:8787/deployments/abc"
    );
}

#[test]
fn taken_address_fails_with_an_error() {
    let mut fx = Fx::new();
    let d = create(&mut fx, K::Memecoin, memecoin(), 4);
    // Something else appears at the address before the deployment is mined.
    let mut squatter = fx.token(&usdc_address());
    squatter.address = d.token_address;
    squatter.symbol = "SQUAT".into();
    fx.store.put_token(&squatter).unwrap();
    mine(&mut fx);
    let s = status(&fx, &d);
    assert_eq!(s["data"]["status"], "failed");
    assert!(s["data"]["error"]
        .as_str()
        .unwrap()
        .contains("already exists"));
    assert!(s["data"].get("serviceBuildUrl").is_none());
    assert!(s["data"].get("exchangeUrl").is_none());
    assert_eq!(s["data"]["transactionHash"], json!(d.tx_hash.unwrap()));
    assert_eq!(fx.token(&d.token_address).symbol, "SQUAT");
}

#[test]
fn failed_submission_is_a_failed_deployment() {
    let mut fx = Fx::new();
    ops::chain::inject_faults(&mut fx.store, 1).unwrap();
    let d = create(&mut fx, K::Airdrop, airdrop(), 5);
    assert_eq!(d.status, DeploymentStatus::Failed);
    assert!(d.tx_hash.is_none());
    assert!(fx.store.schedule.is_empty());
    let s = status(&fx, &d);
    assert_eq!(s["data"]["status"], "failed");
    assert!(s["data"].get("transactionHash").is_none());
    assert!(s["data"]["error"].as_str().unwrap().contains("reverted"));
    mine(&mut fx);
    assert!(fx.store.token(&d.token_address).unwrap().is_none());
    // The next deployment goes through, at the next address.
    let next = create(&mut fx, K::Airdrop, airdrop(), 6);
    assert_ne!(next.token_address, d.token_address);
    mine(&mut fx);
    assert_eq!(status(&fx, &next)["data"]["status"], "success");
}

#[test]
fn unknown_ids_are_not_found() {
    let fx = Fx::new();
    for id in ["", "nope", "00000000-0000-4000-8000-000000000000"] {
        let id = DeploymentId::new_unchecked(id);
        let err = ops::deployment::find(&fx.store, &id, Some(K::Memecoin)).unwrap_err();
        assert_eq!(err.code, C::DeploymentNotFound);
        assert_eq!(err.code.as_str(), "deployment_not_found");
    }
}

#[test]
fn two_deployments_in_one_block_get_distinct_addresses_and_hashes() {
    let mut fx = Fx::new();
    let a = create(&mut fx, K::Memecoin, memecoin(), 7);
    let b = create(&mut fx, K::Memecoin, memecoin(), 8);
    assert_ne!(a.token_address, b.token_address);
    assert_ne!(a.tx_hash, b.tx_hash);
    mine(&mut fx);
    assert_eq!(status(&fx, &a)["data"]["status"], "success");
    assert_eq!(status(&fx, &b)["data"]["status"], "success");
    assert_eq!(fx.active(&a.token_address, &addr(1)), tok("100000"));
    assert_eq!(fx.active(&b.token_address, &addr(1)), tok("100000"));
}

#[test]
fn overview_data_pending_and_deployed() {
    let mut fx = Fx::new();
    let alice = fx.holder("alice");
    let mut addresses: Vec<Value> = (0..24).map(|i| json!(addr_text(200 + i))).collect();
    addresses.push(json!(alice.address.to_checksum()));
    let body = json!({
        "name": "Big <Drop> & \"Co\"", "symbol": "BIG", "totalSupply": "1000000", "initialPrice": 2,
        "network": "base", "marketplace": true,
        "airdrop": { "addresses": addresses, "supply": 10 },
        "recipient": { "address": addr_text(1), "amount": 500 },
    });
    let d = create(&mut fx, K::Airdrop, body, 9);
    let p = to_json(&DeploymentOverview::read(&fx.store, &d, BASE).unwrap());
    assert_eq!(p["status"], "pending");
    assert_eq!(p["kind"], "airdrop");
    assert_eq!(p["name"], "Big <Drop> & \"Co\"");
    assert_eq!(p["totalSupply"], json!(1000000));
    assert_eq!(p["price"], json!(2));
    assert_eq!(p["holders"], json!([]));
    assert!(p.get("exchangeUrl").is_none());
    assert_eq!(p["transactionHash"], json!(d.tx_hash.clone().unwrap()));

    mine(&mut fx);
    let d = ops::deployment::find(&fx.store, &d.id, None).unwrap();
    let p = to_json(&DeploymentOverview::read(&fx.store, &d, BASE).unwrap());
    assert_eq!(p["status"], "success");
    assert_eq!(p["holdersCount"], json!(26));
    let holders = p["holders"].as_array().unwrap();
    assert_eq!(holders.len(), PAGE_HOLDERS as usize);
    assert_eq!(holders[0]["address"], json!(addr_text(1)));
    assert_eq!(holders[0]["balance"], json!(500));
    // No userIds on the public page.
    assert!(holders.iter().all(|h| h.get("id").is_none()));
    assert!(!p.to_string().contains("alice"));
    assert_eq!(p["liquiditySupply"], json!(1000000 - 500 - 250));
    assert!(p["exchangeUrl"].as_str().unwrap().contains("chain=base&"));
    assert_eq!(
        p["serviceBuildUrl"],
        json!(format!("{BASE}/deployments/{}", d.id))
    );
}
