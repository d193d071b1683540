//! The checks can fail: each bug the simulator can plant in the service (`bug`) is found
//! within the CI seeds, by the invariant it breaks, and the failure is shrunk to a shorter
//! history that fails alone, printed with the command that reruns it.

use tokenpad_sim::bug::Bug;
use tokenpad_sim::{replay_with, run_seed_with, Failure, CI_SEEDS, CI_STEPS};

fn first_failure(bug: Bug) -> Option<Failure> {
    CI_SEEDS
        .into_iter()
        .find_map(|seed| run_seed_with(seed, CI_STEPS, Some(bug)).err())
}

fn found(bug: Bug, invariant: &str) {
    let Some(f) = first_failure(bug) else {
        unreachable!("{bug} was not found in seeds {CI_SEEDS:?}");
    };
    let printed = f.to_string();
    eprintln!("{printed}");
    assert_eq!(f.violation.invariant, invariant, "{printed}");
    assert!(f.history.len() <= f.drawn, "{printed}");
    // The shrunk history fails by itself, at its last step, and only with the bug planted.
    let Err((at, v)) = replay_with(&f.history, Some(bug)) else {
        unreachable!("the shrunk history passes: {printed}");
    };
    assert_eq!(
        (at + 1, v.invariant),
        (f.history.len(), invariant),
        "{printed}"
    );
    assert!(replay_with(&f.history, None).is_ok(), "{printed}");
    assert!(
        printed.contains(&format!(
            "rerun: cargo run -p tokenpad-sim -- --seed {} --steps {CI_STEPS} --plant {bug}",
            f.seed
        )),
        "{printed}"
    );
}

#[test]
fn a_settlement_that_forgets_to_mark_intents_sent_is_found() {
    found(Bug::ForgetsToMarkSent, "exactly once per intent");
}

#[test]
fn an_unbalanced_write_is_found() {
    found(Bug::UnbalancedWrite, "conservation");
}

#[test]
fn holders_authorizations_that_share_a_nonce_are_found() {
    found(Bug::SharesAuthNonces, "each authorization nonce once");
}

#[test]
fn a_replay_that_applies_again_is_found() {
    found(Bug::ReplayAppliesTwice, "exactly once per idempotency key");
}

#[test]
fn a_followup_queued_after_the_commit_is_found() {
    found(Bug::FollowupAfterCommit, "a follow-up per deployment");
}

#[test]
fn a_gas_limit_too_low_is_found() {
    found(Bug::GasLimitTooLow, "settlement finishes");
}

#[test]
fn an_out_of_gas_read_as_a_refusal_is_found() {
    found(
        Bug::OutOfGasAsRefusal,
        "no value lost or created by a failed transaction of ours",
    );
}

/// With a limit below the estimate, the transaction runs out of gas on chain (its limit
/// used, nothing moved) and the ledger sends the movement again: the holder's value stays
/// where it was, never refused away.
#[test]
fn a_limit_below_the_estimate_runs_out_of_gas_and_the_value_is_queued_again() {
    use tokenpad_core::model::intent::{Action, IntentStatus};
    use tokenpad_sim::chain::gas::OUT_OF_GAS;
    use tokenpad_sim::settler::RoundFaults;
    use tokenpad_sim::step::{Fault, Req, Step, Usdc, Who};
    use tokenpad_sim::webhooks::Receiver;
    let alarm = Step::Alarm {
        round: RoundFaults {
            per_batch: 1,
            ..RoundFaults::default()
        },
        receiver: Receiver::Up,
    };
    let mine = Step::Mine {
        revert: 0,
        hold: 0,
        older: false,
        lag_s: 0,
    };
    let steps = [
        Step::Call {
            n: 1,
            req: Req::PutHolder { user: 0 },
            who: Who::Secret,
            keyed: true,
            fault: Fault::None,
        },
        Step::Faucet {
            user: 0,
            usdc: Usdc::whole(25),
        },
        alarm.clone(),
        mine,
        alarm,
    ];
    let mut w = tokenpad_sim::world::World::with_bug(Some(Bug::GasLimitTooLow));
    for s in &steps {
        assert_eq!(w.apply(s), Ok(()), "{s}");
    }
    let receipts: Vec<_> = w.chain.receipts.values().collect();
    let [r] = receipts[..] else {
        unreachable!("one receipt: {receipts:?}");
    };
    assert_eq!((r.success, r.reason.as_deref()), (false, Some(OUT_OF_GAS)));
    let sent = w.node.store.chain_txs.values().next().map(|t| t.gas_limit);
    assert_eq!(Some(r.gas_used), sent, "all of its limit used");
    assert!(w.chain.balances().values().all(|b| *b == 0));
    let intents: Vec<_> = w.node.store.intents.iter().collect();
    let [i] = intents[..] else {
        unreachable!("one movement: {:?}", w.node.store.intents);
    };
    assert!(matches!(i.action, Action::Mint { .. }), "{i:?}");
    // Queued again, and sent again (by the same round) with twice the gas.
    assert_eq!(
        (i.status, i.out_of_gas, i.attempts),
        (IntentStatus::Submitted, 1, 2)
    );
    let ledger = w.node.store.balances.values().filter_map(|b| b.total());
    assert_eq!(
        ledger.map(|u| u.raw()).sum::<u128>(),
        25_000_000,
        "still the holder's"
    );
    assert!(
        i.error
            .as_deref()
            .is_some_and(|e| e.contains("sent again with more gas")),
        "{i:?}"
    );
}
