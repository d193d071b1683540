//! Histories the launch-heavy simulator (`--launches`) and the pools' price check shrank,
//! replayed from their steps alone (as `regressions.rs`'s): pools after a reorganization,
//! a swap mined again, and a presale purchase built on a sell the pool refused.

mod histories;

use histories::*;
use tokenpad_sim::chain_port::{MidRound, When};
use tokenpad_sim::settler::RoundFaults;
use tokenpad_sim::step::{ChainFault, Fault, Outside, Req, Step, Tokens, Usdc};
use tokenpad_sim::webhooks::Receiver;

/// An alarm of `per_batch` whose round fails the pools' reads.
fn pools_down(per_batch: u8, receiver: Receiver) -> Step {
    Step::Alarm {
        round: RoundFaults {
            per_batch,
            pools_down: true,
            ..RoundFaults::default()
        },
        receiver,
    }
}

/// Seed 71 `--launches --hostile` up to the round that follows a reorganization: a presale
/// launches its token and opens its pool; an outsider's buy moves the price, then a
/// reorganization takes that buy away. `close` is the round that notices it.
fn launched_then_reorganized(close: Step) -> Vec<Step> {
    vec![
        call(10, Req::PutHolder { user: 7 }),
        faulty(13, Req::PutHolder { user: 3 }, Fault::LostBefore),
        Step::Faucet {
            user: 7,
            usdc: Usdc(344_201_438_062),
        },
        call(
            22,
            Req::CreatePresale {
                target: Usdc::whole(2),
                minutes: 437,
                lockup: 20,
                auto: true,
                lock_days: 0,
            },
        ),
        faulty(
            45,
            Req::BuyPresale {
                user: 7,
                presale: 0,
                usdc: Usdc::whole(2),
            },
            Fault::Twice,
        ),
        Step::Settle,
        mine(0, 0b100, 0),
        Step::Outside(Outside::Trade {
            token: 3,
            buy: true,
            usdc: Usdc::whole(87),
            tokens: Tokens(9_234_830_827),
        }),
        mine(0, 0, 0),
        alarm_to(2, Receiver::Down),
        Step::Chain(ChainFault::Reorg {
            depth: 3,
            requeue: false,
        }),
        Step::Wait { ms: 2_946_880 },
        Step::Faucet {
            user: 3,
            usdc: Usdc(82_147),
        },
        close,
    ]
}

/// Seed 71, `--launches --hostile`: the settler never read a pool's price from the chain
/// after a reorganization (the simulated node kept pools by token and was asked by address,
/// so every read failed, and a failed read was not tried again). u3 bought at the price of
/// the outsider's buy the reorganization had taken away; the chain filled it at the real
/// price, the ledger topped it up, and a second reorganization dropped that swap after u3
/// had withdrawn more than was booked. Mined again, its top-up left u3's debt to the pool
/// unpaid: the ledger held 28 tokens more for u3 than the chain.
#[test]
fn a_launched_pool_after_two_reorganizations_and_a_swap_mined_again() {
    let mut h = launched_then_reorganized(alarm_to(1, Receiver::Slow));
    h.extend([
        request(
            179,
            Req::Buy {
                user: 3,
                token: 3,
                usdc: Usdc(115),
                slippage_bps: 396,
            },
            false,
            tokenpad_sim::step::Who::Secret,
            Fault::None,
        ),
        Step::Alarm {
            round: RoundFaults {
                per_batch: 3,
                lose_sends: true,
                reorg: Some(MidRound {
                    depth: 1,
                    requeue: false,
                    mined: 6,
                    at: When::Watch,
                }),
                ..RoundFaults::default()
            },
            receiver: Receiver::Up,
        },
        Step::Settle,
        Step::Chain(ChainFault::Reorg {
            depth: 4,
            requeue: true,
        }),
        call(
            182,
            Req::Withdraw {
                user: 3,
                token: 3,
                to: 1,
                amount: Tokens::whole(34),
            },
        ),
        Step::Settle,
    ]);
    replays("seed 71", &h);
}

/// The same launch, and the round that undoes the reorganization fails the pools' reads
/// (`Relayer::resync_pools`): the next rounds read them, and once settled the ledger prices
/// the pool as the chain does. Before, only the round that rewound read them: the ledger kept
/// the price of the buy the reorganization took away until the pool's next trade.
#[test]
fn a_pool_read_that_fails_after_a_rewind_is_read_again() {
    let mut h = launched_then_reorganized(pools_down(1, Receiver::Slow));
    h.push(Step::Settle);
    replays("pools read again", &h);
}

