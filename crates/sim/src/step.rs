//! A history's steps. Each is all a step needs to run again (no randomness is drawn while
//! running), and names what it acts on by index (the 2nd token, holder `u3`), resolved when
//! it runs, so a history with steps taken out still runs: that is how a failing history is
//! shrunk. `Display` prints a step as one line of the history.

use crate::settler::RoundFaults;
use crate::webhooks::Receiver;
use std::fmt;
use tokenpad_core::model::amount::{format_units, TOKEN_DECIMALS, USDC_DECIMALS};

/// An amount of a token (18 decimals), in base units: 1 is 10^-18 of a token. Printed as its
/// exact decimal, as requests send it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Tokens(pub u128);

/// An amount of USDC (6 decimals), in base units: 1 is 10^-6 USDC.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Usdc(pub u128);

impl Tokens {
    /// `n` whole tokens.
    pub fn whole(n: u64) -> Tokens {
        Tokens(u128::from(n) * 10u128.pow(u32::from(TOKEN_DECIMALS)))
    }

    /// The exact decimal (`12.5`, `0.000000000000000001`).
    pub fn text(self) -> String {
        format_units(self.0, TOKEN_DECIMALS)
    }
}

impl Usdc {
    /// `n` whole USDC.
    pub fn whole(n: u64) -> Usdc {
        Usdc(u128::from(n) * 10u128.pow(u32::from(USDC_DECIMALS)))
    }

    pub fn text(self) -> String {
        format_units(self.0, USDC_DECIMALS)
    }
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl fmt::Debug for Usdc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} USDC", self.text())
    }
}

/// What a client asks. Holders are `u<n>`; tokens, presales and webhooks are named by their
/// place in creation order (modulo how many exist; with none, the request names nothing and
/// is refused).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Req {
    PutHolder {
        user: u8,
    },
    Distribute {
        token: u8,
        user: u8,
        amount: Tokens,
    },
    Spend {
        user: u8,
        token: u8,
        amount: Tokens,
    },
    Transfer {
        user: u8,
        token: u8,
        to: u8,
        amount: Tokens,
    },
    /// To outside wallet `to`.
    Withdraw {
        user: u8,
        token: u8,
        to: u8,
        amount: Tokens,
    },
    CreateToken {
        n: u8,
        supply: Tokens,
    },
    CreatePresale {
        target: Usdc,
        minutes: u32,
        lockup: u8,
        auto: bool,
        lock_days: u8,
    },
    BuyPresale {
        user: u8,
        presale: u8,
        usdc: Usdc,
    },
    Resolve {
        presale: u8,
    },
    /// Opens a token's pool at `cents` / 100 USDC a token with `amount` tokens.
    OpenPool {
        token: u8,
        cents: u32,
        amount: Tokens,
    },
    Buy {
        user: u8,
        token: u8,
        usdc: Usdc,
        slippage_bps: u32,
    },
    Sell {
        user: u8,
        token: u8,
        amount: Tokens,
    },
    Memecoin {
        supply: Tokens,
        micro: u32,
        recipient: Tokens,
    },
    Airdrop {
        wallets: u8,
        each: Tokens,
    },
    Session {
        user: u8,
        limit: Option<Tokens>,
    },
    Revoke {
        user: u8,
    },
    Webhook {
        all: bool,
    },
    DeleteWebhook {
        n: u8,
    },
    Ping {
        n: u8,
    },
    GetHolder {
        user: u8,
    },
    History {
        user: u8,
    },
    Token {
        token: u8,
    },
}

/// Who sends a request: the merchant's backend (the secret key) or the holder's browser (the
/// holder's session token, when it has one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    Secret,
    Session,
}

/// What happens to a request's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    None,
    /// The object stops before the operation commits: the answer is lost, nothing happened.
    LostBefore,
    /// It commits, and the answer is lost.
    LostAfter,
    /// The request arrives twice.
    Twice,
}

/// Someone outside tokenpad acts on the chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outside {
    /// A trader swaps in a token's pool, with its own funds: exact input of `usdc` (a buy) or
    /// `tokens` (a sell, of what it holds at most; holding none, it buys with `usdc`).
    Trade {
        token: u8,
        buy: bool,
        usdc: Usdc,
        tokens: Tokens,
    },
    /// Outside wallet `from` sends `amount` to holder `to` (a deposit; of what it holds at most).
    Send {
        from: u8,
        token: u8,
        to: u8,
        amount: Tokens,
    },
    /// Someone else uses the relayer's key and takes its next nonce (`SimChain::outside_nonce`).
    TakeNonce,
}

