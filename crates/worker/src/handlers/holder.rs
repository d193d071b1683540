//! Holders: get-or-create, the public read, one token's balance, history.

use super::Reply;
use crate::envelope::Envelope;
use crate::sql_store::SqlStore;
use crate::wallet::WalletMaker;
use tokenpad_core::address::Address;
use tokenpad_core::history::{self, HistoryQuery};
use tokenpad_core::holder;
use tokenpad_core::ledger::token_at;
use tokenpad_core::merchant::Ctx;
use tokenpad_core::presale;

pub fn put(store: &mut SqlStore, ctx: &Ctx, req: &Envelope, wallets: WalletMaker) -> Reply {
    let (holder, created) =
        holder::get_or_create(store, ctx, req.param(0)?, &mut || wallets.new_wallet())?;
    let body = holder::full_json(store, &holder, presale::holder_items(store, &holder)?)?;
    Ok((if created { 201 } else { 200 }, body))
}

pub fn get(store: &mut SqlStore, req: &Envelope) -> Reply {
    let holder = holder::find(store, req.param(0)?)?;
    Ok((
        200,
        holder::full_json(store, &holder, presale::holder_items(store, &holder)?)?,
    ))
}

/// The first segment is an address when it parses as one, else a userId.
pub fn token_balance(store: &mut SqlStore, req: &Envelope) -> Reply {
    let who = req.param(0)?;
    let owner = match Address::parse(who) {
        Some(a) => a,
        None => holder::find(store, who)?.address,
    };
    let token = token_at(store, req.param(1)?)?;
    Ok((200, holder::balance_json(store, &owner, &token)?))
}

pub fn history(store: &mut SqlStore, req: &Envelope) -> Reply {
    let holder = holder::find(store, req.param(0)?)?;
    let q = HistoryQuery::parse(
        req.query("limit"),
        req.query("cursor"),
        req.query("tokenAddress"),
    )?;
    Ok((200, history::page(store, &holder.user_id, &q)?))
}
