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

/// Moves the local node's clock `seconds` forward with the service clock's (time travel is
/// on: the caller checked), and mines a block at the new time. A failure is logged.
pub async fn advance(env: &Env, seconds: u64) {
    let Some(evm) = local_node(env) else {
        return;
    };
    let rpc = Rpc::new(evm.rpc.as_str(), evm.rpc_timeout_ms);
    let moved = rpc
        .batch(vec![
            r::evm_increase_time(rpc.id(), seconds),
            r::evm_mine(rpc.id()),
        ])
        .await;
    if let Err(e) = moved {
        worker::console_error!("local node: could not move its clock {seconds} s: {e}");
    }
}
