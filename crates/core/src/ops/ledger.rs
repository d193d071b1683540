//! Moving tokens: distribute, spend, transfer, withdraw, and USDC deposits.
//!
//! Every operation reads and checks everything first, then writes, then checks the token's
//! conservation invariant before returning. Amounts use checked arithmetic throughout: an
//! overflow is refused, never wrapped.

use super::chain::{self, Stamp};
use super::{holder, token, Ctx};
use crate::error::{Error, ErrorCode, Result};
use crate::model::address::Address;
use crate::model::amount::{Units, Usdc};
use crate::model::balance::Balance;
use crate::model::decimal::AmountInput;
use crate::model::history::{TxRecord, TxType};
use crate::model::holder::Holder;
use crate::model::ids::{TokenAddress, UserId};
use crate::model::input::{Checked, NonBlank};
use crate::model::intent::{Account, Action, Reserve, Side};
use crate::model::token::{Token, TokenKind};
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// `POST /token/:tokenAddress/distribute` (and `/reward`): exactly one of `sendToAddress`,
/// `sendToId` and `sendTo`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "Distribute"))]
#[cfg_attr(
    feature = "codegen",
    // oneOf: exactly one branch matches, so exactly one of the three is present.
    schemars(extend("oneOf" = [
        { "title": "sendToAddress", "required": ["sendToAddress"] },
        { "title": "sendToId", "required": ["sendToId"] },
        { "title": "sendTo", "required": ["sendTo"] }
    ]))
)]
#[serde(rename_all = "camelCase")]
pub struct DistributeRequest {
    /// Whole tokens.
    pub amount: AmountInput,
    /// The recipient holder's wallet address.
    #[cfg_attr(feature = "codegen", schemars(with = "Option<Address>"))]
    pub send_to_address: Option<NonBlank>,
    /// The recipient holder's userId.
    #[cfg_attr(feature = "codegen", schemars(with = "Option<UserId>"))]
    pub send_to_id: Option<UserId>,
    /// The recipient holder's address or userId (Metal's older field): an address when it
    /// is one, else a userId.
    #[cfg_attr(feature = "codegen", schemars(with = "Option<UserId>"))]
    pub send_to: Option<NonBlank>,
}

/// Who a distribution goes to.
pub enum Recipient {
    Address(Address),
    User(UserId),
}

impl DistributeRequest {
    /// The one recipient the request names.
    pub fn recipient(&self) -> Result<Recipient> {
        match (&self.send_to_address, &self.send_to_id, &self.send_to) {
            (Some(a), None, None) => {
                Address::parse_field("sendToAddress", a.as_str()).map(Recipient::Address)
            }
            (None, Some(id), None) => Ok(Recipient::User(id.clone())),
            (None, None, Some(to)) => Ok(match Address::parse(to.as_str()) {
                Some(a) => Recipient::Address(a),
                None => {
                    Recipient::User(UserId::parse(to.as_str()).map_err(|e| e.at_field("sendTo"))?)
                }
            }),
            _ => Err(Error::new(
                ErrorCode::InvalidRequest,
                "give exactly one of sendToAddress, sendToId and sendTo",
            )
            .with("field", "sendToAddress")),
        }
    }
}

impl Checked for DistributeRequest {
    fn check(&self) -> Result<()> {
        self.recipient().map(drop)
    }
}

/// `POST /holder/:userId/spend`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "Spend"))]
#[serde(rename_all = "camelCase")]
pub struct SpendRequest {
    pub token_address: TokenAddress,
    /// Whole tokens.
    pub amount: AmountInput,
}

impl Checked for SpendRequest {}

/// `POST /holder/:userId/transfer` and `/withdraw`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "Send"))]
#[serde(rename_all = "camelCase")]
pub struct SendRequest {
    pub token_address: TokenAddress,
    /// Whole tokens.
    pub amount: AmountInput,
    /// Transfer: any address, holder or not, except the sender's own. Withdraw: the external
    /// wallet that receives the tokens out of custody.
    pub to_address: Address,
}

impl Checked for SendRequest {}

/// How a holder's tokens leave its active balance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outflow {
    /// To the token's merchant wallet.
    Spend(SpendRequest),
    /// To another address, custodial or not.
    Transfer(SendRequest),
    /// Out of custody to an external wallet.
    Withdraw(SendRequest),
}

/// A completed movement, as the spend/transfer/withdraw responses show it.
#[derive(Clone, Debug)]
pub struct Receipt {
    pub stamp: Stamp,
    pub from: Address,
    pub to: Address,
    pub amount: Units,
    pub token: Token,
}

/// One movement of one token, written to the history of each holder it touches.
pub struct Movement<'a> {
    pub stamp: &'a Stamp,
    pub token: &'a Token,
    pub amount: Units,
    pub from: Address,
    pub to: Address,
}

