//! `POST /template/memecoin` and `POST /template/airdrop`: the requests, and the rules across
//! their fields. Each field checks itself while decoding; `check` then applies the rules
//! that span fields (recipient with noLp, allocations within the supply) and the result is a
//! [`DeploySpec`], the record a deployment keeps.

use crate::error::{Error, ErrorCode, FieldError, Result};
use crate::model::address::Address;
use crate::model::amount::{unit, Units};
use crate::model::decimal::{Decimal, Whole};
use crate::model::deployment::{Airdrop, DeploySpec, DeploymentKind, Recipient};
use crate::model::input::{Checked, Symbol, TokenName};
use crate::model::token::Network;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// At most this many airdrop addresses per deployment.
pub const MAX_AIRDROP_ADDRESSES: usize = 1000;

type Tokens = Whole<unit::Token18>;

/// `POST /template/memecoin`. recipient.amount > totalSupply: 400
/// `allocation_exceeds_supply`. The rest of the supply is the liquidity reserve, which the
/// token's pool opens with (unless noLp): one too small for it at initialPrice, none
/// included, is a 400 `invalid_amount` (`ops::deployment::create`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "CreateMemecoin"))]
#[serde(rename_all = "camelCase")]
pub struct MemecoinRequest {
    pub name: TokenName,
    pub symbol: Symbol,
    /// Whole tokens (x 1e18 on chain).
    pub total_supply: Tokens,
    /// USD per token, > 0, at most 18 fractional digits. The token's price.
    pub initial_price: Whole<unit::Price>,
    /// Unknown network: 400 `invalid_network` with `details.allowed`.
    pub network: Network,
    /// List the token on the service's marketplace (kept as the Token's `marketplace`).
    pub marketplace: bool,
    pub recipient: Option<MemecoinRecipient>,
    /// No liquidity pool: the recipient is owner and minter and gets the whole supply.
    #[cfg_attr(feature = "codegen", schemars(extend("default" = false)))]
    pub no_lp: Option<bool>,
}

/// A memecoin's recipient: `address` and `amount` together (`supply` is another name for
/// `amount`, as the interface's sample request writes it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
pub struct MemecoinRecipient {
    /// Receives `amount` at deployment (with noLp also the owner and minter).
    pub address: Option<Address>,
    /// Whole tokens, > 0. Give address and amount together, or neither.
    pub amount: Option<Tokens>,
    /// Another name for `amount`. Both names with different values: 400.
    pub supply: Option<Tokens>,
}

/// `POST /template/airdrop`. addresses x supply + recipient.amount must not exceed
/// totalSupply: 400 `allocation_exceeds_supply`. The rest of the supply is the liquidity
/// reserve.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "CreateAirdrop"))]
#[serde(rename_all = "camelCase")]
pub struct AirdropRequest {
    pub name: TokenName,
    pub symbol: Symbol,
    /// Whole tokens (x 1e18 on chain).
    pub total_supply: Tokens,
    /// USD per token, > 0, at most 18 fractional digits. The token's price.
    pub initial_price: Whole<unit::Price>,
    /// Unknown network: 400 `invalid_network` with `details.allowed`.
    pub network: Network,
    /// List the token on the service's marketplace (kept as the Token's `marketplace`).
    pub marketplace: bool,
    pub airdrop: AirdropInput,
    pub recipient: Option<AirdropRecipient>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
pub struct AirdropInput {
    /// 1 to 1,000 addresses, each at most once.
    #[cfg_attr(feature = "codegen", schemars(length(min = 1, max = 1000)))]
    #[serde(deserialize_with = "address_list")]
    pub addresses: Vec<Address>,
    /// Whole tokens each address receives.
    pub supply: Tokens,
}

/// An airdrop's recipient: `address` and `amount` together, or neither.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "DeploymentRecipient"))]
pub struct AirdropRecipient {
    /// Receives `amount` at deployment.
    pub address: Option<Address>,
    /// Whole tokens, > 0.
    pub amount: Option<Tokens>,
}

/// Every item of `airdrop.addresses` must be an address: `null` is an invalid address (400
/// `invalid_address`, like any other item that is not one), not a missing field.
fn address_list<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Vec<Address>, D::Error> {
    struct Item(Address);
    impl<'de> Deserialize<'de> for Item {
        fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
            match serde_json::Value::deserialize(d)? {
                serde_json::Value::Null => Err(FieldError::new(
                    ErrorCode::InvalidAddress,
                    "must be an address string",
                )
                .into_de()),
                v => Address::deserialize(v).map(Item).map_err(de::Error::custom),
            }
        }
    }
    Vec::<Item>::deserialize(d).map(|items| items.into_iter().map(|i| i.0).collect())
}

/// Either template's request, as the deployment operation takes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DeployRequest {
    Memecoin(MemecoinRequest),
    Airdrop(AirdropRequest),
}

fn recipient(address: Option<Address>, amount: Option<Tokens>) -> Result<Option<Recipient>> {
    match (address, amount) {
        (None, None) => Ok(None),
        (Some(address), Some(amount)) => Ok(Some(Recipient {
            address,
            amount: amount.amount().cast(),
        })),
        (None, Some(_)) => Err(Error::new(
            ErrorCode::InvalidRequest,
            "is required with recipient.amount",
        )
        .at_field("recipient.address")),
        (Some(_), None) => Err(Error::new(
            ErrorCode::InvalidRequest,
            "is required with recipient.address",
        )
        .at_field("recipient.amount")),
    }
}

