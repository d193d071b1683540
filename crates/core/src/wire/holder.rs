//! Holders on the wire: the full holder (tokens, presale positions, locks, total value) and
//! one token's balance.

use super::endpoint::{
    Access::{Public, Secret},
    Effect::{Reads, Writes},
    Route, Row,
};
use super::parts::{bad_user_id, percent_decode, Parts};
use super::shell::Shell;
use crate::error::Result;
use crate::model::address::Address;
use crate::model::amount::{Units, Usd};
use crate::model::decimal::Decimal;
use crate::model::holder::Holder;
use crate::model::ids::{PresaleId, TokenAddress, UserId};
use crate::model::time::Timestamp;
use crate::model::token::Token;
use crate::ops::holder as holders;
use crate::ops::token as tokens;
use crate::ops::Ctx;
use crate::store::Store;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// This family's routes, each named by its operationId in openapi.json (`endpoint::Route`):
/// its rows below, its operations' `route()` and its decoding name them.
pub const PUT_HOLDER: Route = Route::new("putHolder");
pub const GET_HOLDER: Route = Route::new("getHolder");
pub const HOLDER_TOKEN: Route = Route::new("getHolderTokenBalance");

/// This family's routes: method, path pattern, route, who may call it, whether it writes.
#[rustfmt::skip]
pub const ROUTES: &[Row] = &[
    ("PUT", "/holder/:userId", PUT_HOLDER, Secret, Writes),
    ("GET", "/holder/:userId", GET_HOLDER, Public, Reads),
    ("GET", "/holder/:holder/token/:tokenAddress", HOLDER_TOKEN, Public, Reads),
];

/// What an item of a holder is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(inline))]
#[serde(rename_all = "lowercase")]
pub enum ItemStatus {
    Active,
    Locked,
    Pending,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(inline))]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    Token,
    Lock,
    Presale,
}

/// `PUT /holder/:userId`, `GET /holder/:userId`: the full form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HolderFull {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    #[cfg_attr(feature = "codegen", ts(type = "true"))]
    pub success: bool,
    /// The userId.
    pub id: UserId,
    pub address: Address,
    /// USD value of tokens, locks and presale positions.
    pub total_value: Decimal,
    /// Active tokens (USDC as an item with symbol USDC), largest value first.
    pub tokens: Vec<TokenItem>,
    /// Positions in presales not yet distributed or refunded.
    pub presales: Vec<PresaleItem>,
    /// Locked tokens, largest value first.
    pub locks: Vec<LockItem>,
}

/// An active (unlocked) token balance of a holder. USDC appears as an item with symbol USDC
/// and value = balance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
pub struct TokenItem {
    pub id: String,
    pub address: TokenAddress,
    pub name: String,
    pub symbol: String,
    pub balance: Decimal,
    /// balance x price, in USD; 0 while the token has no price (see `price`).
    pub value: Decimal,
    /// USD per token; null while the token has no price yet (its value is then unknown, not 0).
    pub price: Option<Decimal>,
    /// `active`.
    #[cfg_attr(feature = "codegen", schemars(extend("const" = "active")))]
    #[cfg_attr(feature = "codegen", ts(type = "\"active\""))]
    pub status: ItemStatus,
    /// `token`.
    #[cfg_attr(feature = "codegen", schemars(extend("const" = "token")))]
    #[cfg_attr(feature = "codegen", ts(type = "\"token\""))]
    #[serde(rename = "type")]
    pub kind: ItemKind,
}

/// Locked tokens of a holder (a presale allocation); they cannot be spent, transferred or
/// withdrawn before `unlockDate`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LockItem {
    pub id: String,
    pub address: TokenAddress,
    pub name: String,
    pub symbol: String,
    pub balance: Decimal,
    /// balance x price, in USD; 0 while the token has no price (see `price`).
    pub value: Decimal,
    /// USD per token; null while the token has no price yet (its value is then unknown, not 0).
    pub price: Option<Decimal>,
    /// `locked`.
    #[cfg_attr(feature = "codegen", schemars(extend("const" = "locked")))]
    #[cfg_attr(feature = "codegen", ts(type = "\"locked\""))]
    pub status: ItemStatus,
    /// `lock`.
    #[cfg_attr(feature = "codegen", schemars(extend("const" = "lock")))]
    #[cfg_attr(feature = "codegen", ts(type = "\"lock\""))]
    #[serde(rename = "type")]
    pub kind: ItemKind,
    /// ISO date when the tokens unlock.
    pub unlock_date: Timestamp,
}

