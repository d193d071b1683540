//! The presale progress view.

use super::bar::bar_percent;
use crate::decimal::Dec;
use crate::format::Formatter;
use crate::time::{countdown, Countdown};
use crate::wire::{MerchantPart, Presale, PresaleStatus};
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

/// Where a presale stands in time, from its status: `upcoming` (pending), `live` (active) or
/// `closed` (completed or ended).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Upcoming,
    Live,
    Closed,
}

/// A presale, ready to render: what `presaleProgress(presale, nowMs, options)` returns.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PresaleProgress {
    pub id: String,
    pub name: String,
    pub description: String,
    pub token_name: String,
    pub token_symbol: String,
    pub image_url: String,
    /// The service's status: `pending`, `active`, `completed` or `ended`.
    pub status: PresaleStatus,
    /// `Upcoming`, `Live`, `Launching`, `Completed`, `Ended`.
    pub status_label: String,
    /// One sentence on where the presale stands against its target and the 70 % rule.
    pub status_detail: String,
    /// `upcoming`, `live` or `closed`.
    #[cfg_attr(feature = "codegen", ts(inline))]
    pub phase: Phase,
    /// USDC raised.
    pub raised: Dec,
    pub raised_formatted: String,
    /// The USDC target.
    pub target: Dec,
    pub target_formatted: String,
    /// What is left to the target.
    pub remaining: Dec,
    pub remaining_formatted: String,
    /// Raised as a percentage of the target (0..=100, two decimals, for the bar).
    pub percent: f64,
    pub percent_formatted: String,
    /// 70: the launch threshold, as a percentage and in USDC.
    pub threshold_percent: u32,
    pub threshold_amount: Dec,
    pub threshold_amount_formatted: String,
    /// Raised at least 70 % of the target: the presale can launch.
    pub threshold_reached: bool,
    pub starts_at_ms: i64,
    pub ends_at_ms: i64,
    /// Time to the start: upcoming only.
    pub starts_in_ms: Option<i64>,
    /// Time to the end: upcoming and live.
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

/// One contribution to a presale (`PresaleProgress.participants`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ParticipantRow {
    pub id: String,
    pub address: String,
    pub usdc_amount: Dec,
    pub usdc_amount_formatted: String,
    pub token_percentage: f64,
    pub token_percentage_formatted: String,
}

/// How far a presale's launch has gone (`PresaleProgress.completion`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CompletionView {
    /// The last step finished (`pending` ... `completed`).
    pub step: String,
    /// Its position (0..=5) in pending, swapping, token-created, tokens-withdrawn,
    /// distributing, completed; `null` for a step not in the list.
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

/// UNIX seconds as UNIX ms.
fn seconds_to_ms(s: u64) -> i64 {
    i64::try_from(s).unwrap_or(i64::MAX).saturating_mul(1000)
}