fn exceeds(field: &str, total: Units, allocated: Option<Units>) -> Error {
    let mut e = Error::new(
        ErrorCode::AllocationExceedsSupply,
        "The tokens allocated at deployment exceed totalSupply",
    )
    .with("field", field)
    .with("totalSupply", decimal(total));
    if let Some(a) = allocated {
        e = e.with("allocated", decimal(a));
    }
    e
}

fn decimal(units: Units) -> serde_json::Value {
    serde_json::to_value(Decimal::from_units(units.raw(), 18)).unwrap_or_default()
}

impl MemecoinRequest {
    fn recipient(&self) -> Result<Option<Recipient>> {
        let Some(r) = &self.recipient else {
            return Ok(None);
        };
        let amount = match (&r.amount, &r.supply) {
            (Some(a), Some(s)) if a != s => {
                return Err(Error::new(
                    ErrorCode::InvalidRequest,
                    "and recipient.supply are two names for one amount: give one",
                )
                .at_field("recipient.amount"))
            }
            (a, s) => a.clone().or_else(|| s.clone()),
        };
        recipient(r.address, amount)
    }
}

impl Checked for MemecoinRequest {
    fn check(&self) -> Result<()> {
        DeployRequest::Memecoin(self.clone()).spec().map(drop)
    }
}

impl Checked for AirdropRequest {
    fn check(&self) -> Result<()> {
        DeployRequest::Airdrop(self.clone()).spec().map(drop)
    }
}

fn airdrop(a: &AirdropInput) -> Result<Airdrop> {
    let field = "airdrop.addresses";
    if a.addresses.is_empty() {
        return Err(Error::new(ErrorCode::InvalidRequest, "must not be empty").at_field(field));
    }
    if a.addresses.len() > MAX_AIRDROP_ADDRESSES {
        return Err(Error::new(
            ErrorCode::InvalidRequest,
            format!("has at most {MAX_AIRDROP_ADDRESSES} addresses"),
        )
        .at_field(field)
        .with("max", MAX_AIRDROP_ADDRESSES));
    }
    let mut seen = BTreeSet::new();
    for (i, address) in a.addresses.iter().enumerate() {
        // Address equality is on the bytes, so this is case-insensitive.
        if !seen.insert(*address) {
            return Err(Error::new(
                ErrorCode::InvalidRequest,
                format!(
                    "{field}[{i}] repeats {}: each address may appear once",
                    address.to_checksum()
                ),
            )
            .with("field", field)
            .with("index", i)
            .with("address", address.to_checksum()));
        }
    }
    Ok(Airdrop {
        addresses: a.addresses.clone(),
        supply: a.supply.amount().cast(),
    })
}

impl DeployRequest {
    pub fn kind(&self) -> DeploymentKind {
        match self {
            DeployRequest::Memecoin(_) => DeploymentKind::Memecoin,
            DeployRequest::Airdrop(_) => DeploymentKind::Airdrop,
        }
    }

    /// The rules across fields, and the validated record.
    pub fn spec(&self) -> Result<DeploySpec> {
        let (name, symbol, total, price, network, marketplace) = match self {
            DeployRequest::Memecoin(m) => (
                &m.name,
                &m.symbol,
                &m.total_supply,
                &m.initial_price,
                m.network,
                m.marketplace,
            ),
            DeployRequest::Airdrop(a) => (
                &a.name,
                &a.symbol,
                &a.total_supply,
                &a.initial_price,
                a.network,
                a.marketplace,
            ),
        };
        let total_supply: Units = total.amount().cast();
        let (recipient, no_lp, airdrop) = match self {
            DeployRequest::Memecoin(m) => (m.recipient()?, m.no_lp.unwrap_or(false), None),
            DeployRequest::Airdrop(a) => {
                let r = a.recipient.as_ref();
                (
                    recipient(r.and_then(|r| r.address), r.and_then(|r| r.amount.clone()))?,
                    false,
                    Some(airdrop(&a.airdrop)?),
                )
            }
        };
        if no_lp {
            let Some(r) = &recipient else {
                return Err(Error::new(
                    ErrorCode::InvalidRequest,
                    "noLp requires recipient.address (the owner and minter) and recipient.amount",
                )
                .with("field", "recipient.address"));
            };
            if r.amount != total_supply {
                return Err(Error::new(
                    ErrorCode::InvalidAmount,
                    "With noLp, recipient.amount must equal totalSupply",
                )
                .with("field", "recipient.amount")
                .with("totalSupply", decimal(total_supply)));
            }
        }
        let to_recipient = recipient.as_ref().map_or(Units::ZERO, |r| r.amount);
        match &airdrop {
            None => {
                if to_recipient > total_supply {
                    return Err(exceeds(
                        "recipient.amount",
                        total_supply,
                        Some(to_recipient),
                    ));
                }
            }
            Some(a) => {
                let allocated = u128::try_from(a.addresses.len())
                    .ok()
                    .and_then(|n| a.supply.raw().checked_mul(n))
                    .and_then(|s| s.checked_add(to_recipient.raw()))
                    .map(Units::new);
                if allocated.is_none_or(|x| x > total_supply) {
                    return Err(exceeds("airdrop.supply", total_supply, allocated));
                }
            }
        }
        Ok(DeploySpec {
            kind: self.kind(),
            name: name.as_str().to_string(),
            symbol: symbol.as_str().to_string(),
            network,
            total_supply,
            initial_price: price.amount(),
            marketplace,
            recipient,
            no_lp,
            airdrop,
        })
    }
}
