//! A pool's debt to an outside trader that goes with the trader's tokens
//! (`ops::settle::claims`), and a pool's debt of a holder's top-up, replayed from their steps
//! alone (as `swap_regressions.rs`'s).

mod histories;

use histories::*;
use tokenpad_sim::chain_port::{MidRound, When};
use tokenpad_sim::settler::RoundFaults;
use tokenpad_sim::step::{ChainFault, Fault, Outside, Req, Step, Tokens, Usdc};
use tokenpad_sim::webhooks::Receiver;

fn trade(buy: bool, usdc: Usdc, tokens: Tokens) -> Step {
    trade_in(3, buy, usdc, tokens)
}

fn trade_in(token: u8, buy: bool, usdc: Usdc, tokens: Tokens) -> Step {
    Step::Outside(Outside::Trade {
        token,
        buy,
        usdc,
        tokens,
    })
}

/// Hostile seed 23461 (`--steps 1000`): a pool opened with almost no tokens. An outsider
/// buys; u0's buy is booked; the outsider's second buy, mined first, takes more tokens than
/// the ledger had left in the pool (the rest was booked to u0), so the pool owes it. The
/// outsider then sells all it has back into the pool, and u0's buy is mined after all. The
/// ledger moved only what it knew the outsider had, and the refilled pool paid its debt to
/// the outsider, which no longer had those tokens on chain: the ledger's pool ended
/// 7,848,565 base units short of the chain's. Now the claim goes with what the outsider sent,
/// and a sale back into the pool that owes it settles the debt.
#[test]
fn a_trader_selling_back_what_a_pool_owed_it_leaves_the_pool_as_the_chain_has_it() {
    let h = [
        call(
            2,
            Req::CreateToken {
                n: 28,
                supply: Tokens(77),
            },
        ),
        call(
            4,
            Req::CreateToken {
                n: 57,
                supply: Tokens::whole(6_323_846),
            },
        ),
        call(
            5,
            Req::CreateToken {
                n: 71,
                supply: Tokens::whole(9_947_876),
            },
        ),
        faulty(
            7,
            Req::CreateToken {
                n: 66,
                supply: Tokens::whole(1_000_000),
            },
            Fault::LostBefore,
        ),
        faulty(9, Req::PutHolder { user: 3 }, Fault::LostBefore),
        alarm(5),
        mine(0, 0, 0),
        alarm_to(4, Receiver::Down),
        unkeyed(
            307,
            Req::Distribute {
                token: 3,
                user: 3,
                amount: Tokens::whole(199),
            },
        ),
        call(309, Req::PutHolder { user: 0 }),
        call(
            343,
            Req::OpenPool {
                token: 3,
                cents: 32,
                amount: Tokens(49_579_287_276_792),
            },
        ),
        alarm_to(1, Receiver::Slow),
        mine(0b100_0000, 0b100_0000, 0),
        trade(false, Usdc::whole(108), Tokens(154)),
        alarm(4),
        call(
            458,
            Req::Sell {
                user: 3,
                token: 3,
                amount: Tokens(397_097_573),
            },
        ),
        Step::Settle,
        Step::Faucet {
            user: 0,
            usdc: Usdc(3_445_526),
        },
        trade(true, Usdc(77_672_166), Tokens::whole(2)),
        faulty(
            521,
            Req::Buy {
                user: 0,
                token: 3,
                usdc: Usdc(100_341),
                slippage_bps: 915,
            },
            Fault::LostBefore,
        ),
        trade(false, Usdc(54_421_023_345), Tokens::whole(184)),
        Step::Settle,
    ];
    let done = replays("a trader selling back what a pool owed it", &h);
    assert_eq!(
        done.counts.get("movement Swap Confirmed"),
        Some(&2),
        "{done:?}"
    );
}

/// Hostile seed 55 (`--whales`, `--steps 1000`): a pool of 1,259 tokens at 5 cents; a whale
/// buys 4,115 USDC of it (98 % of its tokens); u6 buys 7.84 USDC worth, booked at the whale's
/// price (0.49 tokens). The whale sells everything back before u6's buy is mined, so the buy
/// gets 138 tokens: the pool tops u6 up with the 72 the ledger had left in it and owes it the
/// other 66.5 (`market::follow`). Then the chain drops the last three blocks (the sale and the
/// buy) and mines the buy again at the whale's price: 0.51 tokens. Undoing the top-up took
/// all of it back from u6 (72 there, 66.5 owed); the pool's debt to u6 paid the first 66.5
/// back to u6, and u6 ended holding 66.5 tokens the chain never gave it. Now the pool's debt
/// of a top-up the chain removed is forgiven, and only what the pool paid is taken back.
#[test]
fn a_top_up_the_pool_owed_is_forgiven_when_its_swap_is_reorganized_away() {
    let h = [
        call(
            4,
            Req::CreateToken {
                n: 13,
                supply: MILLION,
            },
        ),
        call(18, Req::PutHolder { user: 6 }),
        Step::Settle,
        call(
            99,
            Req::OpenPool {
                token: 2,
                cents: 5,
                amount: Tokens::whole(1_259),
            },
        ),
        alarm(4),
        mine(0b100_0000, 0, 56),
        trade_in(2, true, Usdc(4_115_903_275), MILLION),
        Step::Faucet {
            user: 6,
            usdc: Usdc(435_319_481),
        },
        trade_in(0, false, Usdc::whole(74), Tokens::whole(53)),
        Step::Settle,
        mine(0, 0, 0),
        mine(0b1_0000, 0, 0),
        faulty(
            245,
            Req::Buy {
                user: 6,
                token: 2,
                usdc: Usdc(7_839_875),
                slippage_bps: 468,
            },
            Fault::Twice,
        ),
        alarm(1),
        trade_in(2, false, Usdc(3_745_262_832), Tokens(u128::MAX)),
        mine(0, 0, 0),
        Step::Alarm {
            round: RoundFaults {
                crash_after_sign: Some(1),
                per_batch: 3,
                reorg: Some(MidRound {
                    depth: 3,
                    requeue: false,
                    mined: 2,
                    at: When::Scan,
                }),
                ..RoundFaults::default()
            },
            receiver: Receiver::Up,
        },
        Step::Settle,
    ];
    let done = replays("a top-up the pool owed, reorganized away", &h);
    assert_eq!(
        done.counts.get("debt: a pool owes a holder (a top-up)"),
        Some(&1),
        "{done:?}"
    );
    assert_eq!(done.counts.get("reorg undid Swap"), Some(&1), "{done:?}");
}

