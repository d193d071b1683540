//! `POST /holder/:userId/buy-presale`: a holder pays USDC into a presale's escrow.

use super::lookup::{emit, find, key, save, usdc};
use crate::error::{Error, ErrorCode, Result};
use crate::model::amount::{unit, Usdc};
use crate::model::decimal::{Decimal, Whole};
use crate::model::event::{EventType, PurchaseFacts};
use crate::model::history::TxType;
use crate::model::ids::{PresaleId, UserId};
use crate::model::input::Checked;
use crate::model::intent::{Account, Action, Intent, Reserve, Side, Then};
use crate::model::presale::{Participant, Phase, Status, Step};
use crate::ops::ledger::{debit_check, Movement};
use crate::ops::{chain, holder, Ctx};
use crate::store::Store;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "BuyPresale"))]
#[serde(rename_all = "camelCase")]
pub struct BuyPresaleRequest {
    pub presale_id: PresaleId,
    /// USDC to pay.
    pub usdc_amount: Whole<unit::Usdc>,
}

impl Checked for BuyPresaleRequest {
    fn check(&self) -> crate::Result<()> {
        if self.presale_id.as_str().trim().is_empty() {
            return Err(
                Error::new(ErrorCode::InvalidRequest, "must not be empty").at_field("presaleId")
            );
        }
        Ok(())
    }
}

/// A purchase made.
#[derive(Clone, Debug)]
pub struct Purchase {
    pub stamp: chain::Stamp,
    pub presale_id: PresaleId,
    pub usdc: Usdc,
}

pub fn buy(
    store: &mut dyn Store,
    ctx: &Ctx,
    user_id: &UserId,
    req: &BuyPresaleRequest,
) -> Result<Purchase> {
    let holder = holder::find(store, user_id)?;
    let mut p = find(store, &req.presale_id)?;
    let amount = req.usdc_amount.amount();
    let status = p.status(ctx.now);
    if p.phase != Phase::Open || status != Status::Active {
        return Err(Error::new(
            ErrorCode::PresaleNotActive,
            format!(
                "The presale is {}: it takes part only while active",
                status.as_str()
            ),
        )
        .with("status", status.as_str()));
    }
    let remaining = p.target.minus(p.purchased)?;
    if amount > remaining {
        return Err(Error::new(
            ErrorCode::TargetExceeded,
            "The purchase is larger than what remains of the target",
        )
        .with(
            "remaining",
            serde_json::to_value(Decimal::of(remaining)).unwrap_or_default(),
        ));
    }
    let mut usdc = usdc(store, ctx)?;
    let units = amount.cast();
    let mut bal = debit_check(store, &usdc, &holder, units)?;
    bal.active = bal.active.minus(units)?;
    usdc.held = usdc.held.minus(units)?;
    usdc.escrow = usdc.escrow.plus(units)?;
    p.purchased = p.purchased.plus(amount)?;
    let part = match store.participant(&p.id, &holder.user_id)? {
        Some(mut x) => {
            if x.usdc.is_zero() {
                // Every purchase of theirs was refused by the chain (`refused`): counted again.
                p.participant_count += 1;
            }
            x.usdc = x.usdc.plus(amount)?;
            x
        }
        None => {
            p.participant_count += 1;
            Participant {
                user_id: holder.user_id.clone(),
                address: holder.address,
                usdc: amount,
            }
        }
    };
    let stamp = chain::stamp(
        store,
        ctx,
        "presale_buy",
        &[
            p.id.as_str().as_bytes(),
            &holder.address.0,
            &amount.raw().to_be_bytes(),
        ],
        ctx.now,
    )?;
    store.put_balance(&usdc.address, &holder.address, &bal)?;
    store.put_token(&usdc)?;
    store.put_participant(&p.id, &part)?;
    let mv = Movement {
        stamp: &stamp,
        token: &usdc,
        amount: units,
        from: holder.address,
        to: super::lookup::counterparty(ctx, &p),
    };
    let seq = crate::ops::history::append(
        store,
        &mv.record(ctx.now, 0, TxType::PresaleBuy, &holder.user_id),
    )?;
    // The escrow is the treasury's on chain.
    let action = chain::transfer(Account::Wallet(holder.address), Account::Treasury, units);
    let intent = chain::want(ctx, usdc.address, action)
        .with_records(vec![seq])
        .with_then(Then::PresalePurchase(p.id.clone()))
        .moved(Side::Row(holder.address), Side::Reserve(Reserve::Escrow));
    chain::intend(store, ctx, intent)?;
    if p.purchased == p.target && p.auto_launch {
        // Target reached: launch now rather than at the end.
        p.phase = Phase::Launching;
        store.schedule(&key(&p), ctx.now)?;
    }
    let purchase = PurchaseFacts {
        user_id: holder.user_id.clone(),
        usdc: amount,
        record: seq,
    };
    emit(
        store,
        ctx.now,
        EventType::PresalePurchase,
        &p,
        None,
        Some(purchase),
    )?;
    save(store, &mut p, ctx.now)?;
    Ok(Purchase {
        stamp,
        presale_id: p.id,
        usdc: amount,
    })
}

/// The chain refused the purchase `i` of presale `id` (what it paid in never came: a sell
/// that was to bring the buyer's USDC refused by the pool). The ledger gave the payment back
/// (`undo`); while the raise is still in escrow (the presale open, or its launch not past its
/// first step) the purchase no longer counts either: it leaves what was purchased and the
/// buyer's part, so the launch pays into its pool what the escrow holds and a refund returns
/// only what came (a launch not begun that falls below its threshold so is open again).
/// Later, the launch's opening reverts short of it and every buyer is refunded
/// (`settle::market_failed`), the refused buyer's refund netting with this refusal.
pub fn refused(store: &mut dyn Store, ctx: &Ctx, id: &PresaleId, i: &Intent) -> Result<()> {
    let Some(mut p) = store.presale(id)? else {
        return Ok(());
    };
    let in_escrow = match p.phase {
        Phase::Open => true,
        Phase::Launching => p.completion.step == Step::Pending,
        Phase::Launched | Phase::Refunded => false,
    };
    let Action::Transfer {
        from: Account::Wallet(buyer),
        amount,
        ..
    } = &i.action
    else {
        return Ok(());
    };
    let Some(h) = store.holder_by_address(buyer)? else {
        return Ok(());
    };
    let Some(mut part) = store.participant(&p.id, &h.user_id)?.filter(|_| in_escrow) else {
        return Ok(());
    };
    let back: Usdc = part.usdc.min(amount.cast());
    part.usdc = part.usdc.minus(back)?;
    p.purchased = p.purchased.minus(back)?;
    if part.usdc.is_zero() {
        p.participant_count = p.participant_count.saturating_sub(1);
    }
    if p.phase == Phase::Launching && !p.launchable() {
        // Below the launch's threshold without it: open again (its schedule, due now, sees
        // to its end: `launch::run`).
        p.phase = Phase::Open;
    }
    store.put_participant(&p.id, &part)?;
    save(store, &mut p, ctx.now)
}
