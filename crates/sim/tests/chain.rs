//! The simulated chain says no the way chains do: gas by a schedule, out-of-gas receipts,
//! reorganizations of blocks holding every kind of movement, a node that never mines a
//! transaction, a nonce taken from outside.

use std::collections::BTreeMap;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::ids::{LockId, TokenAddress};
use tokenpad_core::model::intent::{Account, Action};
use tokenpad_sim::chain::{gas, SentTx, SimChain};

const RELAYER: Address = Address([0x11; 20]);
const USDC: Address = Address([0x0c; 20]);
const TOKEN: Address = Address([0xaa; 20]);
const HOLDER: Address = Address([0x44; 20]);
const OTHER: Address = Address([0x55; 20]);
const E18: u128 = 1_000_000_000_000_000_000;

fn chain() -> SimChain {
    let mut c = SimChain::new(RELAYER, USDC, Address([0xfd; 20]), Address([0xfb; 20]));
    // The faucet's USDC, in the first block.
    c.mint(USDC, RELAYER, 1_000_000 * 1_000_000);
    c.mine(0, 0, false, |_| false);
    c
}

fn tx(nonce: u64, actions: Vec<Action>) -> SentTx {
    SentTx {
        nonce,
        hash: format!("0x{nonce:064x}"),
        intents: actions
            .into_iter()
            .enumerate()
            .map(|(i, a)| (nonce * 100 + i as u64 + 1, TokenAddress(TOKEN), a))
            .collect(),
        auth_nonces: BTreeMap::new(),
        gas_limit: 0,
    }
}

fn deploy() -> Action {
    Action::Deploy {
        salt: "s".into(),
        name: "T".into(),
        symbol: "T".into(),
        supply: Units::new(1_000_000 * E18),
    }
}

fn give(to: Address, whole: u128) -> Action {
    Action::Transfer {
        from: Account::Treasury,
        to: Account::Wallet(to),
        amount: Units::new(whole * E18),
    }
}

fn open_pool() -> Action {
    Action::OpenPool {
        tokens: Units::new(100_000 * E18),
        usdc: Units::new(100_000 * 1_000_000),
        // A price of 1 base unit of USDC a base unit of token (any price will do).
        sqrt_price_x96: "79228162514264337593543950336".into(),
        tick_lower: -6_000,
        tick_upper: 6_000,
    }
}

/// Sends `t` with exactly what it needs (or `less` below) and mines it.
fn send(c: &mut SimChain, mut t: SentTx, less: u64) -> u64 {
    let need = c.estimate_gas(&t);
    t.gas_limit = need - less;
    c.broadcast(t);
    c.mine(0, 0, false, |_| false);
    need
}

#[test]
fn gas_follows_the_schedule_and_a_new_balance_slot_costs_more() {
    let mut c = chain();
    let deploy_gas = send(&mut c, tx(0, vec![deploy()]), 0);
    // CREATE2 with ~6 KB of code and the constructor: about what anvil measures (1.42 M).
    assert!((1_250_000..1_600_000).contains(&deploy_gas), "{deploy_gas}");
    let to_new = c.estimate_gas(&tx(1, vec![give(HOLDER, 1)]));
    send(&mut c, tx(1, vec![give(HOLDER, 1)]), 0);
    let to_holder = c.estimate_gas(&tx(2, vec![give(HOLDER, 1)]));
    assert_eq!(to_new - to_holder, gas::SSTORE_SET - gas::SSTORE_RESET);
    // A batch pays the transaction once; an item whose slots are warm, little more.
    let two = c.estimate_gas(&tx(2, vec![give(HOLDER, 1), give(HOLDER, 1)]));
    assert!(
        two > to_holder + 2_000 && two < to_holder + 6_000,
        "{two} {to_holder}"
    );
    let pool = c.estimate_gas(&tx(2, vec![open_pool()]));
    assert!((4_500_000..6_000_000).contains(&pool), "{pool}");
    // A repricing makes every charge dearer: an estimate from before is short now.
    c.gas_percent = 120;
    assert_eq!(
        c.estimate_gas(&tx(2, vec![give(HOLDER, 1)])),
        to_holder * 6 / 5
    );
}

