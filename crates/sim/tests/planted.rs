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
