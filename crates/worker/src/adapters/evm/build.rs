//! What a planned batch sends: the contract, the calldata (with every holder's EIP-3009
//! authorization signed by that holder's key) and a gas limit.
//!
//! The treasury's own transfers (rewards, allocations, refunds) are a `batchTransfer` the
//! relayer sends (it is the treasury: no signature per movement); a holder's are EIP-3009
//! authorizations signed with the holder's key, in `batchTransferWithAuthorization`; both in
//! their packed forms where the token has them (`transfers.rs`). An authorization's nonce is
//! the one its intent carries (the holder's counter, taken when it was queued) or derived from
//! the merchant and the intent, so signing an intent again (after a revert, a lost
//! transaction) gives the same nonce: the chain itself refuses to carry out one movement
//! twice.
//!
//! A pool's opening and a holder's swap go to tokenpad's market contract: the treasury (for an
//! opening) or the holder (for a swap) signs EIP-3009's receive form to the market, which
//! alone can carry it out; a swap's nonce commits to the swap's parameters
//! (`tokenpad_evm::market::Swap::nonce`), so its signature is good for that swap only.

use super::config::Evm;
use crate::adapters::sql::SqlStore;
use crate::adapters::wallet::WalletMaker;
use alloy_primitives::U256;
use tokenpad_core::crypto::{keccak256, parse_bytes32};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::ids::LockId;
use tokenpad_core::model::intent::{Account, Action, Intent};
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::ops::settle::plan::{from_treasury, Batch, Call};
use tokenpad_core::store::Store;
use tokenpad_core::{Error, Result};
use tokenpad_evm::auth::{self, Authorization, Domain, SignedAuthorization};
use tokenpad_evm::{calls, locker, market};

/// Each call's gas floor: the least it is sent with, and what it is sent with when the node
/// cannot estimate it (`ops::settle::round::gas` sends the chain's estimate with a margin
/// when that is more).
/// From what these calls use on anvil (deploy about 1.42 M; an authorization in a batch at most
/// about 37 k, plus 17 k for a recipient new to the token, on tokens of any build; a single
/// transferWithAuthorization about 86 k at most), with a margin. Unused gas is not paid for.
pub const DEPLOY_GAS: u64 = 2_000_000;
pub const MINT_GAS: u64 = 120_000;
pub const SINGLE_TRANSFER_GAS: u64 = 150_000;
pub const BATCH_BASE_GAS: u64 = 60_000;
pub const BATCH_ITEM_GAS: u64 = 70_000;
/// A treasury transfer in a batch (about 8-9 k to a holder of the token, 25-26 k to an address
/// new to it, on anvil).
pub const TREASURY_ITEM_GAS: u64 = 35_000;
/// The treasury's own USDC transfer (`transfer`).
pub const TREASURY_TRANSFER_GAS: u64 = 80_000;
/// A batch of locks into the lock contract: the call's fixed part (the pull's signature check
/// and transfer: about 75 k, 92 k for a token's first lock) and each lock (two storage slots
/// and an event: about 51 k), and a release (19-36 k, more than its estimate when it is due
/// only in the block it is mined in).
pub const LOCK_BASE_GAS: u64 = 110_000;
pub const LOCK_ITEM_GAS: u64 = 60_000;
pub const RELEASE_ITEM_GAS: u64 = 50_000;
/// A pool's opening: Uniswap deploying the pool is most of it (about 5.2 M on anvil).
pub const OPEN_POOL_GAS: u64 = 6_500_000;
/// A holder's swap (about 150-200 k on anvil; more when it crosses ticks).
pub const SWAP_GAS: u64 = 450_000;

/// An authorization is valid from the epoch to the end of u64 seconds: the random nonce, not
/// time, is what makes it usable once; a transaction stuck for long still settles.
pub(super) const VALID_BEFORE: u64 = u64::MAX;

/// A transaction's payload.
#[derive(Clone, Debug)]
pub struct Built {
    pub to: [u8; 20],
    pub data: Vec<u8>,
    pub gas_limit: u64,
}

pub struct Builder<'a> {
    pub evm: &'a Evm,
    pub merchant: &'a Merchant,
    pub wallets: WalletMaker,
    pub store: &'a SqlStore,
}

pub(super) fn bad(why: String) -> Error {
    Error::internal(format!("settlement: {why}"))
}

pub(super) fn evm_err(e: tokenpad_evm::Error) -> Error {
    bad(e.to_string())
}

