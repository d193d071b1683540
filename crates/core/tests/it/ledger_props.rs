//! Property tests of the ledger: random sequences of distribute / spend / transfer / withdraw /
//! deposit over 2 tokens (plus USDC), 4 holders and 2 external addresses, with amounts that
//! include zero, huge values, malformed text and values right around the balance.
//!
//! After every operation: the store is conserved (`held == Σ balances` included), a refused
//! operation left the store exactly as it was, and the outcome is the one an independent,
//! simple model predicts. At the end every balance and pool equals the model's.
//! (format/parse round-tripping of amounts is covered by `model::amount`'s own proptest.)

use crate::common::{self, assert_conserved, assert_unchanged, usdc_address, wallet, Fx, Kind};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::OnceLock;
use tokenpad_core::error::ErrorCode as C;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::{format_units, pow10, TOKEN_DECIMALS, USDC_DECIMALS};
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::ops::Ctx;
use tokenpad_core::store::mem::MemStore;
use tokenpad_core::store::Store;

// ---------------------------------------------------------------------------------------------
// The starting world, built once (wallet derivation is slow in debug builds).

struct Base {
    store: MemStore,
    ctx: Ctx,
    /// ALPHA (default supply), BETA (totalSupply 1000: app 150), USDC.
    tokens: [TokenAddress; 3],
    holders: [(String, Address); 4],
    ext: [Address; 2],
    merchant: Address,
}

