//! Executing a transaction on the simulated chain: each movement of its batch as the contract
//! would carry it out, all or nothing, with its logs and its receipt; and the outside world's
//! own transactions (a trader swapping in a pool, a wallet sending tokens to a holder).

use super::pools::{self, Traded};
use super::{AuthNonce, LogKind, Receipt, SentTx, SimChain};
use alloy_primitives::U256;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::chain::{ChainPoint, PoolEvent, UNISWAP_V3_POOL_INIT_CODE_HASH};
use tokenpad_core::model::ids::{LockId, TokenAddress};
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

    /// A holder-signed movement: its authorization, used once per (token, signer, nonce).
    fn authorize(
        &mut self,
        token: Address,
        signer: Address,
        nonce: AuthNonce,
    ) -> Result<(), String> {
        if !self.state.used_auth.insert((token, signer, nonce)) {
            return Err("AuthorizationUsedOrCanceled".into());
        }
        Ok(())
    }

    fn moved(
        &mut self,
        tx: &str,
        token: Address,
        from: Address,
        to: Address,
        amount: u128,
    ) -> Result<(), String> {
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

    /// Applies one transaction: every movement, or (reverted) none.
    pub(super) fn execute(&mut self, tx: &SentTx, inject: bool) {
        let before = (self.state.clone(), self.logs.len());
        let mut effects = Effects::default();
        let mut outcome = if inject {
            Err(super::INJECTED_OUT_OF_GAS.to_string())
        } else if tx.gas_limit < super::gas::need(tx.intents.iter().map(|(_, _, a)| a)) {
            Err(super::gas::OUT_OF_GAS.to_string())
        } else {
            Ok(())
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
                    &mut effects,
                ) {
                    outcome = Err(e);
                    break;
                }
            }
        }
        let success = outcome.is_ok();
        if success {
            for (id, token, action) in &tx.intents {
                let skipped = matches!(action, Action::Release { lock, .. } if !effects.released.contains(lock));
                if !skipped {
                    *self.executed.entry(*id).or_default() += 1;
                    self.reverted_open.remove(&(token.address(), *id));
                }
            }
        } else {
            self.state = before.0;
            self.logs.truncate(before.1);
            // Behind a fault: it reverted for want of funds while an older movement of one of
            // its tokens, reverted by a fault (or behind one), had not been carried out: this
            // one may have needed what that one brings.
            let want = outcome
                .as_ref()
                .err()
                .is_some_and(|why| why.contains("InsufficientBalance"));
            let older: Vec<(Address, u64)> = if inject || !want {
                Vec::new()
            } else {
                self.reverted_open
                    .iter()
                    .filter(|(t, older)| {
                        tx.intents
                            .iter()
                            .any(|(id, token, _)| *t == token.address() && older < id)
                    })
                    .copied()
                    .collect()
            };
            let behind = !older.is_empty();
            for (id, token, _) in &tx.intents {
                self.reverted_behind.insert(*id, older.clone());
                if inject || behind {
                    self.reverted_open.insert((token.address(), *id));
                }
            }
            if !inject && !behind {
                let why = outcome.clone().err().unwrap_or_default();
                self.natural_reverts.push((tx.hash.clone(), why));
            }
        }
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
                injected: inject,
            },
        );
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
        fx: &mut Effects,
    ) -> Result<(), String> {
        match action {
            Action::Deploy { supply, .. } => {
                if self.has_code(&token) {
                    return Err("the token is deployed already (CREATE2 collision)".into());
                }
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
                    self.authorize(token, *signer, nonce)?;
                }
                let (from, to) = (self.account(from), self.account(to));
                self.moved(tx, token, from, to, amount.raw())
            }
            Action::Mint { to, amount } => {
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
                if self.state.pools.contains_key(&token) {
                    return Err("TokenpadMarketPoolOccupied".into());
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
                let treasury = self.relayer;
                self.moved(tx, token, treasury, address, o.tokens)?;
                self.moved(tx, self.usdc, treasury, address, o.usdc)?;
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
                self.authorize(token, *holder, AuthNonce::Derived(id))?;
                let traded = self.swap(tx, token, *holder, *buy, *exact_in, amount.raw())?;
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
                if self.state.locks.contains_key(lock) {
                    return Err("TokenpadLockerLockExists".into());
                }
                self.moved(tx, token, treasury, locker, amount.raw())?;
                self.state.locks.insert(
                    lock.clone(),
                    (token, *beneficiary, amount.raw(), *unlock_at),
                );
                Ok(())
            }
            Action::Release { lock, .. } => {
                let Some((t, to, amount, unlock_at)) = self.state.locks.get(lock).cloned() else {
                    return Ok(());
                };
                if self.now / 1000 < unlock_at {
                    return Ok(());
                }
                self.state.locks.remove(lock);
                let locker = self.locker;
                self.moved(tx, t, locker, to, amount)?;
                fx.released.push(lock.clone());
                Ok(())
            }
        }
    }

    /// A swap of `trader` in `token`'s pool: what goes in leaves the trader, what comes out
    /// reaches it.
    fn swap(
        &mut self,
        tx: &str,
        token: Address,
        trader: Address,
        buy: bool,
        exact_in: bool,
        amount: u128,
    ) -> Result<Traded, String> {
        let pool = self
            .state
            .pools
            .get(&token)
            .cloned()
            .ok_or("no pool for the token")?;
        let traded = pool.swap(buy, exact_in, amount)?;
        let (pay, get) = if buy {
            (self.usdc, token)
        } else {
            (token, self.usdc)
        };
        self.moved(tx, pay, trader, pool.address, traded.paid_in)?;
        self.moved(tx, get, pool.address, trader, traded.paid_out)?;
        if let Some(p) = self.state.pools.get_mut(&token) {
            p.state = traded.after;
        }
        Ok(traded)
    }

    fn swap_event(&mut self, tx: &str, token: Address, t: &Traded) -> PoolEvent {
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

    /// An outside trader buys `token` with `usdc` of its own (minted to it first), or sells
    /// tokens it holds, in the token's pool; mined in the current block. Refused (nothing
    /// happens) when the pool cannot fill it.
    pub fn outside_trade(
        &mut self,
        trader: Address,
        token: &TokenAddress,
        buy: bool,
        amount: u128,
    ) -> Result<(), String> {
        let token = token.address();
        if buy {
            let have = self.balance(&self.usdc, &trader);
            if have < amount {
                self.mint(self.usdc, trader, amount - have);
            }
        }
        let before = (self.state.clone(), self.logs.len());
        let tx = self.outside_hash();
        match self.swap(&tx, token, trader, buy, true, amount) {
            Ok(traded) => {
                self.swap_event(&tx, token, &traded);
                self.block += 1;
                Ok(())
            }
            Err(e) => {
                self.state = before.0;
                self.logs.truncate(before.1);
                Err(e)
            }
        }
    }

    /// An outside wallet sends `amount` of `token` to `to` (a deposit, when `to` is a holder).
    pub fn outside_send(
        &mut self,
        token: &TokenAddress,
        from: Address,
        to: Address,
        amount: u128,
    ) -> Result<(), String> {
        let tx = self.outside_hash();
        self.moved(&tx, token.address(), from, to, amount)?;
        self.block += 1;
        Ok(())
    }
}
