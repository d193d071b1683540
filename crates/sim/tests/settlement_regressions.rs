//! Settlement's findings in histories the simulator shrank, replayed from their steps alone
//! (as `regressions.rs`'s): what the ledger took from a chain that reorganized in the middle
//! of a round, and what a round sent behind a nonce taken from outside.

mod histories;

use histories::*;
use tokenpad_sim::chain_port::{MidRound, When};
use tokenpad_sim::settler::RoundFaults;
use tokenpad_sim::step::{ChainFault, Fault, Outside, Req, Step, Tokens, Usdc, Who};
use tokenpad_sim::webhooks::Receiver;

/// Hostile seed 57 (with reorganizations mid-round): a deposit from outside is scanned; the
/// chain then drops its block while a round runs, after the round compared its newest
/// checkpoint, and mines six more; the round reads a receipt from the new chain, whose block
/// became a checkpoint that matched ever after. The rounds that followed compared it alone,
/// never saw the older checkpoint of the dropped block, and the ledger kept the deposit the
/// chain no longer had. Now a round compares every checkpoint taken since the last one it
/// checked (`round::follow`).
#[test]
fn a_receipt_from_a_chain_that_reorganized_mid_round_does_not_hide_the_reorganization() {
    let h = [
        call(
            136,
            Req::Airdrop {
                wallets: 3,
                each: Tokens::whole(307),
            },
        ),
        call(198, Req::PutHolder { user: 3 }),
        Step::Settle,
        call(
            212,
            Req::OpenPool {
                token: 1,
                cents: 1,
                amount: Tokens(76_274_143_536_682_183_795_461),
            },
        ),
        Step::Outside(Outside::Send {
            from: 0,
            token: 3,
            to: 3,
            amount: Tokens::whole(9),
        }),
        Step::Alarm {
            round: RoundFaults {
                crash_after_sign: Some(2),
                per_batch: 5,
                ..RoundFaults::default()
            },
            receiver: Receiver::Up,
        },
        Step::Wait { ms: 6_377 },
        alarm_to(1, Receiver::Slow),
        mine(0b100, 0b100_0010, 0),
        alarm_reorg(
            3,
            MidRound {
                depth: 2,
                requeue: false,
                mined: 6,
                at: When::Watch,
            },
            Receiver::Slow,
        ),
        Step::Settle,
    ];
    replays("a receipt from a reorganized chain", &h);
}

/// Seed 972 (hostile draw, shrunk to a history without a reorganization): someone takes the
/// relayer's nonce that a holder's test-USDC mint was to use. The round sent the holder's
/// presale buy (its USDC to the treasury) and the launch's pool opening behind it anyway,
/// both reverted for want of what the mint brings, and the opening was refused for good (it
/// was judged behind older movements of its own token only; `settle::needs` now lists USDC
/// for it, tested in the core's `market_chain.rs`). Now the node's "nonce too low" for a
/// transaction the round just signed abandons it at once and the round sends nothing behind
/// it: nothing reverts at all.
#[test]
fn a_nonce_taken_from_outside_sends_nothing_behind_it() {
    let h = [
        call(9, Req::PutHolder { user: 7 }),
        call(
            10,
            Req::CreateToken {
                n: 99,
                supply: MILLION,
            },
        ),
        alarm(3),
        Step::Faucet {
            user: 7,
            usdc: Usdc(454_985_854),
        },
        call(
            131,
            Req::CreatePresale {
                target: Usdc::whole(48),
                minutes: 600,
                lockup: 19,
                auto: true,
                lock_days: 1,
            },
        ),
        mine(0b1000_0000, 0, 0),
        request(
            149,
            Req::BuyPresale {
                user: 7,
                presale: 2,
                usdc: Usdc::whole(36),
            },
            false,
            Who::Secret,
            Fault::None,
        ),
        Step::Outside(Outside::TakeNonce),
        call(167, Req::Resolve { presale: 1 }),
        Step::Settle,
    ];
    let done = replays("a nonce taken from outside", &h);
    // The mint's nonce was taken before it went out: the node said so when it was sent, the
    // round abandoned it at once and sent nothing behind it (the transfer and the opening,
    // which need what it brings), so nothing reverted.
    assert_eq!(done.counts.get("receipt reverted"), None, "{done:?}");
    assert_eq!(
        done.counts.get("relayer tx Abandoned"),
        Some(&1),
        "{done:?}"
    );
}

