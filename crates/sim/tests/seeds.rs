//! A few seeds on every `cargo test` (the CI seeds run in `scripts/test.sh`'s `sim` step),
//! and what makes a seed worth rerunning: the same seed is the same history, to the same
//! final state, whether drawn or replayed from its steps.

#[test]
fn the_smoke_seeds_keep_every_invariant() {
    let failures: Vec<String> = tokenpad_sim::SMOKE_SEEDS
        .filter_map(|seed| tokenpad_sim::run_seed(seed, tokenpad_sim::CI_STEPS).err())
        .map(|f| f.to_string())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_seed_names_its_history_and_its_final_state() {
    let (a, ra) = tokenpad_sim::draw(7, 150);
    let (b, rb) = tokenpad_sim::draw(7, 150);
    assert_eq!(a, b);
    assert_eq!(ra, rb);
    let digest = ra.as_ref().map(|s| s.digest.clone()).unwrap_or_default();
    assert_eq!(digest.len(), 64, "{ra:?}");
    assert_eq!(tokenpad_sim::replay(&a).map_err(|(_, v)| v), ra);
    // Another seed is another history, and another state.
    let (c, rc) = tokenpad_sim::draw(8, 150);
    assert_ne!(a, c);
    assert_ne!(rc.map(|s| s.digest).unwrap_or_default(), digest);
}
