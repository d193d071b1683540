//! Presales through the core: the status function, creation rules, buying, the launch's
//! five durable steps with retries, distribution into locks, unlocks, refunds and resolve.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::{json, Value};
use tokenpad_core::chain;
use tokenpad_core::due;
use tokenpad_core::history::TxType;
use tokenpad_core::ledger::{self, Outflow};
use tokenpad_core::money::{self, USDC_DECIMALS};
use tokenpad_core::presale::{self, Phase, Presale, Status, Step};
use tokenpad_core::store::Store;
use tokenpad_core::time::{Millis, DAY, SECOND};
use tokenpad_core::ErrorCode;

const START: u64 = T0 / 1000 + 60;
const END: u64 = START + 3600;

fn usdc(text: &str) -> u128 {
    units(text, USDC_DECIMALS)
}

fn body(target: &str, extra: Value) -> Value {
    let mut b = json!({
        "name": "Launch",
        "description": "Our token",
        "startTimestamp": START,
        "endTimestamp": END,
        "targetUsdcAmount": num(target),
        "tokenInfo": { "name": "Moon", "symbol": "MOON", "imageUrl": "https://example.com/moon.png" },
    });
    if let (Some(b), Some(e)) = (b.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            b.insert(k.clone(), v.clone());
        }
    }
    b
}

struct P {
    fx: Fx,
    id: String,
}

impl P {
    fn new(target: &str, extra: Value) -> P {
        let mut fx = Fx::new();
        let p = presale::create(
            &mut fx.store,
            &fx.ctx,
            &obj(body(target, extra)),
            "p-1".into(),
        )
        .expect("create");
        assert_eq!(p.status(fx.ctx.now), Status::Pending);
        P { fx, id: p.id }
    }

    fn get(&self) -> Presale {
        presale::find(&self.fx.store, &self.id).unwrap()
    }

    /// A funded holder.
    fn buyer(&mut self, user: &str, funds: &str) -> tokenpad_core::address::Address {
        let h = self.fx.holder(user);
        ledger::deposit_usdc(&mut self.fx.store, &self.fx.ctx, &h.address, usdc(funds)).unwrap();
        h.address
    }

    fn buy(&mut self, user: &str, amount: &str) -> tokenpad_core::Result<Value> {
        let before = self.fx.store.clone();
        let r = presale::buy(
            &mut self.fx.store,
            &self.fx.ctx,
            user,
            &obj(json!({ "presaleId": self.id, "usdcAmount": num(amount) })),
        );
        if r.is_err() {
            assert_unchanged(&before, &self.fx.store, "refused buy");
        }
        assert_conserved(&self.fx.store);
        r
    }

    fn to(&mut self, at: Millis) {
        self.fx.ctx.now = at;
        due::run_due(&mut self.fx.store, &self.fx.ctx).unwrap();
        assert_conserved(&self.fx.store);
    }

    fn open(&mut self) {
        self.to(START * 1000);
    }

    fn usdc_active(&self, a: &tokenpad_core::address::Address) -> u128 {
        self.fx.active(&usdc_address(), a)
    }
}

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
            "invalid_request",
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
        let err = presale::create(
            &mut store,
            &fx.ctx,
            &obj(body("100", extra.clone())),
            "x".into(),
        )
        .unwrap_err();
        assert_eq!(err.code.as_str(), code, "{extra}");
        assert_eq!(err.details.unwrap()["field"], field, "{extra}");
    }
    // Defaults: lockDuration 7, autoLaunch true, lockupPercentage 25; bounds inclusive.
    let mut store = fx.store.clone();
    let p = presale::create(&mut store, &fx.ctx, &obj(body("2", json!({}))), "d".into()).unwrap();
    assert_eq!(
        (p.lock_days, p.auto_launch, p.token_info.lockup_percentage),
        (7, true, 25)
    );
    presale::create(
        &mut store,
        &fx.ctx,
        &obj(body("200000", json!({ "lockDuration": 0 }))),
        "e".into(),
    )
    .unwrap();
    let v = presale::public_json(&store, &p, fx.ctx.now).unwrap();
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
    let code = |r: tokenpad_core::Result<Value>| r.unwrap_err().code;
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
    assert_eq!(got.purchased, usdc("75"));
    assert_eq!(got.participant_count, 2, "one entry per buyer");
    assert_eq!(p.fx.store.participants(&got.id).unwrap().len(), 2);
    let v = presale::public_json(&p.fx.store, &got, p.fx.ctx.now).unwrap();
    assert_eq!(v["participants"][0]["usdcAmount"], 65);
    assert_eq!(
        v["participants"][0]["tokenPercentage"].to_string(),
        "86.666666"
    );
    // The buyer's holder view lists the position.
    let h = p.fx.holder("a");
    let items = presale::holder_items(&p.fx.store, &h).unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].1["metadata"]["presaleId"], "p-1");
    assert_eq!(items[0].1["metadata"]["progress"], 75);
    assert_eq!(items[0].1["value"], 65);
    // Ended: no more buying.
    p.fx.ctx.now = END * 1000;
    assert_eq!(code(p.buy("b", "1")), ErrorCode::PresaleNotActive);
}

