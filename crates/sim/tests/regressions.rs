//! Histories the simulator once failed, as it shrank them, replayed on every `cargo test`:
//! they run from their steps alone, so they keep testing the same thing when the generator
//! changes and the seeds that found them draw other histories. (`--ci` also runs those seeds,
//! `REGRESSION_SEEDS`, in full.)

mod histories;

use histories::*;
use tokenpad_sim::step::{ChainFault, Fault, Outside, Req, Step, Tokens, Usdc, Who};
use tokenpad_sim::webhooks::Receiver;

/// Seed 2055, `--steps 600`: u4's buy and its sell of 420 of what it bought both revert (the
/// buy first); the ledger ended 420 tokens above the chain.
#[test]
fn a_refused_buy_then_a_refused_sell_of_what_it_bought() {
    let h = [
        call(2, Req::PutHolder { user: 2 }),
        call(
            3,
            Req::CreateToken {
                n: 96,
                supply: MILLION,
            },
        ),
        unkeyed(
            4,
            Req::CreateToken {
                n: 43,
                supply: MILLION,
            },
        ),
        faulty(8, Req::PutHolder { user: 1 }, Fault::LostAfter),
        call(
            9,
            Req::CreateToken {
                n: 38,
                supply: MILLION,
            },
        ),
        call(15, Req::PutHolder { user: 4 }),
        Step::Faucet {
            user: 1,
            usdc: Usdc::whole(367),
        },
        call(
            39,
            Req::Memecoin {
                supply: Tokens::whole(363_424),
                micro: 4_490,
                recipient: Tokens::whole(958),
            },
        ),
        Step::Settle,
        call(
            173,
            Req::Buy {
                user: 1,
                token: 3,
                usdc: Usdc::whole(35),
                slippage_bps: 1_566,
            },
        ),
        Step::Faucet {
            user: 4,
            usdc: Usdc::whole(209),
        },
        call(296, Req::PutHolder { user: 7 }),
        call(
            306,
            Req::Session {
                user: 1,
                limit: None,
            },
        ),
        alarm(3),
        Step::Faucet {
            user: 7,
            usdc: Usdc::whole(411),
        },
        unkeyed(
            311,
            Req::Distribute {
                token: 2,
                user: 2,
                amount: Tokens::whole(405),
            },
        ),
        mine(0b1000, 0b1000, 0),
        request(
            321,
            Req::Transfer {
                user: 1,
                token: 3,
                to: 0,
                amount: Tokens::whole(59),
            },
            true,
            Who::Session,
            Fault::None,
        ),
        call(
            322,
            Req::Buy {
                user: 4,
                token: 3,
                usdc: Usdc::whole(33),
                slippage_bps: 1_501,
            },
        ),
        alarm(3),
        call(
            327,
            Req::Sell {
                user: 4,
                token: 3,
                amount: Tokens::whole(420),
            },
        ),
        mine(0b1000_1000, 0, 111),
        Step::Settle,
    ];
    replays("seed 2055's history", &h);
}

/// Seed 4045, `--steps 600`: an outside trader's sell, mined first, makes u3's sell revert;
/// the ledger's pool ended above the chain's by the USDC it could not take from the pool
/// when it followed the outside sell.
#[test]
fn an_outside_sell_mined_before_a_refused_sell() {
    let h = [
        call(
            1,
            Req::CreateToken {
                n: 84,
                supply: MILLION,
            },
        ),
        call(7, Req::PutHolder { user: 0 }),
        unkeyed(
            8,
            Req::CreateToken {
                n: 57,
                supply: MILLION,
            },
        ),
        Step::Faucet {
            user: 0,
            usdc: Usdc::whole(194),
        },
        call(67, Req::PutHolder { user: 3 }),
        Step::Settle,
        faulty(
            80,
            Req::OpenPool {
                token: 1,
                cents: 152,
                amount: Tokens::whole(112_437),
            },
            Fault::LostBefore,
        ),
        Step::Retry { n: 80 },
        alarm(2),
        call(
            105,
            Req::Distribute {
                token: 1,
                user: 3,
                amount: Tokens::whole(56),
            },
        ),
        mine(0, 0, 763),
        alarm(1),
        call(
            133,
            Req::Buy {
                user: 0,
                token: 1,
                usdc: Usdc::whole(31),
                slippage_bps: 667,
            },
        ),
        Step::Outside(Outside::Trade {
            token: 1,
            buy: true,
            usdc: Usdc::whole(41),
            tokens: Tokens::whole(41),
        }),
        Step::Settle,
        faulty(
            169,
            Req::Sell {
                user: 3,
                token: 1,
                amount: Tokens::whole(38),
            },
            Fault::Twice,
        ),
        Step::Outside(Outside::Trade {
            token: 1,
            buy: false,
            usdc: Usdc::whole(85),
            tokens: Tokens::whole(85),
        }),
        Step::Settle,
    ];
    replays("seed 4045's history", &h);
}