/// Seed 836 (`--seeds 1000`, not hostile): a reward's transaction went out, then someone took
/// its nonce (a transaction not ours mined at it); the holder's transfer of that reward,
/// signed before and sent after, was mined and reverted for want of it, and so again at each
/// round, until after `ATTEMPTS_BEHIND` sends it was refused: watch abandoned the taken
/// transaction only `replace_after_ms` after it went out, and the history's rounds came
/// sooner. Now a later nonce of ours mined, with no version of an earlier one mined nor
/// known to the node, abandons the earlier one at once (`round::watch`).
#[test]
fn a_nonce_taken_after_its_transaction_went_out_is_abandoned_when_a_later_one_is_mined() {
    let crash = |per_batch, receiver| Step::Alarm {
        round: RoundFaults {
            crash_after_sign: Some(1),
            per_batch,
            ..RoundFaults::default()
        },
        receiver,
    };
    let h = [
        faulty(1, Req::PutHolder { user: 5 }, Fault::LostBefore),
        call(3, Req::PutHolder { user: 7 }),
        call(18, Req::PutHolder { user: 4 }),
        faulty(
            34,
            Req::CreateToken {
                n: 83,
                supply: Tokens::whole(1_512_425),
            },
            Fault::Twice,
        ),
        Step::Settle,
        call(
            101,
            Req::Distribute {
                token: 3,
                user: 5,
                amount: Tokens::whole(8),
            },
        ),
        call(
            150,
            Req::Transfer {
                user: 5,
                token: 3,
                to: 4,
                amount: Tokens::whole(8),
            },
        ),
        crash(5, Receiver::Slow),
        Step::Outside(Outside::TakeNonce),
        alarm(2),
        mine(0b100_0000, 0b100, 0),
        alarm(5),
        mine(0, 0, 6_826),
        alarm(3),
        Step::Mine {
            revert: 0b100,
            hold: 0,
            older: true,
            lag_s: 0,
        },
        alarm(4),
        mine(0b1_0000, 0, 0),
        crash(2, Receiver::Up),
        Step::Settle,
    ];
    let done = replays("a nonce taken after its transaction went out", &h);
    assert_eq!(
        done.counts.get("movement Transfer Failed"),
        None,
        "{done:?}"
    );
}

/// Hostile seed 5614 at 1,000 steps: someone else took the relayer's nonce 3, so the faucet's
/// mint there was abandoned and went again at nonce 4. Then the node came back without its
/// last four blocks, the outsider's transaction at nonce 3 with them, and no checkpoint of
/// ours was in those blocks: no round saw a reorganization, so nothing filled nonce 3, and
/// the node kept nonce 4 queued behind the gap, replaced at ever higher fees and never mined.
/// Now a transaction unmined for long checks for a free nonce below it however the node
/// answers about it, and fills it (`round::watch::unstick`).
#[test]
fn a_nonce_an_outsider_took_and_a_reorganization_gave_back_is_filled_even_unseen() {
    let h = [
        call(
            61,
            Req::Airdrop {
                wallets: 2,
                each: Tokens::whole(208),
            },
        ),
        Step::Settle,
        unkeyed(66, Req::PutHolder { user: 7 }),
        unkeyed(
            80,
            Req::OpenPool {
                token: 2,
                cents: 151,
                amount: Tokens::whole(37_656),
            },
        ),
        Step::Settle,
        Step::Chain(ChainFault::Reorg {
            depth: 2,
            requeue: true,
        }),
        Step::Mine {
            revert: 0,
            hold: 0,
            older: true,
            lag_s: 375,
        },
        mine(0b100, 0, 357),
        Step::Outside(Outside::Trade {
            token: 3,
            buy: true,
            usdc: Usdc::whole(40),
            tokens: Tokens::whole(102),
        }),
        Step::Outside(Outside::TakeNonce),
        Step::Mine {
            revert: 0b1001_0000,
            hold: 0,
            older: true,
            lag_s: 5_705,
        },
        Step::Faucet {
            user: 7,
            usdc: Usdc(69_694_935),
        },
        mine(0, 0b1_1010, 0),
        alarm(2),
        alarm_reorg(
            4,
            MidRound {
                depth: 2,
                requeue: true,
                mined: 0,
                at: When::Scan,
            },
            Receiver::Up,
        ),
        alarm(1),
        Step::Chain(ChainFault::Reorg {
            depth: 4,
            requeue: false,
        }),
        Step::Settle,
    ];
    let done = replays("a nonce given back by a reorganization", &h);
    assert_eq!(
        done.counts.get("movement Mint Confirmed"),
        Some(&1),
        "{done:?}"
    );
}

/// Hostile seed 11738, a finding of the simulator's own judgment: an outsider sends a holder
/// tokens, the scan follows the deposit, and a reorganization drops it for good (only the
/// relayer's transactions go back to the node's pool). The holder spends from the deposit
/// before the next round; the round undoes the deposit (the holder owes what it already
/// spent), sends the spend, the chain refuses it for want of funds, and the ledger undoes it,
/// which pays the debt: as designed (`ops::undo`). The simulated chain judged that revert an
/// overdraft of the ledger's. Now a revert for want of what a reorganization took away is the
/// chain's answer, as after a refusal (`SimChain::reorged_away`).
#[test]
fn a_spend_of_a_deposit_a_reorganization_took_away_is_refused_and_undone() {
    let h = [
        call(
            6,
            Req::Airdrop {
                wallets: 3,
                each: Tokens(311_437_137),
            },
        ),
        call(18, Req::PutHolder { user: 2 }),
        Step::Settle,
        Step::Outside(Outside::Send {
            from: 0,
            token: 2,
            to: 2,
            amount: Tokens(899_056_879),
        }),
        alarm(5),
        Step::Chain(ChainFault::Reorg {
            depth: 3,
            requeue: true,
        }),
        unkeyed(
            118,
            Req::Spend {
                user: 2,
                token: 2,
                amount: Tokens(1),
            },
        ),
        Step::Settle,
    ];
    let done = replays("a spend of a deposit a reorganization took away", &h);
    assert_eq!(
        done.counts.get("movement Transfer Failed"),
        Some(&1),
        "{done:?}"
    );
}