impl Builder<'_> {
    /// The chain address of a ledger token.
    pub fn chain_address(&self, token: &Address) -> [u8; 20] {
        self.evm.on_chain(token).0
    }

    fn market(&self) -> Result<[u8; 20]> {
        self.evm
            .chain
            .markets
            .as_ref()
            .map(|m| m.market.0)
            .ok_or_else(|| bad("no market contract on this chain (CHAIN_MARKET)".into()))
    }

    /// `from`'s receive-authorization of `value` of `token` to the market.
    fn pull(
        &self,
        token: &Address,
        from: &Account,
        value: u128,
        nonce: [u8; 32],
    ) -> Result<SignedAuthorization> {
        self.receive(token, from, self.market()?, value, nonce)
    }

    /// The treasury's receive-authorization of `value` of `token` to `payee`.
    fn pull_to(
        &self,
        token: &Address,
        payee: [u8; 20],
        value: u128,
        nonce: [u8; 32],
    ) -> Result<SignedAuthorization> {
        self.receive(token, &Account::Treasury, payee, value, nonce)
    }

    fn receive(
        &self,
        token: &Address,
        from: &Account,
        payee: [u8; 20],
        value: u128,
        nonce: [u8; 32],
    ) -> Result<SignedAuthorization> {
        let a = Authorization {
            from: self.address(from),
            to: payee,
            value,
            valid_after: 0,
            valid_before: VALID_BEFORE,
            nonce,
        };
        auth::sign_receive(&self.domain(token)?, &a, &self.secret(from)?).map_err(evm_err)
    }

    /// A lock's id as the treasury gives it to the lock contract: keccak256 of the merchant
    /// and the ledger's lock id. The contract keeps it in the treasury's own space (its key
    /// is [`Self::lock_key`]), so nobody else can take it first, even having seen it.
    fn lock_id(&self, lock: &LockId) -> [u8; 32] {
        let mut seed = b"tokenpad lock ".to_vec();
        seed.extend_from_slice(self.merchant.id.as_str().as_bytes());
        seed.push(b' ');
        seed.extend_from_slice(lock.as_str().as_bytes());
        keccak256(&seed)
    }

    /// The key the lock contract keeps a lock under (`lockKey(treasury, id)`): what
    /// `release` and `locks` take and `Released` names.
    pub fn lock_key(&self, lock: &LockId) -> [u8; 32] {
        locker::key(self.merchant.address.0, self.lock_id(lock))
    }

    fn locker(&self) -> Result<[u8; 20]> {
        self.evm
            .chain
            .locker
            .map(|a| a.0)
            .ok_or_else(|| bad("no lock contract on this chain (CHAIN_LOCKER)".into()))
    }

    /// A batch of locks: the treasury's receive authorization of the total to the lock
    /// contract (its nonce made from the batch's intents: the same batch, the same nonce),
    /// and each lock with its id, beneficiary, amount and unlock time.
    fn lock(&self, b: &Batch) -> Result<Built> {
        let mut locks = Vec::with_capacity(b.intents.len());
        let mut total: u128 = 0;
        let mut seed = b"tokenpad lock batch".to_vec();
        seed.extend_from_slice(self.merchant.id.as_str().as_bytes());
        for i in &b.intents {
            let Action::Lock {
                beneficiary,
                amount,
                unlock_at,
                lock,
            } = &i.action
            else {
                return Err(bad(format!("intent {} is not a lock", i.id)));
            };
            total = total
                .checked_add(amount.raw())
                .ok_or_else(|| bad("a lock batch past u128".into()))?;
            seed.extend_from_slice(&i.id.to_be_bytes());
            locks.push(locker::NewLock {
                id: self.lock_id(lock),
                beneficiary: beneficiary.0,
                amount: amount.raw(),
                unlock_at: *unlock_at,
            });
        }
        let token = b.token.address();
        let pulled = self.pull_to(&token, self.locker()?, total, keccak256(&seed))?;
        let n = u64::try_from(locks.len()).unwrap_or(u64::MAX);
        Ok(Built {
            to: self.locker()?,
            data: locker::lock(token.0, &pulled, &locks),
            gas_limit: LOCK_BASE_GAS.saturating_add(LOCK_ITEM_GAS.saturating_mul(n)),
        })
    }

    fn release(&self, b: &Batch) -> Result<Built> {
        let ids = b
            .intents
            .iter()
            .map(|i| match &i.action {
                Action::Release { lock, .. } => Ok(self.lock_key(lock)),
                _ => Err(bad(format!("intent {} is not a release", i.id))),
            })
            .collect::<Result<Vec<_>>>()?;
        let n = u64::try_from(ids.len()).unwrap_or(u64::MAX);
        Ok(Built {
            to: self.locker()?,
            data: locker::release(&ids),
            gas_limit: BATCH_BASE_GAS.saturating_add(RELEASE_ITEM_GAS.saturating_mul(n)),
        })
    }

    fn open_pool(&self, i: &Intent) -> Result<Built> {
        let Action::OpenPool {
            tokens,
            usdc,
            sqrt_price_x96,
            tick_lower,
            tick_upper,
        } = &i.action
        else {
            return Err(bad(format!("intent {} is not a pool's opening", i.id)));
        };
        let sqrt = U256::from_str_radix(sqrt_price_x96, 10)
            .map_err(|_| bad(format!("intent {}: a bad sqrtPriceX96", i.id)))?;
        let token = i.token.address();
        let usdc_address = self.evm.usdc;
        let nonce = self.nonce(i.id);
        let pull = |asset: &Address, value: Units| -> Result<Option<SignedAuthorization>> {
            if value.is_zero() {
                return Ok(None);
            }
            self.pull(asset, &Account::Treasury, value.raw(), nonce)
                .map(Some)
        };
        let (token_pull, usdc_pull) = (pull(&token, *tokens)?, pull(&usdc_address, *usdc)?);
        let token_first = token < usdc_address;
        let (t0, t1, p0, p1) = if token_first {
            (token, usdc_address, token_pull, usdc_pull)
        } else {
            (usdc_address, token, usdc_pull, token_pull)
        };
        let opening = market::Opening {
            token0: t0.0,
            token1: t1.0,
            sqrt_price_x96: sqrt,
            tick_lower: *tick_lower,
            tick_upper: *tick_upper,
        };
        let data = opening
            .calldata(self.merchant.address.0, p0.as_ref(), p1.as_ref())
            .map_err(evm_err)?;
        Ok(Built {
            to: self.market()?,
            data,
            gas_limit: OPEN_POOL_GAS,
        })
    }

    fn swap(&self, i: &Intent) -> Result<Built> {
        let Action::Swap {
            holder,
            buy,
            exact_in,
            amount,
            limit,
            ..
        } = &i.action
        else {
            return Err(bad(format!("intent {} is not a swap", i.id)));
        };
        let (token, usdc_address) = (i.token.address(), self.evm.usdc);
        let (token_in, token_out) = if *buy {
            (usdc_address, token)
        } else {
            (token, usdc_address)
        };
        let swap = market::Swap {
            token_in: token_in.0,
            token_out: token_out.0,
            exact_in: *exact_in,
            amount: amount.raw(),
            limit: limit.raw(),
            salt: self.nonce(i.id),
        };
        let market_address = self.market()?;
        let from = Account::Wallet(*holder);
        let signed = self.pull(
            &token_in,
            &from,
            swap.pull_value(),
            swap.nonce(market_address, holder.0),
        )?;
        Ok(Built {
            to: market_address,
            data: swap.calldata(&signed),
            gas_limit: SWAP_GAS,
        })
    }

    pub(super) fn secret(&self, account: &Account) -> Result<[u8; 32]> {
        match account {
            Account::Treasury => self
                .wallets
                .open(&self.merchant.address, &self.merchant.sealed_key),
            Account::Wallet(a) => {
                let h = self
                    .store
                    .holder_by_address(a)?
                    .ok_or_else(|| bad(format!("no key for {a}: not a holder")))?;
                self.wallets.open(&h.address, &h.sealed_key)
            }
        }
    }

    pub(super) fn address(&self, account: &Account) -> [u8; 20] {
        match account {
            Account::Treasury => self.merchant.address.0,
            Account::Wallet(a) => a.0,
        }
    }

    pub(super) fn domain(&self, token: &Address) -> Result<Domain> {
        let (name, version) = if self.evm.is_usdc(token) {
            (self.evm.usdc_name.clone(), self.evm.usdc_version.clone())
        } else {
            let t = self
                .store
                .token(&tokenpad_core::model::ids::TokenAddress(*token))?
                .ok_or_else(|| bad(format!("unknown token {token}")))?;
            (t.name, "1".to_string())
        };
        Ok(Domain {
            name,
            version,
            chain_id: self.evm.chain.chain_id,
            verifying_contract: self.chain_address(token),
        })
    }

    /// The nonce of intent `id` derived from the merchant and the intent: unique per merchant
    /// and intent, the same every time it is signed. A pool opening's pulls and a swap's salt
    /// use it, and so do holders' transfers queued before they carried their holder's own
    /// counted nonce (`transfers.rs`).
    pub(super) fn nonce(&self, id: u64) -> [u8; 32] {
        let mut seed = b"tokenpad transfer authorization".to_vec();
        seed.extend_from_slice(self.merchant.id.as_str().as_bytes());
        seed.extend_from_slice(&id.to_be_bytes());
        keccak256(&seed)
    }

    pub fn build(&self, b: &Batch) -> Result<Built> {
        let token = b.token.address();
        let first = b
            .intents
            .first()
            .ok_or_else(|| bad("an empty batch".into()))?;
        match (b.call, &first.action) {
            (
                Call::Deploy,
                Action::Deploy {
                    salt,
                    name,
                    symbol,
                    supply,
                },
            ) => {
                let salt = parse_bytes32(salt).ok_or_else(|| bad("a bad deploy salt".into()))?;
                Ok(Built {
                    to: self.evm.chain.factory.0,
                    data: calls::factory_deploy(
                        salt,
                        name,
                        symbol,
                        supply.raw(),
                        self.merchant.address.0,
                    ),
                    gas_limit: DEPLOY_GAS,
                })
            }
            (Call::Mint, Action::Mint { to, amount }) => Ok(Built {
                to: self.chain_address(&token),
                data: calls::mint(to.0, amount.raw()),
                gas_limit: MINT_GAS,
            }),
            (Call::Transfers, _) if b.intents.iter().all(from_treasury) => self.treasury(b),
            (Call::Transfers, _) => self.holders(b),
            (Call::Lock, _) => self.lock(b),
            (Call::Release, _) => self.release(b),
            (Call::OpenPool, _) => self.open_pool(first),
            (Call::Swap, _) => self.swap(first),
            _ => Err(bad(format!("intent {} does not match its call", first.id))),
        }
    }
}
