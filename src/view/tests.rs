#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;
use crate::fixtures::*;
use crate::format::{Formats, PlainGrouping};
use crate::wire::{
    from_str, CompletionState, ItemKind, MerchantPart, Presale, PresaleInfo, PresaleStatus, Token,
};
use tokenpad_core::model::decimal::Decimal;
use tokenpad_core::model::presale::Step;

fn fmt() -> Formatter<'static> {
    Formatter {
        formats: Formats::default(),
        grouping: &PlainGrouping,
    }
}

/// 2026-11-21T12:00:00Z
const NOW: i64 = 1_795_262_400_000;

#[test]
fn a_token_without_a_price_has_an_unknown_value_not_zero() {
    let text = HOLDER
        .replace(r#""value": 185.185183,"#, r#""value": 0, "price": null,"#)
        .replace(
            r#""value": 1000, "status": "locked","#,
            r#""value": 1000, "price": 0.000004, "status": "locked","#,
        );
    let v = portfolio(&from_str(&text).unwrap(), NOW, &fmt());
    let by = |s: &str| v.rows.iter().find(|r| r.symbol == s).unwrap();
    assert!(!by("DEMO").priced);
    assert_eq!(by("DEMO").value.to_string(), "0");
    // A price, or (a service that sends none) a value above zero.
    assert!(by("STAR").priced && by("USDC").priced && by("MOON").priced);
    assert_eq!(v.unpriced_count, 1);
    // All priced in the fixture.
    assert_eq!(
        portfolio(&from_str(HOLDER).unwrap(), NOW, &fmt()).unpriced_count,
        0
    );
}

#[test]
fn portfolio_rows_sorted_by_value_with_countdowns() {
    let h: HolderFull = from_str(HOLDER).unwrap();
    let v = portfolio(&h, NOW, &fmt());
    let order: Vec<(ItemKind, &str)> = v.rows.iter().map(|r| (r.kind, r.symbol.as_str())).collect();
    assert_eq!(
        order,
        [
            (ItemKind::Lock, "STAR"),
            (ItemKind::Token, "DEMO"),
            (ItemKind::Presale, "MOON"),
            (ItemKind::Token, "USDC")
        ]
    );
    assert_eq!(v.total_value.to_string(), "1285.185183");
    assert_eq!(v.total_value_formatted, "1,285.19");
    assert_eq!((v.token_count, v.lock_count, v.presale_count), (2, 1, 1));
    assert_eq!(v.locked_value_formatted, "1,000.00");

    let lock = &v.rows[0];
    assert_eq!(lock.balance_formatted, "250,000,000");
    assert_eq!(lock.unlock_at_ms, Some(NOW + 7 * 86_400_000));
    let c = lock.countdown.as_ref().unwrap();
    assert_eq!((c.days, c.hours, c.minutes, c.seconds), (7, 0, 0, 0));
    assert_eq!(
        v.next_unlock.as_ref().unwrap().target_ms,
        NOW + 7 * 86_400_000
    );
    // Share of the rows' total value 1285.185183.
    assert_eq!(lock.share_percent, 77.81);

    let demo = &v.rows[1];
    assert_eq!(demo.balance.to_string(), "1234.567890123456789012");
    assert_eq!(demo.balance_formatted, "1,234.56789");
    assert_eq!(demo.value_formatted, "185.19");
    assert!(demo.countdown.is_none());

    let presale = &v.rows[2];
    assert_eq!(
        presale.presale_id.as_deref(),
        Some("6f1c1b2e-8a8e-4a53-9d57-0d7c3b8e9a10")
    );
    assert_eq!(presale.progress, Some(60.0));
    assert_eq!(presale.countdown.as_ref().unwrap().label, "1h 0m 0s");

    // A second later the countdowns moved, nothing else did.
    let later = portfolio(&h, NOW + 1000, &fmt());
    assert_eq!(
        later.rows[0].countdown.as_ref().unwrap().label,
        "6d 23h 59m 59s"
    );
    // After the unlock date the lock counts as due.
    let after = portfolio(&h, NOW + 8 * 86_400_000, &fmt());
    assert!(after.rows[0].countdown.as_ref().unwrap().done);
    assert!(after.next_unlock.is_none());
}

#[test]
fn empty_portfolio() {
    let h: HolderFull = from_str(
        r#"{"success":true,"id":"zoe","address":"0x0000000000000000000000000000000000000000","totalValue":0,"tokens":[],"presales":[],"locks":[]}"#,
    )
    .unwrap();
    let v = portfolio(&h, NOW, &fmt());
    assert!(v.rows.is_empty());
    assert_eq!(v.total_value_formatted, "0.00");
    assert!(v.next_unlock.is_none());
}

#[test]
fn presale_progress_live() {
    let p: Presale = from_str(PRESALE).unwrap();
    let v = presale_progress(&p, &MerchantPart::default(), NOW + 600_000, &fmt());
    assert_eq!(v.phase, Phase::Live);
    assert_eq!(v.status_label, "Live");
    assert_eq!(v.percent, 60.5);
    assert_eq!(v.percent_formatted, "60.5%");
    assert_eq!(v.raised_formatted, "60.50");
    assert_eq!(v.target_formatted, "100.00");
    assert_eq!(v.remaining.to_string(), "39.5");
    assert_eq!(v.threshold_amount.to_string(), "70");
    assert!(!v.threshold_reached);
    assert_eq!(
        v.status_detail,
        "9.50 USDC more to reach the 70% launch threshold"
    );
    assert_eq!(v.time_label, "Ends in 50m 0s");
    assert_eq!(v.ends_in_ms, Some(3_000_000));
    assert_eq!(v.starts_in_ms, None);
    assert_eq!(v.participant_count, 2);
    assert_eq!(v.participants[0].id, "bob");
    assert_eq!(v.participants[0].token_percentage_formatted, "99.17%");
    assert!(v.completion.is_none());
}

#[test]
fn presale_threshold_is_exact() {
    let mut p: Presale = from_str(PRESALE).unwrap();
    let public = MerchantPart::default();
    p.target_usdc_amount = Decimal::parse("100.000001").unwrap();
    p.purchased_usdc_amount = Decimal::parse("70.0000007").unwrap();
    assert!(presale_progress(&p, &public, NOW, &fmt()).threshold_reached);
    p.purchased_usdc_amount = Decimal::parse("70.0000006").unwrap();
    let v = presale_progress(&p, &public, NOW, &fmt());
    assert!(!v.threshold_reached);
    assert_eq!(v.threshold_amount.to_string(), "70.0000007");
}

#[test]
fn presale_upcoming_closed_and_launching() {
    let mut p: Presale = from_str(PRESALE).unwrap();
    let mut m = MerchantPart::default();
    p.status = PresaleStatus::Pending;
    let v = presale_progress(&p, &m, NOW - 7_200_000, &fmt());
    assert_eq!(
        (v.phase, v.status_label.as_str()),
        (Phase::Upcoming, "Upcoming")
    );
    assert_eq!(v.time_label, "Starts in 2h 0m 0s");
    assert_eq!(v.starts_in_ms, Some(7_200_000));
    assert_eq!(v.ends_in_ms, Some(10_800_000));

    p.status = PresaleStatus::Ended;
    let v = presale_progress(&p, &m, NOW + 7_200_000, &fmt());
    assert_eq!((v.phase, v.time_label.as_str()), (Phase::Closed, "Ended"));
    assert!(v.countdown.is_none());
    assert!(v.status_detail.contains("refunded"), "{}", v.status_detail);

    p.status = PresaleStatus::Completed;
    p.purchased_usdc_amount = Decimal::parse("100").unwrap();
    m.completion_state = Some(CompletionState {
        step: Step::TokenCreated,
        transactions: Default::default(),
        retry_count: 1,
        last_error: None,
        updated_at: None,
    });
    m.presale_info = Some(PresaleInfo {
        distributed: false,
        distribute_tx_hash: None,
    });
    let v = presale_progress(&p, &m, NOW, &fmt());
    assert_eq!(v.status_label, "Launching");
    assert_eq!(v.status_detail, "Target reached");
    assert_eq!(v.percent, 100.0);
    let c = v.completion.unwrap();
    assert_eq!((c.step_index, c.step_count, c.done), (Some(2), 6, false));
    assert_eq!(c.label, "Token created");
    assert_eq!(c.percent, 40.0);
    assert_eq!(c.distributed, Some(false));

    m.completion_state.as_mut().unwrap().step = Step::Completed;
    let v = presale_progress(&p, &m, NOW, &fmt());
    assert_eq!(v.status_label, "Completed");
    assert!(v.completion.unwrap().done);
}

#[test]
fn token_supply_distributed_versus_remaining() {
    let t: Token = from_str(TOKEN).unwrap();
    let v = token_supply(&t, &fmt());
    assert_eq!(v.distributed.to_string(), "1234.567890123456789012");
    assert_eq!(v.distributed_formatted, "1,234.56789");
    assert_eq!(v.remaining_app_supply_formatted, "149,998,765.43211");
    assert_eq!(v.total_supply_formatted, "1,000,000,000");
    assert_eq!(v.distributed_percent, 0.0);
    assert_eq!(v.distributed_percent_formatted, "<0.01%");
    assert_eq!(v.remaining_percent, 100.0);
    assert_eq!(v.remaining_percent_formatted, "100%");
    assert_eq!(v.price_formatted.as_deref(), Some("0.15"));
    // The total supply's parts, every percent written the same way.
    let parts: Vec<(SplitKey, &str, &str)> = v
        .split
        .iter()
        .map(|p| {
            (
                p.key,
                p.amount_formatted.as_str(),
                p.percent_formatted.as_str(),
            )
        })
        .collect();
    assert_eq!(
        parts,
        [
            (SplitKey::Held, "1,234.56789", "<0.01%"),
            (SplitKey::App, "149,998,765.43211", "15%"),
            (SplitKey::Merchant, "50,000,000", "5%"),
            (SplitKey::Liquidity, "800,000,000", "80%"),
        ]
    );
    assert_eq!(v.holders_count, 2);
    assert_eq!(v.top_holders[0].value_formatted, "185.19");

    let mut t = t;
    t.remaining_app_supply = Decimal::parse("37500000").unwrap();
    t.price = None;
    let v = token_supply(&t, &fmt());
    assert_eq!(v.distributed_percent, 75.0);
    assert_eq!(v.distributed_percent_formatted, "75%");
    assert_eq!(v.remaining_percent, 25.0);
    assert_eq!(v.remaining_percent_formatted, "25%");
    assert_eq!(v.price_formatted, None);
    assert_eq!(v.pool, None);
}

#[test]
fn token_supply_shows_the_pool() {
    let mut v: serde_json::Value = serde_json::from_str(TOKEN).unwrap();
    v["pool"] = serde_json::json!({
        "address": "0xF86a823fa2f71A782A64d33fB14B2112a59ac1B3", "status": "open",
        "tokenReserve": 996039.726961099, "usdcReserve": 39.940281,
        "virtualUsdcReserve": 10000, "price": 0.010079859275926369, "fee": 0.3,
        "sqrtPriceX96": "7954225305587862563528386", "tick": -276101, "liquidity": "99801744224",
        "lpInfo": {"nftId": "1", "liquidityPoolAddress": "0xF86a823fa2f71A782A64d33fB14B2112a59ac1B3"}
    });
    let t: Token = from_str(&v.to_string()).unwrap();
    let s = token_supply(&t, &fmt());
    // The pool's tokens are a part of the total; what is held is the rest.
    let keys: Vec<SplitKey> = s.split.iter().map(|p| p.key).collect();
    use SplitKey::*;
    assert_eq!(keys, [Held, App, Merchant, Liquidity, Pool]);
    assert_eq!(s.split[4].percent_formatted, "0.1%");
    let pool = s.pool.unwrap();
    assert_eq!(pool.token_reserve_formatted, "996,039.726961");
    assert_eq!(pool.usdc_reserve_formatted, "39.94");
    assert_eq!(pool.price_formatted, "0.0100798593");
    assert_eq!(pool.fee_formatted, "0.3%");
}
