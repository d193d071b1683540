//! Moving tokens: distribute, spend, transfer, withdraw, deposit.
//!
//! Every operation reads and checks everything first, then writes, then checks the token's
//! conservation invariant before returning. Amounts use checked arithmetic throughout: an
//! overflow is refused, never wrapped.

use crate::address::Address;
use crate::chain;
use crate::error::{Error, ErrorCode, Result};
use crate::history::{TxRecord, TxType};
use crate::holder::{self, Holder};
use crate::input::{self, Object};
use crate::merchant::Ctx;
use crate::store::{Balance, Store};
use crate::token::{Token, TokenKind};
use serde_json::{json, Value};

pub fn find_token(store: &dyn Store, address: &Address) -> Result<Token> {
    store.token(address)?.ok_or_else(|| {
        Error::new(
            ErrorCode::TokenNotFound,
            format!("No token at {}", address.to_checksum()),
        )
    })
}

/// Reads a token address from a path segment: malformed is a 400, unknown a 404.
pub fn token_at(store: &dyn Store, text: &str) -> Result<Token> {
    find_token(store, &input::parse_address("tokenAddress", text)?)
}

fn overflow() -> Error {
    Error::new(ErrorCode::InvalidAmount, "amount is too large").with("field", "amount")
}

pub(crate) fn add(a: u128, b: u128) -> Result<u128> {
    a.checked_add(b).ok_or_else(overflow)
}

pub(crate) fn sub(a: u128, b: u128) -> Result<u128> {
    a.checked_sub(b)
        .ok_or_else(|| Error::internal("balance underflow"))
}

/// A completed movement, as the spend/transfer/withdraw responses show it.
pub struct Receipt {
    pub hash: String,
    pub from: Address,
    pub to: Address,
    pub amount: u128,
    pub token: Token,
}

impl Receipt {
    pub fn to_json(&self) -> Value {
        json!({
            "success": true,
            "transactionHash": self.hash,
            "from": self.from.to_checksum(),
            "to": self.to.to_checksum(),
            "amount": self.token.amount(self.amount),
            "tokenAddress": self.token.address.to_checksum(),
        })
    }
}

/// One movement of one token, written to the history of each holder it touches.
pub(crate) struct Movement<'a> {
    pub hash: &'a str,
    pub token: &'a Token,
    pub amount: u128,
    pub from: Address,
    pub to: Address,
}

impl Movement<'_> {
    /// The record of this movement in `user_id`'s history; `side` keeps ids unique when
    /// both ends of one transaction are holders.
    pub fn record(&self, ctx: &Ctx, side: u32, kind: TxType, user_id: &str) -> TxRecord {
        TxRecord {
            id: format!("{}-{side}", self.hash),
            hash: self.hash.to_string(),
            kind,
            user_id: user_id.to_string(),
            token: self.token.address,
            symbol: self.token.symbol.clone(),
            decimals: self.token.decimals,
            amount: self.amount,
            from: self.from,
            to: self.to,
            at: ctx.now,
        }
    }
}

/// `POST /token/:tokenAddress/distribute`: from the app supply to a holder of this merchant.
pub fn distribute(
    store: &mut dyn Store,
    ctx: &Ctx,
    token_text: &str,
    body: &Object,
) -> Result<Value> {
    let mut token = token_at(store, token_text)?;
    let recipient = match (
        input::opt_str(body, "sendToAddress")?,
        input::opt_str(body, "sendToId")?,
    ) {
        (Some(a), None) => {
            let address = input::parse_address("sendToAddress", &a)?;
            store.holder_by_address(&address)?.ok_or_else(|| {
                Error::new(
                    ErrorCode::HolderNotFound,
                    format!("{} is not a holder of this merchant", address.to_checksum()),
                )
            })?
        }
        (None, Some(id)) => holder::find(store, &id)?,
        _ => {
            return Err(Error::field(
                "sendToAddress",
                "give exactly one of sendToAddress and sendToId",
            ))
        }
    };
    if !token.can_distribute || token.kind != TokenKind::Merchant {
        return Err(Error::new(
            ErrorCode::RewardAllocationDisabled,
            "Reward Allocation is off for this token: turn it on to distribute",
        ));
    }
    let amount = input::req_amount(body, "amount", token.decimals)?;
    if amount > token.remaining_app_supply {
        return Err(Error::new(
            ErrorCode::InsufficientAppSupply,
            "The token's remaining app supply is smaller than the amount",
        )
        .with(
            "remainingAppSupply",
            token.amount(token.remaining_app_supply),
        ));
    }
    let mut bal = store.balance(&token.address, &recipient.address)?;
    bal.active = add(bal.active, amount)?;
    token.remaining_app_supply = sub(token.remaining_app_supply, amount)?;
    token.held = add(token.held, amount)?;
    token.check_conservation()?;

    let hash = chain::submit(
        store,
        &ctx.merchant.id,
        "distribute",
        &[
            &token.address.0,
            &recipient.address.0,
            &amount.to_be_bytes(),
        ],
        ctx.now,
    )?;
    store.put_balance(&token.address, &recipient.address, &bal)?;
    store.put_token(&token)?;
    let mv = Movement {
        hash: &hash,
        token: &token,
        amount,
        from: token.address,
        to: recipient.address,
    };
    store.append_history(&mv.record(ctx, 0, TxType::Distribute, &recipient.user_id))?;
    Ok(json!({ "success": true, "transactionHash": hash }))
}

