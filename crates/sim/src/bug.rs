//! Bugs the simulator can plant in the service it runs, to show that its checks find them:
//! a checker that never fails proves nothing. `--plant NAME` runs the seeds with one; the
//! tests (`tests/planted.rs`) require each to be found within the CI seeds.

use std::fmt;
use tokenpad_core::serve::Plant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {
    /// Settlement signs and stores a batch but forgets to mark its intents sent (they stay
    /// queued, as if `settle::signed` did not set `Submitted`): the next round sends them
    /// again.
    ForgetsToMarkSent,
    /// A successful spend's transaction also credits one base unit to the first nonzero
    /// balance in the ledger, with no matching debit: an unbalanced write.
    UnbalancedWrite,
    /// Settlement signs every holder's transfer with the same nonce (its holder's first), as
    /// if `Intent::auth_nonce` were not kept per movement.
    SharesAuthNonces,
    /// The pipeline skips the replay of a kept answer: a retry under the same key applies
    /// again (`serve::Plant::ReplayAppliesTwice`, planted in the code that ships).
    ReplayAppliesTwice,
    /// The pipeline queues follow-ups after the operation's transaction, not in it: an
    /// object that stops in between loses them (`serve::Plant::FollowupAfterCommit`).
    FollowupAfterCommit,
    /// Settlement sends each batch with a gas limit below the chain's estimate, never more
    /// after it ran out (as fixed limits measured once do): it runs out of gas every time.
    GasLimitTooLow,
    /// Settlement reads a receipt that ran out of gas as an ordinary revert (reporting less
    /// gas used than its limit), so the ledger refuses movements the chain never refused.
    OutOfGasAsRefusal,
}

impl Bug {
    pub const ALL: [Bug; 7] = [
        Bug::ForgetsToMarkSent,
        Bug::UnbalancedWrite,
        Bug::SharesAuthNonces,
        Bug::ReplayAppliesTwice,
        Bug::FollowupAfterCommit,
        Bug::GasLimitTooLow,
        Bug::OutOfGasAsRefusal,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Bug::ForgetsToMarkSent => "forgets-to-mark-sent",
            Bug::UnbalancedWrite => "unbalanced-write",
            Bug::SharesAuthNonces => "shares-auth-nonces",
            Bug::ReplayAppliesTwice => "replay-applies-twice",
            Bug::FollowupAfterCommit => "followup-after-commit",
            Bug::GasLimitTooLow => "gas-limit-too-low",
            Bug::OutOfGasAsRefusal => "out-of-gas-as-refusal",
        }
    }

    /// The pipeline's bug this is, when it is one (`serve::Plant`).
    pub fn plant(self) -> Option<Plant> {
        match self {
            Bug::ReplayAppliesTwice => Some(Plant::ReplayAppliesTwice),
            Bug::FollowupAfterCommit => Some(Plant::FollowupAfterCommit),
            _ => None,
        }
    }

    pub fn parse(name: &str) -> Option<Bug> {
        Bug::ALL.into_iter().find(|b| b.name() == name)
    }
}

impl fmt::Display for Bug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