/// Hostile seed 392 (`--whales`, `--steps 1000`): a whale buys most of a small pool; u0's sell
/// is booked against the pool's USDC. The whale sells everything back, taking more USDC than
/// the ledger left in the pool (the pool owes the rest out of the supply), then buys with 74
/// base units, which pay 74 of that debt. The chain drops both trades. The rewind of the buy
/// found the pool's 74 paid on and had it owe them anew, and the rewind of the sale then gave
/// the pool the 74 its debt had been paid as well: the pool held them twice and owed them.
/// Now what an arrival paid of a debt is owed again when its log goes.
#[test]
fn a_removed_arrival_that_paid_a_pool_debt_owes_it_again() {
    let whale = |buy: bool, usdc: Usdc, tokens: Tokens| trade_in(0, buy, usdc, tokens);
    let h = [
        unkeyed(13, Req::PutHolder { user: 0 }),
        call(
            20,
            Req::CreateToken {
                n: 78,
                supply: MILLION,
            },
        ),
        alarm(1),
        mine(0, 0, 0),
        alarm(3),
        call(
            26,
            Req::OpenPool {
                token: 0,
                cents: 20,
                amount: Tokens::whole(770),
            },
        ),
        alarm(1),
        call(
            326,
            Req::Distribute {
                token: 0,
                user: 0,
                amount: Tokens::whole(399),
            },
        ),
        mine(0b100_0100, 0, 0),
        whale(true, Usdc::whole(2_959), MILLION),
        Step::Settle,
        whale(false, Usdc::whole(3_669), Tokens(u128::MAX)),
        whale(false, Usdc(74), Tokens(u128::MAX)),
        call(
            348,
            Req::Sell {
                user: 0,
                token: 0,
                amount: Tokens::whole(61),
            },
        ),
        alarm_to(5, Receiver::Slow),
        alarm_reorg(
            1,
            MidRound {
                depth: 3,
                requeue: false,
                mined: 6,
                at: When::Watch,
            },
            Receiver::Up,
        ),
        Step::Settle,
    ];
    let done = replays("a removed arrival that paid a pool's debt", &h);
    assert_eq!(
        done.counts
            .get("debt: a pool owes the mint (a Transfer log)"),
        Some(&1),
        "{done:?}"
    );
}

/// Hostile seed 983 (`--whales`, `--steps 1000`): the whale buys 1,742 USDC of a pool, sells
/// everything back (5,166 USDC out) and buys 3,779 more; u2's sell is booked against most of
/// the pool's USDC. A reorganization removes the three trades and mines them again. Undoing
/// the last buy found the pool short and had it owe the rest; undoing the sale gave the pool
/// its 5,166 back without paying that debt, and the first buy mined again paid it instead of
/// the pool: the pool ended 1,542.9 USDC above the chain's, owing as much. What a rewind
/// gives back to a side now pays its debts first.
#[test]
fn what_a_rewind_gives_back_to_a_pool_pays_its_debt_first() {
    let whale = |buy: bool, usdc: Usdc, tokens: Tokens| trade_in(0, buy, usdc, tokens);
    let h = [
        faulty(
            1,
            Req::CreateToken {
                n: 38,
                supply: MILLION,
            },
            Fault::Twice,
        ),
        alarm(3),
        mine(0, 0, 0),
        call(9, Req::PutHolder { user: 2 }),
        alarm(5),
        call(
            310,
            Req::OpenPool {
                token: 3,
                cents: 5,
                amount: Tokens::whole(1_995),
            },
        ),
        Step::Settle,
        whale(false, Usdc::whole(3_440), Tokens(u128::MAX)),
        Step::Alarm {
            round: RoundFaults {
                crash_after_sign: Some(2),
                per_batch: 2,
                ..RoundFaults::default()
            },
            receiver: Receiver::Slow,
        },
        whale(true, Usdc::whole(1_742), MILLION),
        call(
            358,
            Req::Distribute {
                token: 0,
                user: 2,
                amount: Tokens::whole(352),
            },
        ),
        mine(0b10, 0, 5_591),
        whale(false, Usdc::whole(4_755), Tokens(u128::MAX)),
        whale(false, Usdc::whole(3_779), Tokens(u128::MAX)),
        alarm(4),
        mine(0, 0, 0),
        call(
            367,
            Req::Sell {
                user: 2,
                token: 0,
                amount: Tokens::whole(322),
            },
        ),
        Step::Chain(ChainFault::Reorg {
            depth: 4,
            requeue: true,
        }),
        Step::Settle,
    ];
    let done = replays("a rewind's give-back to a pool that owes", &h);
    assert_eq!(
        done.counts.get("reorg undid Transfer"),
        Some(&1),
        "{done:?}"
    );
}