/// The chain and its node say no the way chains do (`chain`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainFault {
    /// The node keeps the pending transactions the bits name (in nonce order) and never
    /// mines them.
    HoldForever { mask: u64 },
    /// The chain's gas schedule is repriced to `percent` % of its table: limits estimated
    /// before may be short now.
    Reprice { percent: u16 },
    /// The newest `depth` blocks are reorganized away; their transactions of the relayer go
    /// back to the node's pool (`requeue`, as geth does) or are lost (a node that came back
    /// without them). Drawn only in hostile histories (`World::hostile`).
    Reorg { depth: u8, requeue: bool },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Request `n` (its Idempotency-Key, when `keyed`, is `k<n>`).
    Call {
        n: u32,
        req: Req,
        who: Who,
        keyed: bool,
        fault: Fault,
    },
    /// The client sends request `n` again, its answer having been lost.
    Retry {
        n: u32,
    },
    /// The object's alarm: due work, a settlement round, webhook deliveries.
    Alarm {
        round: RoundFaults,
        receiver: Receiver,
    },
    /// The chain mines a block; bits of `revert` and `hold` name pending transactions (in
    /// nonce order) that revert or stay unmined; `older`: a replaced nonce mines its first
    /// version; the block's time is `lag_s` behind the service's, never before its parent's.
    Mine {
        revert: u64,
        hold: u64,
        older: bool,
        lag_s: u32,
    },
    /// The node forgets pending transactions (the bits name them).
    Drop {
        mask: u64,
    },
    /// Time passes (ms). The chain's head keeps its time: the next block is later.
    Wait {
        ms: u64,
    },
    Outside(Outside),
    Chain(ChainFault),
    /// The local faucet gives a holder test USDC.
    Faucet {
        user: u8,
        usdc: Usdc,
    },
    /// Heal every fault and run the object and the chain until everything settled (waiting
    /// for what is due); then the ledger must equal the chain.
    Settle,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Call {
                n,
                req,
                who,
                keyed,
                fault,
            } => {
                write!(f, "#{n} {req:?}")?;
                if *who == Who::Session {
                    f.write_str(" as the holder's session")?;
                }
                if *keyed {
                    write!(f, " key k{n}")?;
                }
                match fault {
                    Fault::None => Ok(()),
                    Fault::LostBefore => f.write_str(" [lost before commit]"),
                    Fault::LostAfter => f.write_str(" [answer lost after commit]"),
                    Fault::Twice => f.write_str(" [sent twice]"),
                }
            }
            Step::Retry { n } => write!(f, "retry #{n}"),
            Step::Alarm { round, receiver } => {
                write!(f, "alarm (batch {}", round.per_batch)?;
                if let Some(k) = round.crash_after_sign {
                    write!(f, ", crash after signing tx {k}")?;
                }
                if round.lose_sends {
                    f.write_str(", sends' answers lost")?;
                }
                if round.node_down {
                    f.write_str(", node down")?;
                }
                if round.pools_down {
                    f.write_str(", pool reads fail")?;
                }
                if let Some(r) = round.reorg {
                    let fate = if r.requeue {
                        "back to the pool"
                    } else {
                        "lost"
                    };
                    write!(
                        f,
                        ", before {:?} the chain drops its last {} blocks (their transactions {fate}) and mines {}",
                        r.at, r.depth, r.mined
                    )?;
                }
                write!(f, ", receiver {receiver:?})")
            }
            Step::Mine {
                revert,
                hold,
                older,
                lag_s,
            } => {
                write!(f, "mine (revert {revert:#b}, hold {hold:#b}, older {older}, chain {lag_s} s behind)")
            }
            Step::Drop { mask } => write!(f, "the node drops pending {mask:#b}"),
            Step::Wait { ms } => write!(f, "wait {ms} ms"),
            Step::Outside(o) => write!(f, "outside: {o:?}"),
            Step::Chain(ChainFault::HoldForever { mask }) => {
                write!(f, "the node holds pending {mask:#b} forever")
            }
            Step::Chain(ChainFault::Reprice { percent }) => {
                write!(f, "the chain reprices gas to {percent} %")
            }
            Step::Chain(ChainFault::Reorg { depth, requeue }) => {
                let fate = if *requeue { "back to the pool" } else { "lost" };
                write!(
                    f,
                    "reorg: the last {depth} blocks dropped, their transactions {fate}"
                )
            }
            Step::Faucet { user, usdc } => write!(f, "faucet: u{user} gets {usdc:?}"),
            Step::Settle => {
                f.write_str("settle (heal, run until settled, compare ledger and chain)")
            }
        }
    }
}