/// A holder's position in a presale: the tokens expected, the USDC paid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
pub struct PresaleItem {
    pub id: String,
    pub address: TokenAddress,
    pub name: String,
    pub symbol: String,
    /// Tokens the holder expects to receive.
    pub balance: Decimal,
    /// USDC invested.
    pub value: Decimal,
    /// `pending`.
    #[cfg_attr(feature = "codegen", schemars(extend("const" = "pending")))]
    #[cfg_attr(feature = "codegen", ts(type = "\"pending\""))]
    pub status: ItemStatus,
    /// `presale`.
    #[cfg_attr(feature = "codegen", schemars(extend("const" = "presale")))]
    #[cfg_attr(feature = "codegen", ts(type = "\"presale\""))]
    #[serde(rename = "type")]
    pub kind: ItemKind,
    pub metadata: PresaleItemMetadata,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PresaleItemMetadata {
    pub presale_id: PresaleId,
    /// Percent of the target raised.
    pub progress: Decimal,
    /// ISO date of the presale's end.
    pub end_date: Timestamp,
}

/// `GET /holder/:holderAddressOrUserId/token/:tokenAddress`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(transform = crate::schema::not_required("lockedBalance decimals")))]
#[serde(rename_all = "camelCase")]
pub struct TokenBalance {
    pub name: String,
    pub symbol: String,
    /// Same as `address`.
    #[cfg_attr(feature = "codegen", schemars(with = "Address"))]
    pub id: String,
    /// The token's address.
    pub address: TokenAddress,
    /// Active tokens.
    pub balance: Decimal,
    pub locked_balance: Decimal,
    pub value: Decimal,
    pub decimals: u8,
}

/// Sorts items by value, largest first, then by symbol.
fn by_value<T>(mut items: Vec<(Usd, String, T)>) -> Vec<T> {
    items.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    items.into_iter().map(|(_, _, v)| v).collect()
}

impl HolderFull {
    pub fn read(store: &dyn Store, holder: &Holder) -> Result<HolderFull> {
        let holdings = store.holdings(&holder.address)?;
        // A lock's tokens are among the holdings (a balance counts its locked part): read again
        // only for a lock without one.
        let mut tokens_cache: HashMap<TokenAddress, Option<Token>> = holdings
            .iter()
            .map(|(t, _)| (t.address, Some(t.clone())))
            .collect();
        let mut token_of = |addr: &TokenAddress| -> Result<Option<Token>> {
            if let Some(t) = tokens_cache.get(addr) {
                return Ok(t.clone());
            }
            let t = store.token(addr)?;
            tokens_cache.insert(*addr, t.clone());
            Ok(t)
        };
        let amount = |t: &Token, u: Units| Decimal::from_units(u.raw(), t.decimals);
        let mut total = Usd::ZERO;
        let mut tokens = Vec::new();
        for (token, bal) in holdings {
            if bal.active.is_zero() {
                continue;
            }
            let value = token.value_of(bal.active);
            total = total.saturating_add(value);
            tokens.push((
                value,
                token.symbol.clone(),
                TokenItem {
                    id: token.address.to_checksum(),
                    address: token.address,
                    name: token.name.clone(),
                    symbol: token.symbol.clone(),
                    balance: amount(&token, bal.active),
                    value: Decimal::of(value),
                    price: token.price.map(Decimal::of),
                    status: ItemStatus::Active,
                    kind: ItemKind::Token,
                },
            ));
        }
        let mut locks = Vec::new();
        for lock in store.locks_of(&holder.address)? {
            let Some(token) = token_of(&lock.token)? else {
                continue;
            };
            let value = token.value_of(lock.amount);
            total = total.saturating_add(value);
            locks.push((
                value,
                token.symbol.clone(),
                LockItem {
                    id: token.address.to_checksum(),
                    address: token.address,
                    name: token.name.clone(),
                    symbol: token.symbol.clone(),
                    balance: amount(&token, lock.amount),
                    value: Decimal::of(value),
                    price: token.price.map(Decimal::of),
                    status: ItemStatus::Locked,
                    kind: ItemKind::Lock,
                    unlock_date: Timestamp::at(lock.unlock_at),
                },
            ));
        }
        let mut presales = Vec::new();
        for (p, part) in store.positions(&holder.user_id)? {
            if !p.position_open() {
                continue;
            }
            // A USDC amount is a USD value at one dollar (both have 6 decimals).
            total = total.saturating_add(part.usdc.cast());
            presales.push(PresaleItem {
                id: p.token_address.to_checksum(),
                address: p.token_address,
                name: p.token_info.name.clone(),
                symbol: p.token_info.symbol.clone(),
                balance: Decimal::from_units(
                    p.expected_tokens(part.usdc).raw(),
                    crate::model::amount::TOKEN_DECIMALS,
                ),
                value: Decimal::of(part.usdc),
                status: ItemStatus::Pending,
                kind: ItemKind::Presale,
                metadata: PresaleItemMetadata {
                    presale_id: p.id.clone(),
                    progress: super::presale::progress(&p),
                    end_date: Timestamp::at(p.end_ms()),
                },
            });
        }
        Ok(HolderFull {
            success: true,
            id: holder.user_id.clone(),
            address: holder.address,
            total_value: Decimal::of(total),
            tokens: by_value(tokens),
            presales,
            locks: by_value(locks),
        })
    }
}

impl TokenBalance {
    /// `owner`'s balance of `token` (active, with the locked part beside it).
    pub fn read(store: &dyn Store, owner: &Address, token: &Token) -> Result<TokenBalance> {
        let bal = store.balance(&token.address, owner)?;
        let amount = |u: Units| Decimal::from_units(u.raw(), token.decimals);
        Ok(TokenBalance {
            name: token.name.clone(),
            symbol: token.symbol.clone(),
            id: token.address.to_checksum(),
            address: token.address,
            balance: amount(bal.active),
            locked_balance: amount(bal.locked),
            value: Decimal::of(token.value_of(bal.active)),
            decimals: token.decimals,
        })
    }
}

/// The first path segment of `GET /holder/:holder/token/:tokenAddress`: an address when it
/// is one, else a userId.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HolderRef {
    Address(Address),
    User(UserId),
}

