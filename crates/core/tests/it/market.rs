//! Markets: a token's Uniswap v3 pool and holders trading with it (on the embedded chain,
//! where the ledger's pool is the pool).
//!
//! - The pool's math against the constant product it reduces to inside one range (a
//!   position's virtual reserves `L / sqrt(P)` and `L x sqrt(P)`), to a few base units: v3
//!   rounds each step, the constant product once. The chain's own quoter checks the same to
//!   the unit (tests/chain).
//! - Property tests over random trade sequences through the operations: after every trade the
//!   store is conserved (pool reserves included), the pool holds what its liquidity needs at
//!   its price, a refused trade changes nothing, and a buy followed by a sell of the same
//!   tokens never ends with more USDC.
//! - The rules: opening a pool, slippage bounds, locked tokens, no pool yet.

use crate::common::{assert_conserved, assert_unchanged, body, deposit, tok, user, Fx};
use proptest::prelude::*;
use serde_json::json;
use tokenpad_core::error::ErrorCode as C;
use tokenpad_core::model::amount::{format_units, Units, Usdc};
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::pool::{Pool, TradeError};
use tokenpad_core::ops::market::{self, BuyRequest, LiquidityRequest, SellRequest};
use tokenpad_core::store::Store;

const USDC: u128 = 1_000_000;

/// A merchant with a pool-able token, its pool open (`tokens` at `price`), and two holders
/// with USDC.
fn world(tokens: &str, price: &str) -> (Fx, TokenAddress) {
    let mut fx = Fx::new();
    let t = fx.create_token(json!({"name": "Moon", "symbol": "MOON", "canLP": true}));
    let req: LiquidityRequest =
        body(&json!({"initialStartingPrice": price, "amount": tokens})).unwrap();
    market::open_liquidity(&mut fx.store, &fx.ctx, &t, &req).unwrap();
    for name in ["alice", "bob"] {
        let h = fx.holder(name);
        deposit(&mut fx.store, &fx.ctx, &h.address, 1_000_000 * USDC).unwrap();
    }
    assert_conserved(&fx.store);
    (fx, t)
}

fn pool(fx: &Fx, t: &TokenAddress) -> Pool {
    fx.store.pool(t).unwrap().unwrap()
}

fn buy(
    fx: &mut Fx,
    who: &str,
    req: serde_json::Value,
) -> tokenpad_core::Result<market::TradeReceipt> {
    let r: BuyRequest = body(&req)?;
    market::buy(&mut fx.store, &fx.ctx, &user(who)?, &r)
}

fn sell(
    fx: &mut Fx,
    who: &str,
    req: serde_json::Value,
) -> tokenpad_core::Result<market::TradeReceipt> {
    let r: SellRequest = body(&req)?;
    market::sell(&mut fx.store, &fx.ctx, &user(who)?, &r)
}

/// `a` and `b` differ by at most `parts` per million of `b`.
fn close(a: u128, b: u128, parts: u128) -> bool {
    a.abs_diff(b) <= b / 1_000_000 * parts + 2
}

#[test]
fn opening_a_pool_takes_the_reserve_and_sets_the_price() {
    let (fx, t) = world("1000000", "0.01");
    let token = fx.token(&t);
    let p = pool(&fx, &t);
    // The position takes what its liquidity needs of the million (all but a few units); the
    // rest stays in the reserve.
    assert!(p.token_reserve.raw() <= tok("1000000"));
    assert!(close(p.token_reserve.raw(), tok("1000000"), 1));
    assert_eq!(p.usdc_reserve, Usdc::ZERO);
    assert_eq!(
        token.liquidity_supply.raw() + p.token_reserve.raw(),
        tok("800000000")
    );
    assert_eq!(token.pooled, p.token_reserve);
    // The price is the usable tick's nearest $0.01 (ticks 60 apart: within 0.3 %), and the
    // virtual reserve the value of the tokens at it.
    let price = p.price().unwrap().raw();
    assert!(close(price, 10_000_000_000_000_000, 3_000), "{price}");
    assert!(close(p.virtual_usdc().raw(), 10_000 * USDC, 3_000));
    assert_eq!(token.price, p.price());
    assert_eq!(p.position.id, Some(1));
    assert!(p.solvent());
}

