//! What a local run does to its local EVM node (anvil) beside the service, so a local chain
//! behaves as the embedded one does: a merchant the admin creates gets gas for its relayer at
//! once (as the faucet gives USDC), and the service clock's moves move the node's clock too
//! (presale times, locks and authorizations are judged against block time on chain). Only on
//! a chain whose network is `local` and only in local runs (the faucet and time travel are on):
//! never on a public network.

use crate::adapters::evm::config::{self, ChainConfig};
use crate::adapters::evm::rpc::Rpc;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::token::Network;
use tokenpad_evm::rpc as r;
use worker::Env;

/// Gas money for a new local relayer: 1,000 ETH of the local node's.
const RELAYER_WEI: u128 = 1_000_000_000_000_000_000_000;

fn local_node(env: &Env) -> Option<Box<config::Evm>> {
    match config::read(env) {
        Ok(ChainConfig::Evm(evm)) if evm.chain.network == Network::Local => Some(evm),
        _ => None,
    }
}

/// Funds `relayer` on the local node, when there is one and the faucet is on. A failure is
/// logged (settlement then says the relayer is out of gas, and `node scripts/fund.mjs` funds
/// it by hand), never the merchant's creation's.
pub async fn fund_relayer(env: &Env, relayer: &Address) {
    if !crate::config::flag(env, "ENABLE_FAUCET") {
        return;
    }
    let Some(evm) = local_node(env) else {
        return;
    };
    let rpc = Rpc::new(evm.rpc.as_str(), evm.rpc_timeout_ms);
    if let Err(e) = rpc
        .call(r::anvil_set_balance(rpc.id(), relayer.0, RELAYER_WEI))
        .await
    {
        worker::console_error!("local node: could not fund the relayer {relayer}: {e}");
    }
}

/// Moves the local node's clock to the service clock's, `now` (UNIX seconds; time travel is
/// on: the caller checked), and mines a block at the new time: by however far the node is
/// behind, which after a node restart (its time travel forgotten) is more than the advance
/// itself. A node already there or ahead only mines. A failure is logged.
pub async fn advance(env: &Env, now: u64) {
    let Some(evm) = local_node(env) else {
        return;
    };
    let rpc = Rpc::new(evm.rpc.as_str(), evm.rpc_timeout_ms);
    let latest = match rpc
        .call(r::eth_get_block_by_number(rpc.id(), r::BlockTag::Latest))
        .await
        .map(|b| r::parse_block(&b))
    {
        Ok(Ok(Some(b))) => b.timestamp,
        Ok(Ok(None)) | Ok(Err(_)) | Err(_) => {
            worker::console_error!("local node: could not read its clock");
            return;
        }
    };
    let behind = now.saturating_sub(latest);
    let mut calls = Vec::new();
    if behind > 0 {
        calls.push(r::evm_increase_time(rpc.id(), behind));
    }
    calls.push(r::evm_mine(rpc.id()));
    if let Err(e) = rpc.batch(calls).await {
        worker::console_error!("local node: could not move its clock {behind} s: {e}");
    }
}