/// Hostile seed 24: the settler read the pool's state at the head's block after a
/// reorganization, and a reorganization in the same round replaced that block with one
/// holding u7's buy; the buy's event, at that block, read as older than the state, and the
/// ledger kept the price before the buy. The head's block is a checkpoint now: the next
/// round sees it replaced, and reads the pool again.
#[test]
fn a_swap_mined_in_the_block_a_pool_was_read_at_is_followed() {
    let h = [
        call(1, Req::PutHolder { user: 7 }),
        Step::Faucet {
            user: 7,
            usdc: Usdc::whole(327),
        },
        call(
            3,
            Req::CreateToken {
                n: 16,
                supply: Tokens::whole(1_000_000),
            },
        ),
        alarm_to(5, Receiver::Down),
        alarm_reorg(
            3,
            MidRound {
                depth: 4,
                requeue: true,
                mined: 6,
                at: When::Watch,
            },
            Receiver::Up,
        ),
        call(
            26,
            Req::OpenPool {
                token: 0,
                cents: 206,
                amount: Tokens::whole(68_556),
            },
        ),
        alarm_reorg(
            1,
            MidRound {
                depth: 1,
                requeue: false,
                mined: 0,
                at: When::Watch,
            },
            Receiver::Up,
        ),
        mine(0, 0, 0),
        alarm_to(1, Receiver::Slow),
        call(
            132,
            Req::Buy {
                user: 7,
                token: 0,
                usdc: Usdc(39_903_363),
                slippage_bps: 1_151,
            },
        ),
        mine(0b1000, 0b1000, 0),
        mine(0, 0, 1_409),
        mine(0b1010_0000, 0b1_0000, 0),
        alarm(3),
        Step::Chain(ChainFault::Reorg {
            depth: 3,
            requeue: true,
        }),
        mine(0, 0b1, 0),
        Step::Alarm {
            round: RoundFaults {
                crash_after_sign: Some(1),
                per_batch: 1,
                reorg: Some(MidRound {
                    depth: 1,
                    requeue: true,
                    mined: 3,
                    at: When::Watch,
                }),
                ..RoundFaults::default()
            },
            receiver: Receiver::Up,
        },
        Step::Settle,
    ];
    replays("hostile seed 24", &h);
}

/// Hostile seed 45: a reorganization took away a pool's opening and an outsider's sell after
/// it; the opening was mined again, alone. The ledger kept the sell's price (an opening mined
/// again kept the state followed since), where the chain's pool was as the opening left it.
/// Now an opening the reorganization dropped is not open until mined again, and mined again
/// it leaves the pool at the launch's price.
#[test]
fn an_opening_mined_again_alone_leaves_the_pool_at_its_price() {
    let h = [
        call(
            3,
            Req::CreateToken {
                n: 44,
                supply: Tokens::whole(1_000_000),
            },
        ),
        unkeyed(8, Req::PutHolder { user: 5 }),
        Step::Settle,
        call(
            32,
            Req::OpenPool {
                token: 2,
                cents: 54,
                amount: Tokens::whole(151_260),
            },
        ),
        faulty(
            34,
            Req::Distribute {
                token: 2,
                user: 5,
                amount: Tokens(196_789_931_987_718_941_055),
            },
            Fault::LostAfter,
        ),
        alarm_to(2, Receiver::Down),
        Step::Mine {
            revert: 0b1000_0000,
            hold: 0b10,
            older: true,
            lag_s: 0,
        },
        Step::Outside(Outside::Trade {
            token: 2,
            buy: false,
            usdc: Usdc(26_521_480_385),
            tokens: Tokens::whole(110),
        }),
        alarm(3),
        alarm_reorg(
            1,
            MidRound {
                depth: 2,
                requeue: true,
                mined: 0,
                at: When::Watch,
            },
            Receiver::Up,
        ),
        Step::Settle,
    ];
    replays("hostile seed 45", &h);
}

