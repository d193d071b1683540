//! Executing a transaction on the simulated chain: each movement of its batch as the contract
//! would carry it out, all or nothing, with its logs and its receipt; and the outside world's
//! own transactions (a trader swapping in a pool, a wallet sending tokens to a holder:
//! `outside.rs`). Each step is charged its gas (`gas.rs`) as it runs.

use super::gas::{self, Meter, Slot};
use super::pools::{self, Traded};
use super::{AuthNonce, LogKind, Receipt, SentTx, SimChain};
use alloy_primitives::U256;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::chain::{ChainPoint, PoolEvent, UNISWAP_V3_POOL_INIT_CODE_HASH};
use tokenpad_core::model::ids::LockId;
use tokenpad_core::model::intent::{Account, Action};
use tokenpad_core::model::pool::v3::FEE_PIPS;

/// What one movement did: pool events, a released lock.
#[derive(Default)]
struct Effects {
    events: Vec<PoolEvent>,
    released: Vec<LockId>,
}

impl SimChain {
    fn account(&self, a: &Account) -> Address {
        match a {
            Account::Treasury => self.relayer,
            Account::Wallet(w) => *w,
        }
    }

    fn pool_address(&self, token: &Address) -> Address {
        Address::uniswap_v3_pool(
            &self.uniswap_factory,
            token,
            &self.usdc,
            FEE_PIPS,
            &UNISWAP_V3_POOL_INIT_CODE_HASH,
        )
    }

    /// A holder-signed movement: its signature checked, its authorization used once per
    /// (token, signer, nonce) (a new slot, and an `AuthorizationUsed` log).
    fn authorize(
        &mut self,
        token: Address,
        signer: Address,
        nonce: AuthNonce,
        gas: &mut Meter,
    ) -> Result<(), String> {
        gas.signature()?;
        gas.store(Slot(token, format!("auth {signer} {nonce:?}")), true)?;
        if !self.state.used_auth.insert((token, signer, nonce)) {
            return Err("AuthorizationUsedOrCanceled".into());
        }
        gas.log(3, 0)
    }

    /// A token's transfer inside a call: the call into the token, both balances' slots (the
    /// recipient's new when it held none), and its `Transfer` log; a token without code is
    /// only called.
    pub(super) fn moved(
        &mut self,
        tx: &str,
        token: Address,
        (from, to): (Address, Address),
        amount: u128,
        gas: &mut Meter,
    ) -> Result<(), String> {
        gas.call(token)?;
        if self.has_code(&token) {
            let (had, to_had) = (self.balance(&token, &from), self.balance(&token, &to));
            gas.store(Slot(token, format!("balance {from}")), had == 0)?;
            gas.store(Slot(token, format!("balance {to}")), to_had == 0)?;
            gas.log(3, 32)?;
        }
        self.transfer(token, from, to, amount)?;
        if self.has_code(&token) && amount > 0 {
            self.log(
                tx,
                LogKind::Transfer {
                    token,
                    from,
                    to,
                    amount,
                },
            );
        }
        Ok(())
    }

    /// The calldata words a movement takes (a holder's signature: 3 words more, and its
    /// authorization's 4).
    fn words(action: &Action) -> u64 {
        match action {
            Action::Transfer {
                from: Account::Wallet(_),
                ..
            } => 9,
            Action::Transfer { .. } | Action::Mint { .. } => 2,
            Action::Deploy { .. } => 8,
            Action::OpenPool { .. } => 19,
            Action::Swap { .. } => 17,
            Action::Lock { .. } => 4,
            Action::Release { .. } => 1,
        }
    }