/// Seed 213, `--hostile`: u6's buy reverted for want of the test USDC an older mint brings,
/// the mint reverted by a fault; only an older open movement of the buy's own token counted,
/// so the buy was refused (an on-chain overdraft the ledger had sent).
#[test]
fn a_buy_behind_the_reverted_mint_that_funds_it() {
    let h = [
        call(
            108,
            Req::Airdrop {
                wallets: 1,
                each: Tokens::whole(339),
            },
        ),
        Step::Settle,
        call(137, Req::PutHolder { user: 6 }),
        faulty(
            140,
            Req::OpenPool {
                token: 2,
                cents: 2,
                amount: Tokens(84_333_748_414_765_656_721_419),
            },
            Fault::LostBefore,
        ),
        alarm(1),
        mine(0, 0, 0),
        Step::Outside(Outside::TakeNonce),
        Step::Faucet {
            user: 6,
            usdc: Usdc::whole(1_000_000),
        },
        alarm(2),
        faulty(
            185,
            Req::Buy {
                user: 6,
                token: 1,
                usdc: Usdc::whole(13),
                slippage_bps: 722,
            },
            Fault::LostBefore,
        ),
        alarm(3),
        mine(0b1000, 0, 367),
        Step::Settle,
    ];
    replays("seed 213's history", &h);
}

/// Seed 435, `--hostile`: u0's sell mined, then a reorganization dropped its block and it was
/// mined again; the ledger ended with 62 units of USDC the chain did not give.
#[test]
fn a_sell_mined_again_after_a_reorganization() {
    let h = [
        faulty(
            1,
            Req::CreateToken {
                n: 51,
                supply: Tokens(524),
            },
            Fault::LostAfter,
        ),
        faulty(
            2,
            Req::CreateToken {
                n: 85,
                supply: MILLION,
            },
            Fault::LostBefore,
        ),
        call(
            3,
            Req::CreateToken {
                n: 11,
                supply: MILLION,
            },
        ),
        call(
            7,
            Req::CreateToken {
                n: 63,
                supply: MILLION,
            },
        ),
        unkeyed(11, Req::PutHolder { user: 0 }),
        Step::Settle,
        call(
            45,
            Req::OpenPool {
                token: 3,
                cents: 2,
                amount: Tokens::whole(123_733),
            },
        ),
        call(
            94,
            Req::Distribute {
                token: 3,
                user: 0,
                amount: Tokens::whole(168),
            },
        ),
        alarm(4),
        mine(0, 0, 0),
        Step::Outside(Outside::Trade {
            token: 3,
            buy: false,
            usdc: Usdc::whole(177),
            tokens: Tokens::whole(94),
        }),
        Step::Settle,
        faulty(
            172,
            Req::Sell {
                user: 0,
                token: 3,
                amount: Tokens(2_758_932_356_103_342),
            },
            Fault::LostAfter,
        ),
        Step::Chain(ChainFault::Reorg {
            depth: 2,
            requeue: true,
        }),
        Step::Settle,
    ];
    replays("seed 435's history", &h);
}

/// Seed 298, `--hostile`: u7 buys and passes 7 of what the buy brings on; dropped and
/// reverted by faults, both go again, and an outside trader's buy, mined first, moves the
/// market past the buy's bound: the chain refuses the buy, and then the transfer built on it
/// for want of the tokens. Both refused, the ledger nets them (its debt); the overdraft check
/// once counted the second refusal as the ledger moving what the chain does not hold.
#[test]
fn a_transfer_built_on_a_buy_the_chain_refused() {
    let h = [
        call(
            2,
            Req::CreateToken {
                n: 0,
                supply: MILLION,
            },
        ),
        alarm_to(3, Receiver::Down),
        mine(0, 0, 0),
        alarm_to(4, Receiver::Down),
        call(7, Req::PutHolder { user: 7 }),
        Step::Faucet {
            user: 7,
            usdc: Usdc(231_348_520),
        },
        call(
            104,
            Req::OpenPool {
                token: 2,
                cents: 20,
                amount: Tokens::whole(166_723),
            },
        ),
        Step::Settle,
        faulty(
            172,
            Req::Buy {
                user: 7,
                token: 2,
                usdc: Usdc::whole(39),
                slippage_bps: 102,
            },
            Fault::Twice,
        ),
        faulty(
            174,
            Req::Spend {
                user: 7,
                token: 2,
                amount: Tokens::whole(7),
            },
            Fault::LostAfter,
        ),
        alarm(5),
        Step::Drop { mask: 0b110 },
        mine(0b11, 0, 0),
        Step::Outside(Outside::Trade {
            token: 2,
            buy: true,
            usdc: Usdc::whole(182),
            tokens: Tokens::whole(64),
        }),
        Step::Settle,
    ];
    replays("seed 298's history", &h);
}
