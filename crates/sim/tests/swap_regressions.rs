//! Settlement's findings in histories with swaps, replayed from their steps alone (as
//! `settlement_regressions.rs`'s): a swap the simulated chain kept counting as sent back
//! after it landed, a reorganization that takes back a swap's top-up, a buy behind a sell
//! whose nonce someone else took, and a transfer of what a buy held back brings.

mod histories;

use histories::*;
use tokenpad_sim::chain_port::{MidRound, When};
use tokenpad_sim::settler::RoundFaults;
use tokenpad_sim::step::{ChainFault, Fault, Outside, Req, Step, Tokens, Usdc};
use tokenpad_sim::webhooks::Receiver;

/// Hostile seed 10396, a finding of the simulator's own bookkeeping, not the ledger's: holder
/// u6's buy (intent 15) reverts by a fault and goes again; its sell (17) is refused by the
/// chain (an outsider moved the price past its bound), so its later buy (18) lacks the USDC
/// the sell was to bring and fails, rightly. The simulated chain had left 15 "sent back by a
/// fault" in USDC after it landed (it cleared the buy's own token alone), judged 18's revert
/// as waiting behind it, and the check then said 18 failed for want of funds behind a
/// movement that landed later. Now a movement that lands clears every token it was open in.
#[test]
fn a_landed_swap_is_not_what_a_later_buy_waited_for() {
    let h = [
        call(
            1,
            Req::CreateToken {
                n: 84,
                supply: Tokens::whole(1_000_000_000),
            },
        ),
        call(
            3,
            Req::CreateToken {
                n: 17,
                supply: Tokens::whole(1_000_000),
            },
        ),
        call(
            4,
            Req::CreateToken {
                n: 67,
                supply: Tokens::whole(1_000_000),
            },
        ),
        call(6, Req::PutHolder { user: 7 }),
        call(
            8,
            Req::CreateToken {
                n: 80,
                supply: Tokens::whole(1_000_000),
            },
        ),
        call(52, Req::PutHolder { user: 4 }),
        Step::Settle,
        call(54, Req::PutHolder { user: 6 }),
        Step::Faucet {
            user: 4,
            usdc: Usdc(290_839),
        },
        alarm(4),
        call(
            61,
            Req::OpenPool {
                token: 0,
                cents: 221,
                amount: Tokens::whole(38_439),
            },
        ),
        mine(0, 0, 0),
        call(
            63,
            Req::Airdrop {
                wallets: 2,
                each: Tokens::whole(293),
            },
        ),
        faulty(
            79,
            Req::OpenPool {
                token: 2,
                cents: 33,
                amount: Tokens(93_642_238_945_550_767_890_107),
            },
            Fault::Twice,
        ),
        Step::Faucet {
            user: 6,
            usdc: Usdc::whole(58),
        },
        call(
            100,
            Req::OpenPool {
                token: 3,
                cents: 115,
                amount: Tokens::whole(49_140),
            },
        ),
        alarm_to(3, Receiver::Slow),
        unkeyed(
            144,
            Req::Distribute {
                token: 1,
                user: 7,
                amount: Tokens::whole(146),
            },
        ),
        mine(0, 0, 0),
        alarm(3),
        mine(0, 0b1_0010, 0),
        Step::Chain(ChainFault::Reorg {
            depth: 1,
            requeue: false,
        }),
        call(
            149,
            Req::Buy {
                user: 6,
                token: 3,
                usdc: Usdc::whole(41),
                slippage_bps: 558,
            },
        ),
        Step::Wait { ms: 682_761 },
        alarm(5),
        Step::Outside(Outside::Trade {
            token: 2,
            buy: true,
            usdc: Usdc::whole(1_000_000),
            tokens: Tokens(164_320_032_693_846_514_220),
        }),
        mine(0b1000_1000, 0, 0),
        call(
            273,
            Req::Distribute {
                token: 2,
                user: 6,
                amount: Tokens::whole(131),
            },
        ),
        alarm(5),
        call(
            517,
            Req::Sell {
                user: 6,
                token: 2,
                amount: Tokens::whole(26),
            },
        ),
        Step::Outside(Outside::Trade {
            token: 2,
            buy: false,
            usdc: Usdc::whole(172),
            tokens: Tokens(92_449_853_116_919_955_284_389),
        }),
        alarm(1),
        call(
            566,
            Req::Buy {
                user: 6,
                token: 0,
                usdc: Usdc::whole(50),
                slippage_bps: 587,
            },
        ),
        Step::Settle,
    ];
    let done = replays("a landed swap is not what a later buy waited for", &h);
    // The first buy landed, the sell and the buy behind it failed (and were undone).
    assert_eq!(
        done.counts.get("movement Swap Confirmed"),
        Some(&1),
        "{done:?}"
    );
    assert_eq!(
        done.counts.get("movement Swap Failed"),
        Some(&2),
        "{done:?}"
    );
}