    /// Applies one transaction: every movement, or (reverted, or out of gas) none. Returns
    /// the gas it used (all of its limit when it ran out).
    pub(super) fn execute(&mut self, tx: &SentTx, inject: bool) -> u64 {
        let before = (self.state.clone(), self.logs.len());
        let mut effects = Effects::default();
        let mut gas = Meter::new(tx.gas_limit, self.gas_percent);
        let words = 2 + tx
            .intents
            .iter()
            .map(|(_, _, a)| Self::words(a))
            .sum::<u64>();
        let mut outcome = if inject {
            Err(super::INJECTED_OUT_OF_GAS.to_string())
        } else if tx.intents.is_empty() {
            // A transfer of nothing (a filler, someone else's use of the nonce).
            gas.charge(gas::TX_BASE)
        } else {
            gas.intrinsic(words)
        };
        if outcome.is_ok() {
            for (id, token, action) in &tx.intents {
                let counted = tx.auth_nonces.get(id).copied();
                if let Err(e) = self.apply(
                    &tx.hash,
                    *id,
                    counted,
                    token.address(),
                    action,
                    (&mut effects, &mut gas),
                ) {
                    outcome = Err(e);
                    break;
                }
            }
        }
        let success = outcome.is_ok();
        let out_of_gas = outcome.as_ref().err().is_some_and(|e| e == gas::OUT_OF_GAS);
        let gas_used = if inject || out_of_gas {
            tx.gas_limit
        } else {
            gas.used
        };
        // Ours, not the chain's: a fault, or a limit too low (its movements go again).
        let ours = inject || out_of_gas;
        if success {
            for (id, token, action) in &tx.intents {
                // A release the contract skipped, and a call to a token without code (which
                // "succeeds" and moves nothing), carried nothing out.
                let skipped = matches!(action, Action::Release { lock, .. } if !effects.released.contains(lock))
                    || (matches!(action, Action::Transfer { .. } | Action::Lock { .. })
                        && !self.has_code(&token.address()));
                if !skipped {
                    *self.executed.entry(*id).or_default() += 1;
                    // Every token a revert left it open in (a swap's USDC too): left there,
                    // a stale entry would have a later revert of another movement judged as
                    // behind this one after it landed.
                    self.landed(*id, *token, action);
                } else if matches!(action, Action::Release { .. })
                    && self.open_before(*id, token.address())
                {
                    // Skipped for want of its lock, which a fault sent back after the release
                    // went out (someone else took the lock's nonce): the release goes again
                    // once the lock lands, and what spends what it brings is behind it.
                    self.send_back(*id, *token, action);
                }
            }
        } else {
            self.state = before.0;
            self.logs.truncate(before.1);
            self.judge_revert(tx, ours, outcome.as_ref().err().map(String::as_str));
        }
        let transfers = self.transfers_since(before.1, &tx.hash);
        self.receipts.insert(
            tx.hash.clone(),
            Receipt {
                hash: tx.hash.clone(),
                nonce: tx.nonce,
                block: self.block,
                success,
                reason: outcome.err(),
                events: if success { effects.events } else { Vec::new() },
                released: if success {
                    effects.released
                } else {
                    Vec::new()
                },
                transfers,
                injected: inject,
                gas_used,
            },
        );
        gas_used
    }

    fn at(&self) -> ChainPoint {
        ChainPoint {
            block: self.block,
            log_index: self.next_log(),
        }
    }

