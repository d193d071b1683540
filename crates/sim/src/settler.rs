//! The settler: the core's settlement round (`ops::settle::round`, the one the worker runs)
//! over the simulated chain (`chain_port`), with the round's faults.

use crate::chain::SimChain;
pub use crate::chain_port::RoundFaults;
use crate::chain_port::{block_on, SimPorts};
use crate::node::Node;
use tokenpad_core::ops::settle::round::{Config, Round};
use tokenpad_core::Error;

/// A transaction unmined this long is looked at again (CHAIN_REPLACE_AFTER_MS in tests).
pub const REPLACE_AFTER: u64 = 5_000;

/// One settlement round. The node's faults and the object's stop end it early, as they end
/// the worker's; an error of the ledger is returned, and so is a round that asked the node
/// twice where one transaction is (`SimPorts::asked_twice`).
pub fn round(node: &mut Node, chain: &mut SimChain, faults: RoundFaults) -> Result<(), Error> {
    let ctx = node.ctx();
    let ports = SimPorts::new(node, chain, faults);
    let round = Round {
        chain: &ports,
        signer: &ports,
        ledger: &ports,
        ctx,
        config: Config {
            chain_id: 31_337,
            per_batch: usize::from(faults.per_batch.max(1)),
            replace_after_ms: REPLACE_AFTER,
            poll_ms: 1_000,
            scan_ms: 1_000,
            confirmations: 0,
            scan: true,
        },
    };
    let ran = block_on(round.run())?.map(|_| ());
    if let Some(hash) = ports.asked_twice() {
        return Err(Error::internal(format!(
            "the round asked the node twice whether it knows {hash}"
        )));
    }
    ran
}
