//! Hostile worlds (`--hostile`): the chain also reorganizes (`ChainFault::Reorg`, and while
//! a settlement round runs: `chain_port::MidRound`), and the service waits `CHAIN_FINALITY`
//! blocks before it takes a receipt as final. `--ci` runs the hostile CI seeds
//! (`HOSTILE_CI_SEEDS`) too. Here, seeds whose reorganizations drop blocks holding
//! deployments, mints, transfers, pool openings and swaps keep every invariant, and so do the
//! seeds that found what the core's settlement did not handle (each named below, with
//! what it found); a new finding's seed joins them once the core handles it.

use tokenpad_sim::{run_seed_opts, Summary, CI_STEPS};

#[test]
fn reorganizations_of_every_kind_of_movement_keep_every_invariant() {
    let mut total = Summary::default();
    for seed in [1, 2, 13, 14] {
        match run_seed_opts(seed, CI_STEPS, None, true) {
            Ok(s) => total.add(&s),
            Err(f) => unreachable!("{f}"),
        }
    }
    let count = |k: &str| total.counts.get(k).copied().unwrap_or(0);
    for kind in ["Deploy", "Mint", "Transfer", "OpenPool", "Swap"] {
        assert!(
            count(&format!("reorg undid {kind}")) > 0,
            "{kind}: {total:?}"
        );
    }
    assert!(count("event transaction.reorganized") > 0, "{total:?}");
    assert!(count("fault a reorganization mid-round") > 0, "{total:?}");
}

/// The seeds that found what the core's settlement (or the simulated chain) did not handle,
/// now kept. (Hostile histories are drawn differently since rounds can reorganize mid-way:
/// these seeds now draw other histories than those that found each finding, which were not
/// kept as steps. The findings since are, in `settlement_regressions.rs`.)
#[test]
fn the_findings_are_kept() {
    let found = [
        // A reorganization sends a deployment and its token's movements again; the deployment
        // reverts (a fault), and the movements after it "succeed" on a token without code,
        // moving nothing: the ledger confirmed them ("ledger equals chain"). Now a success
        // confirms only what its Transfer logs show (`ops::settle::shown`).
        34,
        // With CHAIN_FINALITY > 0, a revert for want of funds behind an older movement that a
        // fault sent back was judged when final: the older one had landed by then, so it was
        // refused instead of sent again ("a movement fails for its own reason"). Now it is
        // judged as of its block, when its receipt is first read (`receipt.rs`, `behind`).
        1, 29, 45,
        // A reorganization sent a memecoin's deployment and pool opening again; the deployment
        // reverted (a fault) and the simulated market opened the pool of a token without code,
        // taking nothing of it ("ledger equals chain"). The real market pulls the token with
        // receiveWithAuthorization, which reverts there, and so does the simulated one now
        // (`chain::exec`).
        160,
        // The node dropped a reward's transaction and someone else took its nonce before the
        // relayer sent it again; the holder's spend behind it reverted for want of it. The
        // fault sent the reward back, as a taken nonce's pending transaction: the simulated
        // chain now counts it so ("no overdraft", `chain::outside`).
        259,
    ];
    // Found at 1,000 steps: a holder's sell, sent back by a fault, and a buy of another token
    // behind it with the USDC it was to bring. The buy reverted for want of it and was refused:
    // a swap's USDC did not count as an older movement of USDC (`settle::needs`; the core's
    // `market_chain.rs` tests it with a USDC transfer).
    let long = [(5119, 1_000)];
    for (seed, steps) in found.into_iter().map(|s| (s, CI_STEPS)).chain(long) {
        if let Err(f) = run_seed_opts(seed, steps, None, true) {
            unreachable!("hostile seed {seed} at {steps} steps: {f}");
        }
    }
}
