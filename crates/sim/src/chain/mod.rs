//! The simulated EVM chain: the contracts tokenpad settles on (its tokens, test USDC, the
//! market with Uniswap v3 pools, the lock contract), the relayer's nonces, a mempool that can
//! drop and hold transactions, blocks, receipts and Transfer/pool logs. It applies each
//! settled movement to its own balances, so "the ledger equals the chain" is checked against
//! balances the ledger never wrote.
//!
//! Like the real contracts: a batch transaction is all or nothing; a holder's signed transfer
//! carries its holder's counted nonce (or, queued before nonces were counted, one derived from
//! its intent), a swap one derived from its intent, which the token refuses to use twice for
//! the same signer; a treasury transfer has none (only the relayer's nonce keeps it once); a call to
//! a token without code "succeeds" and moves nothing (the market and the lock contract, which
//! pull a token with receiveWithAuthorization, revert); a release before its unlock time is
//! skipped, not reverted.
//!
//! And it can say no the way chains do: every transaction is charged its gas (`gas`) and
//! runs out when its limit is too low (all or nothing, its nonce used); blocks can be
//! reorganized away (`reorg`); the node can hold a transaction forever, or drop it; someone
//! else can use the relayer's key and take its next nonce (`outside`).

pub mod exec;
pub mod gas;
pub mod outside;
pub mod pools;
pub mod reorg;
mod reverts;

use pools::ChainPool;
use std::collections::{BTreeMap, BTreeSet};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::chain::PoolEvent;
use tokenpad_core::model::ids::{LockId, TokenAddress};
use tokenpad_core::model::intent::Action;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::settle::Transferred;

/// A signed transaction version the relayer broadcast: the intents it carries, in order.
#[derive(Clone, Debug)]
pub struct SentTx {
    pub nonce: u64,
    pub hash: String,
    pub intents: Vec<(u64, TokenAddress, Action)>,
    /// The counted authorization nonce each holder-signed transfer carries (by intent id;
    /// `Intent::auth_nonce`): what its holder signed.
    pub auth_nonces: BTreeMap<u64, u64>,
    /// The most gas it may use: past it, it runs out (`gas`).
    pub gas_limit: u64,
}

/// An EIP-3009 nonce as the settler signs it: a holder's counted one, or derived from an
/// intent (the id), as swaps' are and holders' transfers queued before nonces were counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AuthNonce {
    Counted(u64),
    Derived(u64),
}

#[derive(Clone, Debug)]
pub struct Receipt {
    pub hash: String,
    pub nonce: u64,
    pub block: u64,
    pub success: bool,
    pub reason: Option<String>,
    pub events: Vec<PoolEvent>,
    pub released: Vec<LockId>,
    /// Its `Transfer` logs (a success's), as the settler reads them from a receipt.
    pub transfers: Vec<Transferred>,
    /// Whether the simulator made it revert (a fault), not the chain's own rules.
    pub injected: bool,
    /// The gas it used: all of its limit when it ran out ([`gas::OUT_OF_GAS`]).
    pub gas_used: u64,
}

/// A log the chain emitted.
#[derive(Clone, Debug)]
pub struct Log {
    pub block: u64,
    pub index: u64,
    pub tx: String,
    pub kind: LogKind,
}

#[derive(Clone, Debug)]
pub enum LogKind {
    Transfer {
        token: Address,
        from: Address,
        to: Address,
        amount: u128,
    },
    Pool(PoolEvent),
}

/// What a broadcast got back from the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sent {
    Accepted,
    AlreadyKnown,
    NonceTooLow,
}

/// The contracts' state: what a transaction changes, all or nothing.
#[derive(Clone, Debug, Default)]
pub struct Contracts {
    pub balances: BTreeMap<(Address, Address), u128>,
    /// Tokens with code.
    pub code: BTreeSet<Address>,
    /// EIP-3009 authorizations used: (token, authorizer, nonce), each once, as the token
    /// keeps them.
    pub used_auth: BTreeSet<(Address, Address, AuthNonce)>,
    pub pools: BTreeMap<Address, ChainPool>,
    /// The lock contract's locks: (token, beneficiary, amount, unlock time in seconds).
    pub locks: BTreeMap<LockId, (Address, Address, u128, u64)>,
    pub positions: u64,
}

/// The reason of an injected revert: the transaction ran out of gas (its receipt says all its
/// gas was used), which the ledger takes as its own failure and sends again.
pub const INJECTED_OUT_OF_GAS: &str = "out of gas (injected)";

