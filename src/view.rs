//! View models: what a page shows, computed from the service's objects and a `now`.
//!
//! Pure functions of their inputs, so they are tested natively; `web.rs` exposes them to
//! JavaScript with an `Intl` locale. Every amount stays a [`Dec`] (a decimal string in
//! JavaScript) next to its formatted text; numbers (`percent`, `sharePercent`) are for
//! drawing bars only.

use crate::decimal::Dec;
use crate::format::{Digits, Formatter};
use crate::model::{HolderFull, Presale, Token};
use crate::time::{countdown, parse_iso_ms, Countdown};
use serde::Serialize;
use std::cmp::Ordering;

/// A presale that reached this share of its target can launch (the service's rule).
pub const LAUNCH_THRESHOLD_PERCENT: u32 = 70;

/// The completion steps of a launch, in order (`completionState.step` names the last done).
pub const COMPLETION_STEPS: [&str; 6] = [
    "pending",
    "swapping",
    "token-created",
    "tokens-withdrawn",
    "distributing",
    "completed",
];

/// A percentage as a float with two decimals, for bar widths; clamped to 0..=100.
fn bar_percent(p: Option<&Dec>) -> f64 {
    p.map_or(0.0, Dec::to_f64_2dp).clamp(0.0, 100.0)
}

// ---------------------------------------------------------------------------------------
// Holder portfolio

/// A holder's wallet, ready to render: one row per active token, lock and presale position,
/// largest value first.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Portfolio {
    pub user_id: String,
    pub address: String,
    /// The service's `totalValue` (USD): tokens, locks and presale USDC.
    pub total_value: Dec,
    pub total_value_formatted: String,
    /// USD value of the locked rows.
    pub locked_value: Dec,
    pub locked_value_formatted: String,
    pub rows: Vec<PortfolioRow>,
    pub token_count: usize,
    pub lock_count: usize,
    pub presale_count: usize,
    /// The soonest unlock still ahead, if any.
    pub next_unlock: Option<Countdown>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PortfolioRow {
    /// `token` (active), `lock` or `presale`.
    pub kind: &'static str,
    /// Unique within the portfolio (for keyed rendering).
    pub key: String,
    pub id: String,
    /// Token address.
    pub address: String,
    pub name: String,
    pub symbol: String,
    /// The service's status: `active`, `locked` or `pending`.
    pub status: String,
    /// Tokens (for a presale: the tokens the holder can expect).
    pub balance: Dec,
    pub balance_formatted: String,
    /// USD (for a presale: the USDC paid).
    pub value: Dec,
    pub value_formatted: String,
    /// This row's share of the portfolio's value, 0..=100.
    pub share_percent: f64,
    /// Locks: when they unlock (ISO) and in UNIX ms.
    pub unlock_date: Option<String>,
    pub unlock_at_ms: Option<i64>,
    /// Presales: the presale, its progress (percent of target) and end.
    pub presale_id: Option<String>,
    pub progress: Option<f64>,
    pub end_date: Option<String>,
    pub ends_at_ms: Option<i64>,
    /// Locks: time to the unlock; presales: time to the end. `null` for active tokens.
    pub countdown: Option<Countdown>,
}

fn kind_rank(kind: &str) -> u8 {
    match kind {
        "token" => 0,
        "lock" => 1,
        _ => 2,
    }
}

