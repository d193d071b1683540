//! A pool's debt to an outside trader that goes with the trader's tokens
//! (`ops::settle::claims`), replayed from its steps alone (as `swap_regressions.rs`'s).

mod histories;

use histories::*;
use tokenpad_sim::step::{Fault, Outside, Req, Step, Tokens, Usdc};
use tokenpad_sim::webhooks::Receiver;

fn trade(buy: bool, usdc: Usdc, tokens: Tokens) -> Step {
    Step::Outside(Outside::Trade {
        token: 3,
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