/// The progress view of presale `p` at `now_ms`; `m` is what the merchant form adds
/// (`MerchantPart::default()` for the public form).
pub fn presale_progress(
    p: &Presale,
    m: &MerchantPart,
    now_ms: i64,
    f: &Formatter,
) -> PresaleProgress {
    let raised = &Dec::of(&p.purchased_usdc_amount);
    let target = &Dec::of(&p.target_usdc_amount);
    let percent = raised.percent_of(target).unwrap_or_default();
    let threshold_amount = target.mul_small(LAUNCH_THRESHOLD_PERCENT).shift_down(2);
    let threshold_reached = !target.is_zero() && *raised >= threshold_amount;
    let starts_at_ms = seconds_to_ms(p.start_timestamp);
    let ends_at_ms = seconds_to_ms(p.end_timestamp);

    let completion = m.completion_state.as_ref().map(|c| {
        let step = c.step.as_str();
        let step_index = COMPLETION_STEPS.iter().position(|s| *s == step);
        let last = COMPLETION_STEPS.len() - 1;
        CompletionView {
            step: step.to_string(),
            step_index,
            step_count: COMPLETION_STEPS.len(),
            label: step_label(step),
            percent: step_index.map_or(0.0, |i| (i * 10_000 / last) as f64 / 100.0),
            done: step_index == Some(last),
            retry_count: c.retry_count,
            last_error: c.last_error.clone(),
            distributed: m.presale_info.as_ref().map(|i| i.distributed),
        }
    });

    let phase = match p.status {
        PresaleStatus::Pending => Phase::Upcoming,
        PresaleStatus::Active => Phase::Live,
        PresaleStatus::Completed | PresaleStatus::Ended => Phase::Closed,
    };
    let status_label = match p.status {
        PresaleStatus::Pending => "Upcoming",
        PresaleStatus::Active => "Live",
        PresaleStatus::Completed if completion.as_ref().is_some_and(|c| !c.done) => "Launching",
        PresaleStatus::Completed => "Completed",
        PresaleStatus::Ended => "Ended",
    }
    .to_string();
    let threshold_text = format!("{LAUNCH_THRESHOLD_PERCENT}%");
    let status_detail = match p.status {
        PresaleStatus::Pending => "Not started yet".to_string(),
        PresaleStatus::Active if threshold_reached => {
            format!("{threshold_text} launch threshold reached")
        }
        PresaleStatus::Active => format!(
            "{} USDC more to reach the {threshold_text} launch threshold",
            f.value(&threshold_amount.saturating_sub(raised))
        ),
        PresaleStatus::Completed if raised >= target => "Target reached".to_string(),
        PresaleStatus::Completed => format!("Launched above the {threshold_text} threshold"),
        PresaleStatus::Ended if threshold_reached => {
            format!("Ended above the {threshold_text} threshold: waiting for launch")
        }
        PresaleStatus::Ended => {
            format!("Ended below the {threshold_text} threshold: contributions refunded")
        }
    };
    let (countdown, time_label) = match phase {
        Phase::Upcoming => {
            let c = countdown(starts_at_ms, now_ms);
            let label = if c.done {
                "Starting…".to_string()
            } else {
                format!("Starts in {}", c.label)
            };
            (Some(c), label)
        }
        Phase::Live => {
            let c = countdown(ends_at_ms, now_ms);
            let label = if c.done {
                "Ending…".to_string()
            } else {
                format!("Ends in {}", c.label)
            };
            (Some(c), label)
        }
        Phase::Closed => (None, "Ended".to_string()),
    };
    let left = |t: i64| t.saturating_sub(now_ms).max(0);
    let mut participants: Vec<ParticipantRow> = p
        .participants
        .iter()
        .map(|x| {
            let usdc_amount = Dec::of(&x.usdc_amount);
            let token_percentage = Dec::of(&x.token_percentage);
            ParticipantRow {
                id: x.id.to_string(),
                address: x.address.to_checksum(),
                usdc_amount_formatted: f.value(&usdc_amount),
                usdc_amount,
                token_percentage: bar_percent(Some(&token_percentage)),
                token_percentage_formatted: f.percent(&token_percentage),
            }
        })
        .collect();
    participants.sort_by(|a, b| match b.usdc_amount.cmp(&a.usdc_amount) {
        Ordering::Equal => a.id.cmp(&b.id),
        o => o,
    });

    PresaleProgress {
        id: p.id.to_string(),
        name: p.name.clone(),
        description: p.description.clone(),
        token_name: p.token_info.name.clone(),
        token_symbol: p.token_info.symbol.clone(),
        image_url: p.token_info.image_url.clone(),
        status: p.status,
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
        starts_in_ms: (phase == Phase::Upcoming).then(|| left(starts_at_ms)),
        ends_in_ms: (phase != Phase::Closed).then(|| left(ends_at_ms)),
        countdown,
        time_label,
        participant_count: p.participants.len(),
        participants,
        completion,
        token_address: m
            .token_deployment_info
            .as_ref()
            .map(|d| d.token_address)
            .or(m.token_address)
            .map(|a| a.to_checksum()),
    }
}