/// Hostile seed 10412: an outsider drains a pool, then sells tokens back into it; a holder's
/// buy, mined in the next block, is topped up past what it booked (the ledger books the
/// fewest tokens the holder accepted until the receipt says how many came). A reorganization
/// drops both blocks. The rewind undid the outsider's sell first and could not take all of
/// its tokens back from the pool, which had paid the top-up out of them: the pool owed the
/// rest. It then took the top-up back from the holder into the pool, past that debt, and the
/// pool kept it: its reserve ended above the chain's by the top-up. Now a top-up a rewind
/// takes back pays the pool's debts first (`undo::take_back`).
#[test]
fn a_rewound_top_up_pays_what_the_pool_owes_since_the_same_rewind() {
    let h = [
        call(1, Req::PutHolder { user: 3 }),
        call(
            137,
            Req::Airdrop {
                wallets: 3,
                each: Tokens::whole(928),
            },
        ),
        alarm(2),
        Step::Mine {
            revert: 0,
            hold: 0,
            older: true,
            lag_s: 0,
        },
        alarm(5),
        call(
            250,
            Req::OpenPool {
                token: 3,
                cents: 87,
                amount: Tokens(84_291_455_173_874_150_622),
            },
        ),
        Step::Settle,
        Step::Outside(Outside::Trade {
            token: 3,
            buy: true,
            usdc: Usdc::whole(1_000_000),
            tokens: Tokens(872_926_184_550),
        }),
        Step::Faucet {
            user: 3,
            usdc: Usdc::whole(98),
        },
        Step::Settle,
        unkeyed(
            501,
            Req::Buy {
                user: 3,
                token: 3,
                usdc: Usdc::whole(7),
                slippage_bps: 179,
            },
        ),
        Step::Alarm {
            round: RoundFaults {
                crash_after_sign: Some(2),
                per_batch: 4,
                ..RoundFaults::default()
            },
            receiver: Receiver::Up,
        },
        Step::Outside(Outside::Trade {
            token: 3,
            buy: false,
            usdc: Usdc::whole(57),
            tokens: Tokens::whole(149),
        }),
        mine(0b1000_0000, 0b10_1000, 0),
        alarm(5),
        Step::Chain(ChainFault::Reorg {
            depth: 2,
            requeue: false,
        }),
        Step::Settle,
    ];
    replays("a rewound top-up pays what the pool owes", &h);
}

