//! Tokens and their supply model.
//!
//! A token's supply is split into the app supply (what the merchant distributes to its users),
//! the merchant's own supply, and the liquidity reserve; whatever has left those pools sits in
//! some address's balance, or in escrow for a pending operation. The conservation invariant,
//! checked after every operation:
//!
//! `totalSupply = remainingAppSupply + merchantSupply + liquiditySupply + escrow + pooled
//!   + Σ balances`
//!
//! `held` is that Σ, kept in the token row so the check costs nothing per operation; the
//! property tests recompute it from every balance.

use super::address::Address;
use super::amount::{Price, Units, Usd, TOKEN_DECIMALS, USDC_DECIMALS};
use super::ids::TokenAddress;
use super::intent::Owed;
use super::time::Millis;
use crate::error::{Error, ErrorCode, FieldError, Result};
use serde::{Deserialize, Deserializer, Serialize};

/// Blockchain networks the service deploys to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Network {
    Base,
    BaseSepolia,
    Sepolia,
    /// A local development node (anvil, chain id 31337): nothing on it is real.
    Local,
}

impl Network {
    pub const ALL: [Network; 4] = [
        Network::Base,
        Network::BaseSepolia,
        Network::Sepolia,
        Network::Local,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Network::Base => "base",
            Network::BaseSepolia => "base-sepolia",
            Network::Sepolia => "sepolia",
            Network::Local => "local",
        }
    }

    /// The network of an EVM chain id, for the ones tokenpad knows.
    pub fn of_chain_id(id: u64) -> Option<Network> {
        match id {
            8_453 => Some(Network::Base),
            84_532 => Some(Network::BaseSepolia),
            11_155_111 => Some(Network::Sepolia),
            31_337 | 1_337 => Some(Network::Local),
            _ => None,
        }
    }

    fn names() -> Vec<&'static str> {
        Network::ALL.iter().map(|n| n.as_str()).collect()
    }

    fn invalid() -> FieldError {
        let names = Network::names();
        FieldError::new(
            ErrorCode::InvalidNetwork,
            format!("must be one of: {}", names.join(", ")),
        )
        .with("allowed", names)
    }

    pub fn parse(s: &str) -> Result<Network> {
        Network::ALL
            .into_iter()
            .find(|n| n.as_str() == s)
            .ok_or_else(|| {
                let e = Network::invalid();
                Error::new(e.code, e.why)
                    .with("allowed", Network::names())
                    .at_field("network")
            })
    }
}

impl<'de> Deserialize<'de> for Network {
    /// One of the names; anything else is a 400 `invalid_network` listing them.
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) if s.trim().is_empty() => {
                Err(FieldError::new(ErrorCode::InvalidRequest, "must not be empty").into_de())
            }
            serde_json::Value::String(s) => Network::ALL
                .into_iter()
                .find(|n| n.as_str() == s)
                .ok_or_else(|| Network::invalid().into_de()),
            serde_json::Value::Null => Err(FieldError::missing().into_de()),
            _ => Err(FieldError::expected("a string").into_de()),
        }
    }
}

/// What a token is to the merchant: its own token, or the USDC it holds for its users.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    Merchant,
    Usdc,
}

/// Which build of tokenpad's token contract a merchant's token runs on an EVM chain, so that
/// the settler calls only what it has. A token's code is fixed when the factory deploys it;
/// `model::chain::TOKEN_CODE_HASH` names the build new tokens get.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenCode {
    /// The plain batch calls only (and a flag per authorization nonce): tokens recorded
    /// before this was kept, deployed from an earlier build; and USDC, which is never batched.
    #[default]
    Plain,
    /// The build of `TOKEN_CODE_HASH`: the packed batch calls too (and authorization states
    /// in a bitmap).
    Packed,
}

/// How a token came to be. Presale and template tokens are Tokens like any other; the origin
/// says which flow made them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(inline))]
#[serde(rename_all = "snake_case")]
pub enum TokenOrigin {
    /// `POST /merchant/create-token` (the dashboard's operation).
    #[default]
    Dashboard,
    Presale,
    Memecoin,
    Airdrop,
    /// The merchant's USDC ledger.
    Usdc,
}

impl TokenOrigin {
    pub fn as_str(self) -> &'static str {
        match self {
            TokenOrigin::Dashboard => "dashboard",
            TokenOrigin::Presale => "presale",
            TokenOrigin::Memecoin => "memecoin",
            TokenOrigin::Airdrop => "airdrop",
            TokenOrigin::Usdc => "usdc",
        }
    }
}

/// Circle's USDC contract on Base: the address USDC balances are reported under.
pub const USDC_ADDRESS: TokenAddress = TokenAddress(Address([
    0x83, 0x35, 0x89, 0xfc, 0xd6, 0xed, 0xb6, 0xe0, 0x8f, 0x4c, 0x7c, 0x32, 0xd4, 0xf7, 0x1b, 0x54,
    0xbd, 0xa0, 0x29, 0x13,
]));