#[derive(Clone, Debug)]
pub struct SimChain {
    /// The chain's clock (block timestamps), in ms.
    pub now: Millis,
    pub block: u64,
    pub relayer: Address,
    pub usdc: Address,
    pub locker: Address,
    pub uniswap_factory: Address,
    pub state: Contracts,
    /// The relayer's next nonce on chain.
    pub nonce: u64,
    pub mempool: BTreeMap<u64, Vec<SentTx>>,
    pub receipts: BTreeMap<String, Receipt>,
    pub logs: Vec<Log>,
    /// Successful executions per intent (the exactly-once invariant).
    pub executed: BTreeMap<u64, u32>,
    /// Reverts the simulator did not inject, nor caused (behind an injected one): (tx hash,
    /// reason).
    pub natural_reverts: Vec<(String, String)>,
    /// Movements whose transaction reverted by a fault, or behind one, neither carried out
    /// since nor failed by the ledger: (token, intent).
    pub reverted_open: BTreeSet<(Address, u64)>,
    /// Movements the chain refused for their own reason (reverted, neither by a fault nor
    /// behind one): (a token they move, their recipient, intent).
    pub refused: BTreeSet<(Address, Address, u64)>,
    /// Transfers of others a reorganization dropped for good (an outsider's deposit to a
    /// holder): (token, recipient). The ledger followed them and the chain no longer has them;
    /// a movement of that recipient booked on them reverts for want of funds, which is the
    /// chain's answer, as after a refusal (the ledger undoes it, and the undo pays the debt
    /// the rewind left: `ops::undo`).
    pub reorged_away: BTreeSet<(Address, Address)>,
    /// Per intent, when its last revert was for want of funds behind a fault: the older
    /// movements of its token (in `reverted_open` then) it may have waited for.
    pub reverted_behind: BTreeMap<u64, Vec<(Address, u64)>>,
    /// Transactions of others (outside traders, senders).
    pub outside_txs: u64,
    /// The gas schedule's multiplier, in percent (100 as `gas` says; raised by a fault).
    pub gas_percent: u64,
    /// Transactions the node accepted and will never mine (a fault).
    pub held: BTreeSet<String>,
    /// The movements of the relayer's transactions the node dropped (a fault), by nonce,
    /// until that nonce is mined: if someone else takes it, they were sent back by a fault.
    pub dropped: BTreeMap<u64, Vec<(Address, u64)>>,
    /// The blocks, as a reorganization needs them (`reorg`).
    pub blocks: reorg::Blocks,
}

impl SimChain {
    pub fn new(relayer: Address, usdc: Address, locker: Address, factory: Address) -> SimChain {
        let mut chain = SimChain::bare(relayer, usdc, locker, factory);
        chain.state.code.insert(usdc);
        chain.started()
    }

    /// A chain with these contracts' addresses and nothing else: no code, no history.
    fn bare(relayer: Address, usdc: Address, locker: Address, factory: Address) -> SimChain {
        SimChain {
            now: 0,
            block: 1,
            relayer,
            usdc,
            locker,
            uniswap_factory: factory,
            state: Contracts::default(),
            nonce: 0,
            mempool: BTreeMap::new(),
            receipts: BTreeMap::new(),
            logs: Vec::new(),
            executed: BTreeMap::new(),
            natural_reverts: Vec::new(),
            reverted_open: BTreeSet::new(),
            reverted_behind: BTreeMap::new(),
            reorged_away: BTreeSet::new(),
            refused: BTreeSet::new(),
            outside_txs: 0,
            gas_percent: 100,
            held: BTreeSet::new(),
            dropped: BTreeMap::new(),
            blocks: reorg::Blocks::default(),
        }
    }

    pub fn balance(&self, token: &Address, owner: &Address) -> u128 {
        self.state
            .balances
            .get(&(*token, *owner))
            .copied()
            .unwrap_or(0)
    }

    /// The `Transfer` logs of transaction `tx` among the logs from the `from`th on, as its
    /// receipt carries them.
    pub fn transfers_since(&self, from: usize, tx: &str) -> Vec<Transferred> {
        let logs = self.logs.get(from..).unwrap_or_default();
        logs.iter()
            .filter(|l| l.tx == tx)
            .filter_map(|l| match &l.kind {
                LogKind::Transfer {
                    token,
                    from,
                    to,
                    amount,
                } => Some(Transferred {
                    token: *token,
                    from: *from,
                    to: *to,
                    amount: Units::new(*amount),
                }),
                LogKind::Pool(_) => None,
            })
            .collect()
    }

    pub fn has_code(&self, token: &Address) -> bool {
        self.state.code.contains(token)
    }

    /// Whether the node knows `hash`: pending in its pool, or mined.
    pub fn knows(&self, hash: &str) -> bool {
        self.receipts.contains_key(hash)
            || self
                .mempool
                .values()
                .any(|v| v.iter().any(|t| t.hash == hash))
    }

    /// `eth_sendRawTransaction`.
    pub fn broadcast(&mut self, tx: SentTx) -> Sent {
        if self.knows(&tx.hash) {
            return Sent::AlreadyKnown;
        }
        if tx.nonce < self.nonce {
            // Its nonce went to another transaction (taken from outside): what it carries,
            // not carried out yet, goes out later, after newer movements that may need it.
            for (id, token, action) in &tx.intents {
                if !self.executed.contains_key(id) {
                    self.send_back(*id, *token, action);
                }
            }
            return Sent::NonceTooLow;
        }
        self.mempool.entry(tx.nonce).or_default().push(tx);
        Sent::Accepted
    }

