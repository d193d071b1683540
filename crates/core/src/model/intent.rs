//! Chain intents: the outbox. On an EVM chain every ledger movement that moves something on
//! chain writes an intent in the same transaction as the ledger change; the worker's settler
//! signs, sends and watches it, and reports back (`ops::settle`). The embedded chain needs
//! none: it settles as it records.

use super::address::Address;
use super::amount::Units;
use super::ids::{DeploymentId, JobId, LockId, PresaleId, TokenAddress};
use super::time::Millis;
use serde::{Deserialize, Serialize};

/// Where tokens are on chain. The merchant's relayer wallet holds, as the token's treasury,
/// everything the ledger keeps outside holders' balances: the app and merchant supply, the
/// liquidity reserve, presale escrow and signers, pool reserves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Account {
    Treasury,
    Wallet(Address),
}

/// What must happen on chain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Deploy the token through the factory (its address is the CREATE2 address of `salt`),
    /// minting its whole supply to the treasury.
    Deploy {
        /// 32 bytes, hex.
        salt: String,
        name: String,
        symbol: String,
        supply: Units,
    },
    /// Move tokens: from the treasury (a plain transfer) or from a holder (an EIP-3009
    /// authorization the holder's key signs).
    Transfer {
        from: Account,
        to: Account,
        amount: Units,
    },
    /// Mint test USDC (the local faucet; test chains only).
    Mint { to: Address, amount: Units },
    /// Open the token's Uniswap v3 pool through tokenpad's market contract: the treasury's
    /// `tokens` and `usdc` go in, the pool is created and initialized at `sqrt_price_x96`, the
    /// position over `[tick_lower, tick_upper]` is minted and kept by the market, and what the
    /// position does not take comes back.
    OpenPool {
        tokens: Units,
        usdc: Units,
        /// Decimal digits (a Q64.96).
        sqrt_price_x96: String,
        tick_lower: i32,
        tick_upper: i32,
    },
    /// A holder's swap in the token's pool, through tokenpad's market contract, with the
    /// holder's EIP-3009 authorization of what goes in. `amount` is exact (in when
    /// `exact_in`, else out) and `limit` bounds the other side (the fewest out, or the most
    /// in). `booked_*` is what the ledger moved when the trade was made; the mined amounts
    /// replace them.
    Swap {
        holder: Address,
        /// USDC in and tokens out (a buy), or tokens in and USDC out (a sell).
        buy: bool,
        exact_in: bool,
        amount: Units,
        limit: Units,
        booked_tokens: Units,
        booked_usdc: Units,
    },
    /// The treasury's tokens into tokenpad's lock contract, as `lock` for `beneficiary` until
    /// `unlock_at` (UNIX seconds): a presale's allocation.
    Lock {
        beneficiary: Address,
        amount: Units,
        unlock_at: u64,
        lock: LockId,
    },
    /// The lock contract releases `lock` to its beneficiary (its unlock time has come).
    /// `unlock_at` (UNIX seconds) is the lock's time on chain: the contract skips a release
    /// its block's clock finds early, so the settler waits for the chain's own time (0 in
    /// intents made before it was kept: due).
    Release {
        beneficiary: Address,
        amount: Units,
        lock: LockId,
        #[serde(default)]
        unlock_at: u64,
    },
}

impl Action {
    /// The lock a movement puts tokens into or releases, if it does.
    pub fn lock(&self) -> Option<&LockId> {
        match self {
            Action::Lock { lock, .. } | Action::Release { lock, .. } => Some(lock),
            _ => None,
        }
    }

    /// The wallet the movement brings tokens to (a transfer's, a release's, a mint's, a
    /// swap's holder): what it does next with the token waits behind it while the movement
    /// waits (the settler's planner, and what the operator's view says is held).
    pub fn recipient(&self) -> Option<Address> {
        match self {
            Action::Transfer {
                to: Account::Wallet(a),
                ..
            } => Some(*a),
            Action::Release { beneficiary, .. } => Some(*beneficiary),
            Action::Mint { to, .. } => Some(*to),
            Action::Swap { holder, .. } => Some(*holder),
            _ => None,
        }
    }

    /// The holder whose own tokens the movement spends (a transfer it signs, its swap).
    pub fn spender(&self) -> Option<Address> {
        match self {
            Action::Transfer {
                from: Account::Wallet(a),
                ..
            } => Some(*a),
            Action::Swap { holder, .. } => Some(*holder),
            _ => None,
        }
    }