/// Runs the launch one block at a time and checks each step's record.
#[test]
fn reaching_the_target_launches_through_five_durable_steps_into_locks() {
    let mut p = P::new("100", json!({ "lockDuration": 7 }));
    let a = p.buyer("a", "100");
    let b = p.buyer("b", "100");
    let c = p.buyer("c", "100");
    p.open();
    p.buy("a", "33.333333").unwrap();
    p.buy("b", "33.333333").unwrap();
    p.buy("c", "33.333334").unwrap();
    assert_eq!(p.get().phase, Phase::Launching);
    let mut now = p.fx.ctx.now;
    let expected = [
        (Step::Swapping, vec!["swapApprovalTx", "swapTx"]),
        (Step::TokenCreated, vec!["tokenCreationTx"]),
        (Step::TokensWithdrawn, vec!["withdrawTx"]),
        (
            Step::Distributing,
            vec!["distributionApprovalTx", "distributionTx"],
        ),
        (Step::Completed, vec![]),
    ];
    for (step, txs) in expected {
        p.to(now);
        let got = p.get();
        assert_eq!(got.completion.step, step);
        for tx in txs {
            assert!(got.completion.transactions[tx].starts_with("0x"), "{tx}");
        }
        now = chain::mined_at(now);
    }
    let got = p.get();
    assert_eq!(got.phase, Phase::Launched);
    assert!(got.distributed);
    assert_eq!(
        got.distribute_tx.as_deref(),
        Some(got.completion.transactions["distributionTx"].as_str())
    );
    // USDC left custody for the pool: the buyers' balances are what they did not spend.
    assert_eq!(p.usdc_active(&a), usdc("66.666667"));
    assert_eq!(p.fx.token(&usdc_address()).escrow, 0);

    // The token: 25 % of a billion sold; price = 100 USDC / 250M tokens.
    let token = p.fx.token(&got.token_address);
    let bought = tok("250000000");
    assert_eq!(got.deployment.as_ref().unwrap().amount_bought, bought);
    assert_eq!(
        money::format_units(token.price.unwrap(), money::PRICE_DECIMALS),
        "0.0000004"
    );
    let m = presale::merchant_json(&p.fx.store, &got, now).unwrap();
    assert_eq!(
        m["tokenDeploymentInfo"]["amountTokensBought"],
        bought.to_string()
    );
    assert_eq!(m["completionState"]["step"], "completed");
    assert_eq!(m["presaleInfo"]["distributed"], true);
    assert_eq!(m["status"], "completed");

    // Shares: floors, remainder to the largest (c), summing exactly.
    let locked: Vec<u128> = [a, b, c]
        .iter()
        .map(|x| p.fx.balance(&token.address, x).locked)
        .collect();
    assert_eq!(locked.iter().sum::<u128>(), bought);
    assert!(locked[2] > locked[0] && locked[0] == locked[1]);
    assert_eq!(p.fx.store.locks.len(), 3);
    let unlock_at = p.fx.store.locks[0].unlock_at;
    // Locked tokens cannot move.
    let Err(err) = ledger::move_out(
        &mut p.fx.store,
        &p.fx.ctx,
        "a",
        Outflow::Spend,
        &obj(json!({ "tokenAddress": token.address.to_checksum(), "amount": 1 })),
    ) else {
        panic!("locked tokens moved");
    };
    assert_eq!(err.code, ErrorCode::TokensLocked);
    // One allocation per buyer in history.
    let allocations =
        p.fx.store
            .history
            .iter()
            .filter(|r| r.kind == TxType::PresaleAllocation)
            .count();
    assert_eq!(allocations, 3);

    // Unlock: active at the unlock date, not a millisecond before.
    p.to(unlock_at - 1);
    assert_eq!(p.fx.active(&token.address, &a), 0);
    p.to(unlock_at);
    assert_eq!(p.fx.active(&token.address, &a), locked[0]);
    assert!(p.fx.store.locks.is_empty());
    assert_eq!(
        p.fx.store
            .history
            .iter()
            .filter(|r| r.kind == TxType::Unlock)
            .count(),
        3
    );
    ledger::move_out(
        &mut p.fx.store,
        &p.fx.ctx,
        "a",
        Outflow::Spend,
        &obj(json!({ "tokenAddress": token.address.to_checksum(), "amount": 1 })),
    )
    .map_err(|e| e.to_string())
    .unwrap();
    assert_conserved(&p.fx.store);
}

