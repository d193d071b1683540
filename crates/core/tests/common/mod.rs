//! Shared fixture for the core's integration tests: a merchant in a `MemStore`, tokens created
//! through the real job lifecycle, holders through `holder::get_or_create`, and the
//! conservation / "a refusal changes nothing" checks every test runs after each operation.
#![allow(dead_code)]

use serde_json::Value;
use tokenpad_core::address::Address;
use tokenpad_core::chain;
use tokenpad_core::crypto::Wallet;
use tokenpad_core::due;
use tokenpad_core::holder::{self, Holder, NewWallet};
use tokenpad_core::ids;
use tokenpad_core::input::{self, Object};
use tokenpad_core::job::{self, Job};
use tokenpad_core::mem::MemStore;
use tokenpad_core::merchant::{Ctx, Merchant};
use tokenpad_core::money;
use tokenpad_core::store::{Balance, Store};
use tokenpad_core::time::Millis;
use tokenpad_core::token::{CreateToken, Token, USDC_ADDRESS};

/// 2026-11-21T12:00:00.000Z, a block boundary (divisible by `chain::BLOCK_MS`).
pub const T0: Millis = 1_795_262_400_000;

/// A fixed, valid secp256k1 secret: 0x11..11NN (far below the group order, never zero).
pub fn seed(n: u8) -> [u8; 32] {
    let mut s = [0x11u8; 32];
    s[31] = n;
    s
}

pub fn wallet(n: u8) -> Wallet {
    Wallet::from_seed(seed(n)).expect("fixed seed is a valid secp256k1 scalar")
}

pub fn merchant_at(address: Address) -> Merchant {
    Merchant {
        id: "m_0123456789abcdef".into(),
        name: "Test Merchant".into(),
        address,
        sealed_key: "00112233445566778899aabbccddeeff".into(),
        secret_key_hash: "aa".repeat(32),
        public_key_hash: "bb".repeat(32),
        created_at: T0,
    }
}

/// A JSON object body from a `json!` value.
pub fn obj(v: Value) -> Object {
    input::object(&v).expect("test body is a JSON object")
}

/// A JSON value from its text, exactly (e.g. `num("1e400")`, `num("0.1")`).
pub fn num(text: &str) -> Value {
    serde_json::from_str(text).expect("valid JSON")
}

/// Base units of a decimal text.
pub fn units(text: &str, decimals: u8) -> u128 {
    money::parse_units(text, decimals).expect("valid amount text")
}

/// Whole tokens (18 decimals) in base units.
pub fn tok(text: &str) -> u128 {
    units(text, money::TOKEN_DECIMALS)
}

pub fn usdc_address() -> Address {
    Address::parse(USDC_ADDRESS).expect("USDC address parses")
}

pub struct Fx {
    pub store: MemStore,
    pub ctx: Ctx,
    /// Seed byte of the next holder wallet.
    next_seed: u8,
    /// Counter for job ids.
    jobs: u8,
}

impl Default for Fx {
    fn default() -> Self {
        Fx::new()
    }
}

impl Fx {
    /// A store holding one merchant (and its USDC ledger), at `T0`.
    pub fn new() -> Fx {
        let merchant = merchant_at(wallet(0).address);
        let mut store = MemStore::default();
        Merchant::init(&mut store, &merchant).expect("merchant init");
        let fx = Fx {
            store,
            ctx: Ctx { now: T0, merchant },
            next_seed: 1,
            jobs: 0,
        };
        assert_conserved(&fx.store);
        fx
    }

    pub fn merchant_address(&self) -> Address {
        self.ctx.merchant.address
    }

    pub fn advance(&mut self, ms: Millis) {
        self.ctx.now += ms;
    }

    /// Submits a create-token job at the current time (does not mine it).
    pub fn submit_token(&mut self, body: Value) -> Job {
        let req = CreateToken::parse(&obj(body)).expect("valid create-token body");
        self.jobs += 1;
        let mut id_bytes = [0u8; 16];
        id_bytes[15] = self.jobs;
        job::create_token(&mut self.store, &self.ctx, req, ids::uuid_v4(id_bytes))
            .expect("create_token")
    }

    /// Creates a token through the job lifecycle: submit, then run the schedule one block
    /// later, once the deployment is mined. Returns the token's address.
    pub fn create_token(&mut self, body: Value) -> Address {
        let job = self.submit_token(body);
        self.advance(chain::BLOCK_MS);
        assert!(self.ctx.now >= job.mined_at);
        due::run_due(&mut self.store, &self.ctx).expect("run_due");
        let done = self.store.job(&job.id).expect("job read").expect("job");
        assert_eq!(done.status, job::JobStatus::Success);
        assert!(self
            .store
            .token(&job.token_address)
            .expect("read")
            .is_some());
        assert_conserved(&self.store);
        job.token_address
    }