    /// Whether the movement is a swap.
    pub fn is_swap(&self) -> bool {
        matches!(self, Action::Swap { .. })
    }

    /// Whether the chain may refuse this movement for a reason outside tokenpad, so that a
    /// revert is the chain's answer and the ledger undoes it: a holder's own transfer (its
    /// balance on chain may lack what a reorganization took back), a swap (the market moved
    /// past its bound), a pool's opening (outside liquidity in the way), a test-USDC mint, a
    /// deployment (after its attempts). What the treasury sends on its own (rewards,
    /// allocations, refunds, locks, releases) only tokenpad can make fail: a revert of it is
    /// ours to repair, and it is parked for an operator, never undone at a holder's cost.
    pub fn refusable(&self) -> bool {
        match self {
            Action::Transfer { from, .. } => *from != Account::Treasury,
            Action::Swap { .. } | Action::OpenPool { .. } | Action::Mint { .. } => true,
            Action::Deploy { .. } => true,
            Action::Lock { .. } | Action::Release { .. } => false,
        }
    }
}

/// What the ledger does once an intent is confirmed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Then {
    FinishJob(JobId),
    FinishDeployment(DeploymentId),
    /// A presale's token was deployed: its completion state shows the hash.
    PresaleToken(PresaleId),
    /// A presale's pool was opened with its raise: its completion state shows the hash.
    PresalePool(PresaleId),
    /// A memecoin's token exists and its pool is open: the deployment succeeded.
    DeploymentReady(DeploymentId),
    /// A presale's allocations went into the lock contract: its completion state shows the
    /// transactions (the first as `withdrawTx`, the last as `distributionTx`).
    PresaleLocks(PresaleId),
    /// A holder's payment into a presale: refused by the chain, it no longer counts toward
    /// the raise (`ops::presale::refused`).
    PresalePurchase(PresaleId),
}

/// One side of a movement in the ledger: a balance row or one of the token's reserves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// An address's active balance.
    Row(Address),
    /// An address's locked balance, in this lock (a presale allocation).
    Locked(Address, LockId),
    Reserve(Reserve),
}

/// How the ledger undoes a movement the chain refused (`ops::settle`): take the amount from
/// `debit` (as much of it as is still there) and give the same back to `credit`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undo {
    pub debit: Side,
    pub credit: Side,
}

impl Undo {
    /// The undo of a movement from `from` to `to`.
    pub fn of(from: Side, to: Side) -> Undo {
        Undo {
            debit: to,
            credit: from,
        }
    }
}

/// A token's reserves in the ledger (on chain all of them are the treasury's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reserve {
    /// The token's remaining app (reward) supply.
    App,
    /// The merchant supply.
    Merchant,
    /// The token's liquidity reserve.
    Liquidity,
    /// USDC held in presale escrow.
    Escrow,
    /// The reserves of the pool of the given token (its tokens, or the USDC side).
    Pooled(TokenAddress),
    /// Outside the ledger's supply: the test faucet mints from it (undoing a mint gives back
    /// to it, and the supply shrinks), and USDC a pool paid out beyond what the ledger had left
    /// in it is owed to it (see [`Owed`]).
    Minted,
}

/// What an undo (or a followed Transfer log, or a swap's top-up) could not take from a side
/// because the ledger had already moved it on: a holder passed on tokens that a movement the
/// chain refused was to bring, a pool paid out USDC the ledger had booked to a swap that then
/// reverted. `by` holds `amount` more than it should and owes it to `to`; the next undo that
/// gives to `by` pays `to` instead (`ops::undo`), so a chain of refused movements nets out.
/// Kept, per token, in the token's record ([`super::token::Token::owed`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owed {
    pub by: Side,
    pub to: Side,
    pub amount: Units,
    pub since: OwedSince,
    /// The history records that show the movement owed (a holder's `reversal`, a `deposit`):
    /// what is paid is added to their amount.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub records: Vec<u64>,
}

