//! View models: what a page shows, computed from the service's objects (the core's wire
//! types, see [`crate::wire`]) and a `now`.
//!
//! Pure functions of their inputs, so they are tested natively; `web.rs` exposes them to
//! JavaScript with an `Intl` locale. The wire's exact decimals become [`Dec`]s, which do the
//! arithmetic; every amount stays a [`Dec`] (a decimal string in JavaScript) next to its
//! formatted text; numbers (`percent`, `sharePercent`) are for drawing bars only.

use crate::decimal::Dec;
use crate::format::Formatter;
use crate::time::{countdown, parse_iso_ms, Countdown};
use crate::wire::{HolderFull, ItemKind, ItemStatus};
use serde::Serialize;
use tokenpad_core::model::decimal::Decimal;

mod bar;
use self::bar::bar_percent;
mod presale;
mod supply;

pub use presale::{
    presale_progress, CompletionView, ParticipantRow, Phase, PresaleProgress, COMPLETION_STEPS,
    LAUNCH_THRESHOLD_PERCENT,
};
pub use supply::{token_supply, HolderRow, PoolRow, SplitKey, SplitPart, TokenSupply};

// ---------------------------------------------------------------------------------------
// Holder portfolio

/// A holder's wallet, ready to render: one row per active token, lock and presale position,
/// largest value first. What `holderPortfolio(holder, nowMs, options)` returns.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS))]
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
    /// Largest value first.
    pub rows: Vec<PortfolioRow>,
    pub token_count: usize,
    pub lock_count: usize,
    pub presale_count: usize,
    /// Token and lock rows whose token has no price yet: their value is unknown, and not in
    /// `totalValue` (show it as unknown, not as $0).
    pub unpriced_count: usize,
    /// The soonest unlock still ahead, if any.
    pub next_unlock: Option<Countdown>,
}

/// One line of a portfolio: an active token, a lock or a presale position.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PortfolioRow {
    /// `token` (active), `lock` or `presale`.
    #[cfg_attr(feature = "codegen", ts(inline))]
    pub kind: ItemKind,
    /// Unique within the portfolio (for keyed rendering).
    pub key: String,
    pub id: String,
    /// Token address.
    pub address: String,
    pub name: String,
    pub symbol: String,
    /// The service's status: `active`, `locked` or `pending`.
    #[cfg_attr(feature = "codegen", ts(inline))]
    pub status: ItemStatus,
    /// Tokens (for a presale: the tokens the holder can expect).
    pub balance: Dec,
    pub balance_formatted: String,
    /// USD (for a presale: the USDC paid); 0 when `priced` is false.
    pub value: Dec,
    pub value_formatted: String,
    /// False when the token has no price yet: the value is unknown (not $0).
    pub priced: bool,
    /// This row's share of the portfolio's value, 0..=100 (two decimals).
    pub share_percent: f64,
    /// Locks: when they unlock (ISO) and in UNIX ms.
    pub unlock_date: Option<String>,
    pub unlock_at_ms: Option<i64>,
    /// Presales: the presale, its progress (percent of target) and end.
    pub presale_id: Option<String>,
    pub progress: Option<f64>,
    pub progress_formatted: Option<String>,
    pub end_date: Option<String>,
    pub ends_at_ms: Option<i64>,
    /// Locks: time to the unlock; presales: time to the end. `null` for active tokens.
    pub countdown: Option<Countdown>,
}

fn kind_rank(kind: ItemKind) -> u8 {
    match kind {
        ItemKind::Token => 0,
        ItemKind::Lock => 1,
        ItemKind::Presale => 2,
    }
}

/// The kind as JSON writes it (`PortfolioRow.kind`), for the row's key.
fn kind_name(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::Token => "token",
        ItemKind::Lock => "lock",
        ItemKind::Presale => "presale",
    }
}

/// Whether an item's value is known: it has a price (a service before 0.3 sends no `price`:
/// then a value above zero says it had one).
fn priced(price: Option<&Decimal>, value: &Decimal) -> bool {
    price.is_some() || !Dec::of(value).is_zero()
}

