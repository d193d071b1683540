//! Presales: raise USDC toward a target, then launch a token whose buyers receive locked
//! tokens, or refund every buyer in full.
//!
//! Status is a pure function of time and money ([`Presale::status`]), so a read computes the
//! same answer an alarm would. What must happen at a time lives in `ops::presale`.

use super::address::Address;
use super::amount::{mul_div, pow10, Units, Usdc, TOKEN_DECIMALS};
use super::ids::{PresaleId, TokenAddress, UserId};
use super::time::{Millis, SECOND};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const MIN_TARGET_USDC: u128 = 2;
pub const MAX_TARGET_USDC: u128 = 200_000;
/// A presale is launchable from this share of its target, in percent.
pub const LAUNCH_THRESHOLD_PERCENT: u128 = 70;
pub const DEFAULT_LOCK_DAYS: u64 = 7;
pub const MAX_LOCK_DAYS: u64 = 365;
pub const DEFAULT_LOCKUP_PERCENT: u64 = 25;
pub const MIN_LOCKUP_PERCENT: u64 = 13;
pub const MAX_LOCKUP_PERCENT: u64 = 28;
/// Supply of a token launched by a presale, in whole tokens.
pub const LAUNCH_SUPPLY_TOKENS: u128 = 1_000_000_000;
/// Latest end date accepted (2100-01-01), so timestamps stay in range everywhere.
pub const MAX_TIMESTAMP: u64 = 4_102_444_800;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TokenInfo {
    pub name: String,
    pub symbol: String,
    pub image_url: String,
    /// Optional links and a description, by their wire names.
    pub metadata: BTreeMap<String, String>,
    pub lockup_percentage: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Participant {
    pub user_id: UserId,
    pub address: Address,
    pub usdc: Usdc,
}

/// Where a presale is in its life, beyond what time and money say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Taking part is possible while the status is active.
    Open,
    /// The completion steps are running.
    Launching,
    Launched,
    Refunded,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(inline))]
#[cfg_attr(feature = "codegen", ts(rename = "CompletionStep"))]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    Pending,
    Swapping,
    TokenCreated,
    TokensWithdrawn,
    Distributing,
    Completed,
}

impl Step {
    pub fn as_str(self) -> &'static str {
        match self {
            Step::Pending => "pending",
            Step::Swapping => "swapping",
            Step::TokenCreated => "token-created",
            Step::TokensWithdrawn => "tokens-withdrawn",
            Step::Distributing => "distributing",
            Step::Completed => "completed",
        }
    }

    pub fn next(self) -> Option<Step> {
        match self {
            Step::Pending => Some(Step::Swapping),
            Step::Swapping => Some(Step::TokenCreated),
            Step::TokenCreated => Some(Step::TokensWithdrawn),
            Step::TokensWithdrawn => Some(Step::Distributing),
            Step::Distributing => Some(Step::Completed),
            Step::Completed => None,
        }
    }

    /// The step's transactions: (chain operation, key in `completionState.transactions`).
    pub fn transactions(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Step::Swapping => &[("swap_approval", "swapApprovalTx"), ("swap", "swapTx")],
            Step::TokenCreated => &[("token_creation", "tokenCreationTx")],
            Step::TokensWithdrawn => &[("withdraw", "withdrawTx")],
            Step::Distributing => &[
                ("distribution_approval", "distributionApprovalTx"),
                ("distribution", "distributionTx"),
            ],
            Step::Completed | Step::Pending => &[],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Pending,
    Active,
    Completed,
    Ended,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Active => "active",
            Status::Completed => "completed",
            Status::Ended => "ended",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    /// The last step finished (`pending` before the launch starts).
    pub step: Step,
    pub transactions: BTreeMap<String, String>,
    pub retry_count: u32,
    pub last_error: Option<String>,
    /// Service time at which a step last ran (succeeded or failed). With the alarm working,
    /// it is the step's due time, not the time somebody next looked.
    #[serde(default)]
    pub updated_at: Option<Millis>,
}

impl Completion {
    pub fn new() -> Completion {
        Completion {
            step: Step::Pending,
            transactions: BTreeMap::new(),
            retry_count: 0,
            last_error: None,
            updated_at: None,
        }
    }
}

impl Default for Completion {
    fn default() -> Self {
        Completion::new()
    }
}

/// The presale's token, once deployed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TokenDeployment {
    pub token_address: TokenAddress,
    /// The deployment's transaction hash: on an EVM chain, set once the deploy is mined.
    pub hash: Option<String>,
    pub amount_bought: Units,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Presale {
    pub id: PresaleId,
    pub name: String,
    pub description: String,
    /// UNIX seconds.
    pub start: u64,
    pub end: u64,
    pub target: Usdc,
    pub purchased: Usdc,
    pub token_info: TokenInfo,
    pub lock_days: u64,
    pub auto_launch: bool,
    pub signer: Address,
    /// Reserved at creation, so buyers can see where their token will live.
    pub token_address: TokenAddress,
    /// On an EVM chain: the CREATE2 salt that address was reserved with (hex), for the deploy.
    #[serde(default)]
    pub deploy_salt: Option<String>,
    /// How many holders bought in; the participants themselves are rows of their own
    /// (`Store::participants`), so a purchase writes one row, not the whole list.
    #[serde(default)]
    pub participant_count: u64,
    pub phase: Phase,
    pub completion: Completion,
    #[serde(rename = "deployment")]
    pub token_deployment: Option<TokenDeployment>,
    pub distributed: bool,
    pub distribute_tx: Option<String>,
    pub created_at: Millis,
    /// When the presale last changed (a purchase, a completion step, a refund).
    #[serde(default)]
    pub updated_at: Millis,
    /// The status its events last announced (`presale.created`, `presale.status_changed`);
    /// None for presales from before events.
    #[serde(default)]
    pub announced_status: Option<String>,
}