/// How a holder's tokens leave its active balance.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Outflow {
    Spend,
    Transfer,
    Withdraw,
}

/// `POST /holder/:userId/{spend,transfer,withdraw}`.
pub fn move_out(
    store: &mut dyn Store,
    ctx: &Ctx,
    user_id: &str,
    kind: Outflow,
    body: &Object,
) -> Result<Receipt> {
    let holder = holder::find(store, user_id)?;
    let token_address = input::req_address(body, "tokenAddress")?;
    let mut token = find_token(store, &token_address)?;
    let amount = input::req_amount(body, "amount", token.decimals)?;
    let to = match kind {
        Outflow::Spend => token.merchant_address,
        Outflow::Transfer | Outflow::Withdraw => input::req_address(body, "toAddress")?,
    };
    if to == holder.address {
        return Err(Error::new(
            ErrorCode::SelfTransfer,
            "toAddress is the holder's own address",
        )
        .with("field", "toAddress"));
    }
    let mut from_bal = debit_check(store, &token, &holder, amount)?;
    from_bal.active = sub(from_bal.active, amount)?;

    // Tokens sent to the token's merchant wallet join the merchant supply; anything else
    // lands in that address's balance, custodial or not.
    let mut to_bal: Option<Balance> = None;
    if to == token.merchant_address {
        token.merchant_supply = add(token.merchant_supply, amount)?;
        token.held = sub(token.held, amount)?;
    } else {
        let mut b = store.balance(&token.address, &to)?;
        b.active = add(b.active, amount)?;
        to_bal = Some(b);
    }
    token.check_conservation()?;
    let recipient = store.holder_by_address(&to)?;

    let (label, out_type) = match kind {
        Outflow::Spend => ("spend", TxType::Spend),
        Outflow::Transfer => ("transfer", TxType::TransferOut),
        Outflow::Withdraw => ("withdraw", TxType::Withdraw),
    };
    let hash = chain::submit(
        store,
        &ctx.merchant.id,
        label,
        &[
            &token.address.0,
            &holder.address.0,
            &to.0,
            &amount.to_be_bytes(),
        ],
        ctx.now,
    )?;
    store.put_balance(&token.address, &holder.address, &from_bal)?;
    if let Some(b) = &to_bal {
        store.put_balance(&token.address, &to, b)?;
    }
    store.put_token(&token)?;
    let mv = Movement {
        hash: &hash,
        token: &token,
        amount,
        from: holder.address,
        to,
    };
    store.append_history(&mv.record(ctx, 0, out_type, &holder.user_id))?;
    if let Some(r) = recipient {
        store.append_history(&mv.record(ctx, 1, TxType::TransferIn, &r.user_id))?;
    }
    Ok(Receipt {
        hash,
        from: holder.address,
        to,
        amount,
        token,
    })
}

/// The holder's balance, if it can pay `amount` from active tokens. Locked tokens are
/// reported as such, so the caller knows waiting will help.
pub(crate) fn debit_check(
    store: &dyn Store,
    token: &Token,
    holder: &Holder,
    amount: u128,
) -> Result<Balance> {
    let bal = store.balance(&token.address, &holder.address)?;
    if bal.active >= amount {
        return Ok(bal);
    }
    let with_locked = bal.total().ok_or_else(overflow)?;
    let code = if with_locked >= amount {
        ErrorCode::TokensLocked
    } else {
        ErrorCode::InsufficientBalance
    };
    let message = match code {
        ErrorCode::TokensLocked => {
            "Enough tokens are held, but some are locked until their unlock date"
        }
        _ => "The holder's balance is smaller than the amount",
    };
    Err(Error::new(code, message)
        .with("available", token.amount(bal.active))
        .with("locked", token.amount(bal.locked)))
}

/// Credits USDC to a holder from outside (the test faucet, or a deposit). The USDC supply
/// grows by the same amount, so conservation holds.
pub fn deposit_usdc(
    store: &mut dyn Store,
    ctx: &Ctx,
    address: &Address,
    amount: u128,
) -> Result<String> {
    let holder = store.holder_by_address(address)?.ok_or_else(|| {
        Error::new(
            ErrorCode::HolderNotFound,
            format!("{} is not a holder of this merchant", address.to_checksum()),
        )
    })?;
    let usdc_address = input::parse_address("usdc", crate::token::USDC_ADDRESS)?;
    let mut usdc = find_token(store, &usdc_address)?;
    let field = |e: Error| e.with("field", "usdcAmount");
    let mut bal = store.balance(&usdc.address, &holder.address)?;
    bal.active = add(bal.active, amount).map_err(field)?;
    usdc.total_supply = add(usdc.total_supply, amount).map_err(field)?;
    usdc.held = add(usdc.held, amount).map_err(field)?;
    usdc.check_conservation()?;
    let hash = chain::submit(
        store,
        &ctx.merchant.id,
        "deposit",
        &[&holder.address.0, &amount.to_be_bytes()],
        ctx.now,
    )?;
    store.put_balance(&usdc.address, &holder.address, &bal)?;
    store.put_token(&usdc)?;
    let mv = Movement {
        hash: &hash,
        token: &usdc,
        amount,
        from: Address::ZERO,
        to: holder.address,
    };
    store.append_history(&mv.record(ctx, 0, TxType::Deposit, &holder.user_id))?;
    Ok(hash)
}
