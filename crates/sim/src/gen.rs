//! Drawing a history from a seed: each next step from the seed's generator (ChaCha8) and
//! what the world holds now (holders to act for, a session to act with). The weights make a
//! merchant's busy day: many holders' movements, a few tokens, presales and pools, an alarm
//! and a block every few requests, faults now and then.
//!
//! Amounts span 1 base unit (10^-18 of a token, 10^-6 USDC) to the supply: half of them a few
//! whole units, as clients mostly send, the rest any number of base units, every order of
//! magnitude as likely, and the edges (1 base unit, the supply) as often as any ([`amount`]).

use crate::chain_port::{MidRound, When};
use crate::settler::RoundFaults;
use crate::step::{ChainFault, Fault, Outside, Req, Step, Tokens, Usdc, Who};
use crate::webhooks::Receiver;
use crate::world::World;
use rand::{Rng, RngCore};

/// One token, in base units.
const TOKEN: u128 = 1_000_000_000_000_000_000;
/// One USDC, in base units.
const USDC: u128 = 1_000_000;
/// The supply of most tokens the histories make (`Req::CreateToken`): a million tokens.
const SUPPLY: u128 = 1_000_000 * TOKEN;
/// The most USDC an amount is drawn at: a million.
const MAX_USDC: u128 = 1_000_000 * USDC;

/// An amount from 1 base unit to `max` (`one` base units a whole unit): half the time 1 to
/// `whole` whole units; else whole units and a fraction; else any number of base units, its
/// number of digits drawn first (so 7 base units are as likely as 7 million tokens); else the
/// edges, 1 base unit and `max`.
fn amount(rng: &mut impl RngCore, one: u128, whole: u64, max: u128) -> u128 {
    let whole = u128::from(whole.max(1));
    match rng.random_range(0..20u32) {
        0..=9 => rng.random_range(1..=whole) * one,
        10..=12 => rng.random_range(1..=whole * one),
        13 => 1,
        14 => max,
        _ => {
            let digits = rng.random_range(0..=max.max(1).ilog10());
            let low = 10u128.pow(digits);
            let high = low.saturating_mul(10).saturating_sub(1).min(max);
            rng.random_range(low..=high.max(low))
        }
    }
}

/// A token amount: 1 base unit to the supply, mostly 1 to `whole` tokens.
fn tokens(rng: &mut impl RngCore, whole: u64) -> Tokens {
    Tokens(amount(rng, TOKEN, whole, SUPPLY))
}

/// A USDC amount: 1 base unit to a million, mostly 1 to `whole` USDC.
fn usdc(rng: &mut impl RngCore, whole: u64) -> Usdc {
    Usdc(amount(rng, USDC, whole, MAX_USDC))
}

/// A new token's supply: mostly a million tokens, else from 1 base unit to a billion tokens.
fn supply(rng: &mut impl RngCore) -> Tokens {
    if rng.random_bool(0.7) {
        Tokens(SUPPLY)
    } else {
        Tokens(amount(rng, TOKEN, 10_000_000, 1_000 * SUPPLY))
    }
}

/// A presale's target: mostly 5 to 80 USDC (buys fill it), to the micro-USDC at times, and now
/// and then an edge of what a target may be (2 and 200,000 USDC).
fn target(rng: &mut impl RngCore) -> Usdc {
    match rng.random_range(0..20u32) {
        0 => Usdc(2 * USDC),
        1 => Usdc(200_000 * USDC),
        2..=6 => Usdc(rng.random_range(5 * USDC..=80 * USDC)),
        _ => Usdc(u128::from(rng.random_range(5..80u32)) * USDC),
    }
}

