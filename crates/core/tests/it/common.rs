//! Shared fixture for the core's integration tests: a merchant in a `MemStore`, tokens created
//! through the real job lifecycle, holders through `ops::holder::get_or_create`, and the
//! conservation / "a refusal changes nothing" checks every test runs after each operation.
//!
//! Requests go the way HTTP requests do: path parameters are parsed by their id types, JSON
//! bodies are decoded by `wire::decode::body` into the operation's typed request, and only
//! then does the operation run. The helpers below do exactly that, so the scenario tables
//! can stay in JSON.
#![allow(dead_code)]

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::{parse_units, Units, Usdc, TOKEN_DECIMALS};
use tokenpad_core::model::balance::Balance;
use tokenpad_core::model::chain::{ChainMode, BLOCK_MS};
use tokenpad_core::model::deployment::{DeploySpec, DeploymentKind};
use tokenpad_core::model::holder::{Holder, NewWallet};
use tokenpad_core::model::ids::{uuid_v4, JobId, MerchantId, PresaleId, TokenAddress, UserId};
use tokenpad_core::model::input::Checked;
use tokenpad_core::model::job::{Job, JobStatus};
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::presale::Presale;
use tokenpad_core::model::time::Millis;
use tokenpad_core::model::token::{Token, TokenOrigin, USDC_ADDRESS};
use tokenpad_core::model::wallet::Wallet;
use tokenpad_core::ops::deployment::DeployRequest;
use tokenpad_core::ops::ledger::{Outflow, Receipt};
use tokenpad_core::ops::presale::Purchase;
use tokenpad_core::ops::{self, Ctx};
use tokenpad_core::store::mem::MemStore;
use tokenpad_core::store::Store;
use tokenpad_core::wire::decode;
use tokenpad_core::wire::presale::{PresaleMerchant, ResolveResult};
use tokenpad_core::Result;

/// 2026-11-21T12:00:00.000Z, a block boundary (divisible by `BLOCK_MS`).
pub const T0: Millis = 1_795_262_400_000;

/// The fixture merchant's id (a valid `MerchantId`: 32 lowercase hex characters).
pub const MERCHANT_ID: &str = "0123456789abcdef0123456789abcdef";

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
        id: MerchantId::parse(MERCHANT_ID).expect("valid merchant id"),
        name: "Test Merchant".into(),
        address,
        sealed_key: "00112233445566778899aabbccddeeff".into(),
        created_at: T0,
        private_mode: false,
    }
}

/// A JSON value from its text, exactly (e.g. `num("1e400")`, `num("0.1")`).
pub fn num(text: &str) -> Value {
    serde_json::from_str(text).expect("valid JSON")
}

/// Base units of a decimal text.
pub fn units(text: &str, decimals: u8) -> u128 {
    parse_units(text, decimals).expect("valid amount text")
}

/// Whole tokens (18 decimals) in base units.
pub fn tok(text: &str) -> u128 {
    units(text, TOKEN_DECIMALS)
}

pub fn usdc_address() -> TokenAddress {
    USDC_ADDRESS
}

/// A response type (or anything serializable) as the JSON clients see.
pub fn json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("serializes")
}

// ---------------------------------------------------------------------------------------------
// Requests, the way the HTTP edge decodes them: path parameters first, then the body.

/// A JSON body decoded into an operation's request (`wire::decode::body`).
pub fn body<T: DeserializeOwned + Checked>(req: &Value) -> Result<T> {
    decode::body::<T>(req)
}

/// A `:userId` path parameter.
pub fn user(text: &str) -> Result<UserId> {
    UserId::parse(text)
}

/// A `:tokenAddress` path parameter.
pub fn token_path(text: &str) -> Result<TokenAddress> {
    TokenAddress::parse("tokenAddress", text)
}

