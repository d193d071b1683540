//! The core's settlement round (`ops::settle::round`) over the simulated chain: its ports
//! (`Chain`, `Signer`, `Ledger`) on `SimChain` and the simulated object (`Node`). Every call
//! answers at once (`block_on` never waits).
//!
//! A round's faults are realized here: the object stops after storing a signed transaction
//! and before broadcasting it (`crash_after_sign`: the broadcast halts the round), a
//! broadcast's answer is lost (`lose_sends`), the node does not answer at all (`node_down`).
//! The builder's bug (`SharesAuthNonces`) is here too; the round's own are the core's
//! (`Plant`), switched on through `Chain::planted`.

use crate::bug::Bug;
use crate::chain::{gas, LogKind, Sent as Answer, SentTx, SimChain};
use crate::node::{Node, BASE_URL};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use tokenpad_core::crypto::{hex0x, keccak256};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::chain::PoolEvent;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::pool::v3::State;
use tokenpad_core::model::settlement::ChainTx;
use tokenpad_core::model::token::TokenKind;
use tokenpad_core::ops::settle::observe::Observed;
use tokenpad_core::ops::settle::plan::Batch;
use tokenpad_core::ops::settle::round::port::{
    Chain, Fail, Head, Ledger, Payload, Plant, Scanned, Sent, Signed, Signer, Step, Stop, Unsigned,
};
use tokenpad_core::ops::settle::Mined;
use tokenpad_core::store::Store;
use tokenpad_core::{wire, Error, Result};

/// The relayer's ETH: never short in the simulation.
const BALANCE: u128 = 1_000_000_000_000_000_000_000;
/// Each block's gas limit.
const BLOCK_GAS_LIMIT: u64 = 30_000_000;

/// A round's faults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoundFaults {
    /// The object stops after storing this many signed transactions, before broadcasting it.
    pub crash_after_sign: Option<u8>,
    /// Broadcasts reach the node; their answers are lost.
    pub lose_sends: bool,
    /// The node does not answer: the round stops at once.
    pub node_down: bool,
    /// Movements per batch this round (CHAIN_BATCH).
    pub per_batch: u8,
    /// The chain reorganizes while the round runs, after its first step read the chain
    /// (hostile worlds only).
    pub reorg: Option<MidRound>,
    /// The node fails the pools' reads (`Chain::pool_states`): a round that rewound a
    /// reorganization stops before it reads the pools again (launch-heavy hostile worlds).
    pub pools_down: bool,
}

/// A reorganization in the middle of a round: the newest `depth` blocks dropped (their
/// transactions of the relayer back to the node's pool when `requeue`), then `mined` blocks of
/// the new chain made, just before the round reads receipts (`at` [`When::Watch`]) or the
/// scan's logs ([`When::Scan`]). What the round read before is the old chain's, what it reads
/// after the new one's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MidRound {
    pub depth: u8,
    pub requeue: bool,
    pub mined: u8,
    pub at: When,
}

/// Where in the round a [`MidRound`] reorganization lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    Watch,
    Scan,
}

/// Runs a future whose every await is ready at once (the simulated ports').
pub fn block_on<T>(f: impl Future<Output = T>) -> Result<T> {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => Ok(out),
        Poll::Pending => Err(Error::internal("a simulated port waited")),
    }
}

/// A batch's payload: the ids of the intents it carries (the simulated contracts take them
/// from the store).
fn ids(data: &[u8]) -> Vec<u64> {
    data.chunks_exact(8)
        .filter_map(|c| c.try_into().ok().map(u64::from_be_bytes))
        .collect()
}

/// The round's ports over one simulated object and chain.
pub struct SimPorts<'a> {
    node: RefCell<&'a mut Node>,
    chain: RefCell<&'a mut SimChain>,
    faults: RoundFaults,
    /// Transactions signed this round (`crash_after_sign`).
    signed: Cell<u8>,
    /// Whether the round's reorganization (`RoundFaults::reorg`) happened.
    reorged: Cell<bool>,
    /// The transactions the round asked the node whether it knows, and the first it asked
    /// about twice: once a round is enough (each ask is an RPC call on a real chain).
    asked: RefCell<BTreeSet<String>>,
    asked_twice: RefCell<Option<String>>,
}