    fn apply(
        &mut self,
        tx: &str,
        id: u64,
        counted: Option<u64>,
        token: Address,
        action: &Action,
        (fx, gas): (&mut Effects, &mut Meter),
    ) -> Result<(), String> {
        let pulled = matches!(
            action,
            Action::OpenPool { .. } | Action::Swap { .. } | Action::Lock { .. }
        );
        if pulled && !self.has_code(&token) {
            // The market and the lock contract pull the token with receiveWithAuthorization, a
            // call that reverts on an address without code (unlike a call made to it).
            gas.call(token)?;
            return Err("call to a token without code".into());
        }
        match action {
            Action::Deploy { supply, .. } => {
                gas.call(self.uniswap_factory)?;
                gas.create(gas::TOKEN_CODE)?;
                if self.has_code(&token) {
                    return Err("the token is deployed already (CREATE2 collision)".into());
                }
                gas.charge(gas::TOKEN_CONSTRUCTOR)?;
                gas.store(Slot(token, "totalSupply".into()), true)?;
                gas.store(Slot(token, format!("balance {}", self.relayer)), true)?;
                gas.log(3, 32)?;
                self.state.code.insert(token);
                self.mint(token, self.relayer, supply.raw());
                self.log(
                    tx,
                    LogKind::Transfer {
                        token,
                        from: Address([0; 20]),
                        to: self.relayer,
                        amount: supply.raw(),
                    },
                );
                Ok(())
            }
            Action::Transfer { from, to, amount } => {
                if let Account::Wallet(signer) = from {
                    let nonce = counted.map_or(AuthNonce::Derived(id), AuthNonce::Counted);
                    if self.has_code(&token) {
                        self.authorize(token, *signer, nonce, gas)?;
                    }
                }
                let (from, to) = (self.account(from), self.account(to));
                self.moved(tx, token, (from, to), amount.raw(), gas)
            }
            Action::Mint { to, amount } => {
                gas.call(token)?;
                gas.store(Slot(token, "totalSupply".into()), false)?;
                let had = self.balance(&token, to);
                gas.store(Slot(token, format!("balance {to}")), had == 0)?;
                gas.log(3, 32)?;
                self.mint(token, *to, amount.raw());
                self.log(
                    tx,
                    LogKind::Transfer {
                        token,
                        from: Address([0; 20]),
                        to: *to,
                        amount: amount.raw(),
                    },
                );
                Ok(())
            }
            Action::OpenPool {
                tokens,
                usdc,
                sqrt_price_x96,
                tick_lower,
                tick_upper,
            } => {
                let address = self.pool_address(&token);
                gas.call(self.uniswap_factory)?;
                if self.state.pools.contains_key(&token) {
                    return Err("TokenpadMarketPoolOccupied".into());
                }
                // The pool's code, its price and oracle, its two ticks (3 words each), the
                // position (3) and its NFT (4); the treasury's two signed pulls; the logs of
                // the pool's creation, its initialization, the mint and the NFT.
                gas.create(gas::POOL_CODE)?;
                let words = [
                    "slot0",
                    "observations",
                    "lower",
                    "lower1",
                    "lower2",
                    "upper",
                ]
                .into_iter()
                .chain(["upper1", "upper2", "position", "position1", "position2"])
                .chain(["nft", "nft1", "nft2", "nft3"]);
                for w in words {
                    gas.store(Slot(address, w.into()), true)?;
                }
                let treasury = self.relayer;
                self.authorize(token, treasury, AuthNonce::Derived(id), gas)?;
                self.authorize(self.usdc, treasury, AuthNonce::Derived(id), gas)?;
                for (topics, data) in [(3, 64), (1, 64), (4, 128), (4, 0)] {
                    gas.log(topics, data)?;
                }
                let sqrt: U256 = sqrt_price_x96
                    .parse()
                    .map_err(|_| "a bad sqrtPriceX96".to_string())?;
                let o = pools::open(
                    token,
                    self.usdc,
                    address,
                    (tokens.raw(), usdc.raw()),
                    sqrt,
                    (*tick_lower, *tick_upper),
                )?;
                self.moved(tx, token, (treasury, address), o.tokens, gas)?;
                self.moved(tx, self.usdc, (treasury, address), o.usdc, gas)?;
                self.state.positions += 1;
                let (amount0, amount1) = if o.pool.token_is_0 {
                    (o.tokens, o.usdc)
                } else {
                    (o.usdc, o.tokens)
                };
                let at = self.at();
                fx.events.push(PoolEvent::Opened {
                    pool: address,
                    position_id: self.state.positions,
                    liquidity: o.liquidity,
                    amount0,
                    amount1,
                    at,
                });
                self.state.pools.insert(token, o.pool);
                Ok(())
            }
            Action::Swap {
                holder,
                buy,
                exact_in,
                amount,
                limit,
                ..
            } => {
                gas.call(self.uniswap_factory)?;
                self.authorize(token, *holder, AuthNonce::Derived(id), gas)?;
                let traded =
                    self.swap(tx, (token, *holder), (*buy, *exact_in, amount.raw()), gas)?;
                let bound_ok = if *exact_in {
                    traded.paid_out >= limit.raw()
                } else {
                    traded.paid_in <= limit.raw()
                };
                if !bound_ok {
                    return Err("TokenpadMarketSlippage".into());
                }
                let e = self.swap_event(tx, token, &traded);
                fx.events.push(e);
                Ok(())
            }
            Action::Lock {
                beneficiary,
                amount,
                unlock_at,
                lock,
            } => {
                let (treasury, locker) = (self.relayer, self.locker);
                gas.call(locker)?;
                gas.store(Slot(locker, format!("lock {lock:?}")), true)?;
                if self.state.locks.contains_key(lock) {
                    return Err("TokenpadLockerLockExists".into());
                }
                gas.store(Slot(locker, format!("lock1 {lock:?}")), true)?;
                self.authorize(token, treasury, AuthNonce::Derived(id), gas)?;
                self.moved(tx, token, (treasury, locker), amount.raw(), gas)?;
                gas.log(3, 64)?;
                self.state.locks.insert(
                    lock.clone(),
                    (token, *beneficiary, amount.raw(), *unlock_at),
                );
                Ok(())
            }
            Action::Release { lock, .. } => {
                gas.call(self.locker)?;
                gas.load(Slot(self.locker, format!("lock {lock:?}")))?;
                gas.load(Slot(self.locker, format!("lock1 {lock:?}")))?;
                let Some((t, to, amount, unlock_at)) = self.state.locks.get(lock).cloned() else {
                    return Ok(());
                };
                if self.now / 1000 < unlock_at {
                    return Ok(());
                }
                self.state.locks.remove(lock);
                let locker = self.locker;
                gas.store(Slot(locker, format!("lock {lock:?}")), false)?;
                gas.store(Slot(locker, format!("lock1 {lock:?}")), false)?;
                self.moved(tx, t, (locker, to), amount, gas)?;
                gas.log(3, 32)?;
                fx.released.push(lock.clone());
                Ok(())
            }
        }
    }