/// The portfolio view of `holder` at `now_ms`.
pub fn portfolio(holder: &HolderFull, now_ms: i64, f: &Formatter) -> Portfolio {
    struct Raw {
        kind: ItemKind,
        id: String,
        address: String,
        name: String,
        symbol: String,
        status: ItemStatus,
        balance: Dec,
        value: Dec,
        priced: bool,
        unlock_date: Option<String>,
        presale: Option<(String, Dec, String)>,
    }
    let mut raw: Vec<Raw> = Vec::new();
    for t in &holder.tokens {
        raw.push(Raw {
            kind: ItemKind::Token,
            id: t.id.clone(),
            address: t.address.to_checksum(),
            name: t.name.clone(),
            symbol: t.symbol.clone(),
            status: t.status,
            balance: Dec::of(&t.balance),
            value: Dec::of(&t.value),
            priced: priced(t.price.as_ref(), &t.value),
            unlock_date: None,
            presale: None,
        });
    }
    for l in &holder.locks {
        raw.push(Raw {
            kind: ItemKind::Lock,
            id: l.id.clone(),
            address: l.address.to_checksum(),
            name: l.name.clone(),
            symbol: l.symbol.clone(),
            status: l.status,
            balance: Dec::of(&l.balance),
            value: Dec::of(&l.value),
            priced: priced(l.price.as_ref(), &l.value),
            unlock_date: Some(l.unlock_date.to_string()),
            presale: None,
        });
    }
    for p in &holder.presales {
        raw.push(Raw {
            kind: ItemKind::Presale,
            id: p.id.clone(),
            address: p.address.to_checksum(),
            name: p.name.clone(),
            symbol: p.symbol.clone(),
            status: p.status,
            balance: Dec::of(&p.balance),
            value: Dec::of(&p.value),
            priced: true,
            unlock_date: None,
            presale: Some((
                p.metadata.presale_id.to_string(),
                Dec::of(&p.metadata.progress),
                p.metadata.end_date.to_string(),
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
    let unpriced_count = raw.iter().filter(|r| !r.priced).count();
    let mut locked_value = Dec::zero();
    let mut next_unlock: Option<Countdown> = None;
    let mut rows = Vec::with_capacity(raw.len());
    for (i, r) in raw.into_iter().enumerate() {
        let unlock_at_ms = r.unlock_date.as_deref().and_then(parse_iso_ms);
        let ends_at_ms = r.presale.as_ref().and_then(|(_, _, end)| parse_iso_ms(end));
        let countdown = unlock_at_ms.or(ends_at_ms).map(|t| countdown(t, now_ms));
        if r.kind == ItemKind::Lock {
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
        let (presale_id, progress, progress_formatted, end_date) = match r.presale {
            Some((id, progress, end)) => (
                Some(id),
                Some(bar_percent(Some(&progress))),
                Some(f.percent(&progress)),
                Some(end),
            ),
            None => (None, None, None, None),
        };
        rows.push(PortfolioRow {
            kind: r.kind,
            key: format!("{}:{}:{}", kind_name(r.kind), r.id, i),
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
            priced: r.priced,
            unlock_date: r.unlock_date,
            unlock_at_ms,
            presale_id,
            progress,
            progress_formatted,
            end_date,
            ends_at_ms,
            countdown,
        });
    }
    let total_value = Dec::of(&holder.total_value);
    Portfolio {
        user_id: holder.id.to_string(),
        address: holder.address.to_checksum(),
        total_value_formatted: f.value(&total_value),
        total_value,
        locked_value_formatted: f.value(&locked_value),
        locked_value,
        token_count: holder.tokens.len(),
        lock_count: holder.locks.len(),
        presale_count: holder.presales.len(),
        unpriced_count,
        rows,
        next_unlock,
    }
}

#[cfg(test)]
mod tests;
