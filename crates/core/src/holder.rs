//! Holders: one custodial wallet per user of a merchant, keyed by the merchant's `userId`.

use crate::address::Address;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::validate_user_id;
use crate::merchant::Ctx;
use crate::store::Store;
use crate::time::{iso8601, Millis};
use crate::token::{value_json, Token};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Holder {
    pub user_id: String,
    pub address: Address,
    /// The wallet's private key sealed under WALLET_ENCRYPTION_KEY (hex). Never leaves storage.
    pub sealed_key: String,
    pub created_at: Millis,
}

/// A new wallet, made by the shell from fresh randomness: its address and sealed key.
pub struct NewWallet {
    pub address: Address,
    pub sealed_key: String,
}

/// Get-or-create. `new_wallet` is called only when the holder does not exist yet, so a
/// retry, or a second request for the same userId, never makes a second wallet.
pub fn get_or_create(
    store: &mut dyn Store,
    ctx: &Ctx,
    user_id: &str,
    new_wallet: &mut dyn FnMut() -> Result<NewWallet>,
) -> Result<(Holder, bool)> {
    validate_user_id(user_id)?;
    if let Some(h) = store.holder_by_user(user_id)? {
        return Ok((h, false));
    }
    let wallet = new_wallet()?;
    if store.holder_by_address(&wallet.address)?.is_some() {
        return Err(Error::internal("wallet address collision"));
    }
    let holder = Holder {
        user_id: user_id.to_string(),
        address: wallet.address,
        sealed_key: wallet.sealed_key,
        created_at: ctx.now,
    };
    store.insert_holder(&holder)?;
    Ok((holder, true))
}

pub fn find(store: &dyn Store, user_id: &str) -> Result<Holder> {
    validate_user_id(user_id)?;
    store
        .holder_by_user(user_id)?
        .ok_or_else(|| not_found(user_id))
}

pub fn not_found(user_id: &str) -> Error {
    Error::new(
        ErrorCode::HolderNotFound,
        format!("No holder with id {user_id}"),
    )
}

/// The full holder object: success, id, address, totalValue, tokens, presales, locks.
/// Items are sorted by value, largest first, then by symbol.
pub fn full_json(
    store: &dyn Store,
    holder: &Holder,
    presales: Vec<(u128, Value)>,
) -> Result<Value> {
    let mut tokens_cache: HashMap<Address, Token> = HashMap::new();
    let mut token_of = |addr: &Address| -> Result<Option<Token>> {
        if let Some(t) = tokens_cache.get(addr) {
            return Ok(Some(t.clone()));
        }
        let t = store.token(addr)?;
        if let Some(t) = &t {
            tokens_cache.insert(*addr, t.clone());
        }
        Ok(t)
    };
    let mut total: u128 = 0;
    let mut tokens: Vec<(u128, String, Value)> = Vec::new();
    for (addr, bal) in store.balances_of(&holder.address)? {
        let Some(token) = token_of(&addr)? else {
            continue;
        };
        if bal.active == 0 {
            continue;
        }
        let value = token.value_of(bal.active);
        total = total.saturating_add(value);
        tokens.push((
            value,
            token.symbol.clone(),
            item(&token, bal.active, value, "active", "token"),
        ));
    }
    let mut locks: Vec<(u128, String, Value)> = Vec::new();
    for lock in store.locks_of(&holder.address)? {
        let Some(token) = token_of(&lock.token)? else {
            continue;
        };
        let value = token.value_of(lock.amount);
        total = total.saturating_add(value);
        let mut v = item(&token, lock.amount, value, "locked", "lock");
        if let Some(obj) = v.as_object_mut() {
            obj.insert("unlockDate".into(), Value::String(iso8601(lock.unlock_at)));
        }
        locks.push((value, token.symbol.clone(), v));
    }
    for (value, _) in &presales {
        total = total.saturating_add(*value);
    }
    let sorted = |mut items: Vec<(u128, String, Value)>| -> Vec<Value> {
        items.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        items.into_iter().map(|(_, _, v)| v).collect()
    };
    let presales: Vec<Value> = presales.into_iter().map(|(_, v)| v).collect();
    Ok(json!({
        "success": true,
        "id": holder.user_id,
        "address": holder.address.to_checksum(),
        "totalValue": value_json(total),
        "tokens": sorted(tokens),
        "presales": presales,
        "locks": sorted(locks),
    }))
}

fn item(token: &Token, balance: u128, value: u128, status: &str, kind: &str) -> Value {
    let address = token.address.to_checksum();
    json!({
        "id": address,
        "address": address,
        "name": token.name,
        "symbol": token.symbol,
        "balance": token.amount(balance),
        "value": value_json(value),
        "status": status,
        "type": kind,
    })
}

/// The balance object of one holder for one token (active tokens).
pub fn balance_json(store: &dyn Store, owner: &Address, token: &Token) -> Result<Value> {
    let bal = store.balance(&token.address, owner)?;
    let address = token.address.to_checksum();
    Ok(json!({
        "name": token.name,
        "symbol": token.symbol,
        "id": address,
        "address": address,
        "balance": token.amount(bal.active),
        "lockedBalance": token.amount(bal.locked),
        "value": value_json(token.value_of(bal.active)),
        "decimals": token.decimals,
    }))
}