    /// A swap of `trader` in `token`'s pool: what goes in leaves the trader, what comes out
    /// reaches it. Its gas: the pool's words, each initialized tick it crosses, the two
    /// transfers.
    pub(super) fn swap(
        &mut self,
        tx: &str,
        (token, trader): (Address, Address),
        (buy, exact_in, amount): (bool, bool, u128),
        gas: &mut Meter,
    ) -> Result<Traded, String> {
        let pool = self
            .state
            .pools
            .get(&token)
            .cloned()
            .ok_or("no pool for the token")?;
        gas.call(pool.address)?;
        gas.store(Slot(pool.address, "slot0".into()), false)?;
        gas.load(Slot(pool.address, "liquidity".into()))?;
        gas.store(Slot(pool.address, "feeGrowth".into()), false)?;
        let traded = pool.swap(buy, exact_in, amount)?;
        let (a, b) = (pool.state.tick, traded.after.tick);
        let crossed = pool.ticks.range(a.min(b)..=a.max(b)).count() as u64;
        gas.charge(gas::TICK_CROSS.saturating_mul(crossed))?;
        let (pay, get) = if buy {
            (self.usdc, token)
        } else {
            (token, self.usdc)
        };
        self.moved(tx, pay, (trader, pool.address), traded.paid_in, gas)?;
        self.moved(tx, get, (pool.address, trader), traded.paid_out, gas)?;
        if let Some(p) = self.state.pools.get_mut(&token) {
            p.state = traded.after;
        }
        Ok(traded)
    }

    pub(super) fn swap_event(&mut self, tx: &str, token: Address, t: &Traded) -> PoolEvent {
        let pool = self.pool_address(&token);
        let e = PoolEvent::Swap {
            pool,
            amount0: t.amount0,
            amount1: t.amount1,
            sqrt_price_x96: t.after.sqrt_price,
            liquidity: t.after.liquidity,
            tick: t.after.tick,
            at: self.at(),
            tx: tx.to_string(),
        };
        self.log(tx, LogKind::Pool(e.clone()));
        e
    }
}
