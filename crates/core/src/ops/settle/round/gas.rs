//! How much gas a transaction is sent with: what the chain says it needs.
//!
//! Each planned transaction is estimated (from the relayer, at the newest block, all of a
//! round's at once) and sent with a margin over the estimate: a quarter more and 30 k, for
//! what can differ between the estimate and the block it is mined in (a pool's first swap of
//! a block writes an oracle observation; an outside trade moves the price across more ticks;
//! a release found early in the estimate's block is due in the next). Never below the call's
//! floor (`Payload::floor`: the fixed limits measured on anvil, which some calls need more
//! than their estimate says, as a release does). A call the node cannot estimate (it would
//! revert now: it may need a transaction of ours not mined yet, or the chain refuses it,
//! which its receipt will say) goes with its floor.
//!
//! A movement that ran out of gas before goes with twice as much for each time it did
//! (`Intent::out_of_gas`, counted by `ops::settle::receipt`), and no limit passes the block's
//! gas limit or EIP-7825's cap on a transaction (2^24).

/// What the margin adds to an estimate beyond its quarter.
pub const MARGIN: u64 = 30_000;
/// EIP-7825's cap on a transaction's gas (Osaka): no transaction may ask for more.
pub const TX_GAS_CAP: u64 = 1 << 24;
/// Doublings for earlier out-of-gas reverts, at most (2^3 = 8 times the gas).
pub const MAX_DOUBLINGS: u32 = 3;

/// The gas limit for an estimate (None: the node could not estimate it) over `floor`, for a
/// batch whose movements ran out of gas `out_of_gas` times at most, under `cap`.
pub fn limit(estimate: Option<u64>, floor: u64, out_of_gas: u32, cap: u64) -> u64 {
    let wanted = estimate.map_or(0, |e| e.saturating_add(e / 4).saturating_add(MARGIN));
    let doubled = wanted.max(floor) << out_of_gas.min(MAX_DOUBLINGS);
    doubled.min(cap)
}

/// The most a transaction may ask for: the block's gas limit, under EIP-7825's cap.
pub fn cap(block_gas_limit: Option<u64>) -> u64 {
    block_gas_limit.unwrap_or(TX_GAS_CAP).min(TX_GAS_CAP)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_estimate_gets_its_margin_and_never_less_than_the_floor() {
        // The one-buyer presale's lock: 143,858 needed, a 140,000 floor.
        assert_eq!(limit(Some(143_858), 140_000, 0, TX_GAS_CAP), 209_822);
        // A swap across 21 ticks: 641,976 needed, a 450,000 floor.
        assert_eq!(limit(Some(641_976), 450_000, 0, TX_GAS_CAP), 832_470);
        // A release estimated below its floor keeps the floor.
        assert_eq!(limit(Some(40_000), 110_000, 0, TX_GAS_CAP), 110_000);
        // Nothing estimated: the floor.
        assert_eq!(limit(None, 450_000, 0, TX_GAS_CAP), 450_000);
    }

    #[test]
    fn each_out_of_gas_doubles_it_up_to_the_cap() {
        assert_eq!(limit(None, 100_000, 1, TX_GAS_CAP), 200_000);
        assert_eq!(limit(None, 100_000, 3, TX_GAS_CAP), 800_000);
        assert_eq!(limit(None, 100_000, 9, TX_GAS_CAP), 800_000);
        assert_eq!(limit(Some(10_000_000), 0, 2, TX_GAS_CAP), TX_GAS_CAP);
        assert_eq!(cap(Some(30_000_000)), TX_GAS_CAP);
        assert_eq!(cap(Some(8_000_000)), 8_000_000);
        assert_eq!(limit(None, 9_000_000, 0, cap(Some(8_000_000))), 8_000_000);
    }
}