/// What a debt came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OwedSince {
    /// The undo of this intent.
    Intent(u64),
    /// The top-up of this swap, mined above the bound the ledger booked (its records show
    /// the mined amounts already).
    TopUp(u64),
    /// Following this Transfer log (a reorganization that removes it forgives the debt).
    Log { block: u64, log_index: u64 },
    /// A reorganization removed this Transfer log, and what it brought was no longer all
    /// where it arrived (the ledger had booked some of it onward: a pool's USDC to a sell not
    /// mined yet, a holder's deposit to a transfer).
    Rewound { block: u64, log_index: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntentStatus {
    /// Waiting for the settler.
    Queued,
    /// In a signed transaction that was (or is being) sent.
    Submitted,
    Confirmed,
    /// Reverted or refused for good; the ledger compensated it.
    Failed,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Intent {
    /// Assigned by the store, in order.
    pub id: u64,
    pub token: TokenAddress,
    pub action: Action,
    /// The history records (their sequence numbers) that show this movement.
    pub records: Vec<u64>,
    pub then: Option<Then>,
    /// How the ledger undoes the movement if the chain refuses it; None: nothing to undo.
    #[serde(default)]
    pub undo: Option<Undo>,
    /// Send in a transaction of its own: a batch it was in reverted.
    #[serde(default)]
    pub solo: bool,
    /// How many transactions carried it so far.
    #[serde(default)]
    pub attempts: u32,
    /// How many of them ran out of gas: each sends the next with twice the gas (the
    /// settler's builder), and past `ops::settle::MAX_OUT_OF_GAS` it is parked.
    #[serde(default)]
    pub out_of_gas: u32,
    /// How many successful receipts of it did not show it (`ops::settle::receipt`): each
    /// sends it again, and past `ops::settle::MAX_UNSHOWN` it is parked.
    #[serde(default)]
    pub unshown: u32,
    /// Why it is held for an operator (a revert of ours it cannot repair alone, gas that
    /// never sufficed): the settler does not send it until `POST /admin/merchants/:id/chain/
    /// retry` clears it. Still open: the ledger keeps the movement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parked: Option<String>,
    /// When it was parked (service time; None in intents parked before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parked_at: Option<Millis>,
    /// How many times a reorganization dropped the block that held it (it was sent again).
    #[serde(default)]
    pub reorged: u32,
    /// The EIP-3009 nonce its holder signs it with, for a holder's own transfer: the holder's
    /// next one (0, 1, 2, ...: `Store::take_auth_nonce`), taken when the movement was queued
    /// and kept here, so that signing it again (after a revert, a lost transaction, a
    /// reorganization) gives the same nonce and no two movements share one. Consecutive
    /// nonces share a storage slot in tokenpad's token (a bitmap of authorization states);
    /// they are as unique as any for USDC. None: movements no holder signs, and holders'
    /// transfers queued before nonces were counted (their nonce is derived from the merchant
    /// and the intent's id, as it always was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_nonce: Option<u64>,
    /// What a swap's confirmation gave its holder beyond what was booked (tokens, USDC), so
    /// a reorganization that drops the swap takes exactly that back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topped_up: Option<(Units, Units)>,
    pub status: IntentStatus,
    pub hash: Option<String>,
    pub block: Option<u64>,
    pub error: Option<String>,
    pub created_at: Millis,
}

impl Intent {
    /// A queued intent to do `action` on `token`, made at `at`; the `with_` methods add the
    /// rest, and the store assigns the id.
    pub fn new(token: TokenAddress, action: Action, at: Millis) -> Intent {
        Intent {
            id: 0,
            token,
            action,
            records: Vec::new(),
            then: None,
            undo: None,
            solo: false,
            attempts: 0,
            out_of_gas: 0,
            unshown: 0,
            parked: None,
            parked_at: None,
            reorged: 0,
            auth_nonce: None,
            topped_up: None,
            status: IntentStatus::Queued,
            hash: None,
            block: None,
            error: None,
            created_at: at,
        }
    }

    pub fn with_records(mut self, records: Vec<u64>) -> Intent {
        self.records = records;
        self
    }

    pub fn with_then(mut self, then: Then) -> Intent {
        self.then = Some(then);
        self
    }

    /// The movement went from `from` to `to` in the ledger.
    pub fn moved(mut self, from: Side, to: Side) -> Intent {
        self.undo = Some(Undo::of(from, to));
        self
    }

    pub fn is_open(&self) -> bool {
        matches!(self.status, IntentStatus::Queued | IntentStatus::Submitted)
    }
}
