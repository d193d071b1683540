//! What the settler holds back behind a movement not carried out yet, in histories the
//! simulator shrank, replayed from their steps alone (as `regressions.rs`'s): a movement that
//! spends what such a movement was to bring goes out after it, not ahead to revert for want
//! of it (`settle::plan`).

mod histories;

use histories::*;
use tokenpad_sim::settler::RoundFaults;
use tokenpad_sim::step::{ChainFault, Fault, Outside, Req, Step, Tokens, Usdc};
use tokenpad_sim::webhooks::Receiver;

/// Hostile seed 12594: a reorganization drops a token's deployment and an outsider takes its
/// nonce; the distribute to a holder is mined while the token has no code, "succeeds" moving
/// nothing, and waits for that receipt to be final to go again (`unshown`). The deployment
/// goes again and is confirmed; the holder's withdraw, spending what the distribute brings,
/// went out ahead of it and reverted for want of the tokens: a transaction's gas, and an
/// attempt of the holder's, spent on a failure of ours. Now what a success did not move waits
/// as a revert's does (`hold::unarrived`).
#[test]
fn a_withdraw_waits_behind_a_distribute_mined_before_its_token_had_code() {
    let h = [
        call(
            1,
            Req::CreateToken {
                n: 89,
                supply: Tokens::whole(1_000_000),
            },
        ),
        alarm(1),
        Step::Mine {
            revert: 0,
            hold: 0,
            older: true,
            lag_s: 0,
        },
        Step::Alarm {
            round: RoundFaults {
                per_batch: 4,
                lose_sends: true,
                ..RoundFaults::default()
            },
            receiver: Receiver::Down,
        },
        faulty(12, Req::PutHolder { user: 4 }, Fault::LostAfter),
        call(
            19,
            Req::Distribute {
                token: 1,
                user: 4,
                amount: Tokens::whole(94),
            },
        ),
        alarm_to(1, Receiver::Down),
        Step::Chain(ChainFault::Reorg {
            depth: 4,
            requeue: true,
        }),
        Step::Outside(Outside::TakeNonce),
        call(
            47,
            Req::Withdraw {
                user: 4,
                token: 2,
                to: 0,
                amount: Tokens(95_371),
            },
        ),
        mine(0, 0, 3_955),
        alarm_to(5, Receiver::Slow),
        mine(0, 0, 0),
        alarm(2),
        mine(0, 0, 0),
    ];
    // Then the chain goes on until the distribute's receipt is final and both go.
    let on = [mine(0, 0, 0), alarm(2)];
    let h: Vec<Step> = h
        .into_iter()
        .chain(on.into_iter().cycle().take(24))
        .collect();
    let done = replays("a withdraw behind a distribute mined without code", &h);
    assert_eq!(
        done.counts.get("movement Transfer Confirmed"),
        Some(&2),
        "{done:?}"
    );
}

/// Hostile seed 16108: a holder's presale purchase (its USDC into the treasury) waits behind a
/// distribute batch that reverted in a block not final yet (the plan holds the holder's USDC
/// behind its buy, held there too). The presale ends short of its target and refunds the
/// purchase: the refund, the treasury's USDC back to the holder, went out ahead of the
/// purchase that brings it and reverted for want of it. Now a refund waits behind the held
/// payment it returns (`hold::Behind`).
#[test]
fn a_refund_waits_behind_the_held_purchase_it_returns() {
    let h = [
        call(1, Req::PutHolder { user: 6 }),
        faulty(4, Req::PutHolder { user: 7 }, Fault::LostBefore),
        call(
            25,
            Req::CreateToken {
                n: 12,
                supply: Tokens::whole(1_000_000),
            },
        ),
        alarm(3),
        mine(0, 0, 0),
        alarm_to(2, Receiver::Slow),
        call(
            143,
            Req::OpenPool {
                token: 1,
                cents: 31,
                amount: Tokens::whole(87_967),
            },
        ),
        alarm_to(4, Receiver::Down),
        Step::Faucet {
            user: 6,
            usdc: Usdc(440_503_809),
        },
        mine(0, 0b10, 0),
        faulty(
            284,
            Req::CreatePresale {
                target: Usdc::whole(200_000),
                minutes: 2_439,
                lockup: 22,
                auto: true,
                lock_days: 1,
            },
            Fault::LostAfter,
        ),
        call(
            298,
            Req::Distribute {
                token: 1,
                user: 6,
                amount: Tokens::whole(186),
            },
        ),
        faulty(
            299,
            Req::Distribute {
                token: 1,
                user: 7,
                amount: Tokens(397_232_125_291_208_444_728),
            },
            Fault::Twice,
        ),
        alarm(4),
        mine(0b10, 0, 0),
        mine(0b10, 0, 0),
        mine(0, 0b10, 0),
        mine(0b1000_0000, 0, 0),
        mine(0, 0, 0),
        call(
            331,
            Req::Buy {
                user: 6,
                token: 1,
                usdc: Usdc::whole(43),
                slippage_bps: 58,
            },
        ),
        faulty(
            347,
            Req::BuyPresale {
                user: 6,
                presale: 0,
                usdc: Usdc::whole(106),
            },
            Fault::Twice,
        ),
        Step::Chain(ChainFault::Reorg {
            depth: 4,
            requeue: true,
        }),
        Step::Wait { ms: 394_762_267 },
        Step::Alarm {
            round: RoundFaults {
                crash_after_sign: Some(2),
                per_batch: 3,
                ..RoundFaults::default()
            },
            receiver: Receiver::Up,
        },
        mine(0, 0, 0),
    ];
    // Then the chain goes on until everything has settled.
    let on = [mine(0, 0, 0), alarm(3)];
    let h: Vec<Step> = h
        .into_iter()
        .chain(on.into_iter().cycle().take(30))
        .collect();
    let done = replays("a refund behind the held purchase it returns", &h);
    let count = |k: &str| done.counts.get(k).copied();
    assert_eq!(count("event presale.refunded"), Some(1), "{done:?}");
    // Both distributes, the purchase and its refund.
    assert_eq!(count("movement Transfer Confirmed"), Some(4), "{done:?}");
}