impl Presale {
    /// When the presale last changed (its creation, for records from before the field).
    pub fn last_change(&self) -> Millis {
        self.updated_at.max(self.created_at)
    }

    pub fn start_ms(&self) -> Millis {
        self.start.saturating_mul(SECOND)
    }

    pub fn end_ms(&self) -> Millis {
        self.end.saturating_mul(SECOND)
    }

    /// pending before start; active until the end while below target; completed once the
    /// target is reached (or the presale launched); ended when the end passes below target
    /// (and after a refund).
    pub fn status(&self, now: Millis) -> Status {
        match self.phase {
            Phase::Refunded => Status::Ended,
            Phase::Launching | Phase::Launched => Status::Completed,
            Phase::Open if self.purchased >= self.target => Status::Completed,
            Phase::Open if now < self.start_ms() => Status::Pending,
            Phase::Open if now < self.end_ms() => Status::Active,
            Phase::Open => Status::Ended,
        }
    }

    /// At least 70 % of the target raised.
    pub fn launchable(&self) -> bool {
        self.purchased.raw().saturating_mul(100)
            >= self.target.raw().saturating_mul(LAUNCH_THRESHOLD_PERCENT)
    }

    /// Tokens sold to buyers: lockupPercentage % of the launch supply, in base units.
    pub fn amount_bought(&self) -> Units {
        Units::new(launch_supply().raw() / 100 * u128::from(self.token_info.lockup_percentage))
    }

    /// The tokens a participant who paid `usdc` can expect from the launch.
    pub fn expected_tokens(&self, usdc: Usdc) -> Units {
        Units::new(
            mul_div(self.amount_bought().raw(), usdc.raw(), self.purchased.raw()).unwrap_or(0),
        )
    }

    /// Whether this presale still holds the participant's USDC (neither distributed nor
    /// refunded): it shows in the holder's `presales`.
    pub fn position_open(&self) -> bool {
        !self.distributed && !matches!(self.phase, Phase::Refunded | Phase::Launched)
    }
}

/// Supply of a token launched by a presale, in base units.
pub fn launch_supply() -> Units {
    Units::new(LAUNCH_SUPPLY_TOKENS * pow10(u32::from(TOKEN_DECIMALS)).unwrap_or(1))
}

/// Each participant's share of `bought`: floor(bought x usdc / purchased); what the floors
/// leave over goes to the largest participant (the earliest of equals), so the shares sum
/// to `bought` exactly.
pub fn shares(participants: &[Participant], bought: Units) -> Result<Vec<Units>> {
    let purchased = participants
        .iter()
        .try_fold(0u128, |acc, p| acc.checked_add(p.usdc.raw()))
        .ok_or_else(|| Error::internal("purchased overflow"))?;
    if purchased == 0 {
        return Ok(vec![Units::ZERO; participants.len()]);
    }
    let mut out = participants
        .iter()
        .map(|p| {
            mul_div(bought.raw(), p.usdc.raw(), purchased)
                .map(Units::new)
                .ok_or_else(|| Error::internal("share overflow"))
        })
        .collect::<Result<Vec<Units>>>()?;
    let given = out
        .iter()
        .try_fold(Units::ZERO, |acc, s| acc.checked_add(*s))
        .ok_or_else(|| Error::internal("shares overflow"))?;
    let rest = bought
        .checked_sub(given)
        .ok_or_else(|| Error::internal("shares exceed the amount bought"))?;
    let mut largest = 0;
    for (i, p) in participants.iter().enumerate() {
        if participants.get(largest).is_some_and(|l| p.usdc > l.usdc) {
            largest = i;
        }
    }
    if let Some(s) = out.get_mut(largest) {
        *s = s.plus(rest)?;
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn part(usdc: u128) -> Participant {
        Participant {
            user_id: UserId::new_unchecked(format!("u{usdc}")),
            address: Address::ZERO,
            usdc: Usdc::new(usdc),
        }
    }

    fn raw(v: Vec<Units>) -> Vec<u128> {
        v.into_iter().map(Units::raw).collect()
    }

    #[test]
    fn shares_floor_and_give_the_remainder_to_the_largest() {
        let ps = vec![part(1), part(1), part(1)];
        assert_eq!(raw(shares(&ps, Units::new(10)).unwrap()), vec![4, 3, 3]);
        let ps = vec![part(1), part(5), part(2)];
        assert_eq!(raw(shares(&ps, Units::new(9)).unwrap()), vec![1, 6, 2]);
        assert_eq!(raw(shares(&[], Units::new(9)).unwrap()), Vec::<u128>::new());
    }

    proptest! {
        #[test]
        fn shares_always_sum_exactly(
            usdc in proptest::collection::vec(1u128..=200_000_000_000, 1..50),
            lockup in 13u128..=28,
        ) {
            let ps: Vec<Participant> = usdc.iter().map(|u| part(*u)).collect();
            let bought = Units::new(launch_supply().raw() / 100 * lockup);
            let s = raw(shares(&ps, bought).unwrap());
            prop_assert_eq!(s.iter().sum::<u128>(), bought.raw());
            let purchased: u128 = usdc.iter().sum();
            for (share, u) in s.iter().zip(&usdc) {
                // Everyone gets at least their floor.
                prop_assert!(*share >= mul_div(bought.raw(), *u, purchased).unwrap());
            }
        }
    }
}