#[test]
fn a_jump_of_the_clock_runs_the_whole_launch_and_the_unlock() {
    let mut p = P::new("10", json!({ "lockDuration": 1 }));
    let a = p.buyer("a", "10");
    p.open();
    p.buy("a", "7").unwrap(); // 70 %: launchable, auto-launches at the end
    p.to(END * 1000 + 30 * DAY);
    let got = p.get();
    assert_eq!(got.phase, Phase::Launched);
    assert_eq!(p.fx.active(&got.token_address, &a), got.amount_bought());
    assert_eq!(p.fx.balance(&got.token_address, &a).locked, 0);
}

#[test]
fn below_seventy_percent_at_the_end_refunds_everyone_in_full() {
    let mut p = P::new("100", json!({}));
    let a = p.buyer("a", "50");
    let b = p.buyer("b", "50");
    p.open();
    p.buy("a", "40").unwrap();
    p.buy("b", "29.999999").unwrap();
    p.to(END * 1000 - 1);
    assert_eq!(p.get().phase, Phase::Open);
    p.to(END * 1000);
    let got = p.get();
    assert_eq!(got.phase, Phase::Refunded);
    assert_eq!(got.status(p.fx.ctx.now), Status::Ended);
    assert_eq!(p.usdc_active(&a), usdc("50"));
    assert_eq!(p.usdc_active(&b), usdc("50"));
    assert_eq!(p.fx.token(&usdc_address()).escrow, 0);
    assert_eq!(
        p.fx.store
            .history
            .iter()
            .filter(|r| r.kind == TxType::PresaleRefund)
            .count(),
        2
    );
    let h = p.fx.holder("a");
    assert!(presale::holder_items(&p.fx.store, &h).unwrap().is_empty());
}

#[test]
fn resolve_launches_refunds_and_refuses() {
    let resolve = |p: &mut P| {
        let before = p.fx.store.clone();
        let r = presale::resolve(
            &mut p.fx.store,
            &p.fx.ctx,
            &obj(json!({ "presaleId": p.id })),
        );
        if r.is_err() {
            assert_unchanged(&before, &p.fx.store, "refused resolve");
        }
        r
    };
    // Active below 70 %: refused.
    let mut p = P::new("100", json!({ "autoLaunch": false }));
    p.buyer("a", "100");
    p.open();
    p.buy("a", "69.999999").unwrap();
    assert_eq!(
        resolve(&mut p).unwrap_err().code,
        ErrorCode::LaunchThresholdNotReached
    );
    // At 70 %, before the end: launches now.
    p.buy("a", "0.000001").unwrap();
    let v = resolve(&mut p).unwrap();
    assert_eq!(v["outcome"], "launching");
    assert_eq!(p.get().completion.step, Step::Swapping);
    assert_eq!(
        resolve(&mut p).unwrap_err().code,
        ErrorCode::PresaleAlreadyResolved
    );
    p.to(p.fx.ctx.now + 60 * SECOND);
    assert_eq!(p.get().phase, Phase::Launched);
    assert_eq!(
        resolve(&mut p).unwrap_err().code,
        ErrorCode::PresaleAlreadyResolved
    );

    // Without autoLaunch, a launchable presale waits at the end for resolve.
    let mut p = P::new("100", json!({ "autoLaunch": false }));
    p.buyer("a", "100");
    p.open();
    p.buy("a", "100").unwrap();
    p.to(END * 1000 + DAY);
    assert_eq!(p.get().phase, Phase::Open);
    assert_eq!(resolve(&mut p).unwrap()["outcome"], "launching");

    // Ended below 70 % (before the alarm ran): resolve refunds, and again is harmless.
    let mut p = P::new("100", json!({}));
    let a = p.buyer("a", "100");
    p.open();
    p.buy("a", "10").unwrap();
    p.fx.ctx.now = END * 1000 + 1;
    assert_eq!(resolve(&mut p).unwrap()["outcome"], "refunded");
    assert_eq!(resolve(&mut p).unwrap()["outcome"], "refunded");
    assert_eq!(p.usdc_active(&a), usdc("100"));
    let unknown = presale::resolve(
        &mut p.fx.store,
        &p.fx.ctx,
        &obj(json!({ "presaleId": "nope" })),
    );
    assert_eq!(unknown.unwrap_err().code, ErrorCode::PresaleNotFound);
}