#[test]
fn opening_refusals_change_nothing() {
    let mut fx = Fx::new();
    let no_lp = fx.create_token(json!({"name": "A", "symbol": "A", "canLP": false}));
    let lp = fx.create_token(json!({"name": "B", "symbol": "B", "canLP": true}));
    let open = |fx: &mut Fx, t: &TokenAddress, req: serde_json::Value| {
        let r: LiquidityRequest = body(&req)?;
        market::open_liquidity(&mut fx.store, &fx.ctx, t, &r)
    };
    let cases = [
        (
            no_lp,
            json!({"initialStartingPrice": 1}),
            C::LiquidityDisabled,
        ),
        (
            lp,
            json!({"initialStartingPrice": 1, "amount": "800000001"}),
            C::InsufficientLiquidity,
        ),
        (lp, json!({"initialStartingPrice": 0}), C::InvalidAmount),
        (
            lp,
            json!({"initialStartingPrice": 1, "amount": "0.0000000000000000001"}),
            C::InvalidAmount,
        ),
    ];
    for (t, req, code) in cases {
        let before = fx.store.clone();
        let err = open(&mut fx, &t, req.clone()).unwrap_err();
        assert_eq!(err.code, code, "{req}");
        assert_unchanged(&before, &fx.store, &req.to_string());
    }
    open(&mut fx, &lp, json!({"initialStartingPrice": "0.5"})).unwrap();
    let err = open(&mut fx, &lp, json!({"initialStartingPrice": "0.5"})).unwrap_err();
    assert_eq!(err.code, C::PoolExists);
    // The default amount is the whole reserve (but the few units the position cannot use).
    assert!(fx.token(&lp).liquidity_supply.raw() < tok("0.000001"));
    assert_conserved(&fx.store);
}

#[test]
fn a_pool_opened_without_a_price_opens_at_the_default_starting_valuation() {
    let mut fx = Fx::new();
    // canLP is on by default (Metal's createToken then createLP works as written).
    let t = fx.create_token(json!({"name": "Plain", "symbol": "PLN"}));
    assert!(fx.token(&t).can_lp);
    assert_eq!(fx.token(&t).price, None);
    let req: LiquidityRequest = body(&json!({})).unwrap();
    market::open_liquidity(&mut fx.store, &fx.ctx, &t, &req).unwrap();
    // $10,000 over 1,000,000,000 tokens: $0.00001 each (the usable tick nearest it), the
    // whole reserve in the pool (but the few units its position cannot use).
    let token = fx.token(&t);
    let p = pool(&fx, &t);
    let price = token.price.unwrap().raw();
    assert!(
        close(price, 10_000_000_000_000, 3_000),
        "{}",
        format_units(price, 18)
    );
    assert!(close(p.token_reserve.raw(), tok("800000000"), 1));
    assert!(close(p.virtual_usdc().raw(), 8_000 * USDC, 3_000));
    assert_conserved(&fx.store);
}

#[test]
fn trades_move_exact_amounts_and_keep_the_price_at_the_pools() {
    let (mut fx, t) = world("1000000", "0.01");
    let alice = fx.holder("alice");
    let before = pool(&fx, &t);
    let r = buy(
        &mut fx,
        "alice",
        json!({"tokenAddress": t, "usdcAmount": 50}),
    )
    .unwrap();
    // The constant product of the position's virtual reserves (what v3 is inside one range):
    // 50 USDC less the 0.3 % fee into (virtual USDC, tokens).
    let (x, y) = (before.token_reserve.raw(), before.virtual_usdc().raw());
    let with_fee = 50 * USDC * 997 / 1000;
    let expected = x / (y + with_fee) * with_fee + x % (y + with_fee) * with_fee / (y + with_fee);
    assert!(
        close(r.trade.tokens.raw(), expected, 1),
        "{} vs {expected}",
        r.trade.tokens.raw()
    );
    assert_eq!(r.trade.fee, 150_000);
    assert_eq!(fx.active(&t, &alice.address), r.trade.tokens.raw());
    let after = pool(&fx, &t);
    assert!(after.solvent());
    assert_eq!(fx.token(&t).price, after.price());
    assert!(after.price() > before.price());
    // Selling back what was bought returns less than was paid.
    let bought = format_units(r.trade.tokens.raw(), 18);
    let back = sell(
        &mut fx,
        "alice",
        json!({"tokenAddress": t, "tokenAmount": bought}),
    )
    .unwrap();
    assert!(back.trade.usdc < r.trade.usdc);
    assert!(pool(&fx, &t).solvent());
    assert_conserved(&fx.store);
    // Both legs of both trades are in alice's history.
    let kinds: Vec<&str> = fx
        .store
        .history
        .iter()
        .filter(|h| h.user_id.as_str() == "alice")
        .map(|h| h.kind.as_str())
        .collect();
    assert_eq!(kinds.iter().filter(|k| **k == "buy").count(), 2);
    assert_eq!(kinds.iter().filter(|k| **k == "sell").count(), 2);
}