/// How a holder's tokens leave its active balance (which request body the route takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Spend,
    Transfer,
    Withdraw,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Spend => "spend",
            Kind::Transfer => "transfer",
            Kind::Withdraw => "withdraw",
        }
    }

    /// The body decoded into the outflow this route asks for.
    pub fn outflow(self, req: &Value) -> Result<Outflow> {
        Ok(match self {
            Kind::Spend => Outflow::Spend(body(req)?),
            Kind::Transfer => Outflow::Transfer(body(req)?),
            Kind::Withdraw => Outflow::Withdraw(body(req)?),
        })
    }
}

/// `POST /token/:tokenAddress/distribute`: returns the transaction hash.
pub fn distribute(store: &mut MemStore, ctx: &Ctx, path: &str, req: &Value) -> Result<String> {
    let token = token_path(path)?;
    let req = body(req)?;
    ops::ledger::distribute(store, ctx, &token, &req).map(|r| embedded_hash(&r.stamp))
}

/// `POST /holder/:userId/{spend,transfer,withdraw}`.
pub fn move_out(
    store: &mut MemStore,
    ctx: &Ctx,
    kind: Kind,
    user_id: &str,
    req: &Value,
) -> Result<Receipt> {
    let user_id = user(user_id)?;
    let out = kind.outflow(req)?;
    ops::ledger::move_out(store, ctx, &user_id, &out)
}

/// The embedded chain's hash of a movement (it always has one).
pub fn embedded_hash(stamp: &tokenpad_core::ops::chain::Stamp) -> String {
    stamp
        .hash
        .clone()
        .expect("the embedded chain hashes every movement")
}

/// Test USDC for a holder, in USDC base units.
pub fn deposit(store: &mut MemStore, ctx: &Ctx, to: &Address, usdc_units: u128) -> Result<String> {
    ops::ledger::deposit_usdc(store, ctx, to, Usdc::new(usdc_units)).map(|s| embedded_hash(&s))
}

/// `POST /merchant/presale` with a chosen id.
pub fn create_presale(store: &mut MemStore, ctx: &Ctx, req: &Value, id: &str) -> Result<Presale> {
    let req = body(req)?;
    ops::presale::create(store, ctx, req, PresaleId::new_unchecked(id))
}

/// `POST /holder/:userId/buy-presale`.
pub fn buy_presale(
    store: &mut MemStore,
    ctx: &Ctx,
    user_id: &str,
    req: &Value,
) -> Result<Purchase> {
    let user_id = user(user_id)?;
    let req = body(req)?;
    ops::presale::buy(store, ctx, &user_id, &req)
}

/// `POST /merchant/presale/resolve`: the answer as JSON (outcome and the merchant form).
pub fn resolve_presale(store: &mut MemStore, ctx: &Ctx, req: &Value) -> Result<Value> {
    let req: ops::presale::ResolvePresaleRequest = body(req)?;
    let outcome = ops::presale::resolve(store, ctx, &req)?;
    let p = ops::presale::find(store, &req.presale_id)?;
    let view = PresaleMerchant::read(store, &p, ctx.now)?;
    Ok(json(&ResolveResult::of(view, outcome)))
}

/// `POST /template/memecoin` or `/template/airdrop`, decoded and validated into its record.
pub fn deploy_spec(kind: DeploymentKind, req: &Value) -> Result<DeploySpec> {
    let req = match kind {
        DeploymentKind::Memecoin => DeployRequest::Memecoin(body(req)?),
        DeploymentKind::Airdrop => DeployRequest::Airdrop(body(req)?),
    };
    req.spec()
}

