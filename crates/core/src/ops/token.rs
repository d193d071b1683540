//! Tokens: the create-token request (a job deploys it, `super::job`), the Reward Allocation
//! switch, and finding a token.

use crate::error::{Error, ErrorCode, Result};
use crate::model::address::Address;
use crate::model::amount::{unit, Price, Units, Usdc};
use crate::model::decimal::Whole;
use crate::model::ids::TokenAddress;
use crate::model::input::{Checked, ImageUrl, Symbol, TokenName};
use crate::model::token::{Network, Token, TokenKind, TokenSpec, DEFAULT_TOTAL_SUPPLY_TOKENS};
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// `POST /merchant/create-token`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "CreateToken"))]
#[serde(rename_all = "camelCase")]
pub struct CreateTokenRequest {
    pub name: TokenName,
    pub symbol: Symbol,
    /// Default `base`.
    #[cfg_attr(feature = "codegen", schemars(extend("default" = "base")))]
    pub network: Option<Network>,
    /// Whole tokens (18 decimals); default 1,000,000,000.
    #[cfg_attr(feature = "codegen", schemars(extend("default" = 1000000000)))]
    pub total_supply: Option<Whole<unit::Token18>>,
    /// The merchant wallet unless given.
    pub merchant_address: Option<Address>,
    /// The Reward Allocation switch; default on.
    #[cfg_attr(feature = "codegen", schemars(extend("default" = true)))]
    pub can_distribute: Option<bool>,
    /// Default off.
    #[cfg_attr(feature = "codegen", schemars(extend("default" = false)))]
    pub can_airdrop: Option<bool>,
    /// Whether the merchant may open the token's liquidity pool (`POST
    /// /token/:tokenAddress/liquidity`); default on, so Metal's flow (create a token, then
    /// `createLP`) works as written.
    #[cfg_attr(feature = "codegen", schemars(extend("default" = true)))]
    #[serde(rename = "canLP")]
    pub can_lp: Option<bool>,
    /// The token's image: an http(s) URL with a host, at most 2048 bytes of URL characters
    /// (400 `invalid_image_url` otherwise).
    pub image_url: Option<ImageUrl>,
}

impl Checked for CreateTokenRequest {}

impl CreateTokenRequest {
    /// The token this request asks for, with the contract's defaults, on the network the
    /// service deploys to (`chain::network_for`).
    pub fn into_spec(self, ctx: &super::Ctx) -> Result<TokenSpec> {
        let network = super::chain::network_for(ctx, self.network)?;
        let total_supply = match self.total_supply {
            Some(w) => w.amount().cast(),
            None => Units::new(DEFAULT_TOTAL_SUPPLY_TOKENS.saturating_mul(
                crate::model::amount::pow10(u32::from(TokenSpec::DECIMALS)).unwrap_or(1),
            )),
        };
        Ok(TokenSpec {
            name: self.name.into_string(),
            symbol: self.symbol.into_string(),
            network,
            total_supply,
            merchant_address: self.merchant_address,
            can_distribute: self.can_distribute.unwrap_or(true),
            can_airdrop: self.can_airdrop.unwrap_or(false),
            can_lp: self.can_lp.unwrap_or(true),
            image_url: self.image_url.map(ImageUrl::into_string),
        })
    }
}

/// `PATCH /merchant/token/:tokenAddress`: the Reward Allocation switch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "PatchToken"))]
#[serde(rename_all = "camelCase")]
pub struct PatchTokenRequest {
    pub can_distribute: bool,
}

impl Checked for PatchTokenRequest {}

/// Metal's default starting valuation of a dashboard token (its `startingValuation`, "10k"):
/// what the whole supply is worth, in USD, when its pool opens without a price.
pub const DEFAULT_STARTING_VALUATION_USD: u128 = 10_000;

/// The price a token's pool opens at when neither the request nor the token names one: the
/// default starting valuation over the total supply, floored to the price's 18 decimals
/// ($0.00001 for the default billion tokens). None when that floors to zero.
pub fn starting_price(t: &Token) -> Option<Price> {
    let valuation = Usdc::whole(DEFAULT_STARTING_VALUATION_USD)?;
    Price::of(valuation, t.total_supply, t.decimals).filter(|p| !p.is_zero())
}

/// This merchant's token at `address`, or 404 `token_not_found`.
pub fn find(store: &dyn Store, address: &TokenAddress) -> Result<Token> {
    store.token(address)?.ok_or_else(|| {
        Error::new(
            ErrorCode::TokenNotFound,
            format!("No token at {}", address.to_checksum()),
        )
    })
}

/// Flips the Reward Allocation switch of one of the merchant's own tokens.
pub fn patch(
    store: &mut dyn Store,
    address: &TokenAddress,
    req: &PatchTokenRequest,
) -> Result<Token> {
    let mut token = find(store, address)?;
    if token.kind != TokenKind::Merchant {
        return Err(Error::new(
            ErrorCode::InvalidRequest,
            "USDC is held for holders; it has no Reward Allocation switch",
        ));
    }
    token.can_distribute = req.can_distribute;
    store.put_token(&token)?;
    Ok(token)
}