#[test]
fn exact_output_buys_pay_the_least_that_buys_it() {
    let (mut fx, t) = world("1000000", "0.01");
    let p = pool(&fx, &t);
    let r = buy(
        &mut fx,
        "bob",
        json!({"tokenAddress": t, "tokenAmount": 1234}),
    )
    .unwrap();
    assert_eq!(r.trade.tokens.raw(), tok("1234"));
    // One base unit of USDC less would not have bought them.
    let less = p.buy_with(Usdc::new(r.trade.usdc.raw() - 1)).unwrap();
    assert!(less.tokens.raw() < tok("1234"));
    assert!(p.buy_with(r.trade.usdc).unwrap().tokens.raw() >= tok("1234"));
}

#[test]
fn slippage_locks_and_missing_pools_are_refused_and_change_nothing() {
    let (mut fx, t) = world("1000000", "0.01");
    let plain = fx.create_token(json!({"name": "P", "symbol": "P"}));
    buy(
        &mut fx,
        "alice",
        json!({"tokenAddress": t, "usdcAmount": 100}),
    )
    .unwrap();
    let alice = fx.holder("alice");
    // Lock some of alice's MOON as a presale allocation would.
    let held = fx.active(&t, &alice.address);
    let cases = [
        (
            true,
            json!({"tokenAddress": t, "usdcAmount": 10, "minAmountOut": "1000000"}),
            C::SlippageExceeded,
        ),
        (
            true,
            json!({"tokenAddress": t, "tokenAmount": 1000, "maxAmountIn": "1"}),
            C::SlippageExceeded,
        ),
        (
            true,
            json!({"tokenAddress": t, "usdcAmount": 5000, "slippageBps": 10}),
            C::SlippageExceeded,
        ),
        (
            true,
            json!({"tokenAddress": t, "usdcAmount": 10, "tokenAmount": 5}),
            C::InvalidRequest,
        ),
        (true, json!({"tokenAddress": t}), C::InvalidRequest),
        (
            true,
            json!({"tokenAddress": t, "usdcAmount": 0}),
            C::InvalidAmount,
        ),
        (
            true,
            json!({"tokenAddress": t, "usdcAmount": "0.0000001"}),
            C::InvalidAmount,
        ),
        (
            true,
            json!({"tokenAddress": t, "tokenAmount": 2000000}),
            C::InsufficientLiquidity,
        ),
        (
            true,
            json!({"tokenAddress": t, "usdcAmount": 2000000}),
            C::InsufficientBalance,
        ),
        (
            true,
            json!({"tokenAddress": plain, "usdcAmount": 1}),
            C::NoLiquidity,
        ),
        (
            false,
            json!({"tokenAddress": t, "tokenAmount": "1000000000"}),
            C::InsufficientBalance,
        ),
        (
            false,
            json!({"tokenAddress": t, "tokenAmount": 100, "minAmountOut": 1000}),
            C::SlippageExceeded,
        ),
    ];
    for (is_buy, req, code) in cases {
        let before = fx.store.clone();
        let err = if is_buy {
            buy(&mut fx, "alice", req.clone())
        } else {
            sell(&mut fx, "alice", req.clone())
        }
        .unwrap_err();
        assert_eq!(err.code, code, "{req}");
        assert_unchanged(&before, &fx.store, &req.to_string());
    }
    fx.lock(&t, &alice.address, tok("10"));
    let all = format_units(held + tok("10"), 18);
    let err = sell(
        &mut fx,
        "alice",
        json!({"tokenAddress": t, "tokenAmount": all}),
    )
    .unwrap_err();
    assert_eq!(err.code, C::TokensLocked);
}