    /// Get-or-create a holder; a new one gets the next fixed wallet.
    pub fn holder(&mut self, user_id: &str) -> Holder {
        let seed_byte = self.next_seed;
        let mut used = false;
        let (h, created) = holder::get_or_create(&mut self.store, &self.ctx, user_id, &mut || {
            used = true;
            Ok(NewWallet {
                address: wallet(seed_byte).address,
                sealed_key: format!("5ea1ed{seed_byte:02x}"),
            })
        })
        .expect("get_or_create");
        assert_eq!(created, used);
        if created {
            self.next_seed += 1;
        }
        h
    }

    pub fn token(&self, address: &Address) -> Token {
        self.store
            .token(address)
            .expect("token read")
            .expect("token exists")
    }

    pub fn balance(&self, token: &Address, owner: &Address) -> Balance {
        self.store.balance(token, owner).expect("balance read")
    }

    pub fn active(&self, token: &Address, owner: &Address) -> u128 {
        self.balance(token, owner).active
    }

    /// Puts `locked` tokens in `owner`'s balance directly, as a presale allocation would,
    /// taking them from the liquidity reserve so the token stays conserved.
    pub fn lock(&mut self, token: &Address, owner: &Address, locked: u128) {
        let mut t = self.token(token);
        t.liquidity_supply = t.liquidity_supply.checked_sub(locked).expect("reserve");
        t.held += locked;
        let mut b = self.balance(token, owner);
        b.locked += locked;
        self.store.put_token(&t).expect("put_token");
        self.store
            .put_balance(token, owner, &b)
            .expect("put_balance");
        assert_conserved(&self.store);
    }
}

/// For every token: `totalSupply = remainingAppSupply + merchantSupply + liquiditySupply + Σ
/// balances` and `held == Σ balances`, with Σ recomputed from every balance; every balance
/// belongs to a known token and its active + locked does not overflow.
pub fn assert_conserved(store: &MemStore) {
    for ((token, owner), b) in &store.balances {
        assert!(
            store.tokens.iter().any(|t| &t.address == token),
            "balance of {owner} in unknown token {token}"
        );
        assert!(
            b.total().is_some(),
            "balance of {owner} in {token} overflows"
        );
    }
    for t in &store.tokens {
        let sum: u128 = store
            .balances
            .iter()
            .filter(|((tk, _), _)| tk == &t.address)
            .try_fold(0u128, |acc, (_, b)| acc.checked_add(b.total()?))
            .expect("Σ balances overflows");
        assert_eq!(sum, store.sum_balances(&t.address));
        assert_eq!(
            t.held, sum,
            "{} ({}): held {} != Σ balances {}",
            t.symbol, t.address, t.held, sum
        );
        let accounted = t
            .remaining_app_supply
            .checked_add(t.merchant_supply)
            .and_then(|s| s.checked_add(t.liquidity_supply))
            .and_then(|s| s.checked_add(t.escrow))
            .and_then(|s| s.checked_add(sum));
        assert_eq!(
            accounted,
            Some(t.total_supply),
            "{} ({}): total {} != app {} + merchant {} + liquidity {} + escrow {} + Σ {}",
            t.symbol,
            t.address,
            t.total_supply,
            t.remaining_app_supply,
            t.merchant_supply,
            t.liquidity_supply,
            t.escrow,
            sum
        );
        assert!(t.remaining_app_supply <= t.starting_app_supply);
    }
}

/// Every part of the store is as it was: a refused operation wrote nothing.
pub fn assert_unchanged(before: &MemStore, after: &MemStore, what: &str) {
    assert_eq!(before.meta, after.meta, "{what}: meta changed");
    assert_eq!(before.tokens, after.tokens, "{what}: tokens changed");
    assert_eq!(before.holders, after.holders, "{what}: holders changed");
    assert_eq!(before.balances, after.balances, "{what}: balances changed");
    assert_eq!(before.locks, after.locks, "{what}: locks changed");
    assert_eq!(before.history, after.history, "{what}: history changed");
    assert_eq!(before.jobs, after.jobs, "{what}: jobs changed");
    assert_eq!(before.schedule, after.schedule, "{what}: schedule changed");
    assert_eq!(before.presales, after.presales, "{what}: presales changed");
    assert_eq!(
        before.participants, after.participants,
        "{what}: participants changed"
    );
}
