//! What a nonce someone else takes leaves behind, replayed from its steps alone (as
//! `launch_regressions.rs`'s).

mod histories;

use histories::*;
use tokenpad_sim::chain_port::{MidRound, When};
use tokenpad_sim::settler::RoundFaults;
use tokenpad_sim::step::{ChainFault, Fault, Outside, Req, Step, Tokens, Usdc};
use tokenpad_sim::webhooks::Receiver;

fn alarm_crash(per_batch: u8, crash_after_sign: u8, reorg: Option<MidRound>) -> Step {
    Step::Alarm {
        round: RoundFaults {
            crash_after_sign: Some(crash_after_sign),
            per_batch,
            reorg,
            ..RoundFaults::default()
        },
        receiver: Receiver::Up,
    }
}

/// Hostile seed 45967 (`--steps 1000 --launches`), a finding of the simulated chain's
/// bookkeeping, not the ledger's. A presale's locks went out at one nonce and their releases,
/// due by then, at the next; the node dropped the locks' transaction and someone else took
/// its nonce. The locks went again after the releases, so the releases were mined first and
/// skipped (no such lock yet), and u7's transfer of what its release was to bring reverted
/// for want of it. The ledger sent both again, as it should; the simulated chain had judged
/// the transfer's revert the chain's own ("no overdraft"), as a skipped release did not count
/// as sent back. Now a release skipped while an older movement of its token is sent back
/// counts so (`chain::exec`), and what spends what it brings is behind it.
#[test]
fn a_release_skipped_behind_a_lock_whose_nonce_was_taken_is_sent_again() {
    let h = [
        call(1, Req::PutHolder { user: 2 }),
        call(
            2,
            Req::CreateToken {
                n: 99,
                supply: Tokens::whole(1_000_000),
            },
        ),
        Step::Faucet {
            user: 2,
            usdc: Usdc::whole(214),
        },
        call(10, Req::PutHolder { user: 7 }),
        unkeyed(
            14,
            Req::Airdrop {
                wallets: 2,
                each: Tokens::whole(183),
            },
        ),
        call(
            37,
            Req::CreatePresale {
                target: Usdc(46_033_302),
                minutes: 910,
                lockup: 22,
                auto: true,
                lock_days: 2,
            },
        ),
        alarm_crash(
            5,
            2,
            Some(MidRound {
                depth: 1,
                requeue: true,
                mined: 1,
                at: When::Watch,
            }),
        ),
        Step::Faucet {
            user: 7,
            usdc: Usdc::whole(25),
        },
        Step::Wait { ms: 8_769 },
        buy_presale(46, 2, 2, Usdc::whole(8)),
        buy_presale(51, 2, 0, Usdc::whole(8)),
        buy_presale(53, 7, 2, Usdc(11_292_973)),
        Step::Chain(ChainFault::HoldForever { mask: 1 }),
        call(
            74,
            Req::Memecoin {
                supply: Tokens(8_950_417_609_035_870_951_317_863),
                micro: 1_266,
                recipient: Tokens(1),
            },
        ),
        alarm_to(2, Receiver::Down),
        buy_presale(84, 2, 1, Usdc(7_680_891)),
        mine(0, 0b100, 0),
        alarm_crash(4, 1, None),
        Step::Wait { ms: 456_140_028 },
        Step::Settle,
        Step::Wait { ms: 307_739_713 },
        alarm_to(5, Receiver::Down),
        Step::Drop { mask: 0b1000_0101 },
        mine(0b100, 0, 0),
        alarm(5),
        Step::Wait { ms: 7_601 },
        Step::Outside(Outside::TakeNonce),
        faulty(
            164,
            Req::Transfer {
                user: 7,
                token: 3,
                to: 0,
                amount: Tokens(73_107_493_252_803_356_306),
            },
            Fault::Twice,
        ),
        alarm(1),
        mine(0, 0, 0),
        Step::Settle,
    ];
    let done = replays("a release skipped behind a lock whose nonce was taken", &h);
    // Both releases and every transfer confirmed, u7's among them: none refused.
    let count = |k: &str| done.counts.get(k).copied().unwrap_or(0);
    assert_eq!(count("relayer tx Abandoned"), 1, "{done:?}");
    assert_eq!(count("movement Release Confirmed"), 2, "{done:?}");
    assert_eq!(count("movement Transfer Confirmed"), 9, "{done:?}");
    assert_eq!(count("movement Transfer Failed"), 0, "{done:?}");
}

fn buy_presale(n: u32, user: u8, presale: u8, usdc: Usdc) -> Step {
    call(
        n,
        Req::BuyPresale {
            user,
            presale,
            usdc,
        },
    )
}