impl Movement<'_> {
    /// The record of this movement at `at` in `user_id`'s history; `side` keeps ids unique
    /// when several records share one transaction.
    pub fn record(&self, at: u64, side: usize, kind: TxType, user_id: &UserId) -> TxRecord {
        TxRecord {
            id: format!("{}-{side}", self.stamp.id),
            hash: self.stamp.hash.clone(),
            chain_status: self.stamp.status,
            block: self.stamp.block,
            kind,
            user_id: user_id.clone(),
            token: self.token.address,
            symbol: self.token.symbol.clone(),
            decimals: self.token.decimals,
            amount: self.amount,
            from: self.from,
            to: self.to,
            at,
            reason: None,
        }
    }
}

/// Distributes from the app supply to a holder of this merchant.
pub fn distribute(
    store: &mut dyn Store,
    ctx: &Ctx,
    token_address: &TokenAddress,
    req: &DistributeRequest,
) -> Result<Receipt> {
    let mut token = token::find(store, token_address)?;
    let recipient = match req.recipient()? {
        Recipient::Address(address) => holder::at_address(store, &address)?,
        Recipient::User(id) => holder::find(store, &id)?,
    };
    if !token.can_distribute || token.kind != TokenKind::Merchant {
        return Err(Error::new(
            ErrorCode::RewardAllocationDisabled,
            "Reward Allocation is off for this token: turn it on to distribute",
        ));
    }
    let amount = Units::new(req.amount.units("amount", token.decimals)?);
    if amount > token.remaining_app_supply {
        return Err(Error::new(
            ErrorCode::InsufficientAppSupply,
            "The token's remaining app supply is smaller than the amount",
        )
        .with(
            "remainingAppSupply",
            amount_json(&token, token.remaining_app_supply),
        ));
    }
    let mut bal = store.balance(&token.address, &recipient.address)?;
    bal.active = bal.active.plus(amount)?;
    token.remaining_app_supply = token.remaining_app_supply.minus(amount)?;
    token.held = token.held.plus(amount)?;

    let stamp = chain::stamp(
        store,
        ctx,
        "distribute",
        &[
            &token.address.address().0,
            &recipient.address.0,
            &amount.raw().to_be_bytes(),
        ],
        ctx.now,
    )?;
    store.put_balance(&token.address, &recipient.address, &bal)?;
    store.put_token(&token)?;
    let mv = Movement {
        stamp: &stamp,
        token: &token,
        amount,
        from: token.address.address(),
        to: recipient.address,
    };
    let seq = crate::ops::history::append(
        store,
        &mv.record(ctx.now, 0, TxType::Distribute, &recipient.user_id),
    )?;
    let action = chain::transfer(
        Account::Treasury,
        Account::Wallet(recipient.address),
        amount,
    );
    let intent = chain::want(ctx, token.address, action)
        .with_records(vec![seq])
        .moved(Side::Reserve(Reserve::App), Side::Row(recipient.address));
    chain::intend(store, ctx, intent)?;
    Ok(Receipt {
        stamp,
        from: token.address.address(),
        to: recipient.address,
        amount,
        token,
    })
}

/// A holder's tokens leave its active balance: spend, transfer or withdraw.
pub fn move_out(
    store: &mut dyn Store,
    ctx: &Ctx,
    user_id: &UserId,
    out: &Outflow,
) -> Result<Receipt> {
    let holder = holder::find(store, user_id)?;
    let (token_address, amount, to, label, out_type) = match out {
        Outflow::Spend(r) => (r.token_address, &r.amount, None, "spend", TxType::Spend),
        Outflow::Transfer(r) => (
            r.token_address,
            &r.amount,
            Some(r.to_address),
            "transfer",
            TxType::TransferOut,
        ),
        Outflow::Withdraw(r) => (
            r.token_address,
            &r.amount,
            Some(r.to_address),
            "withdraw",
            TxType::Withdraw,
        ),
    };
    let mut token = token::find(store, &token_address)?;
    let amount = Units::new(amount.units("amount", token.decimals)?);
    let to = to.unwrap_or(token.merchant_address);
    if to == holder.address {
        return Err(Error::new(
            ErrorCode::SelfTransfer,
            "toAddress is the holder's own address",
        )
        .with("field", "toAddress"));
    }
    // Tokens sent there are gone for good (the zero address), or stuck in the token's own
    // contract; on a chain the token refuses the first outright (ERC20InvalidReceiver).
    if to == Address::ZERO || to == token.address.address() {
        return Err(Error::new(
            ErrorCode::InvalidDestination,
            "toAddress cannot receive tokens: it is the zero address or the token's own contract",
        )
        .with("field", "toAddress"));
    }
    let mut from_bal = debit_check(store, &token, &holder, amount)?;
    from_bal.active = from_bal.active.minus(amount)?;

    // Tokens sent to the token's merchant wallet join the merchant supply; anything else
    // lands in that address's balance, custodial or not.
    let mut to_bal: Option<Balance> = None;
    if to == token.merchant_address {
        token.merchant_supply = token.merchant_supply.plus(amount)?;
        token.held = token.held.minus(amount)?;
    } else {
        let mut b = store.balance(&token.address, &to)?;
        b.active = b.active.plus(amount)?;
        to_bal = Some(b);
    }
    let recipient = store.holder_by_address(&to)?;

    let stamp = chain::stamp(
        store,
        ctx,
        label,
        &[
            &token.address.address().0,
            &holder.address.0,
            &to.0,
            &amount.raw().to_be_bytes(),
        ],
        ctx.now,
    )?;
    store.put_balance(&token.address, &holder.address, &from_bal)?;
    match &to_bal {
        Some(b) => store.put_balance(&token.address, &to, b)?,
        // Only tokens reaching the merchant wallet change the token's own supplies; a move
        // between two balances leaves its row as it was (one write less per transfer).
        None => store.put_token(&token)?,
    }
    let mv = Movement {
        stamp: &stamp,
        token: &token,
        amount,
        from: holder.address,
        to,
    };
    let mut seqs = vec![crate::ops::history::append(
        store,
        &mv.record(ctx.now, 0, out_type, &holder.user_id),
    )?];
    if let Some(r) = recipient {
        seqs.push(crate::ops::history::append(
            store,
            &mv.record(ctx.now, 1, TxType::TransferIn, &r.user_id),
        )?);
    }
    let action = chain::transfer(
        Account::Wallet(holder.address),
        chain::account(ctx, to),
        amount,
    );
    let to_side = if to_bal.is_some() {
        Side::Row(to)
    } else {
        Side::Reserve(Reserve::Merchant)
    };
    let intent = chain::want(ctx, token.address, action)
        .with_records(seqs)
        .moved(Side::Row(holder.address), to_side);
    chain::intend(store, ctx, intent)?;
    Ok(Receipt {
        stamp,
        from: holder.address,
        to,
        amount,
        token,
    })
}

