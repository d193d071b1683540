//! The merchant object's operations, one file per resource. Each takes the store, the
//! context and the request envelope, calls the core, and returns (status, JSON body). They
//! run inside the object's transaction, so they are synchronous by construction.

mod deployment;
mod holder;
mod ledger;
mod presale;
mod token;

pub use ledger::faucet_args;

use crate::envelope::Envelope;
use crate::sql_store::SqlStore;
use crate::wallet::WalletMaker;
use serde_json::Value;
use tokenpad_core::deployment::DeploymentKind;
use tokenpad_core::merchant::Ctx;
use tokenpad_core::{Error, Result};

pub type Reply = Result<(u16, Value)>;

pub fn dispatch(store: &mut SqlStore, ctx: &Ctx, req: &Envelope, wallets: WalletMaker) -> Reply {
    match req.op.as_str() {
        "create_token" => token::create(store, ctx, req),
        "job" => token::job(store, req),
        "patch_token" => token::patch(store, req),
        "token" => token::read(store, req),
        "all_tokens" => token::all(store),
        "put_holder" => holder::put(store, ctx, req, wallets),
        "get_holder" => holder::get(store, req),
        "holder_token" => holder::token_balance(store, req),
        "history" => holder::history(store, req),
        "distribute" => ledger::distribute(store, ctx, req),
        "spend" | "transfer" | "withdraw" => ledger::move_out(store, ctx, req),
        "faucet" => ledger::faucet(store, ctx, req),
        "create_memecoin" => deployment::create(store, ctx, req, DeploymentKind::Memecoin),
        "create_airdrop" => deployment::create(store, ctx, req, DeploymentKind::Airdrop),
        "memecoin_status" => deployment::status(store, req, DeploymentKind::Memecoin),
        "airdrop_status" => deployment::status(store, req, DeploymentKind::Airdrop),
        "deployment_page" => deployment::page(store, req),
        "chain_faults" => presale::chain_faults(store, req),
        "create_presale" => presale::create(store, ctx, req),
        "list_presales" => presale::list(store, ctx),
        "merchant_presale" => presale::merchant(store, ctx, req),
        "public_presale" => presale::public(store, ctx, req),
        "buy_presale" => presale::buy(store, ctx, req),
        "resolve_presale" => presale::resolve(store, ctx, req),
        other => Err(Error::internal(format!("unknown operation {other}"))),
    }
}