#[test]
fn failed_steps_retry_with_backoff_and_never_repeat_a_finished_one() {
    let mut p = P::new("10", json!({}));
    let a = p.buyer("a", "10");
    p.open();
    p.buy("a", "10").unwrap();
    // The first two chain submissions fail: the swap step is retried twice.
    chain::inject_faults(&mut p.fx.store, 2).unwrap();
    let t = p.fx.ctx.now;
    p.to(t);
    let got = p.get();
    assert_eq!(
        (got.completion.step, got.completion.retry_count),
        (Step::Pending, 1)
    );
    assert!(got.completion.last_error.is_some());
    let retry_at = *p.fx.store.schedule.get("presale:p-1").unwrap();
    assert_eq!(retry_at, t + 2 * SECOND);
    p.to(retry_at);
    assert_eq!(p.get().completion.retry_count, 2);
    assert_eq!(
        *p.fx.store.schedule.get("presale:p-1").unwrap(),
        retry_at + 4 * SECOND
    );
    p.to(retry_at + 4 * SECOND);
    assert_eq!(p.get().completion.step, Step::Swapping);
    // A fault mid-launch: token-created is done, and stays done once.
    let after_swap = p.fx.ctx.now;
    p.to(chain::mined_at(after_swap));
    assert_eq!(p.get().completion.step, Step::TokenCreated);
    chain::inject_faults(&mut p.fx.store, 1).unwrap();
    p.to(p.fx.ctx.now + 10 * SECOND);
    p.to(p.fx.ctx.now + 120 * SECOND);
    let got = p.get();
    assert_eq!(got.phase, Phase::Launched);
    assert_eq!(got.completion.retry_count, 3);
    assert_eq!(
        p.fx.balance(&got.token_address, &a).locked,
        got.amount_bought()
    );
    assert_eq!(
        p.fx.store
            .history
            .iter()
            .filter(|r| r.kind == TxType::PresaleAllocation)
            .count(),
        1
    );
    let token = p.fx.token(&got.token_address);
    assert_eq!(token.held, got.amount_bought());
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

        /// Whatever the buyers do, the end is exact: a launch allocates exactly the amount
        /// bought, a refund returns every cent, and conservation holds at every step.
        #[test]
        fn launch_or_refund_is_exact(
            buys in proptest::collection::vec((0usize..5, 1u64..=30_000_000), 1..25),
            auto in any::<bool>(),
            lockup in 13u64..=28,
        ) {
            let mut p = P::new("100", json!({
                "autoLaunch": auto,
                "lockDuration": 3,
                "tokenInfo": { "name": "Moon", "symbol": "MOON", "imageUrl": "https://example.com/m.png",
                               "deploymentConfig": { "lockupPercentage": lockup } },
            }));
            let users = ["a", "b", "c", "d", "e"];
            let addrs: Vec<_> = users.iter().map(|u| p.buyer(u, "100")).collect();
            p.open();
            for (who, micro) in buys {
                let amount = money::format_units(u128::from(micro), USDC_DECIMALS);
                let _ = p.buy(users[who], &amount); // refusals are checked inside buy()
            }
            let paid: Vec<u128> = addrs.iter().map(|a| usdc("100") - p.usdc_active(a)).collect();
            let launchable = p.get().launchable();
            p.to(END * 1000);
            if !auto && launchable {
                let r = presale::resolve(&mut p.fx.store, &p.fx.ctx, &obj(json!({ "presaleId": p.id })));
                prop_assert!(r.is_ok());
            }
            p.to(END * 1000 + 10 * DAY);
            let got = p.get();
            if launchable {
                prop_assert_eq!(got.phase, Phase::Launched);
                let total: u128 = addrs.iter().map(|a| p.fx.active(&got.token_address, a)).sum();
                prop_assert_eq!(total, got.amount_bought());
                prop_assert_eq!(got.amount_bought(), tok("1000000000") / 100 * u128::from(lockup));
            } else {
                prop_assert_eq!(got.phase, Phase::Refunded);
                for a in &addrs {
                    prop_assert_eq!(p.usdc_active(a), usdc("100"));
                }
                prop_assert!(paid.iter().sum::<u128>() == got.purchased);
            }
            prop_assert_eq!(p.fx.token(&usdc_address()).escrow, 0);
        }
    }
}