/// The holder's balance, if it can pay `amount` from active tokens. Locked tokens are
/// reported as such, so the caller knows waiting will help.
pub fn debit_check(
    store: &dyn Store,
    token: &Token,
    holder: &Holder,
    amount: Units,
) -> Result<Balance> {
    let bal = store.balance(&token.address, &holder.address)?;
    if bal.active >= amount {
        return Ok(bal);
    }
    let with_locked = bal.total().ok_or_else(|| {
        Error::new(ErrorCode::InvalidAmount, "amount is too large").with("field", "amount")
    })?;
    let (code, message) = if with_locked >= amount {
        (
            ErrorCode::TokensLocked,
            "Enough tokens are held, but some are locked until their unlock date",
        )
    } else {
        (
            ErrorCode::InsufficientBalance,
            "The holder's balance is smaller than the amount",
        )
    };
    Err(Error::new(code, message)
        .with("available", amount_json(token, bal.active))
        .with("locked", amount_json(token, bal.locked)))
}

/// An amount of `token` as the exact JSON number errors carry in their details.
pub fn amount_json(token: &Token, units: Units) -> serde_json::Value {
    serde_json::to_value(crate::model::decimal::Decimal::from_units(
        units.raw(),
        token.decimals,
    ))
    .unwrap_or(serde_json::Value::Null)
}

/// Credits test USDC to a holder (the local faucet). The USDC supply grows by the same
/// amount, so conservation holds. On an EVM chain the test USDC is minted to the holder.
pub fn deposit_usdc(
    store: &mut dyn Store,
    ctx: &Ctx,
    address: &Address,
    amount: Usdc,
) -> Result<Stamp> {
    let holder = holder::at_address(store, address)?;
    let mut usdc = token::find(store, &ctx.chain.usdc())?;
    let amount: Units = amount.cast();
    let field = |e: Error| e.with("field", "usdcAmount");
    let mut bal = store.balance(&usdc.address, &holder.address)?;
    bal.active = bal.active.plus(amount).map_err(field)?;
    usdc.total_supply = usdc.total_supply.plus(amount).map_err(field)?;
    usdc.held = usdc.held.plus(amount).map_err(field)?;
    let stamp = chain::stamp(
        store,
        ctx,
        "deposit",
        &[&holder.address.0, &amount.raw().to_be_bytes()],
        ctx.now,
    )?;
    store.put_balance(&usdc.address, &holder.address, &bal)?;
    store.put_token(&usdc)?;
    let mv = Movement {
        stamp: &stamp,
        token: &usdc,
        amount,
        from: Address::ZERO,
        to: holder.address,
    };
    let seq = crate::ops::history::append(
        store,
        &mv.record(ctx.now, 0, TxType::Deposit, &holder.user_id),
    )?;
    let action = Action::Mint {
        to: holder.address,
        amount,
    };
    let intent = chain::want(ctx, usdc.address, action)
        .with_records(vec![seq])
        .moved(Side::Reserve(Reserve::Minted), Side::Row(holder.address));
    chain::intend(store, ctx, intent)?;
    Ok(stamp)
}