/// The chain's token for a ledger's token, on a chain whose USDC contract is `usdc`: the token
/// itself, except Base's USDC address (`USDC_ADDRESS`), under which ledgers made before USDC
/// followed the chain keep USDC, and which on every chain means that chain's USDC. The one
/// place that says so: settlement's dependencies, its receipts, its batches and reconcile
/// read a ledger's USDC through it.
pub fn on_chain(usdc: TokenAddress, token: TokenAddress) -> TokenAddress {
    if token == USDC_ADDRESS {
        usdc
    } else {
        token
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Token {
    pub address: TokenAddress,
    pub kind: TokenKind,
    pub name: String,
    pub symbol: String,
    pub decimals: u8,
    pub network: Network,
    pub total_supply: Units,
    pub starting_app_supply: Units,
    pub remaining_app_supply: Units,
    pub merchant_supply: Units,
    pub liquidity_supply: Units,
    /// Σ of every address's balance (active and locked).
    pub held: Units,
    /// Held by the service on behalf of a pending operation: the USDC paid into presales
    /// that have neither launched nor refunded yet.
    #[serde(default)]
    pub escrow: Units,
    /// In a liquidity pool: the token's pool reserve; for USDC, what buyers paid into pools
    /// (and a launching presale's raise on its way into its pool).
    #[serde(default)]
    pub pooled: Units,
    pub merchant_address: Address,
    /// None until a price exists.
    pub price: Option<Price>,
    pub can_distribute: bool,
    pub can_airdrop: bool,
    pub can_lp: bool,
    pub image_url: Option<String>,
    pub created_at: Millis,
    #[serde(default)]
    pub origin: TokenOrigin,
    /// Listed on the service's marketplace (template deployments).
    #[serde(default)]
    pub marketplace: bool,
    /// What undoing refused movements could not take back yet, oldest first (`ops::undo`).
    /// Outside the supply's accounts: nothing here is anywhere in the ledger.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owed: Vec<Owed>,
    /// What its contract has (an EVM chain's; nothing on the embedded chain).
    #[serde(default)]
    pub code: TokenCode,
}

impl Token {
    /// The one rule every token obeys. An error here is a bug in the ledger, so it is an
    /// internal error: the operation is refused and rolled back rather than stored.
    pub fn check_conservation(&self) -> Result<()> {
        let accounted = self
            .remaining_app_supply
            .checked_add(self.merchant_supply)
            .and_then(|s| s.checked_add(self.liquidity_supply))
            .and_then(|s| s.checked_add(self.escrow))
            .and_then(|s| s.checked_add(self.pooled))
            .and_then(|s| s.checked_add(self.held));
        if accounted == Some(self.total_supply) {
            Ok(())
        } else {
            Err(Error::internal(format!(
                "conservation broken for {}: total {:?} != app {:?} + merchant {:?} + liquidity {:?} + escrow {:?} + pooled {:?} + held {:?}",
                self.address,
                self.total_supply,
                self.remaining_app_supply,
                self.merchant_supply,
                self.liquidity_supply,
                self.escrow,
                self.pooled,
                self.held
            )))
        }
    }

    /// The merchant's USDC ledger, kept under the chain's USDC contract (`address`): supply
    /// grows with deposits and shrinks with withdrawals.
    pub fn usdc(
        address: TokenAddress,
        network: Network,
        merchant_address: Address,
        now: Millis,
    ) -> Token {
        Token {
            address,
            kind: TokenKind::Usdc,
            name: "USD Coin".into(),
            symbol: "USDC".into(),
            decimals: USDC_DECIMALS,
            network,
            total_supply: Units::ZERO,
            starting_app_supply: Units::ZERO,
            remaining_app_supply: Units::ZERO,
            merchant_supply: Units::ZERO,
            liquidity_supply: Units::ZERO,
            held: Units::ZERO,
            escrow: Units::ZERO,
            pooled: Units::ZERO,
            merchant_address,
            price: Some(Price::one_dollar()),
            can_distribute: false,
            can_airdrop: false,
            can_lp: false,
            image_url: None,
            created_at: now,
            origin: TokenOrigin::Usdc,
            marketplace: false,
            owed: Vec::new(),
            code: TokenCode::Plain,
        }
    }

    /// The USD value of `balance` of this token (0 with no price).
    pub fn value_of(&self, balance: Units) -> Usd {
        self.price
            .map(|p| balance.value_at(self.decimals, p))
            .unwrap_or(Usd::ZERO)
    }
}

/// One row of a token's holder list, as the store returns it.
#[derive(Clone, Debug, PartialEq)]
pub struct HolderRow {
    pub owner: Address,
    pub balance: Units,
    /// The merchant's userId when the address is one of its custodial holders.
    pub user_id: Option<super::ids::UserId>,
}

pub const DEFAULT_TOTAL_SUPPLY_TOKENS: u128 = 1_000_000_000;
/// Share of a dashboard token's supply for the app (startingAppSupply) and the merchant, in
/// percent; the rest is the liquidity reserve.
pub const APP_SHARE_PERCENT: u128 = 15;
pub const MERCHANT_SHARE_PERCENT: u128 = 5;

/// `percent` % of `total`, floored, without overflow.
pub fn share(total: Units, percent: u128) -> Units {
    let t = total.raw();
    Units::new(t / 100 * percent + t % 100 * percent / 100)
}

/// What a new token is, as a merchant asked for it (dashboard, presale or template): the
/// fields every flow shares. Kept on a job or deployment until the token is launched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenSpec {
    pub name: String,
    pub symbol: String,
    pub network: Network,
    /// Base units (every token tokenpad creates has 18 decimals).
    pub total_supply: Units,
    /// The merchant wallet unless given.
    pub merchant_address: Option<Address>,
    pub can_distribute: bool,
    pub can_airdrop: bool,
    pub can_lp: bool,
    pub image_url: Option<String>,
}

impl TokenSpec {
    pub const DECIMALS: u8 = TOKEN_DECIMALS;
}