#[test]
fn a_pool_never_pays_more_usdc_than_buyers_paid_in() {
    let (mut fx, t) = world("1000000", "0.01");
    // Tokens the merchant distributed (not bought) cannot drain the virtual reserve.
    fx.holder("carol");
    crate::common::distribute(
        &mut fx.store,
        &fx.ctx,
        &t.to_checksum(),
        &json!({"sendToId": "carol", "amount": 100000}),
    )
    .unwrap();
    buy(&mut fx, "bob", json!({"tokenAddress": t, "usdcAmount": 10})).unwrap();
    let err = sell(
        &mut fx,
        "carol",
        json!({"tokenAddress": t, "tokenAmount": 100000}),
    )
    .unwrap_err();
    assert_eq!(err.code, C::InsufficientLiquidity);
    let paid_in = pool(&fx, &t).usdc_reserve;
    assert_eq!(paid_in.raw(), 10 * USDC);
    assert_eq!(
        pool(&fx, &t).sell(Units::new(tok("100000"))).unwrap_err(),
        TradeError::Drains
    );
}

#[derive(Clone, Debug)]
enum Step {
    BuyUsdc(bool, u64),
    BuyTokens(bool, u64),
    Sell(bool, u64),
    RoundTrip(bool, u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (any::<bool>(), 1u64..200_000_000).prop_map(|(w, u)| Step::BuyUsdc(w, u)),
        (any::<bool>(), 1u64..50_000).prop_map(|(w, n)| Step::BuyTokens(w, n)),
        (any::<bool>(), 1u64..50_000).prop_map(|(w, n)| Step::Sell(w, n)),
        (any::<bool>(), 1u64..20_000_000).prop_map(|(w, u)| Step::RoundTrip(w, u)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_trades_conserve_and_keep_the_pool_solvent(steps in proptest::collection::vec(step(), 1..25)) {
        let (mut fx, t) = world("1000000", "0.01");
        let who = |w: bool| if w { "alice" } else { "bob" };
        for s in steps {
            let before = fx.store.clone();
            let outcome = match &s {
                Step::BuyUsdc(w, u) => buy(&mut fx, who(*w), json!({"tokenAddress": t, "usdcAmount": Usdc::new(u128::from(*u)).to_decimal_string()})).map(|_| ()),
                Step::BuyTokens(w, n) => buy(&mut fx, who(*w), json!({"tokenAddress": t, "tokenAmount": n.to_string()})).map(|_| ()),
                Step::Sell(w, n) => sell(&mut fx, who(*w), json!({"tokenAddress": t, "tokenAmount": n.to_string()})).map(|_| ()),
                Step::RoundTrip(w, u) => {
                    let h = fx.holder(who(*w));
                    let usdc_before = fx.active(&crate::common::usdc_address(), &h.address);
                    let units = Usdc::new(u128::from(*u));
                    let amount = units.to_decimal_string();
                    match buy(&mut fx, who(*w), json!({"tokenAddress": t, "usdcAmount": amount})) {
                        Ok(r) => {
                            let n = format_units(r.trade.tokens.raw(), 18);
                            match sell(&mut fx, who(*w), json!({"tokenAddress": t, "tokenAmount": n})) {
                                Ok(_) => {
                                    let usdc_after = fx.active(&crate::common::usdc_address(), &h.address);
                                    prop_assert!(usdc_after <= usdc_before, "a round trip made USDC");
                                }
                                Err(e) => prop_assert!(matches!(e.code, C::InsufficientLiquidity | C::InvalidAmount), "{e}"),
                            }
                            Ok(())
                        }
                        Err(e) => Err(e),
                    }
                }
            };
            match outcome {
                Ok(()) => {}
                Err(e) => {
                    prop_assert!(matches!(e.code, C::InsufficientBalance | C::InsufficientLiquidity | C::InvalidAmount), "{s:?}: {e}");
                    if !matches!(s, Step::RoundTrip(..)) {
                        assert_unchanged(&before, &fx.store, &format!("{s:?}"));
                    }
                }
            }
            prop_assert!(pool(&fx, &t).solvent(), "the pool cannot pay its curve after {s:?}");
            assert_conserved(&fx.store);
        }
    }
}