/// An operation on holders, decoded from one of [`ROUTES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HolderOp {
    PutHolder(UserId),
    GetHolder(UserId),
    HolderToken(HolderRef, TokenAddress),
}

/// Every answer of a [`HolderOp`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum HolderAnswer {
    Holder(HolderFull),
    Balance(TokenBalance),
}

impl HolderOp {
    /// The route it was decoded from.
    pub fn route(&self) -> Route {
        match self {
            HolderOp::PutHolder(_) => PUT_HOLDER,
            HolderOp::GetHolder(_) => GET_HOLDER,
            HolderOp::HolderToken(..) => HOLDER_TOKEN,
        }
    }
}

/// Decodes a route of this family; None for any other route.
#[inline(never)]
pub fn decode(route: Route, parts: &Parts) -> Result<Option<HolderOp>> {
    Ok(Some(match route {
        PUT_HOLDER => HolderOp::PutHolder(parts.user(0)?),
        GET_HOLDER => HolderOp::GetHolder(parts.user(0)?),
        HOLDER_TOKEN => {
            let who = percent_decode(parts.raw(0)?).ok_or_else(bad_user_id)?;
            let holder = match Address::parse(&who) {
                Some(a) => HolderRef::Address(a),
                None => HolderRef::User(UserId::parse(&who)?),
            };
            HolderOp::HolderToken(holder, parts.token(1)?)
        }
        _ => return Ok(None),
    }))
}

/// Applies `op`: its HTTP status and answer.
#[inline(never)]
pub fn apply(
    store: &mut dyn Store,
    ctx: &Ctx,
    op: HolderOp,
    shell: &mut dyn Shell,
) -> Result<(u16, HolderAnswer)> {
    Ok(match op {
        HolderOp::PutHolder(user_id) => {
            let (h, was_created) =
                holders::get_or_create(store, ctx, &user_id, &mut || shell.new_wallet())?;
            let body = HolderAnswer::Holder(HolderFull::read(store, &h)?);
            (if was_created { 201 } else { 200 }, body)
        }
        HolderOp::GetHolder(user_id) => {
            let h = holders::find(store, &user_id)?;
            (200, HolderAnswer::Holder(HolderFull::read(store, &h)?))
        }
        HolderOp::HolderToken(who, address) => {
            let owner = match who {
                HolderRef::Address(a) => a,
                HolderRef::User(u) => holders::find(store, &u)?.address,
            };
            let t = tokens::find(store, &address)?;
            (
                200,
                HolderAnswer::Balance(TokenBalance::read(store, &owner, &t)?),
            )
        }
    })
}
