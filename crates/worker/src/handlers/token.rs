//! Tokens: create (a job), job status, the Reward Allocation switch, reads.

use super::Reply;
use crate::envelope::Envelope;
use crate::sql_store::SqlStore;
use crate::wallet::random;
use serde_json::{json, Value};
use tokenpad_core::ids::uuid_v4;
use tokenpad_core::input;
use tokenpad_core::job;
use tokenpad_core::ledger::token_at;
use tokenpad_core::merchant::Ctx;
use tokenpad_core::store::Store;
use tokenpad_core::token::{token_json, CreateToken, Token, TokenKind};
use tokenpad_core::{Error, ErrorCode, Result};

pub const DEFAULT_HOLDERS: u32 = 100;
pub const MAX_HOLDERS: u32 = 1000;

pub fn view(store: &dyn Store, token: &Token, limit: u32) -> Result<Value> {
    let (holders, count) = store.top_holders(&token.address, limit)?;
    Ok(token_json(token, &holders, count))
}

pub fn create(store: &mut SqlStore, ctx: &Ctx, req: &Envelope) -> Reply {
    let request = CreateToken::parse(&req.object()?)?;
    let job = job::create_token(store, ctx, request, uuid_v4(random()?))?;
    Ok((
        201,
        json!({
            "jobId": job.id,
            "status": job.status.as_str(),
            "transactionHash": job.tx_hash,
            "tokenAddress": job.token_address.to_checksum(),
        }),
    ))
}

pub fn job(store: &mut SqlStore, req: &Envelope) -> Reply {
    let job = job::find(store, req.param(0)?)?;
    Ok((200, job::to_json(store, &job)?))
}

pub fn patch(store: &mut SqlStore, req: &Envelope) -> Reply {
    let mut token = token_at(store, req.param(0)?)?;
    if token.kind != TokenKind::Merchant {
        return Err(Error::new(
            ErrorCode::InvalidRequest,
            "USDC is held for holders; it has no Reward Allocation switch",
        ));
    }
    token.can_distribute = input::req_bool(&req.object()?, "canDistribute")?;
    store.put_token(&token)?;
    Ok((200, view(store, &token, DEFAULT_HOLDERS)?))
}

pub fn read(store: &mut SqlStore, req: &Envelope) -> Reply {
    let limit = match req.query("holdersLimit") {
        None => DEFAULT_HOLDERS,
        Some(l) => l
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_HOLDERS).contains(n))
            .ok_or_else(|| {
                Error::field(
                    "holdersLimit",
                    format!("holdersLimit must be a whole number from 1 to {MAX_HOLDERS}"),
                )
            })?,
    };
    let token = token_at(store, req.param(0)?)?;
    Ok((200, view(store, &token, limit)?))
}

pub fn all(store: &mut SqlStore) -> Reply {
    let tokens = store.tokens()?;
    let list = tokens
        .iter()
        .filter(|t| t.kind == TokenKind::Merchant)
        .map(|t| view(store, t, DEFAULT_HOLDERS))
        .collect::<Result<Vec<Value>>>()?;
    Ok((200, Value::Array(list)))
}