    /// The pending transactions, in nonce order (versions of one nonce in the order sent).
    pub fn pending(&self) -> Vec<(u64, String)> {
        self.mempool
            .iter()
            .flat_map(|(n, v)| v.iter().map(move |t| (*n, t.hash.clone())))
            .collect()
    }

    /// Forgets the pending transactions whose place in `pending()` has its bit in `mask`.
    pub fn drop_pending(&mut self, mask: u64) {
        let doomed: BTreeSet<String> = self
            .pending()
            .into_iter()
            .enumerate()
            .filter(|(i, _)| *i < 64 && mask & (1 << i) != 0)
            .map(|(_, (_, h))| h)
            .collect();
        let usdc = self.usdc;
        for (nonce, versions) in self.mempool.iter_mut() {
            for t in versions.iter().filter(|t| doomed.contains(&t.hash)) {
                let lost = t
                    .intents
                    .iter()
                    .flat_map(|(id, token, action)| Self::open_in(usdc, *id, *token, action));
                self.dropped.entry(*nonce).or_default().extend(lost);
            }
            versions.retain(|t| !doomed.contains(&t.hash));
        }
        self.mempool.retain(|_, v| !v.is_empty());
    }

    fn next_log(&self) -> u64 {
        self.logs
            .iter()
            .rev()
            .take_while(|l| l.block == self.block)
            .count() as u64
    }

    pub(crate) fn log(&mut self, tx: &str, kind: LogKind) {
        let index = self.next_log();
        self.logs.push(Log {
            block: self.block,
            index,
            tx: tx.to_string(),
            kind,
        });
    }

    /// Mines one block: the relayer's transactions in nonce order from its next nonce, each
    /// its latest version (the first with `older` set), until a nonce is missing or held
    /// (`hold` bit of its place in `pending()`); `revert` bits make those revert (a fault).
    pub fn mine(
        &mut self,
        revert: u64,
        hold: u64,
        older: bool,
        revertable: impl Fn(&SentTx) -> bool,
    ) {
        let places: BTreeMap<String, usize> = self
            .pending()
            .into_iter()
            .enumerate()
            .map(|(i, (_, h))| (h, i))
            .collect();
        let bit = |mask: u64, hash: &str| {
            places
                .get(hash)
                .is_some_and(|i| *i < 64 && mask & (1 << i) != 0)
        };
        while let Some(versions) = self.mempool.get(&self.nonce) {
            let mut minable = versions.iter().filter(|t| !self.held.contains(&t.hash));
            let chosen = if older {
                minable.next()
            } else {
                minable.next_back()
            };
            let Some(tx) = chosen.cloned() else { break };
            if bit(hold, &tx.hash) {
                break;
            }
            self.mempool.remove(&self.nonce);
            self.dropped.remove(&self.nonce);
            let inject = bit(revert, &tx.hash) && revertable(&tx);
            self.execute(&tx, inject);
            self.blocks.mined(self.block, tx);
            self.nonce += 1;
        }
        self.seal();
    }

    /// The node will never mine the pending transactions whose place in `pending()` has its
    /// bit in `mask` (it keeps them: it says it knows them).
    pub fn hold_forever(&mut self, mask: u64) {
        for (i, (_, hash)) in self.pending().into_iter().enumerate() {
            if i < 64 && mask & (1 << i) != 0 {
                self.held.insert(hash);
            }
        }
    }

    /// Someone else's transaction (an outside trader, a sender): its own hash.
    pub fn outside_hash(&mut self) -> String {
        self.outside_txs += 1;
        format!("0x{:064x}", 0xface_0000_0000u64 + self.outside_txs)
    }

    /// Moves `amount` of `token` between two addresses (no authorization: their own wallets).
    pub fn transfer(
        &mut self,
        token: Address,
        from: Address,
        to: Address,
        amount: u128,
    ) -> Result<(), String> {
        if !self.has_code(&token) {
            return Ok(());
        }
        let have = self.balance(&token, &from);
        let left = have
            .checked_sub(amount)
            .ok_or_else(|| format!("ERC20InsufficientBalance({from}, {have}, {amount})"))?;
        self.state.balances.insert((token, from), left);
        let to_have = self.balance(&token, &to);
        self.state
            .balances
            .insert((token, to), to_have.saturating_add(amount));
        Ok(())
    }

    pub fn mint(&mut self, token: Address, to: Address, amount: u128) {
        let have = self.balance(&token, &to);
        self.state
            .balances
            .insert((token, to), have.saturating_add(amount));
    }

    /// Every (token, owner) with a balance.
    pub fn balances(&self) -> &BTreeMap<(Address, Address), u128> {
        &self.state.balances
    }
}