fn base() -> &'static Base {
    static BASE: OnceLock<Base> = OnceLock::new();
    BASE.get_or_init(|| {
        let mut fx = Fx::new();
        let a = fx.create_token(json!({"name": "Alpha", "symbol": "ALPHA"}));
        let b = fx.create_token(json!({"name": "Beta", "symbol": "BETA", "totalSupply": 1000}));
        let holders = ["h0", "h1", "h2", "h3"].map(|id| (id.to_string(), fx.holder(id).address));
        // Everyone starts with some of everything, so outflows often succeed.
        for (id, address) in &holders {
            for (token, amount) in [(a, 1000), (b, 20)] {
                let body = json!({"sendToId": id, "amount": amount});
                common::distribute(&mut fx.store, &fx.ctx, &token.to_checksum(), &body).unwrap();
            }
            common::deposit(&mut fx.store, &fx.ctx, address, 100_000_000).unwrap();
        }
        assert_conserved(&fx.store);
        Base {
            tokens: [a, b, usdc_address()],
            holders,
            ext: [wallet(200).address, wallet(201).address],
            merchant: fx.merchant_address(),
            store: fx.store,
            ctx: fx.ctx,
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Operations.

/// How an amount is chosen.
#[derive(Clone, Debug)]
enum Amt {
    Zero,
    /// A few base units.
    Base(u128),
    /// Whole tokens.
    Whole(u32),
    /// The relevant limit (sender's active balance, or the app supply) plus a small delta.
    Near(i8),
    /// A quarter, half, three quarters or all of the limit.
    Part(u8),
    /// Far more than any supply, but a valid u128.
    Huge,
    Max,
    /// A fixed text, with its value at 18 and at 6 decimals (None: not an amount).
    Text(&'static str, Option<u128>, Option<u128>),
}

#[derive(Clone, Debug)]
enum Target {
    Holder(usize),
    Ext(usize),
    Merchant,
}

#[derive(Clone, Debug)]
enum Op {
    Dist {
        token: usize,
        to: usize,
        by_id: bool,
        amt: Amt,
        as_number: bool,
    },
    Out {
        kind: u8,
        from: usize,
        token: usize,
        to: Target,
        amt: Amt,
        as_number: bool,
    },
    Deposit {
        to: usize,
        amount: u128,
    },
}

/// `near` weights amounts around the limit (the balance, for outflows).
fn amt(near: u32) -> impl Strategy<Value = Amt> {
    prop_oneof![
        1 => Just(Amt::Zero),
        2 => (1u128..=1000).prop_map(Amt::Base),
        4 => (1u32..=200).prop_map(Amt::Whole),
        near => (-2i8..=2).prop_map(Amt::Near),
        near => (1u8..=4).prop_map(Amt::Part),
        1 => Just(Amt::Huge),
        1 => Just(Amt::Max),
        2 => prop_oneof![
            Just(Amt::Text("abc", None, None)),
            Just(Amt::Text("1e400", None, None)),
            Just(Amt::Text("-1", None, None)),
            Just(Amt::Text("0.0000000000000000001", None, None)),
            Just(Amt::Text("0.0000001", Some(100_000_000_000), None)),
            Just(Amt::Text("1e-6", Some(1_000_000_000_000), Some(1))),
            Just(Amt::Text("0.000000000000000001", Some(1), None)),
            Just(Amt::Text("2.5", Some(2_500_000_000_000_000_000), Some(2_500_000))),
        ],
    ]
}

fn target() -> impl Strategy<Value = Target> {
    prop_oneof![
        4 => (0usize..4).prop_map(Target::Holder),
        2 => (0usize..2).prop_map(Target::Ext),
        1 => Just(Target::Merchant),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0usize..2, 0usize..4, any::<bool>(), amt(2), any::<bool>()).prop_map(
            |(token, to, by_id, amt, as_number)| Op::Dist { token, to, by_id, amt, as_number }
        ),
        6 => (0u8..3, 0usize..4, 0usize..3, target(), amt(4), any::<bool>()).prop_map(
            |(kind, from, token, to, amt, as_number)| Op::Out { kind, from, token, to, amt, as_number }
        ),
        2 => (
            0usize..4,
            prop_oneof![
                1 => Just(0u128),
                6 => 1u128..=100_000_000,
                1 => Just(u128::MAX),
                1 => Just(u128::MAX / 2 + 1),
            ]
        )
            .prop_map(|(to, amount)| Op::Deposit { to, amount }),
    ]
}

// ---------------------------------------------------------------------------------------------
// The model: plain maps, updated only when the real operation succeeded.

#[derive(Default)]
struct Model {
    bal: HashMap<(TokenAddress, Address), u128>,
    app: HashMap<TokenAddress, u128>,
    merchant: HashMap<TokenAddress, u128>,
    total: HashMap<TokenAddress, u128>,
    records: usize,
}

impl Model {
    fn of(store: &MemStore) -> Model {
        let mut m = Model::default();
        for t in &store.tokens {
            m.app.insert(t.address, t.remaining_app_supply.raw());
            m.merchant.insert(t.address, t.merchant_supply.raw());
            m.total.insert(t.address, t.total_supply.raw());
        }
        for ((t, o), b) in &store.balances {
            assert_eq!(b.locked.raw(), 0);
            m.bal.insert((*t, *o), b.active.raw());
        }
        m.records = store.history.len();
        m
    }

    fn get(&self, token: TokenAddress, owner: Address) -> u128 {
        self.bal.get(&(token, owner)).copied().unwrap_or(0)
    }

    fn credit(&mut self, token: TokenAddress, owner: Address, amount: u128) {
        *self.bal.entry((token, owner)).or_insert(0) += amount;
    }

    fn debit(&mut self, token: TokenAddress, owner: Address, amount: u128) {
        let b = self
            .bal
            .get_mut(&(token, owner))
            .expect("debit of a known balance");
        *b -= amount;
    }
}

fn decimals(token: usize) -> u8 {
    if token == 2 {
        USDC_DECIMALS
    } else {
        TOKEN_DECIMALS
    }
}

/// Whether an amount string takes its documented form: no exponent, at most 20 digits before
/// the point (a JSON number may take any form JSON gives it).
fn plain_string(text: &str) -> bool {
    let int = text.split('.').next().unwrap_or_default();
    !text.contains(['e', 'E']) && int.len() <= 20
}

/// The request value for an amount, and its value in base units when it is one.
fn amount_value(a: &Amt, dec: u8, limit: u128, as_number: bool) -> (Value, Option<u128>) {
    let one = pow10(u32::from(dec)).unwrap();
    let units = match a {
        Amt::Zero => Some(0),
        Amt::Base(n) => Some(*n),
        Amt::Whole(n) => Some(u128::from(*n) * one),
        Amt::Near(d) => Some(if *d >= 0 {
            limit.saturating_add(d.unsigned_abs().into())
        } else {
            limit.saturating_sub(d.unsigned_abs().into())
        }),
        Amt::Part(k) => Some(limit / 4 * u128::from(*k) + limit % 4 * u128::from(*k) / 4),
        Amt::Huge => Some(u128::MAX / 3),
        Amt::Max => Some(u128::MAX),
        Amt::Text(text, at18, at6) => {
            let v = if dec == USDC_DECIMALS { *at6 } else { *at18 };
            let value = if as_number {
                serde_json::from_str(text).unwrap_or_else(|_| Value::String((*text).into()))
            } else {
                Value::String((*text).into())
            };
            let v = v.filter(|_| value.is_number() || plain_string(text));
            return (value, v);
        }
    };
    let units = units.unwrap_or(0);
    let text = format_units(units, dec);
    if as_number {
        (serde_json::from_str(&text).unwrap(), Some(units))
    } else {
        let units = Some(units).filter(|_| plain_string(&text));
        (Value::String(text), units)
    }
}

/// A model update, applied only if the real operation succeeded.
type Update = Box<dyn FnOnce(&mut Model)>;

struct Run {
    store: MemStore,
    ctx: Ctx,
    model: Model,
}

impl Run {
    fn target(&self, t: &Target) -> Address {
        let b = base();
        match t {
            Target::Holder(i) => b.holders[*i].1,
            Target::Ext(i) => b.ext[*i],
            Target::Merchant => b.merchant,
        }
    }

    /// Applies one operation, checks it against the model, and updates the model on success.
    fn step(&mut self, op: &Op) -> Result<(), TestCaseError> {
        let b = base();
        self.ctx.now += 1_000;
        let before = self.store.clone();
        // (outcome predicted by the model, real outcome, model update on success)
        let (want, got, update): (Result<(), C>, Result<(), C>, Update) = match op {
            Op::Dist {
                token,
                to,
                by_id,
                amt,
                as_number,
            } => {
                let t = b.tokens[*token];
                let (user, holder) = (&b.holders[*to].0, b.holders[*to].1);
                let app = self.model.app[&t];
                let (amount, units) = amount_value(amt, decimals(*token), app, *as_number);
                let mut body = json!({ "amount": amount });
                if *by_id {
                    body["sendToId"] = json!(user);
                } else {
                    body["sendToAddress"] = json!(holder.to_checksum());
                }
                let want = match units {
                    None | Some(0) => Err(C::InvalidAmount),
                    Some(u) if u > app => Err(C::InsufficientAppSupply),
                    Some(_) => Ok(()),
                };
                let got = common::distribute(&mut self.store, &self.ctx, &t.to_checksum(), &body)
                    .map(|_| ())
                    .map_err(|e| e.code);
                let u = units.unwrap_or(0);
                (
                    want,
                    got,
                    Box::new(move |m: &mut Model| {
                        m.credit(t, holder, u);
                        *m.app.get_mut(&t).unwrap() -= u;
                        m.records += 1;
                    }),
                )
            }
            Op::Out {
                kind,
                from,
                token,
                to,
                amt,
                as_number,
            } => {
                let kind = [Kind::Spend, Kind::Transfer, Kind::Withdraw][usize::from(*kind)];
                let t = b.tokens[*token];
                let (user, holder) = (&b.holders[*from].0, b.holders[*from].1);
                let dest = if kind == Kind::Spend {
                    b.merchant
                } else {
                    self.target(to)
                };
                let active = self.model.get(t, holder);
                let (amount, units) = amount_value(amt, decimals(*token), active, *as_number);
                let mut body = json!({ "tokenAddress": t.to_checksum(), "amount": amount });
                if kind != Kind::Spend {
                    body["toAddress"] = json!(dest.to_checksum());
                }
                let want = match units {
                    None | Some(0) => Err(C::InvalidAmount),
                    Some(_) if dest == holder => Err(C::SelfTransfer),
                    Some(u) if u > active => Err(C::InsufficientBalance),
                    Some(_) => Ok(()),
                };
                let got = common::move_out(&mut self.store, &self.ctx, kind, user, &body)
                    .map(|r| {
                        assert_eq!(r.from, holder);
                        assert_eq!(r.to, dest);
                    })
                    .map_err(|e| e.code);
                let u = units.unwrap_or(0);
                let merchant = b.merchant;
                let dest_is_holder = b.holders.iter().any(|(_, a)| *a == dest);
                (
                    want,
                    got,
                    Box::new(move |m: &mut Model| {
                        m.debit(t, holder, u);
                        if dest == merchant {
                            *m.merchant.get_mut(&t).unwrap() += u;
                        } else {
                            m.credit(t, dest, u);
                        }
                        m.records += if dest_is_holder { 2 } else { 1 };
                    }),
                )
            }
            Op::Deposit { to, amount } => {
                let usdc = b.tokens[2];
                let holder = b.holders[*to].1;
                let amount = *amount;
                let fits = self.model.total[&usdc].checked_add(amount).is_some()
                    && self.model.get(usdc, holder).checked_add(amount).is_some();
                let want = if fits { Ok(()) } else { Err(C::InvalidAmount) };
                let got = common::deposit(&mut self.store, &self.ctx, &holder, amount)
                    .map(|_| ())
                    .map_err(|e| e.code);
                (
                    want,
                    got,
                    Box::new(move |m: &mut Model| {
                        m.credit(usdc, holder, amount);
                        *m.total.get_mut(&usdc).unwrap() += amount;
                        m.records += 1;
                    }),
                )
            }
        };
        assert_conserved(&self.store);
        // Each operation is a transaction: its books balance when it ends (as the SQLite
        // adapter checks at its commit).
        prop_assert_eq!(
            self.store.commit().map_err(|e| e.message),
            Ok(()),
            "{:?}",
            op
        );
        prop_assert_eq!(got, want, "{:?}", op);
        match got {
            Ok(()) => update(&mut self.model),
            Err(_) => assert_unchanged(&before, &self.store, &format!("{op:?}")),
        }
        prop_assert_eq!(self.store.history.len(), self.model.records);
        Ok(())
    }

    /// Every balance and pool in the store is the model's.
    fn compare(&self) -> Result<(), TestCaseError> {
        for ((t, o), bal) in &self.store.balances {
            prop_assert_eq!(bal.locked.raw(), 0);
            prop_assert_eq!(bal.active.raw(), self.model.get(*t, *o), "{} of {}", t, o);
        }
        for ((t, o), v) in &self.model.bal {
            prop_assert_eq!(self.store.balance(t, o).unwrap().active.raw(), *v);
        }
        for token in &self.store.tokens {
            let a = token.address;
            prop_assert_eq!(token.remaining_app_supply.raw(), self.model.app[&a]);
            prop_assert_eq!(token.merchant_supply.raw(), self.model.merchant[&a]);
            prop_assert_eq!(token.total_supply.raw(), self.model.total[&a]);
        }
        Ok(())
    }
}

proptest! {
    // No regression files: a failure prints its minimal sequence.
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_ledger_sequences_conserve_and_match_the_model(
        ops in proptest::collection::vec(op(), 0..=60)
    ) {
        let b = base();
        let mut run = Run {
            store: b.store.clone(),
            ctx: b.ctx.clone(),
            model: Model::of(&b.store),
        };
        for op in &ops {
            run.step(op)?;
        }
        run.compare()?;
    }
}
