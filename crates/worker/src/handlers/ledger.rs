//! Moving tokens: distribute, spend, transfer, withdraw, and the test faucet.

use super::Reply;
use crate::envelope::Envelope;
use crate::sql_store::SqlStore;
use serde_json::json;
use tokenpad_core::input;
use tokenpad_core::ledger::{self, Outflow};
use tokenpad_core::merchant::Ctx;
use tokenpad_core::money::{self, USDC_DECIMALS};
use tokenpad_core::{Error, Result};

pub fn distribute(store: &mut SqlStore, ctx: &Ctx, req: &Envelope) -> Reply {
    let body = ledger::distribute(store, ctx, req.param(0)?, &req.object()?)?;
    Ok((200, body))
}

pub fn move_out(store: &mut SqlStore, ctx: &Ctx, req: &Envelope) -> Reply {
    let kind = match req.op.as_str() {
        "spend" => Outflow::Spend,
        "transfer" => Outflow::Transfer,
        _ => Outflow::Withdraw,
    };
    let receipt = ledger::move_out(store, ctx, req.param(0)?, kind, &req.object()?)?;
    Ok((200, receipt.to_json()))
}

/// `{ address, usdcAmount }` from the admin faucet (already authorised at the edge).
pub fn faucet(store: &mut SqlStore, ctx: &Ctx, req: &Envelope) -> Reply {
    let args = input::object(req.internal.as_ref().unwrap_or(&serde_json::Value::Null))?;
    let (address, amount) = faucet_args(&args)?;
    let hash = ledger::deposit_usdc(store, ctx, &address, amount)?;
    Ok((
        200,
        json!({
            "success": true,
            "transactionHash": hash,
            "address": address.to_checksum(),
            "usdcAmount": money::amount_json(amount, USDC_DECIMALS),
        }),
    ))
}

pub fn faucet_args(args: &input::Object) -> Result<(tokenpad_core::address::Address, u128), Error> {
    Ok((
        input::req_address(args, "address")?,
        input::req_amount(args, "usdcAmount", USDC_DECIMALS)?,
    ))
}