/// The portfolio view of `holder` at `now_ms`.
pub fn portfolio(holder: &HolderFull, now_ms: i64, f: &Formatter) -> Portfolio {
    struct Raw {
        kind: &'static str,
        id: String,
        address: String,
        name: String,
        symbol: String,
        status: String,
        balance: Dec,
        value: Dec,
        unlock_date: Option<String>,
        presale: Option<(String, Dec, String)>,
    }
    let mut raw: Vec<Raw> = Vec::new();
    for t in &holder.tokens {
        raw.push(Raw {
            kind: "token",
            id: t.id.clone(),
            address: t.address.clone(),
            name: t.name.clone(),
            symbol: t.symbol.clone(),
            status: t.status.clone(),
            balance: t.balance.clone(),
            value: t.value.clone(),
            unlock_date: None,
            presale: None,
        });
    }
    for l in &holder.locks {
        raw.push(Raw {
            kind: "lock",
            id: l.id.clone(),
            address: l.address.clone(),
            name: l.name.clone(),
            symbol: l.symbol.clone(),
            status: l.status.clone(),
            balance: l.balance.clone(),
            value: l.value.clone(),
            unlock_date: Some(l.unlock_date.clone()),
            presale: None,
        });
    }
    for p in &holder.presales {
        raw.push(Raw {
            kind: "presale",
            id: p.id.clone(),
            address: p.address.clone(),
            name: p.name.clone(),
            symbol: p.symbol.clone(),
            status: p.status.clone(),
            balance: p.balance.clone(),
            value: p.value.clone(),
            unlock_date: None,
            presale: Some((
                p.metadata.presale_id.clone(),
                p.metadata.progress.clone(),
                p.metadata.end_date.clone(),
            )),
        });
    }
    raw.sort_by(|a, b| {
        b.value
            .cmp(&a.value)
            .then_with(|| b.balance.cmp(&a.balance))
            .then_with(|| kind_rank(a.kind).cmp(&kind_rank(b.kind)))
            .then_with(|| a.symbol.cmp(&b.symbol))
            .then_with(|| a.unlock_date.cmp(&b.unlock_date))
    });

    let rows_total = raw.iter().fold(Dec::zero(), |acc, r| acc.add(&r.value));
    let mut locked_value = Dec::zero();
    let mut next_unlock: Option<Countdown> = None;
    let mut rows = Vec::with_capacity(raw.len());
    for (i, r) in raw.into_iter().enumerate() {
        let unlock_at_ms = r.unlock_date.as_deref().and_then(parse_iso_ms);
        let ends_at_ms = r.presale.as_ref().and_then(|(_, _, end)| parse_iso_ms(end));
        let countdown = unlock_at_ms.or(ends_at_ms).map(|t| countdown(t, now_ms));
        if r.kind == "lock" {
            locked_value = locked_value.add(&r.value);
            if let Some(c) = countdown.as_ref().filter(|c| !c.done) {
                if next_unlock
                    .as_ref()
                    .is_none_or(|n| c.target_ms < n.target_ms)
                {
                    next_unlock = Some(c.clone());
                }
            }
        }
        let (presale_id, progress, end_date) = match r.presale {
            Some((id, progress, end)) => (Some(id), Some(bar_percent(Some(&progress))), Some(end)),
            None => (None, None, None),
        };
        rows.push(PortfolioRow {
            kind: r.kind,
            key: format!("{}:{}:{}", r.kind, r.id, i),
            balance_formatted: f.amount(&r.balance),
            value_formatted: f.value(&r.value),
            share_percent: bar_percent(r.value.percent_of(&rows_total).as_ref()),
            id: r.id,
            address: r.address,
            name: r.name,
            symbol: r.symbol,
            status: r.status,
            balance: r.balance,
            value: r.value,
            unlock_date: r.unlock_date,
            unlock_at_ms,
            presale_id,
            progress,
            end_date,
            ends_at_ms,
            countdown,
        });
    }
    Portfolio {
        user_id: holder.id.clone(),
        address: holder.address.clone(),
        total_value_formatted: f.value(&holder.total_value),
        total_value: holder.total_value.clone(),
        locked_value_formatted: f.value(&locked_value),
        locked_value,
        token_count: holder.tokens.len(),
        lock_count: holder.locks.len(),
        presale_count: holder.presales.len(),
        rows,
        next_unlock,
    }
}