/// Seed 31159, `--hostile --own-usdc`: u4 sells 11 tokens and pays 18.2 USDC of what the
/// sell brings into a presale. The sell waited behind its token's deployment (sent again
/// after a reorganization), and the purchase, which depended on it, went out ahead and
/// reverted for want of the USDC (what the plan leaves for a later round now holds what
/// depends on it: `hold::Holding::queued`). The pool then refused the sell, and the chain the
/// purchase; the presale, short of its target, launched on the purchase's raise, its opening
/// reverted for want of it, and its refund of u4 was parked for an operator, who would have
/// paid u4 USDC it never paid in. Now the refund is refused too, netting with the purchase
/// (`undo::nets`), and what the netting leaves u4 pays u4's debt to the pool first: u4 ends
/// with what the chain says, nothing open.
#[test]
fn a_refund_of_a_purchase_the_chain_refused_nets_with_it() {
    tokenpad_sim::node::simulate_usdc(tokenpad_sim::node::SEPOLIA_USDC);
    let h = [
        call(10, Req::PutHolder { user: 4 }),
        call(
            17,
            Req::CreateToken {
                n: 32,
                supply: Tokens::whole(1_000_000),
            },
        ),
        alarm(4),
        mine(0b100, 0, 0),
        alarm(2),
        call(
            30,
            Req::Distribute {
                token: 1,
                user: 4,
                amount: Tokens::whole(372),
            },
        ),
        call(
            202,
            Req::CreatePresale {
                target: Usdc::whole(26),
                minutes: 292,
                lockup: 19,
                auto: true,
                lock_days: 2,
            },
        ),
        call(281, Req::PutHolder { user: 7 }),
        call(
            287,
            Req::OpenPool {
                token: 3,
                cents: 280,
                amount: Tokens::whole(162_032),
            },
        ),
        Step::Settle,
        Step::Outside(Outside::Trade {
            token: 0,
            buy: true,
            usdc: Usdc(193_997_837),
            tokens: Tokens(8_622_617_933_987_220),
        }),
        faulty(
            324,
            Req::Distribute {
                token: 3,
                user: 4,
                amount: Tokens(29_689_747_317_193_863_224),
            },
            Fault::LostAfter,
        ),
        alarm(3),
        alarm_reorg(
            5,
            MidRound {
                depth: 3,
                requeue: false,
                mined: 2,
                at: When::Watch,
            },
            Receiver::Up,
        ),
        unkeyed(
            342,
            Req::Sell {
                user: 4,
                token: 0,
                amount: Tokens::whole(11),
            },
        ),
        call(
            349,
            Req::BuyPresale {
                user: 4,
                presale: 2,
                usdc: Usdc(18_202_388),
            },
        ),
        Step::Settle,
    ];
    replays("seed 31159", &h);
}

/// Seed 41113, `--launches --hostile`: a presale with a lock of no days launches. A round sends
/// the release of u4's tokens (the head's time had reached its unlock time) and, behind it,
/// his spend of 27 of them. The next block was mined with the chain 4,086 s behind the
/// service, and the simulator dated it before its parent: the locker skipped the release as
/// early, and the spend reverted for want of the tokens ("no overdraft"). A chain's block
/// times never go back, so a release the head's time allows lands (`plan`'s rule), and the
/// finding was the simulator's: it now mines no block before its parent (`Step::Mine`), and
/// the head keeps the time it was mined at while time passes (`Step::Wait`).
#[test]
fn a_release_the_heads_time_allows_lands_before_the_spend_behind_it() {
    let h = vec![
        faulty(12, Req::PutHolder { user: 4 }, Fault::LostBefore),
        call(14, Req::PutHolder { user: 7 }),
        call(
            19,
            Req::CreateToken {
                n: 63,
                supply: Tokens(7_164_753_390_633),
            },
        ),
        Step::Faucet {
            user: 4,
            usdc: Usdc::whole(59),
        },
        call(
            34,
            Req::CreatePresale {
                target: Usdc::whole(12),
                minutes: 359,
                lockup: 22,
                auto: true,
                lock_days: 0,
            },
        ),
        Step::Faucet {
            user: 7,
            usdc: Usdc::whole(13),
        },
        call(
            39,
            Req::CreateToken {
                n: 58,
                supply: MILLION,
            },
        ),
        call(
            41,
            Req::BuyPresale {
                user: 4,
                presale: 2,
                usdc: Usdc::whole(4),
            },
        ),
        Step::Settle,
        unkeyed(
            47,
            Req::BuyPresale {
                user: 7,
                presale: 1,
                usdc: Usdc::whole(7),
            },
        ),
        Step::Wait { ms: 52_892_666 },
        Step::Settle,
        Step::Wait { ms: 8_466 },
        Step::Alarm {
            round: RoundFaults {
                crash_after_sign: Some(1),
                per_batch: 4,
                ..RoundFaults::default()
            },
            receiver: Receiver::Up,
        },
        call(
            73,
            Req::Spend {
                user: 4,
                token: 2,
                amount: Tokens::whole(27),
            },
        ),
        mine(0b10_0000, 0, 0),
        alarm_to(3, Receiver::Down),
        mine(0, 0b10, 4_086),
        mine(0, 0, 0),
    ];
    replays("seed 41113", &h);
}