impl<'a> SimPorts<'a> {
    pub fn new(node: &'a mut Node, chain: &'a mut SimChain, faults: RoundFaults) -> Self {
        SimPorts {
            node: RefCell::new(node),
            chain: RefCell::new(chain),
            faults,
            signed: Cell::new(0),
            reorged: Cell::new(false),
            asked: RefCell::new(BTreeSet::new()),
            asked_twice: RefCell::new(None),
        }
    }

    /// The first transaction the round asked the node about twice (`Chain::known`), if any.
    pub fn asked_twice(&self) -> Option<String> {
        self.asked_twice.borrow().clone()
    }

    /// The round's reorganization, once, if it lands `at` this point.
    fn reorg_at(&self, at: When) {
        let Some(r) = self.faults.reorg.filter(|r| r.at == at) else {
            return;
        };
        if self.reorged.replace(true) {
            return;
        }
        let mut chain = self.chain.borrow_mut();
        chain.reorg(u64::from(r.depth), r.requeue);
        for _ in 0..r.mined {
            chain.mine(0, 0, false, |_| false);
        }
    }

    fn down(&self) -> Step {
        if self.faults.node_down {
            return Err(Stop::Node(Fail::Unreachable(
                "the node does not answer".into(),
            )));
        }
        Ok(())
    }

    fn head_now(&self) -> Head {
        let chain = self.chain.borrow();
        let number = chain.head();
        Head {
            number,
            hash: chain.block_hash(number),
            timestamp: chain.now / 1_000,
            base_fee: 1,
            gas_limit: Some(BLOCK_GAS_LIMIT),
        }
    }

    /// What the intents `ids` carry, as the chain sees them: each intent's movement, and the
    /// counted nonces its holders signed (the builder's part: `SharesAuthNonces` is planted
    /// here), in a transaction at `nonce` with `gas_limit`.
    fn carried(&self, nonce: u64, ids: &[u64], hash: String, gas_limit: u64) -> Result<SentTx> {
        let node = self.node.borrow();
        let shared = node.bug == Some(Bug::SharesAuthNonces);
        let mut auth_nonces = BTreeMap::new();
        let intents = ids
            .iter()
            .map(|id| {
                let i = node
                    .store
                    .intent(*id)?
                    .ok_or_else(|| Error::internal(format!("intent {id} is missing")))?;
                if let Some(n) = i.auth_nonce {
                    auth_nonces.insert(i.id, if shared { 0 } else { n });
                }
                Ok((i.id, i.token, i.action))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(SentTx {
            nonce,
            hash,
            intents,
            auth_nonces,
            gas_limit,
        })
    }
}

impl Ledger for SimPorts<'_> {
    fn read<T>(&self, f: impl FnOnce(&dyn Store) -> Result<T>) -> Result<T> {
        f(&self.node.borrow().store)
    }

    fn commit<T: 'static>(
        &self,
        f: impl FnOnce(&mut dyn Store) -> Result<T> + 'static,
    ) -> Result<T> {
        self.node.borrow_mut().txn(|s, _| {
            let out = f(s)?;
            wire::event::seal(s, BASE_URL)?;
            Ok(out)
        })
    }
}

