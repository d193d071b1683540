//! Presales: create, list and read (merchant and public forms), buy, resolve.

use super::Reply;
use crate::envelope::Envelope;
use crate::sql_store::SqlStore;
use crate::wallet::random;
use serde_json::{json, Value};
use tokenpad_core::chain;
use tokenpad_core::ids::uuid_v4;
use tokenpad_core::input;
use tokenpad_core::merchant::Ctx;
use tokenpad_core::presale::{self, merchant_json, public_json};
use tokenpad_core::store::Store;

pub fn create(store: &mut SqlStore, ctx: &Ctx, req: &Envelope) -> Reply {
    let p = presale::create(store, ctx, &req.object()?, uuid_v4(random()?))?;
    Ok((201, public_json(store, &p, ctx.now)?))
}

pub fn list(store: &mut SqlStore, ctx: &Ctx) -> Reply {
    let all = store
        .presales()?
        .iter()
        .map(|p| merchant_json(store, p, ctx.now))
        .collect::<tokenpad_core::Result<Vec<Value>>>()?;
    Ok((200, Value::Array(all)))
}

pub fn merchant(store: &mut SqlStore, ctx: &Ctx, req: &Envelope) -> Reply {
    let p = presale::find(store, req.param(0)?)?;
    Ok((200, merchant_json(store, &p, ctx.now)?))
}

pub fn public(store: &mut SqlStore, ctx: &Ctx, req: &Envelope) -> Reply {
    let p = presale::find(store, req.param(0)?)?;
    Ok((200, public_json(store, &p, ctx.now)?))
}

pub fn buy(store: &mut SqlStore, ctx: &Ctx, req: &Envelope) -> Reply {
    Ok((
        200,
        presale::buy(store, ctx, req.param(0)?, &req.object()?)?,
    ))
}

pub fn resolve(store: &mut SqlStore, ctx: &Ctx, req: &Envelope) -> Reply {
    Ok((200, presale::resolve(store, ctx, &req.object()?)?))
}

/// Local runs and tests: the next `count` fallible chain submissions of this merchant fail.
pub fn chain_faults(store: &mut SqlStore, req: &Envelope) -> Reply {
    let args = input::object(req.internal.as_ref().unwrap_or(&Value::Null))?;
    let count = input::req_int(&args, "count", 0, 100)?;
    chain::inject_faults(store, u32::try_from(count).unwrap_or(0))?;
    Ok((200, json!({ "success": true, "failNext": count })))
}