thread_local! {
    /// What this thread draws beyond a usual day: launch-heavy histories ([`draw_launches`])
    /// and small pools with whales ([`draw_whales`]). Settings of the thread, as the chain's
    /// USDC is (`node::simulate_usdc`), so a failing history shrinks and replays as it was
    /// drawn.
    static LAUNCHES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static WHALES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// From now on, this thread draws launch-heavy histories (`--launches`): presales with small
/// targets that buyers fill, bought into with test USDC from faucet mints, while the chain
/// reverts, holds and reorganizes as ever. A launch's pool opening then often waits on a
/// purchase held behind a mint, which the usual day's weights draw rarely (a launch refunded
/// for our own ordering on any chain but Base hid there). Off, the draws are as before.
pub fn draw_launches(on: bool) {
    LAUNCHES.set(on);
}

/// Whether this thread draws launch-heavy histories.
pub fn launches() -> bool {
    LAUNCHES.get()
}

/// From now on, this thread draws histories with small pools and whales (`--whales`): pools
/// opened with a few dollars to a few hundred of tokens, so that a holder's buy takes much of
/// one, and an outside trader who now and then buys with up to thousands of USDC, sells all
/// it holds back, or sends it all to a holder. A whale's buy mined before a holder's booked
/// buy takes more than the ledger left in the pool, and the pool owes the whale the rest; its
/// sale or send carries the claim on (`ops::settle::claims`). The usual weights make that
/// about once in a hundred histories. Off, the draws are as before.
pub fn draw_whales(on: bool) {
    WHALES.set(on);
}

/// Whether this thread draws histories with small pools and whales.
pub fn whales() -> bool {
    WHALES.get()
}

/// A whale's move: a buy of up to some thousands of USDC, a sale of everything it holds, or
/// all it holds sent to a holder (the fourth outside sender is the trader: `World::outside`).
fn whale(rng: &mut impl RngCore) -> Outside {
    let token = rng.random_range(0..4);
    match rng.random_range(0..10u32) {
        0..=5 => Outside::Trade {
            token,
            buy: true,
            usdc: usdc(rng, 5_000),
            tokens: Tokens(SUPPLY),
        },
        6..=8 => Outside::Trade {
            token,
            buy: false,
            usdc: usdc(rng, 5_000),
            tokens: Tokens(u128::MAX),
        },
        _ => Outside::Send {
            from: 3,
            token,
            to: rng.random_range(0..8),
            amount: Tokens(u128::MAX),
        },
    }
}

/// A presale of `target` lasting 30 minutes to `minutes`, launching at its end with
/// probability `auto`.
fn presale(rng: &mut impl RngCore, target: Usdc, minutes: u32, auto: f64) -> Req {
    Req::CreatePresale {
        target,
        minutes: rng.random_range(30..minutes),
        lockup: rng.random_range(13..=28),
        auto: rng.random_bool(auto),
        lock_days: rng.random_range(0..3),
    }
}

/// `user`'s purchase in one of the three newest presales, mostly 1 to `whole` USDC.
fn buy_presale(rng: &mut impl RngCore, user: u8, whole: u64) -> Req {
    Req::BuyPresale {
        user,
        presale: rng.random_range(0..3),
        usdc: usdc(rng, whole),
    }
}

/// A launch-heavy day's request: a presale of a small target, a purchase, a resolve.
fn launch(rng: &mut impl RngCore, user: u8) -> Req {
    match rng.random_range(0..20u32) {
        0 => {
            let target = Usdc(u128::from(rng.random_range(3..30u32)) * USDC);
            presale(rng, target, 600, 0.9)
        }
        1..=17 => buy_presale(rng, user, 12),
        _ => Req::Resolve {
            presale: rng.random_range(0..3),
        },
    }
}

fn req(rng: &mut impl RngCore, world: &World) -> Req {
    let user = rng.random_range(0..8u8);
    let token = rng.random_range(0..4u8);
    let tokens = crate::requests::tokens(&world.node.store).len();
    // Until there is a token, make one (and holders), so histories get going.
    if tokens == 0 && rng.random_bool(0.5) {
        return Req::CreateToken {
            n: rng.random_range(0..100),
            supply: supply(rng),
        };
    }
    // Mostly for holders that exist: a missing one is made first.
    let name = crate::requests::user(user);
    if !world
        .node
        .store
        .holders
        .iter()
        .any(|h| h.user_id.as_str() == name)
        && rng.random_bool(0.85)
    {
        return Req::PutHolder { user };
    }
    if launches() && rng.random_bool(0.4) {
        return launch(rng, user);
    }
    match rng.random_range(0..100u32) {
        0..=9 => Req::PutHolder { user },
        10..=21 => Req::Distribute {
            token,
            user,
            amount: self::tokens(rng, 200),
        },
        22..=29 => Req::Spend {
            user,
            token,
            amount: self::tokens(rng, 60),
        },
        30..=37 => Req::Transfer {
            user,
            token,
            to: rng.random_range(0..8),
            amount: self::tokens(rng, 60),
        },
        38..=41 => Req::Withdraw {
            user,
            token,
            to: rng.random_range(0..4),
            amount: self::tokens(rng, 40),
        },
        42..=44 if tokens < 4 => Req::CreateToken {
            n: rng.random_range(0..100),
            supply: supply(rng),
        },
        45..=47 => {
            let target = target(rng);
            presale(rng, target, 3_000, 0.7)
        }
        48..=55 => buy_presale(rng, user, 120),
        56..=57 => Req::Resolve {
            presale: rng.random_range(0..3),
        },
        // A small pool: 50 to 2,000 tokens at 1 to 20 cents, 50 cents to 400 USDC of them.
        58..=60 if whales() => Req::OpenPool {
            token,
            cents: rng.random_range(1..=20),
            amount: Tokens::whole(rng.random_range(50..=2_000)),
        },
        58..=60 => Req::OpenPool {
            token,
            cents: rng.random_range(1..300),
            amount: if rng.random_bool(0.5) {
                Tokens::whole(rng.random_range(1_000..200_000))
            } else {
                self::tokens(rng, 200_000)
            },
        },
        61..=66 => Req::Buy {
            user,
            token,
            usdc: usdc(rng, 50),
            slippage_bps: rng.random_range(10..2_000),
        },
        67..=70 => Req::Sell {
            user,
            token,
            amount: self::tokens(rng, 500),
        },
        71 => Req::Memecoin {
            supply: if rng.random_bool(0.5) {
                Tokens::whole(rng.random_range(1_000..10_000_000))
            } else {
                self::tokens(rng, 10_000_000)
            },
            micro: rng.random_range(1..100_000),
            // Now and then none (refused: an amount is more than zero).
            recipient: if rng.random_bool(0.05) {
                Tokens(0)
            } else {
                self::tokens(rng, 1_000)
            },
        },
        72 => Req::Airdrop {
            wallets: rng.random_range(1..4),
            each: self::tokens(rng, 1_000),
        },
        73..=76 => Req::Session {
            user,
            limit: rng.random_bool(0.5).then(|| self::tokens(rng, 100)),
        },
        77 => Req::Revoke { user },
        78..=79 => Req::Webhook {
            all: rng.random_bool(0.5),
        },
        80 => Req::DeleteWebhook {
            n: rng.random_range(0..3),
        },
        81 => Req::Ping {
            n: rng.random_range(0..3),
        },
        82..=85 => Req::GetHolder { user },
        86..=88 => Req::History { user },
        89..=90 => Req::Token { token },
        _ => Req::Distribute {
            token,
            user,
            amount: self::tokens(rng, 500),
        },
    }
}

fn fault(rng: &mut impl RngCore) -> Fault {
    match rng.random_range(0..100u32) {
        0..=5 => Fault::LostBefore,
        6..=13 => Fault::LostAfter,
        14..=21 => Fault::Twice,
        _ => Fault::None,
    }
}

fn mask(rng: &mut impl RngCore, p: f64) -> u64 {
    (0..8)
        .filter(|_| rng.random_bool(p))
        .fold(0, |m, i| m | (1 << i))
}

/// The next step of a history, drawn from `rng` for `world` as it stands; `n` numbers
/// requests.
pub fn next(rng: &mut impl RngCore, world: &World, n: &mut u32, lost: &mut Vec<u32>) -> Step {
    // A launch-heavy day funds its buyers: test USDC minted to a holder, now and then.
    if launches() && rng.random_bool(0.08) {
        return Step::Faucet {
            user: rng.random_range(0..8),
            usdc: usdc(rng, 60),
        };
    }
    // A day with whales: one moves now and then, drawn only then (other days draw as before).
    if whales() && rng.random_bool(0.05) {
        return Step::Outside(whale(rng));
    }
    match rng.random_range(0..100u32) {
        0..=54 => {
            *n += 1;
            let r = req(rng, world);
            let user = crate::requests::holder_of(&r);
            let has_session =
                user.is_some_and(|u| world.node.tokens.contains_key(&crate::requests::user(u)));
            let who = if has_session && rng.random_bool(0.5) {
                Who::Session
            } else {
                Who::Secret
            };
            let keyed = rng.random_bool(0.85);
            let fault = if keyed { fault(rng) } else { Fault::None };
            if keyed && matches!(fault, Fault::LostBefore | Fault::LostAfter) {
                lost.push(*n);
            }
            Step::Call {
                n: *n,
                req: r,
                who,
                keyed,
                fault,
            }
        }
        55..=59 if !lost.is_empty() => {
            let i = rng.random_range(0..lost.len());
            Step::Retry {
                n: lost.swap_remove(i),
            }
        }
        55..=72 => Step::Alarm {
            round: RoundFaults {
                crash_after_sign: rng.random_bool(0.08).then(|| rng.random_range(0..3)),
                lose_sends: rng.random_bool(0.06),
                node_down: rng.random_bool(0.04),
                per_batch: rng.random_range(1..6),
                // Drawn last, and only in hostile worlds: other worlds draw what they drew.
                reorg: (world.hostile && rng.random_bool(0.1)).then(|| MidRound {
                    depth: rng.random_range(1..=4),
                    requeue: rng.random_bool(0.5),
                    mined: rng.random_range(0..=6),
                    at: if rng.random_bool(0.5) {
                        When::Watch
                    } else {
                        When::Scan
                    },
                }),
                // Launch-heavy hostile worlds only, drawn after all else.
                pools_down: launches() && world.hostile && rng.random_bool(0.1),
            },
            receiver: match rng.random_range(0..10u32) {
                0 => Receiver::Down,
                1 => Receiver::Slow,
                _ => Receiver::Up,
            },
        },
        73..=84 => Step::Mine {
            revert: mask(rng, 0.08),
            hold: mask(rng, 0.05),
            older: rng.random_bool(0.2),
            lag_s: if rng.random_bool(0.2) {
                rng.random_range(1..7_200)
            } else {
                0
            },
        },
        85..=87 => match rng.random_range(0..10u32) {
            0..=3 => Step::Drop {
                mask: mask(rng, 0.2),
            },
            4..=5 => Step::Chain(ChainFault::HoldForever {
                mask: mask(rng, 0.2),
            }),
            6 => Step::Outside(Outside::TakeNonce),
            7 => Step::Chain(ChainFault::Reprice {
                percent: if rng.random_bool(0.5) {
                    100
                } else {
                    rng.random_range(80..=200)
                },
            }),
            _ if world.hostile => Step::Chain(ChainFault::Reorg {
                depth: rng.random_range(1..=4),
                requeue: rng.random_bool(0.5),
            }),
            _ => Step::Drop {
                mask: mask(rng, 0.2),
            },
        },
        88..=91 => Step::Wait {
            ms: match rng.random_range(0..10u32) {
                0 => rng.random_range(3_600_000..8 * 86_400_000),
                1..=3 => rng.random_range(60_000..3_600_000),
                _ => rng.random_range(100..10_000),
            },
        },
        92..=93 => Step::Outside(if rng.random_bool(0.6) {
            Outside::Trade {
                token: rng.random_range(0..4),
                buy: rng.random_bool(0.6),
                usdc: usdc(rng, 200),
                tokens: tokens(rng, 200),
            }
        } else {
            Outside::Send {
                from: rng.random_range(0..4),
                token: rng.random_range(0..4),
                to: rng.random_range(0..8),
                amount: tokens(rng, 30),
            }
        }),
        94..=96 => Step::Faucet {
            user: rng.random_range(0..8),
            usdc: usdc(rng, 500),
        },
        _ => Step::Settle,
    }
}
