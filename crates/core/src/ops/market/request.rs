//! The market requests: opening a pool, buying, selling, and the quotes' query parameters.

use crate::error::{Error, ErrorCode, Result};
use crate::model::amount::unit;
use crate::model::decimal::Whole;
use crate::model::ids::TokenAddress;
use crate::model::input::{Checked, Int};
use serde::{Deserialize, Serialize};

type Tokens = Whole<unit::Token18>;
type UsdcIn = Whole<unit::Usdc>;

/// `POST /token/:tokenAddress/liquidity` (the body is optional).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "CreateLiquidity"))]
#[serde(rename_all = "camelCase")]
pub struct LiquidityRequest {
    /// USD per token the pool opens at; the token's price when absent (required when the
    /// token has none yet).
    pub initial_starting_price: Option<Whole<unit::Price>>,
    /// Tokens from the liquidity reserve; all of it when absent.
    pub amount: Option<Tokens>,
}

impl Checked for LiquidityRequest {}

/// `POST /holder/:userId/buy`: exactly one of `usdcAmount` (spend this much) and
/// `tokenAmount` (buy exactly this many), with an optional bound on the price.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "Buy"))]
#[cfg_attr(
    feature = "codegen",
    // Exactly one of the two amounts; each bound only with its amount.
    schemars(extend(
        "oneOf" = [
            { "title": "usdcAmount", "required": ["usdcAmount"] },
            { "title": "tokenAmount", "required": ["tokenAmount"] }
        ],
        "dependentRequired" = { "minAmountOut": ["usdcAmount"], "maxAmountIn": ["tokenAmount"] }
    ))
)]
#[serde(rename_all = "camelCase")]
pub struct BuyRequest {
    pub token_address: TokenAddress,
    pub usdc_amount: Option<UsdcIn>,
    pub token_amount: Option<Tokens>,
    /// With `usdcAmount`: the fewest tokens accepted.
    pub min_amount_out: Option<Tokens>,
    /// With `tokenAmount`: the most USDC paid.
    pub max_amount_in: Option<UsdcIn>,
    /// The worst average price accepted, in basis points above the pool's price before the
    /// trade (fee included).
    pub slippage_bps: Option<Int<0, 10_000>>,
}

/// `POST /holder/:userId/sell`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "Sell"))]
#[serde(rename_all = "camelCase")]
pub struct SellRequest {
    pub token_address: TokenAddress,
    pub token_amount: Tokens,
    /// The least USDC accepted.
    pub min_amount_out: Option<UsdcIn>,
    /// The worst average price accepted, in basis points below the pool's price before the
    /// trade (fee included).
    pub slippage_bps: Option<Int<0, 10_000>>,
}

impl Checked for BuyRequest {
    fn check(&self) -> Result<()> {
        let invalid = |field: &str, why: &str| {
            Err(Error::new(ErrorCode::InvalidRequest, why.to_string()).with("field", field))
        };
        match (&self.usdc_amount, &self.token_amount) {
            (Some(_), None) | (None, Some(_)) => {}
            _ => {
                return invalid(
                    "usdcAmount",
                    "give exactly one of usdcAmount and tokenAmount",
                )
            }
        }
        if self.min_amount_out.is_some() && self.usdc_amount.is_none() {
            return invalid(
                "minAmountOut",
                "minAmountOut goes with usdcAmount (use maxAmountIn with tokenAmount)",
            );
        }
        if self.max_amount_in.is_some() && self.token_amount.is_none() {
            return invalid(
                "maxAmountIn",
                "maxAmountIn goes with tokenAmount (use minAmountOut with usdcAmount)",
            );
        }
        Ok(())
    }
}

impl Checked for SellRequest {}

/// `GET /holder/:userId/buy/quote?tokenAddress=&usdcAmount=|tokenAmount=`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "BuyQuoteQuery"))]
#[serde(rename_all = "camelCase")]
pub struct BuyQuoteQuery {
    pub token_address: TokenAddress,
    pub usdc_amount: Option<UsdcIn>,
    pub token_amount: Option<Tokens>,
}

impl Checked for BuyQuoteQuery {
    fn check(&self) -> Result<()> {
        match (&self.usdc_amount, &self.token_amount) {
            (Some(_), None) | (None, Some(_)) => Ok(()),
            _ => Err(Error::new(
                ErrorCode::InvalidRequest,
                "give exactly one of usdcAmount and tokenAmount",
            )
            .with("field", "usdcAmount")),
        }
    }
}

/// `GET /holder/:userId/sell/quote?tokenAddress=&tokenAmount=`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "SellQuoteQuery"))]
#[serde(rename_all = "camelCase")]
pub struct SellQuoteQuery {
    pub token_address: TokenAddress,
    pub token_amount: Tokens,
}

impl Checked for SellQuoteQuery {}