/// Hostile seed 10397: a holder's sell and, at the next nonce, its buy with the USDC the sell
/// brings are sent together; someone else takes the sell's nonce, so the buy runs without it
/// and reverts for want of USDC. The ledger sends both again (the buy behind the sell), as it
/// should. The simulated chain marked a movement whose nonce was taken (or that the node
/// dropped, or a reorganization sent back) open in its own token alone, so it judged the
/// buy's revert a refusal of the chain's own with nothing sent back before it, and the
/// overdraft check failed. Now a movement sent back is open in every token it needs, as
/// after a fault's revert.
#[test]
fn a_buy_behind_a_sell_whose_nonce_was_taken_waits_for_it() {
    let h = [
        faulty(
            13,
            Req::CreateToken {
                n: 81,
                supply: Tokens::whole(1_000_000),
            },
            Fault::LostBefore,
        ),
        call(
            14,
            Req::CreateToken {
                n: 85,
                supply: Tokens::whole(1_000_000),
            },
        ),
        alarm(3),
        mine(0, 0, 0),
        call(22, Req::PutHolder { user: 3 }),
        alarm(1),
        call(
            27,
            Req::OpenPool {
                token: 1,
                cents: 82,
                amount: Tokens::whole(56_660),
            },
        ),
        call(
            101,
            Req::Distribute {
                token: 2,
                user: 3,
                amount: Tokens::whole(73),
            },
        ),
        call(
            142,
            Req::OpenPool {
                token: 2,
                cents: 90,
                amount: Tokens::whole(102_137),
            },
        ),
        Step::Settle,
        Step::Outside(Outside::Trade {
            token: 2,
            buy: false,
            usdc: Usdc(181_402_202),
            tokens: Tokens::whole(125),
        }),
        alarm(4),
        unkeyed(
            186,
            Req::Sell {
                user: 3,
                token: 2,
                amount: Tokens::whole(31),
            },
        ),
        call(
            187,
            Req::Buy {
                user: 3,
                token: 1,
                usdc: Usdc(3_280_105),
                slippage_bps: 1537,
            },
        ),
        alarm_to(4, Receiver::Slow),
        Step::Outside(Outside::TakeNonce),
        Step::Alarm {
            round: RoundFaults {
                crash_after_sign: Some(1),
                per_batch: 4,
                reorg: Some(MidRound {
                    depth: 4,
                    requeue: true,
                    mined: 3,
                    at: When::Scan,
                }),
                ..RoundFaults::default()
            },
            receiver: Receiver::Up,
        },
        Step::Settle,
    ];
    let done = replays("a buy behind a sell whose nonce was taken", &h);
    // Both went again, the sell first. In the end the chain refused the sell for its own
    // reason, and the buy built on it failed with it: both undone (the checks hold that each
    // failed for its own reason, and the ledger equals the chain).
    assert_eq!(
        done.counts.get("movement Swap Failed"),
        Some(&2),
        "{done:?}"
    );
}

/// Hostile seed 11486: a holder's buy of one token reverts by a fault, and while that revert
/// is not final its buy of another token waits behind it (the plan counts what a swap's revert
/// was to bring in USDC too). Its transfer of the second token, made after that buy, did not
/// wait: it went out ahead of the buy that funds it, reverted for want of it, and went again
/// (a transaction and its gas spent on a failure that is ours). Now what depends on a movement
/// held back waits behind it in turn (`hold::Behind`).
#[test]
fn a_transfer_of_what_a_held_buy_brings_waits_behind_the_buy() {
    let h = [
        call(183, Req::PutHolder { user: 4 }),
        Step::Faucet {
            user: 4,
            usdc: Usdc(242_191_282),
        },
        unkeyed(
            280,
            Req::Memecoin {
                supply: Tokens::whole(1_012_485),
                micro: 12_360,
                recipient: Tokens::whole(128),
            },
        ),
        faulty(
            307,
            Req::Memecoin {
                supply: Tokens::whole(1_000_000),
                micro: 16_539,
                recipient: Tokens::whole(620),
            },
            Fault::Twice,
        ),
        Step::Settle,
        unkeyed(
            322,
            Req::Buy {
                user: 4,
                token: 1,
                usdc: Usdc(15_207_617),
                slippage_bps: 1417,
            },
        ),
        alarm(4),
        mine(0b1, 0, 0),
        alarm(2),
        Step::Alarm {
            round: RoundFaults {
                per_batch: 1,
                reorg: Some(MidRound {
                    depth: 2,
                    requeue: true,
                    mined: 0,
                    at: When::Scan,
                }),
                ..RoundFaults::default()
            },
            receiver: Receiver::Up,
        },
        call(
            329,
            Req::Buy {
                user: 4,
                token: 2,
                usdc: Usdc::whole(37),
                slippage_bps: 140,
            },
        ),
        call(
            341,
            Req::Transfer {
                user: 4,
                token: 2,
                to: 3,
                amount: Tokens::whole(9),
            },
        ),
        Step::Settle,
    ];
    let done = replays("a transfer waits behind the held buy that funds it", &h);
    assert_eq!(
        done.counts.get("movement Swap Confirmed"),
        Some(&2),
        "{done:?}"
    );
    // Nothing refused; the replay's overdraft check holds that the transfer never went out
    // ahead of the buy.
    assert!(
        !done.counts.keys().any(|k| k.ends_with("Failed")),
        "{done:?}"
    );
}