// ---------------------------------------------------------------------------------------
// Presale progress

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PresaleProgress {
    pub id: String,
    pub name: String,
    pub description: String,
    pub token_name: String,
    pub token_symbol: String,
    pub image_url: String,
    /// The service's status: `pending`, `active`, `completed` or `ended`.
    pub status: String,
    /// `Upcoming`, `Live`, `Launching`, `Completed`, `Ended`.
    pub status_label: String,
    /// One sentence on where the presale stands against its target and the 70 % rule.
    pub status_detail: String,
    /// `upcoming`, `live` or `closed`.
    pub phase: &'static str,
    /// USDC raised, target, and what is left to the target.
    pub raised: Dec,
    pub raised_formatted: String,
    pub target: Dec,
    pub target_formatted: String,
    pub remaining: Dec,
    pub remaining_formatted: String,
    /// Raised as a percentage of the target (0..=100, two decimals, for the bar).
    pub percent: f64,
    pub percent_formatted: String,
    /// 70: the launch threshold, as a percentage and in USDC.
    pub threshold_percent: u32,
    pub threshold_amount: Dec,
    pub threshold_amount_formatted: String,
    pub threshold_reached: bool,
    pub starts_at_ms: i64,
    pub ends_at_ms: i64,
    /// Time to the start (upcoming only) and to the end (upcoming and live).
    pub starts_in_ms: Option<i64>,
    pub ends_in_ms: Option<i64>,
    /// Counting down to the start when upcoming, to the end when live; `null` when closed.
    pub countdown: Option<Countdown>,
    /// `Starts in 2h 5m 0s`, `Ends in 3d 4h 0m 0s`, `Ended`.
    pub time_label: String,
    pub participant_count: usize,
    /// Largest contribution first.
    pub participants: Vec<ParticipantRow>,
    /// The launch's progress; only with the merchant form (`completionState`).
    pub completion: Option<CompletionView>,
    /// The launched token's address, once known (merchant form).
    pub token_address: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantRow {
    pub id: String,
    pub address: String,
    pub usdc_amount: Dec,
    pub usdc_amount_formatted: String,
    pub token_percentage: f64,
    pub token_percentage_formatted: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompletionView {
    /// The last step finished (`pending` ... `completed`).
    pub step: String,
    /// Its position in [`COMPLETION_STEPS`] (0..=5), `null` for an unknown step.
    pub step_index: Option<usize>,
    pub step_count: usize,
    /// `Waiting to launch`, `Swapping USDC`, `Token created`, `Tokens withdrawn`,
    /// `Distributing tokens`, `Launched`.
    pub label: String,
    /// Steps done as a percentage (for a bar).
    pub percent: f64,
    pub done: bool,
    pub retry_count: u32,
    pub last_error: Option<String>,
    pub distributed: Option<bool>,
}

fn step_label(step: &str) -> String {
    match step {
        "pending" => "Waiting to launch",
        "swapping" => "Swapping USDC",
        "token-created" => "Token created",
        "tokens-withdrawn" => "Tokens withdrawn",
        "distributing" => "Distributing tokens",
        "completed" => "Launched",
        other => other,
    }
    .into()
}

/// The progress view of `presale` at `now_ms`.
pub fn presale_progress(p: &Presale, now_ms: i64, f: &Formatter) -> PresaleProgress {
    let raised = &p.purchased_usdc_amount;
    let target = &p.target_usdc_amount;
    let percent = raised.percent_of(target).unwrap_or_default();
    let threshold_amount = target.mul_small(LAUNCH_THRESHOLD_PERCENT).shift_down(2);
    let threshold_reached = !target.is_zero() && *raised >= threshold_amount;
    let starts_at_ms = p.start_timestamp.saturating_mul(1000);
    let ends_at_ms = p.end_timestamp.saturating_mul(1000);

    let completion = p.completion_state.as_ref().map(|c| {
        let step_index = COMPLETION_STEPS.iter().position(|s| *s == c.step);
        let last = COMPLETION_STEPS.len() - 1;
        CompletionView {
            step: c.step.clone(),
            step_index,
            step_count: COMPLETION_STEPS.len(),
            label: step_label(&c.step),
            percent: step_index.map_or(0.0, |i| (i * 10_000 / last) as f64 / 100.0),
            done: step_index == Some(last),
            retry_count: c.retry_count,
            last_error: c.last_error.clone(),
            distributed: p.presale_info.as_ref().map(|i| i.distributed),
        }
    });

    let phase = match p.status.as_str() {
        "pending" => "upcoming",
        "active" => "live",
        _ => "closed",
    };
    let status_label = match p.status.as_str() {
        "pending" => "Upcoming".into(),
        "active" => "Live".into(),
        "completed" if completion.as_ref().is_some_and(|c| !c.done) => "Launching".into(),
        "completed" => "Completed".into(),
        "ended" => "Ended".into(),
        other => other.to_string(),
    };
    let threshold_text = format!("{LAUNCH_THRESHOLD_PERCENT} %");
    let status_detail = match p.status.as_str() {
        "pending" => "Not started yet".to_string(),
        "active" if threshold_reached => {
            format!("{threshold_text} launch threshold reached")
        }
        "active" => format!(
            "{} USDC more to reach the {threshold_text} launch threshold",
            f.value(&threshold_amount.saturating_sub(raised))
        ),
        "completed" if raised >= target => "Target reached".to_string(),
        "completed" => format!("Launched above the {threshold_text} threshold"),
        "ended" if threshold_reached => {
            format!("Ended above the {threshold_text} threshold: waiting for launch")
        }
        "ended" => format!("Ended below the {threshold_text} threshold: contributions refunded"),
        _ => String::new(),
    };
    let (countdown, time_label) = match phase {
        "upcoming" => {
            let c = countdown(starts_at_ms, now_ms);
            let label = if c.done {
                "Starting…".to_string()
            } else {
                format!("Starts in {}", c.label)
            };
            (Some(c), label)
        }
        "live" => {
            let c = countdown(ends_at_ms, now_ms);
            let label = if c.done {
                "Ending…".to_string()
            } else {
                format!("Ends in {}", c.label)
            };
            (Some(c), label)
        }
        _ => (None, "Ended".to_string()),
    };
    let left = |t: i64| (t - now_ms).max(0);
    let mut participants: Vec<ParticipantRow> = p
        .participants
        .iter()
        .map(|x| ParticipantRow {
            id: x.id.clone(),
            address: x.address.clone(),
            usdc_amount_formatted: f.value(&x.usdc_amount),
            usdc_amount: x.usdc_amount.clone(),
            token_percentage: bar_percent(Some(&x.token_percentage)),
            token_percentage_formatted: f.percent(&x.token_percentage),
        })
        .collect();
    participants.sort_by(|a, b| match b.usdc_amount.cmp(&a.usdc_amount) {
        Ordering::Equal => a.id.cmp(&b.id),
        o => o,
    });

    PresaleProgress {
        id: p.id.clone(),
        name: p.name.clone(),
        description: p.description.clone(),
        token_name: p.token_info.name.clone(),
        token_symbol: p.token_info.symbol.clone(),
        image_url: p.token_info.image_url.clone(),
        status: p.status.clone(),
        status_label,
        status_detail,
        phase,
        raised_formatted: f.value(raised),
        raised: raised.clone(),
        target_formatted: f.value(target),
        target: target.clone(),
        remaining_formatted: f.value(&target.saturating_sub(raised)),
        remaining: target.saturating_sub(raised),
        percent: bar_percent(Some(&percent)),
        percent_formatted: f.percent(&percent),
        threshold_percent: LAUNCH_THRESHOLD_PERCENT,
        threshold_amount_formatted: f.value(&threshold_amount),
        threshold_amount,
        threshold_reached,
        starts_at_ms,
        ends_at_ms,
        starts_in_ms: (phase == "upcoming").then(|| left(starts_at_ms)),
        ends_in_ms: (phase != "closed").then(|| left(ends_at_ms)),
        countdown,
        time_label,
        participant_count: p.participants.len(),
        participants,
        completion,
        token_address: p
            .token_deployment_info
            .as_ref()
            .map(|d| d.token_address.clone())
            .or_else(|| p.token_address.clone()),
    }
}

// ---------------------------------------------------------------------------------------
// Token supply

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenSupply {
    pub address: String,
    pub name: String,
    pub symbol: String,
    pub network: String,
    pub total_supply: Dec,
    pub total_supply_formatted: String,
    /// The app supply the merchant started with, what is left of it, and the difference:
    /// what has been distributed to holders.
    pub starting_app_supply: Dec,
    pub starting_app_supply_formatted: String,
    pub remaining_app_supply: Dec,
    pub remaining_app_supply_formatted: String,
    pub distributed: Dec,
    pub distributed_formatted: String,
    /// Distributed and remaining as percentages of the starting app supply (0..=100).
    pub distributed_percent: f64,
    pub distributed_percent_formatted: String,
    pub remaining_percent: f64,
    pub merchant_supply: Dec,
    pub merchant_supply_formatted: String,
    pub liquidity_supply: Dec,
    pub liquidity_supply_formatted: String,
    /// USD per token, `null` until a price exists.
    pub price: Option<Dec>,
    pub price_formatted: Option<String>,
    pub holders_count: u64,
    /// Largest balance first, as the service sends them.
    pub top_holders: Vec<HolderRow>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HolderRow {
    pub id: String,
    pub address: String,
    pub balance: Dec,
    pub balance_formatted: String,
    pub value: Dec,
    pub value_formatted: String,
    /// Share of the total supply, 0..=100.
    pub share_percent: f64,
}

/// Prices are shown with up to 10 decimals (they are often far below a cent).
const PRICE_DIGITS: Digits = Digits::new(2, 10);

/// The supply view of `token`.
pub fn token_supply(t: &Token, f: &Formatter) -> TokenSupply {
    let distributed = t
        .starting_app_supply
        .saturating_sub(&t.remaining_app_supply);
    let distributed_percent = distributed.percent_of(&t.starting_app_supply);
    let remaining_percent = t.remaining_app_supply.percent_of(&t.starting_app_supply);
    let price_digits = Digits {
        rounding: f.formats.amount.rounding,
        ..PRICE_DIGITS
    };
    TokenSupply {
        address: t.address.clone(),
        name: t.name.clone(),
        symbol: t.symbol.clone(),
        network: t.network.clone(),
        total_supply_formatted: f.amount(&t.total_supply),
        total_supply: t.total_supply.clone(),
        starting_app_supply_formatted: f.amount(&t.starting_app_supply),
        starting_app_supply: t.starting_app_supply.clone(),
        remaining_app_supply_formatted: f.amount(&t.remaining_app_supply),
        remaining_app_supply: t.remaining_app_supply.clone(),
        distributed_formatted: f.amount(&distributed),
        distributed,
        distributed_percent: bar_percent(distributed_percent.as_ref()),
        distributed_percent_formatted: f.percent(&distributed_percent.unwrap_or_default()),
        remaining_percent: bar_percent(remaining_percent.as_ref()),
        merchant_supply_formatted: f.amount(&t.merchant_supply),
        merchant_supply: t.merchant_supply.clone(),
        liquidity_supply_formatted: f.amount(&t.liquidity_supply),
        liquidity_supply: t.liquidity_supply.clone(),
        price_formatted: t
            .price
            .as_ref()
            .map(|p| crate::format::format_dec(p, price_digits, f.grouping)),
        price: t.price.clone(),
        holders_count: t.holders_count,
        top_holders: t
            .holders
            .iter()
            .map(|h| HolderRow {
                id: h.id.clone(),
                address: h.address.clone(),
                balance_formatted: f.amount(&h.balance),
                balance: h.balance.clone(),
                value_formatted: f.value(&h.value),
                value: h.value.clone(),
                share_percent: bar_percent(h.balance.percent_of(&t.total_supply).as_ref()),
            })
            .collect(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::format::{Formats, PlainGrouping};
    use crate::model::fixtures::*;
    use crate::model::{CompletionState, PresaleInfo};

    fn fmt() -> Formatter<'static> {
        Formatter {
            formats: Formats::default(),
            grouping: &PlainGrouping,
        }
    }

    /// 2026-11-21T12:00:00Z
    const NOW: i64 = 1_795_262_400_000;

    #[test]
    fn portfolio_rows_sorted_by_value_with_countdowns() {
        let h: HolderFull = crate::json::from_str(HOLDER).unwrap();
        let v = portfolio(&h, NOW, &fmt());
        let order: Vec<(&str, &str)> = v.rows.iter().map(|r| (r.kind, r.symbol.as_str())).collect();
        assert_eq!(
            order,
            [
                ("lock", "STAR"),
                ("token", "DEMO"),
                ("presale", "MOON"),
                ("token", "USDC")
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
        let h: HolderFull = crate::json::from_str(
            r#"{"success":true,"id":"zoe","address":"0x0","totalValue":0,"tokens":[],"presales":[],"locks":[]}"#,
        )
        .unwrap();
        let v = portfolio(&h, NOW, &fmt());
        assert!(v.rows.is_empty());
        assert_eq!(v.total_value_formatted, "0.00");
        assert!(v.next_unlock.is_none());
    }

    #[test]
    fn presale_progress_live() {
        let p: Presale = crate::json::from_str(PRESALE).unwrap();
        let v = presale_progress(&p, NOW + 600_000, &fmt());
        assert_eq!(v.phase, "live");
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
            "9.50 USDC more to reach the 70 % launch threshold"
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
        let mut p: Presale = crate::json::from_str(PRESALE).unwrap();
        p.target_usdc_amount = Dec::parse("100.000001").unwrap();
        p.purchased_usdc_amount = Dec::parse("70.0000007").unwrap();
        assert!(presale_progress(&p, NOW, &fmt()).threshold_reached);
        p.purchased_usdc_amount = Dec::parse("70.0000006").unwrap();
        let v = presale_progress(&p, NOW, &fmt());
        assert!(!v.threshold_reached);
        assert_eq!(v.threshold_amount.to_string(), "70.0000007");
    }

    #[test]
    fn presale_upcoming_closed_and_launching() {
        let mut p: Presale = crate::json::from_str(PRESALE).unwrap();
        p.status = "pending".into();
        let v = presale_progress(&p, NOW - 7_200_000, &fmt());
        assert_eq!((v.phase, v.status_label.as_str()), ("upcoming", "Upcoming"));
        assert_eq!(v.time_label, "Starts in 2h 0m 0s");
        assert_eq!(v.starts_in_ms, Some(7_200_000));
        assert_eq!(v.ends_in_ms, Some(10_800_000));

        p.status = "ended".into();
        let v = presale_progress(&p, NOW + 7_200_000, &fmt());
        assert_eq!((v.phase, v.time_label.as_str()), ("closed", "Ended"));
        assert!(v.countdown.is_none());
        assert!(v.status_detail.contains("refunded"), "{}", v.status_detail);

        p.status = "completed".into();
        p.purchased_usdc_amount = Dec::parse("100").unwrap();
        p.completion_state = Some(CompletionState {
            step: "token-created".into(),
            transactions: Default::default(),
            retry_count: 1,
            last_error: None,
        });
        p.presale_info = Some(PresaleInfo {
            distributed: false,
            distribute_tx_hash: None,
        });
        let v = presale_progress(&p, NOW, &fmt());
        assert_eq!(v.status_label, "Launching");
        assert_eq!(v.status_detail, "Target reached");
        assert_eq!(v.percent, 100.0);
        let c = v.completion.unwrap();
        assert_eq!((c.step_index, c.step_count, c.done), (Some(2), 6, false));
        assert_eq!(c.label, "Token created");
        assert_eq!(c.percent, 40.0);
        assert_eq!(c.distributed, Some(false));

        p.completion_state.as_mut().unwrap().step = "completed".into();
        let v = presale_progress(&p, NOW, &fmt());
        assert_eq!(v.status_label, "Completed");
        assert!(v.completion.unwrap().done);
    }

    #[test]
    fn token_supply_distributed_versus_remaining() {
        let t: Token = crate::json::from_str(TOKEN).unwrap();
        let v = token_supply(&t, &fmt());
        assert_eq!(v.distributed.to_string(), "1234.567890123456789012");
        assert_eq!(v.distributed_formatted, "1,234.56789");
        assert_eq!(v.remaining_app_supply_formatted, "149,998,765.43211");
        assert_eq!(v.total_supply_formatted, "1,000,000,000");
        assert_eq!(v.distributed_percent, 0.0);
        assert_eq!(v.distributed_percent_formatted, "<0.01%");
        assert_eq!(v.remaining_percent, 100.0);
        assert_eq!(v.price_formatted.as_deref(), Some("0.15"));
        assert_eq!(v.holders_count, 2);
        assert_eq!(v.top_holders[0].value_formatted, "185.19");

        let mut t = t;
        t.remaining_app_supply = Dec::parse("37500000").unwrap();
        t.price = None;
        let v = token_supply(&t, &fmt());
        assert_eq!(v.distributed_percent, 75.0);
        assert_eq!(v.distributed_percent_formatted, "75%");
        assert_eq!(v.remaining_percent, 25.0);
        assert_eq!(v.price_formatted, None);
    }
}