#[test]
fn out_of_gas_is_all_or_nothing_uses_the_limit_and_the_nonce() {
    let mut c = chain();
    send(&mut c, tx(0, vec![deploy()]), 0);
    let before = c.balances().clone();
    let logs = c.logs.len();
    let need = send(&mut c, tx(1, vec![give(HOLDER, 5), give(OTHER, 7)]), 1);
    let r = c.receipts.get(&tx(1, vec![]).hash).cloned();
    let r = r
        .as_ref()
        .map(|r| (r.success, r.gas_used, r.reason.clone()));
    assert_eq!(
        r,
        Some((false, need - 1, Some(gas::OUT_OF_GAS.to_string())))
    );
    assert_eq!(c.balances(), &before);
    assert_eq!(c.logs.len(), logs);
    assert_eq!(c.nonce, 2);
    // With what it needs, it goes through and uses exactly that.
    let need = send(&mut c, tx(2, vec![give(HOLDER, 5), give(OTHER, 7)]), 0);
    let r = c.receipts.get(&tx(2, vec![]).hash).cloned();
    assert_eq!(r.map(|r| (r.success, r.gas_used)), Some((true, need)));
    assert_eq!(c.balance(&TOKEN, &HOLDER), 5 * E18);
}

#[test]
fn a_reorg_undoes_deployments_pools_swaps_and_locks_and_changes_block_hashes() {
    let mut c = chain();
    let start = (c.balances().clone(), c.head());
    let lock = Action::Lock {
        beneficiary: HOLDER,
        amount: Units::new(10 * E18),
        unlock_at: 0,
        lock: LockId::new_unchecked("p:0"),
    };
    let swap = Action::Swap {
        holder: HOLDER,
        buy: false,
        exact_in: true,
        amount: Units::new(1_000_000),
        limit: Units::new(1),
        booked_tokens: Units::new(1_000_000),
        booked_usdc: Units::new(1),
    };
    let steps = [
        vec![deploy()],
        vec![give(HOLDER, 100), lock],
        vec![open_pool()],
        vec![swap],
    ];
    for (n, actions) in steps.into_iter().enumerate() {
        send(&mut c, tx(n as u64, actions), 0);
    }
    assert!(c.receipts.values().all(|r| r.success), "{:?}", c.receipts);
    let (after, head) = (c.balances().clone(), c.head());
    let hashes: Vec<_> = (1..=head).map(|b| c.block_hash(b)).collect();
    assert_eq!(c.reorg(4, true), 4);
    assert_eq!((c.balances(), c.head()), (&start.0, start.1));
    assert!(c.receipts.is_empty() && c.logs.is_empty() && c.executed.is_empty());
    assert!(!c.has_code(&TOKEN) && c.state.pools.is_empty() && c.state.locks.is_empty());
    assert_eq!((c.nonce, c.pending().len()), (0, 4));
    assert_eq!(c.block_hash(head), None);
    // As geth does, the same transactions are mined again, on blocks with other hashes.
    for _ in 0..4 {
        c.mine(0, 0, false, |_| false);
    }
    assert_eq!((c.balances(), c.head()), (&after, head));
    let again: Vec<_> = (1..=head).map(|b| c.block_hash(b)).collect();
    let kept = usize::try_from(start.1).unwrap_or(0);
    for (n, (old, new)) in hashes.iter().zip(&again).enumerate() {
        assert_eq!(old == new, n < kept, "block {}", n + 1);
    }
    // (The node mined all four in the first new block.) A node that lost its blocks loses
    // their transactions too.
    assert_eq!(c.reorg(3, false), 3);
    assert_eq!((c.nonce, c.pending().len()), (4, 0));
    assert_eq!(c.reorg(1, false), 1);
    assert_eq!(
        (c.nonce, c.pending().len(), c.has_code(&TOKEN)),
        (0, 0, false)
    );
    assert_eq!(c.balances(), &start.0);
}

#[test]
fn a_held_transaction_is_never_mined_but_its_replacement_is() {
    let mut c = chain();
    let t = tx(0, vec![deploy()]);
    let mut t = SentTx {
        gas_limit: c.estimate_gas(&t),
        ..t
    };
    c.broadcast(t.clone());
    c.hold_forever(1);
    for _ in 0..3 {
        c.mine(0, 0, false, |_| false);
    }
    assert_eq!((c.nonce, c.knows(&t.hash)), (0, true));
    t.hash = "0xreplaced".into();
    c.broadcast(t);
    c.mine(0, 0, false, |_| false);
    assert_eq!(c.nonce, 1);
    assert!(c.receipts.contains_key("0xreplaced") && c.has_code(&TOKEN));
}

#[test]
fn a_nonce_taken_from_outside_is_never_mined_for_the_relayer() {
    let mut c = chain();
    let t = tx(0, vec![deploy()]);
    let t = SentTx {
        gas_limit: c.estimate_gas(&t),
        ..t
    };
    c.broadcast(t.clone());
    c.outside_nonce();
    c.mine(0, 0, false, |_| false);
    assert_eq!(
        (c.nonce, c.knows(&t.hash), c.has_code(&TOKEN)),
        (1, false, false)
    );
}
