//! The token supply view.

use super::bar::bar_percent;
use crate::decimal::Dec;
use crate::format::{Digits, Formatter};
use crate::wire::Token;
use serde::Serialize;

/// A token's supply, ready to render: what `tokenSupply(token, options)` returns.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS))]
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
    /// startingAppSupply - remainingAppSupply: given out to holders.
    pub distributed: Dec,
    pub distributed_formatted: String,
    /// Distributed and remaining as percentages of the starting app supply (0..=100).
    pub distributed_percent: f64,
    pub distributed_percent_formatted: String,
    pub remaining_percent: f64,
    pub remaining_percent_formatted: String,
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
    /// The token's liquidity pool, `null` until one is open.
    pub pool: Option<PoolRow>,
    /// Where the total supply is: held by holders, the app supply left, the merchant supply,
    /// the liquidity reserve and (once open) the pool; each with its share of the total.
    pub split: Vec<SplitPart>,
}

/// One part of the total supply (`TokenSupply.split`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SplitPart {
    /// `held`, `app`, `merchant`, `liquidity` or `pool`.
    #[cfg_attr(feature = "codegen", ts(inline))]
    pub key: SplitKey,
    pub label: &'static str,
    pub amount: Dec,
    pub amount_formatted: String,
    /// Share of the total supply, 0..=100 (for drawing).
    pub percent: f64,
    pub percent_formatted: String,
}

/// Which part of the total supply a [`SplitPart`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum SplitKey {
    /// Held by holders.
    Held,
    /// The app supply left.
    App,
    /// The merchant supply.
    Merchant,
    /// The liquidity reserve.
    Liquidity,
    /// In the pool, once open.
    Pool,
}

/// A token's liquidity pool (`TokenSupply.pool`), formatted.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PoolRow {
    pub address: String,
    /// Tokens in the pool.
    pub token_reserve: Dec,
    pub token_reserve_formatted: String,
    /// USDC buyers paid in: what the pool can pay sellers.
    pub usdc_reserve: Dec,
    pub usdc_reserve_formatted: String,
    /// USD per token.
    pub price: Dec,
    pub price_formatted: String,
    /// Percent of each trade's input that stays in the pool, e.g. `0.3%`.
    pub fee_formatted: String,
}

/// One of a token's largest holders (`TokenSupply.topHolders`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS))]
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

/// The total supply's parts: what is not in the app supply, the merchant supply, the reserve
/// or the pool is held by holders (distributed, bought, or a template's recipients).
fn split(t: &Token, total: &Dec, f: &Formatter) -> Vec<SplitPart> {
    let app = Dec::of(&t.remaining_app_supply);
    let merchant = Dec::of(&t.merchant_supply);
    let liquidity = Dec::of(&t.liquidity_supply);
    let pool = t.pool.as_ref().map(|p| Dec::of(&p.token_reserve));
    let held = total
        .saturating_sub(&app)
        .saturating_sub(&merchant)
        .saturating_sub(&liquidity)
        .saturating_sub(pool.as_ref().unwrap_or(&Dec::zero()));
    let mut parts = vec![
        (SplitKey::Held, "Held by holders", held),
        (SplitKey::App, "App supply left", app),
        (SplitKey::Merchant, "Merchant supply", merchant),
        (SplitKey::Liquidity, "Liquidity reserve", liquidity),
    ];
    if let Some(pool) = pool {
        parts.push((SplitKey::Pool, "In the pool", pool));
    }
    parts
        .into_iter()
        .map(|(key, label, amount)| {
            let share = amount.percent_of(total);
            SplitPart {
                key,
                label,
                amount_formatted: f.amount(&amount),
                amount,
                percent: bar_percent(share.as_ref()),
                percent_formatted: f.percent(&share.unwrap_or_default()),
            }
        })
        .collect()
}

/// The supply view of `token`.
pub fn token_supply(t: &Token, f: &Formatter) -> TokenSupply {
    let total_supply = Dec::of(&t.total_supply);
    let starting_app_supply = Dec::of(&t.starting_app_supply);
    let remaining_app_supply = Dec::of(&t.remaining_app_supply);
    let merchant_supply = Dec::of(&t.merchant_supply);
    let liquidity_supply = Dec::of(&t.liquidity_supply);
    let price = t.price.as_ref().map(Dec::of);
    let distributed = starting_app_supply.saturating_sub(&remaining_app_supply);
    let distributed_percent = distributed.percent_of(&starting_app_supply);
    let remaining_percent = remaining_app_supply.percent_of(&starting_app_supply);
    let price_digits = Digits {
        rounding: f.formats.amount.rounding,
        ..PRICE_DIGITS
    };
    TokenSupply {
        address: t.address.to_checksum(),
        name: t.name.clone(),
        symbol: t.symbol.clone(),
        network: t.network.as_str().to_string(),
        total_supply_formatted: f.amount(&total_supply),
        starting_app_supply_formatted: f.amount(&starting_app_supply),
        starting_app_supply,
        remaining_app_supply_formatted: f.amount(&remaining_app_supply),
        remaining_app_supply,
        distributed_formatted: f.amount(&distributed),
        distributed,
        distributed_percent: bar_percent(distributed_percent.as_ref()),
        distributed_percent_formatted: f.percent(&distributed_percent.unwrap_or_default()),
        remaining_percent: bar_percent(remaining_percent.as_ref()),
        remaining_percent_formatted: f.percent(&remaining_percent.unwrap_or_default()),
        merchant_supply_formatted: f.amount(&merchant_supply),
        merchant_supply,
        liquidity_supply_formatted: f.amount(&liquidity_supply),
        liquidity_supply,
        price_formatted: price
            .as_ref()
            .map(|p| crate::format::format_dec(p, price_digits, f.grouping)),
        price,
        holders_count: t.holders_count,
        top_holders: t
            .holders
            .iter()
            .map(|h| {
                let balance = Dec::of(&h.balance);
                let value = Dec::of(&h.value);
                HolderRow {
                    id: h.id.clone(),
                    address: h.address.to_checksum(),
                    balance_formatted: f.amount(&balance),
                    share_percent: bar_percent(balance.percent_of(&total_supply).as_ref()),
                    balance,
                    value_formatted: f.value(&value),
                    value,
                }
            })
            .collect(),
        pool: t.pool.as_ref().map(|p| {
            let token_reserve = Dec::of(&p.token_reserve);
            let usdc_reserve = Dec::of(&p.usdc_reserve);
            let price = Dec::of(&p.price);
            PoolRow {
                address: p.address.to_checksum(),
                token_reserve_formatted: f.amount(&token_reserve),
                token_reserve,
                usdc_reserve_formatted: f.value(&usdc_reserve),
                usdc_reserve,
                price_formatted: crate::format::format_dec(&price, price_digits, f.grouping),
                price,
                fee_formatted: f.percent(&Dec::of(&p.fee)),
            }
        }),
        split: split(t, &total_supply, f),
        total_supply,
    }
}