impl Signer for SimPorts<'_> {
    fn batchable(&self, token: &TokenAddress) -> bool {
        token.address() != self.chain.borrow().usdc
    }

    fn build(&self, batch: &Batch) -> Result<Payload> {
        Ok(Payload {
            to: batch.token.address(),
            data: batch
                .intents
                .iter()
                .flat_map(|i| i.id.to_be_bytes())
                .collect(),
            floor: gas::TX_BASE,
        })
    }

    fn sign(&self, t: &Unsigned) -> Result<Signed> {
        self.signed.set(self.signed.get().saturating_add(1));
        let mut seed = b"sim tx".to_vec();
        seed.extend_from_slice(&t.nonce.to_be_bytes());
        seed.extend_from_slice(&t.tip.to_be_bytes());
        seed.extend_from_slice(&t.cap.to_be_bytes());
        seed.extend_from_slice(&t.gas_limit.to_be_bytes());
        seed.extend_from_slice(&t.to.0);
        seed.extend_from_slice(t.data.as_bytes());
        Ok(Signed {
            hash: hex0x(&keccak256(&seed)),
            raw: "0x02".into(),
        })
    }
}

impl Chain for SimPorts<'_> {
    async fn head_and_balance(&self) -> Step<(Head, Option<u128>)> {
        self.down()?;
        Ok((self.head_now(), Some(BALANCE)))
    }

    async fn head(&self) -> Step<Head> {
        self.down()?;
        Ok(self.head_now())
    }

    async fn balance(&self) -> Step<u128> {
        Ok(BALANCE)
    }

    async fn nonce(&self, pending: bool) -> Step<u64> {
        let chain = self.chain.borrow();
        let pending = pending
            .then(|| {
                chain
                    .mempool
                    .keys()
                    .next_back()
                    .map(|n| n.saturating_add(1))
            })
            .flatten();
        Ok(pending.unwrap_or(chain.nonce).max(chain.nonce))
    }

    async fn tip(&self) -> Option<u128> {
        Some(1)
    }

    async fn block_hashes(&self, numbers: &[u64]) -> Step<Vec<Option<String>>> {
        let chain = self.chain.borrow();
        Ok(numbers.iter().map(|n| chain.block_hash(*n)).collect())
    }

    async fn receipts(&self, open: &[ChainTx], head: &Head) -> Step<Vec<Option<Mined>>> {
        self.reorg_at(When::Watch);
        let mut out = Vec::with_capacity(open.len());
        for t in open {
            let receipt = {
                let chain = self.chain.borrow();
                t.versions
                    .iter()
                    .find_map(|v| chain.receipts.get(&v.hash).cloned())
            };
            let Some(r) = receipt else {
                out.push(None);
                continue;
            };
            // A transaction that ran out of gas (or an injected fault, which is one) used all
            // of its limit: the receipt says how much, unless the receipt's reader misreads
            // it (the worker's `receipts.rs`; `OutOfGasAsRefusal` is planted here).
            let misread = self.node.borrow().bug == Some(Bug::OutOfGasAsRefusal) && !r.success;
            let block_hash = self.chain.borrow().block_hash(r.block);
            out.push(Some(Mined {
                hash: r.hash.clone(),
                block: r.block,
                block_hash,
                head: head.number.max(r.block),
                success: r.success,
                gas_used: if misread { 50_000 } else { r.gas_used },
                reason: r.reason.clone(),
                events: r.events.clone(),
                released: r.released.clone(),
                transfers: r.transfers.clone(),
            }));
        }
        Ok(out)
    }

    async fn known(&self, hash: &str) -> Step<bool> {
        if !self.asked.borrow_mut().insert(hash.to_string()) {
            self.asked_twice
                .borrow_mut()
                .get_or_insert_with(|| hash.to_string());
        }
        Ok(self.chain.borrow().knows(hash))
    }

    async fn send(&self, t: &ChainTx) -> Step<Sent> {
        if let Some(after) = self.faults.crash_after_sign {
            if self.signed.get() > after {
                return Err(Stop::Halted(
                    "the object stopped before broadcasting".into(),
                ));
            }
        }
        let hash = t
            .latest()
            .map(|v| v.hash.clone())
            .ok_or_else(|| Error::internal("a transaction without a version"))?;
        let sent = self.carried(t.nonce, &t.intents, hash, t.gas_limit)?;
        let answer = self.chain.borrow_mut().broadcast(sent);
        if self.faults.lose_sends {
            return Err(Stop::Node(Fail::Unreachable("the answer was lost".into())));
        }
        Ok(match answer {
            Answer::Accepted => Sent::Accepted,
            Answer::AlreadyKnown => Sent::AlreadyKnown,
            Answer::NonceTooLow => Sent::NonceTooLow,
        })
    }

    async fn estimates(&self, payloads: &[Payload]) -> Step<Vec<Option<u64>>> {
        // At the pending block, after every transaction the node holds (as the worker's
        // `eth_estimateGas` runs before the round sends any).
        let pending = self.nonce(true).await?;
        let mut out = Vec::with_capacity(payloads.len());
        for p in payloads {
            let probe = self.carried(pending, &ids(&p.data), String::new(), 0)?;
            out.push(Some(self.chain.borrow().estimate_gas(&probe)));
        }
        Ok(out)
    }

    async fn has_code(&self, tokens: &[TokenAddress]) -> Step<Vec<bool>> {
        let chain = self.chain.borrow();
        Ok(tokens
            .iter()
            .map(|t| chain.has_code(&t.address()))
            .collect())
    }

    async fn wrong_factory(&self) -> Step<Option<String>> {
        Ok(None)
    }

    async fn pool_states(&self, pools: &[Address], _at: u64) -> Step<Vec<State>> {
        if self.faults.pools_down {
            return Err(Stop::Node(Fail::Failing(
                "the node fails the pools' reads".into(),
            )));
        }
        let chain = self.chain.borrow();
        pools
            .iter()
            .map(|a| {
                // The chain keeps its pools by token; the settler asks by the pool's address.
                chain
                    .state
                    .pools
                    .values()
                    .find(|p| p.address == *a)
                    .map(|p| p.state)
                    .ok_or_else(|| Stop::Node(Fail::Failing(format!("no pool at {a}"))))
            })
            .collect()
    }

    async fn block_number(&self) -> Step<u64> {
        Ok(self.head_now().number)
    }

    /// The new blocks' logs the worker's scan reads: Transfers of the merchant's tokens,
    /// USDC to its holders and into and out of its pools, and its pools' own events.
    async fn logs(&self, from: u64, to: u64) -> Step<Scanned> {
        self.reorg_at(When::Scan);
        let node = self.node.borrow();
        let chain = self.chain.borrow();
        let tokens: Vec<Address> = node
            .store
            .tokens()?
            .iter()
            .filter(|t| t.kind == TokenKind::Merchant)
            .map(|t| t.address.address())
            .collect();
        let holders: Vec<Address> = node.store.holders.iter().map(|h| h.address).collect();
        let pools: Vec<Address> = node.store.pools.values().map(|p| p.address).collect();
        let mut found = Scanned::default();
        for l in chain
            .logs
            .iter()
            .filter(|l| l.block >= from && l.block <= to)
        {
            match &l.kind {
                LogKind::Transfer {
                    token,
                    from,
                    to,
                    amount,
                } => {
                    let wanted = tokens.contains(token)
                        || (*token == chain.usdc
                            && (holders.contains(to)
                                || pools.contains(to)
                                || pools.contains(from)));
                    if wanted {
                        found.transfers.push(Observed {
                            token: TokenAddress(*token),
                            from: *from,
                            to: *to,
                            amount: Units::new(*amount),
                            hash: l.tx.clone(),
                            block: l.block,
                            log_index: l.index,
                        });
                    }
                }
                LogKind::Pool(
                    e @ (PoolEvent::Swap { pool, .. } | PoolEvent::Liquidity { pool, .. }),
                ) if pools.contains(pool) => {
                    found.pool_events.push(e.clone());
                }
                LogKind::Pool(_) => {}
            }
        }
        Ok(found)
    }

    fn planted(&self) -> Option<Plant> {
        match self.node.borrow().bug {
            Some(Bug::ForgetsToMarkSent) => Some(Plant::ForgetsToMarkSent),
            Some(Bug::GasLimitTooLow) => Some(Plant::GasLimitTooLow),
            _ => None,
        }
    }
}