// ---------------------------------------------------------------------------------------------
// The fixture.

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
        Fx::on(ChainMode::Embedded)
    }

    /// The same, for a merchant made on `chain` (its USDC kept under the chain's address).
    pub fn on(chain: ChainMode) -> Fx {
        let merchant = merchant_at(wallet(0).address);
        let mut store = MemStore::default();
        ops::merchant::init(&mut store, &merchant, &[], &chain).expect("merchant init");
        let fx = Fx {
            store,
            ctx: Ctx {
                now: T0,
                merchant,
                chain,
            },
            next_seed: 1,
            jobs: 0,
        };
        assert_conserved(&fx.store);
        fx
    }

    /// The address the ledger keeps USDC under: the chain's USDC (Base's on the embedded
    /// chain and in `settle::evm_on_bases_usdc`).
    pub fn usdc(&self) -> TokenAddress {
        self.ctx.chain.usdc()
    }

    pub fn merchant_address(&self) -> Address {
        self.ctx.merchant.address
    }

    pub fn advance(&mut self, ms: Millis) {
        self.ctx.now += ms;
    }

    /// Submits a create-token job at the current time (does not mine it).
    pub fn submit_token(&mut self, json: Value) -> Job {
        let req: ops::token::CreateTokenRequest = body(&json).expect("valid create-token body");
        self.jobs += 1;
        let mut id_bytes = [0u8; 16];
        id_bytes[15] = self.jobs;
        let id = JobId::new_unchecked(uuid_v4(id_bytes));
        let spec = req.into_spec(&self.ctx).expect("a network this chain has");
        ops::job::create_token(&mut self.store, &self.ctx, spec, id).expect("create_token")
    }

    /// Creates a token through the job lifecycle: submit, then run the schedule one block
    /// later, once the deployment is mined. Returns the token's address.
    pub fn create_token(&mut self, json: Value) -> TokenAddress {
        let job = self.submit_token(json);
        self.advance(BLOCK_MS);
        assert!(self.ctx.now >= job.mined_at);
        ops::due::run_due(&mut self.store, &self.ctx).expect("run_due");
        let done = self.store.job(&job.id).expect("job read").expect("job");
        assert_eq!(done.status, JobStatus::Success);
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
        let user_id = user(user_id).expect("valid userId");
        let (h, created) =
            ops::holder::get_or_create(&mut self.store, &self.ctx, &user_id, &mut || {
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

    pub fn token(&self, address: &TokenAddress) -> Token {
        self.store
            .token(address)
            .expect("token read")
            .expect("token exists")
    }

    pub fn balance(&self, token: &TokenAddress, owner: &Address) -> Balance {
        self.store.balance(token, owner).expect("balance read")
    }

    /// Active base units of `owner` in `token`.
    pub fn active(&self, token: &TokenAddress, owner: &Address) -> u128 {
        self.balance(token, owner).active.raw()
    }

    /// Puts `locked` tokens in `owner`'s balance directly, as a presale allocation would,
    /// taking them from the liquidity reserve so the token stays conserved.
    pub fn lock(&mut self, token: &TokenAddress, owner: &Address, locked: u128) {
        let locked = Units::new(locked);
        let mut t = self.token(token);
        t.liquidity_supply = t.liquidity_supply.checked_sub(locked).expect("reserve");
        t.held = t.held.checked_add(locked).expect("held");
        let mut b = self.balance(token, owner);
        b.locked = b.locked.checked_add(locked).expect("locked");
        self.store.put_token(&t).expect("put_token");
        self.store
            .put_balance(token, owner, &b)
            .expect("put_balance");
        assert_conserved(&self.store);
    }
}

/// For every token: `totalSupply = remainingAppSupply + merchantSupply + liquiditySupply +
/// escrow + pooled + Σ balances` and `held == Σ balances`, with Σ recomputed from every
/// balance; every balance belongs to a known token and its active + locked does not overflow;
/// a token's `pooled` is its pool's token reserve, and USDC's `pooled` covers every pool's
/// USDC reserve.
pub fn assert_conserved(store: &MemStore) {
    // What the store's own check at a commit says of everything written since the last one.
    if let Err(e) = store.books.clone().check() {
        panic!("the books do not balance: {}", e.message);
    }
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
            .try_fold(0u128, |acc, (_, b)| acc.checked_add(b.total()?.raw()))
            .expect("Σ balances overflows");
        assert_eq!(sum, store.sum_balances(&t.address).raw());
        assert_eq!(
            t.held.raw(),
            sum,
            "{} ({}): held {:?} != Σ balances {}",
            t.symbol,
            t.address,
            t.held,
            sum
        );
        let accounted = t
            .remaining_app_supply
            .checked_add(t.merchant_supply)
            .and_then(|s| s.checked_add(t.liquidity_supply))
            .and_then(|s| s.checked_add(t.escrow))
            .and_then(|s| s.checked_add(t.pooled))
            .and_then(|s| s.checked_add(Units::new(sum)));
        assert_eq!(
            accounted,
            Some(t.total_supply),
            "{} ({}): total {:?} != app {:?} + merchant {:?} + liquidity {:?} + escrow {:?} + pooled {:?} + Σ {}",
            t.symbol,
            t.address,
            t.total_supply,
            t.remaining_app_supply,
            t.merchant_supply,
            t.liquidity_supply,
            t.escrow,
            t.pooled,
            sum
        );
        assert!(t.remaining_app_supply <= t.starting_app_supply);
        match store.pools.get(&t.address) {
            Some(p) => assert_eq!(
                p.token_reserve, t.pooled,
                "{}: pooled != pool reserve",
                t.symbol
            ),
            None if t.origin != TokenOrigin::Usdc => {
                assert!(t.pooled.is_zero(), "{}: pooled without a pool", t.symbol)
            }
            None => {}
        }
    }
    let in_pools: u128 = store.pools.values().map(|p| p.usdc_reserve.raw()).sum();
    // USDC is kept under the chain's address (or Base's, in ledgers made before it followed
    // the chain): told by its origin.
    if let Some(usdc) = store.tokens.iter().find(|t| t.origin == TokenOrigin::Usdc) {
        assert!(
            usdc.pooled.raw() >= in_pools,
            "USDC pooled {:?} < Σ pools' USDC {in_pools}",
            usdc.pooled
        );
    }
}

/// Every part of the store is as it was: a refused operation wrote nothing.
pub fn assert_unchanged(before: &MemStore, after: &MemStore, what: &str) {
    assert_eq!(before.merchant, after.merchant, "{what}: merchant changed");
    assert_eq!(before.chain, after.chain, "{what}: chain state changed");
    assert_eq!(before.tokens, after.tokens, "{what}: tokens changed");
    assert_eq!(before.holders, after.holders, "{what}: holders changed");
    assert_eq!(before.balances, after.balances, "{what}: balances changed");
    assert_eq!(before.locks, after.locks, "{what}: locks changed");
    assert_eq!(before.history, after.history, "{what}: history changed");
    assert_eq!(before.jobs, after.jobs, "{what}: jobs changed");
    assert_eq!(
        before.deployments, after.deployments,
        "{what}: deployments changed"
    );
    assert_eq!(before.schedule, after.schedule, "{what}: schedule changed");
    assert_eq!(
        before.schedule_order, after.schedule_order,
        "{what}: schedule order changed"
    );
    assert_eq!(before.presales, after.presales, "{what}: presales changed");
    assert_eq!(
        before.participants, after.participants,
        "{what}: participants changed"
    );
    // An event exists exactly when its change does.
    assert_eq!(
        before.log.events, after.log.events,
        "{what}: events written"
    );
}

/// A request decoded from its route and body, as the edge decodes it.
pub fn op(method: &str, path: &str, body: Value) -> tokenpad_core::wire::op::Op {
    use tokenpad_core::wire::op::{Op, Parts};
    let m = tokenpad_core::wire::routes::route(method, path).expect("a route");
    let query = std::collections::BTreeMap::new();
    let parts = Parts {
        params: &m.params,
        query: &query,
        body: &body,
    };
    Op::decode(m.route, &parts)
        .expect("decodes")
        .expect("a merchant operation")
}
