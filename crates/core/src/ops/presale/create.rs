//! `POST /merchant/presale`: validate and open a presale.

use super::lookup::{emit, key};
use crate::crypto;
use crate::error::{Error, ErrorCode, Result};
use crate::model::address::Address;
use crate::model::amount::{unit, Usdc};
use crate::model::decimal::Whole;
use crate::model::event::EventType;
use crate::model::ids::PresaleId;
use crate::model::input::{Checked, ImageUrl, Int, Prose, Symbol, Text, TokenName};
use crate::model::presale::{
    Completion, Phase, Presale, TokenInfo, DEFAULT_LOCKUP_PERCENT, DEFAULT_LOCK_DAYS,
    MAX_LOCKUP_PERCENT, MAX_LOCK_DAYS, MAX_TARGET_USDC, MAX_TIMESTAMP, MIN_LOCKUP_PERCENT,
    MIN_TARGET_USDC,
};
use crate::model::time::SECOND;
use crate::ops::{chain, Ctx};
use crate::store::Store;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

type Timestamp = Int<0, MAX_TIMESTAMP>;
type Link = Text<2048>;

/// `POST /merchant/presale`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "CreatePresale"))]
#[serde(rename_all = "camelCase")]
pub struct CreatePresaleRequest {
    pub name: Text<200>,
    pub description: Prose<5000>,
    /// UNIX seconds.
    pub start_timestamp: Timestamp,
    /// UNIX seconds, after the start and in the future.
    pub end_timestamp: Timestamp,
    /// USDC to raise: 2 to 200,000.
    #[cfg_attr(feature = "codegen", schemars(with = "crate::schema::PresaleTarget"))]
    pub target_usdc_amount: Whole<unit::Usdc>,
    pub token_info: TokenInfoInput,
    /// Days the buyers' tokens stay locked: 0 to 365, default 7.
    #[cfg_attr(feature = "codegen", schemars(extend("default" = 7)))]
    pub lock_duration: Option<Int<0, MAX_LOCK_DAYS>>,
    /// Launch at the target or the end without a resolve call; default true.
    #[cfg_attr(feature = "codegen", schemars(extend("default" = true)))]
    pub auto_launch: Option<bool>,
    /// Some clients send `tokenInfo.deploymentConfig` here, at the top level; it means the
    /// same (giving both with different values is refused).
    pub deployment_config: Option<DeploymentConfigInput>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TokenInfoInput {
    pub name: TokenName,
    pub symbol: Symbol,
    pub image_url: ImageUrl,
    pub metadata: Option<MetadataInput>,
    pub deployment_config: Option<DeploymentConfigInput>,
}

/// Optional strings about the token; kept with the presale.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MetadataInput {
    pub description: Option<Prose<5000>>,
    pub telegram_link: Option<Link>,
    pub website_link: Option<Link>,
    pub x_link: Option<Link>,
    pub farcaster_link: Option<Link>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeploymentConfigInput {
    /// The share of the new token's supply sold to buyers, in percent: 13 to 28, default 25.
    #[cfg_attr(feature = "codegen", schemars(extend("default" = 25)))]
    pub lockup_percentage: Option<Int<MIN_LOCKUP_PERCENT, MAX_LOCKUP_PERCENT>>,
}

impl Checked for CreatePresaleRequest {
    fn check(&self) -> Result<()> {
        let inner = self
            .token_info
            .deployment_config
            .as_ref()
            .and_then(|d| d.lockup_percentage);
        let outer = self
            .deployment_config
            .as_ref()
            .and_then(|d| d.lockup_percentage);
        if let (Some(a), Some(b)) = (inner, outer) {
            if a != b {
                return Err(Error::new(
                    ErrorCode::InvalidRequest,
                    "and tokenInfo.deploymentConfig.lockupPercentage differ: give one",
                )
                .at_field("deploymentConfig.lockupPercentage"));
            }
        }
        if self.start_timestamp >= self.end_timestamp {
            return Err(
                Error::new(ErrorCode::InvalidRequest, "must be after startTimestamp")
                    .at_field("endTimestamp"),
            );
        }
        let target = self.target_usdc_amount.amount();
        let (min, max) = (Usdc::whole(MIN_TARGET_USDC), Usdc::whole(MAX_TARGET_USDC));
        if min.is_some_and(|m| target < m) || max.is_some_and(|m| target > m) {
            return Err(Error::new(
                ErrorCode::InvalidAmount,
                format!("must be from {MIN_TARGET_USDC} to {MAX_TARGET_USDC}"),
            )
            .at_field("targetUsdcAmount"));
        }
        Ok(())
    }
}

impl TokenInfoInput {
    fn into_record(self, outer: Option<DeploymentConfigInput>) -> TokenInfo {
        let mut metadata = BTreeMap::new();
        if let Some(m) = self.metadata {
            let fields = [
                ("description", m.description.map(Text::into_string)),
                ("telegramLink", m.telegram_link.map(Text::into_string)),
                ("websiteLink", m.website_link.map(Text::into_string)),
                ("xLink", m.x_link.map(Text::into_string)),
                ("farcasterLink", m.farcaster_link.map(Text::into_string)),
            ];
            for (name, value) in fields {
                if let Some(v) = value {
                    metadata.insert(name.to_string(), v);
                }
            }
        }
        TokenInfo {
            name: self.name.into_string(),
            symbol: self.symbol.into_string(),
            image_url: self.image_url.into_string(),
            metadata,
            lockup_percentage: self
                .deployment_config
                .and_then(|d| d.lockup_percentage)
                .or_else(|| outer.and_then(|d| d.lockup_percentage))
                .map_or(DEFAULT_LOCKUP_PERCENT, Int::get),
        }
    }
}

/// Opens the presale. `id` is a fresh UUID.
pub fn create(
    store: &mut dyn Store,
    ctx: &Ctx,
    req: CreatePresaleRequest,
    id: PresaleId,
) -> Result<Presale> {
    let (start, end) = (req.start_timestamp.get(), req.end_timestamp.get());
    if end.saturating_mul(SECOND) <= ctx.now {
        return Err(
            Error::new(ErrorCode::InvalidRequest, "must be in the future").at_field("endTimestamp"),
        );
    }
    let (token_address, salt) = chain::next_contract_address(store, ctx)?;
    let signer_hash = crypto::keccak256(format!("tokenpad presale signer {id}").as_bytes());
    let presale = Presale {
        id,
        name: req.name.into_string(),
        description: req.description.into_string(),
        start,
        end,
        target: req.target_usdc_amount.amount(),
        purchased: Usdc::ZERO,
        token_info: req.token_info.into_record(req.deployment_config),
        lock_days: req.lock_duration.map_or(DEFAULT_LOCK_DAYS, Int::get),
        auto_launch: req.auto_launch.unwrap_or(true),
        signer: Address::from_hash(&signer_hash),
        token_address,
        deploy_salt: ctx.chain.is_evm().then(|| crypto::hex0x(&salt)),
        participant_count: 0,
        phase: Phase::Open,
        completion: Completion::new(),
        token_deployment: None,
        distributed: false,
        distribute_tx: None,
        created_at: ctx.now,
        updated_at: ctx.now,
        announced_status: None,
    };
    let mut presale = presale;
    presale.announced_status = Some(presale.status(ctx.now).as_str().to_string());
    store.put_presale(&presale)?;
    // Its start (to announce that it is active), then the launch-or-refund decision at the
    // end; `launch::run` reschedules it as needed.
    let first = if presale.start_ms() > ctx.now {
        presale.start_ms()
    } else {
        presale.end_ms()
    };
    store.schedule(&key(&presale), first)?;
    emit(
        store,
        ctx.now,
        EventType::PresaleCreated,
        &presale,
        None,
        None,
    )?;
    Ok(presale)
}
