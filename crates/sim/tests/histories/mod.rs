//! What the replayed histories (`regressions*.rs`) are written with: steps by name, and the
//! replay that fails with the history printed. (Each test file uses some of them.)
#![allow(dead_code)]

use tokenpad_sim::chain_port::MidRound;
use tokenpad_sim::settler::RoundFaults;
use tokenpad_sim::step::{Fault, Req, Step, Tokens, Who};
use tokenpad_sim::webhooks::Receiver;
use tokenpad_sim::Summary;

/// Request `n`: with its key or not, from the backend or the holder's session, with a fault.
pub fn request(n: u32, req: Req, keyed: bool, who: Who, fault: Fault) -> Step {
    Step::Call {
        n,
        req,
        who,
        keyed,
        fault,
    }
}

/// Request `n` from the backend, with its key.
pub fn call(n: u32, req: Req) -> Step {
    request(n, req, true, Who::Secret, Fault::None)
}

/// The same, without a key.
pub fn unkeyed(n: u32, req: Req) -> Step {
    request(n, req, false, Who::Secret, Fault::None)
}

/// The same, with its key and `fault`.
pub fn faulty(n: u32, req: Req, fault: Fault) -> Step {
    request(n, req, true, Who::Secret, fault)
}

/// The supply every token of these histories was made with (before supplies were drawn).
pub const MILLION: Tokens = Tokens(1_000_000 * 1_000_000_000_000_000_000);

pub fn alarm(per_batch: u8) -> Step {
    alarm_to(per_batch, Receiver::Up)
}

/// An alarm with no fault in its round, the webhook receiver `receiver`.
pub fn alarm_to(per_batch: u8, receiver: Receiver) -> Step {
    Step::Alarm {
        round: RoundFaults {
            per_batch,
            ..RoundFaults::default()
        },
        receiver,
    }
}

pub fn mine(revert: u64, hold: u64, lag_s: u32) -> Step {
    Step::Mine {
        revert,
        hold,
        older: false,
        lag_s,
    }
}

/// Replays `history`; fails with it printed when a step breaks an invariant. What it did.
pub fn replays(name: &str, history: &[Step]) -> Summary {
    let printed: Vec<String> = history
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{i:>4}  {s}"))
        .collect();
    match tokenpad_sim::replay(history) {
        Ok(summary) => summary,
        Err((at, v)) => unreachable!("{name}: step {at} breaks {v}\n{}", printed.join("\n")),
    }
}

/// An alarm whose round the chain reorganizes in (`RoundFaults::reorg`).
pub fn alarm_reorg(per_batch: u8, reorg: MidRound, receiver: Receiver) -> Step {
    Step::Alarm {
        round: RoundFaults {
            per_batch,
            reorg: Some(reorg),
            ..RoundFaults::default()
        },
        receiver,
    }
}
