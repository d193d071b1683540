//! The pool record: opening in either token order, trading, and what a pool pays.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::model::token::USDC_ADDRESS;

const TOKEN: u128 = 1_000_000_000_000_000_000;
const USDC: u128 = 1_000_000;

fn token(byte: u8) -> TokenAddress {
    TokenAddress(Address([byte; 20]))
}

fn dollars(cents: u128) -> Price {
    Price::new(cents * 10_000_000_000_000_000)
}

#[test]
fn a_pool_from_tokens_alone_opens_near_its_price_and_pays_only_what_buyers_paid() {
    // Below and above USDC's address: both orders of token0/token1.
    for t in [token(0x01), token(0xff)] {
        let o = Pool::open(
            t,
            USDC_ADDRESS.address(),
            Address::ZERO,
            Units::new(1_000_000 * TOKEN),
            Usdc::ZERO,
            dollars(1),
            Some(1),
            0,
        )
        .unwrap();
        let p = o.pool;
        assert_eq!(p.token_is_0, t == token(0x01));
        // Within half a tick spacing (0.3 %) of $0.01.
        let price = p.price().unwrap().raw();
        let want = dollars(1).raw();
        assert!(price.abs_diff(want) * 1000 <= want * 3, "{price} vs {want}");
        assert!(o.tokens.raw() <= 1_000_000 * TOKEN);
        assert!(o.tokens.raw() > 999_999 * TOKEN);
        assert!(o.usdc.is_zero());
        // ~$10,000 of tokens at $0.01: the virtual reserve is about that much.
        let v = p.virtual_usdc().raw();
        assert!(v.abs_diff(10_000 * USDC) < 100 * USDC, "virtual {v}");
        // Nothing to sell into yet.
        assert_eq!(p.sell(Units::new(TOKEN)).unwrap_err(), TradeError::Drains);
        let bought = p.buy_with(Usdc::new(100 * USDC)).unwrap();
        assert!(bought.tokens.raw() < 10_000 * TOKEN);
        assert!(bought.tokens.raw() > 9_800 * TOKEN);
        assert_eq!(bought.fee, 300_000);
        assert!(bought.after.price().unwrap() > p.price().unwrap());
        // Selling back pays less than was paid; selling more than was bought cannot be paid.
        let back = bought.after.sell(bought.tokens).unwrap();
        assert!(back.usdc < bought.usdc);
        assert_eq!(
            bought
                .after
                .sell(Units::new(bought.tokens.raw() * 2))
                .unwrap_err(),
            TradeError::Drains
        );
        // Buying exactly the tokens a USDC amount bought costs at most that amount.
        let exact = p.buy_exact(bought.tokens).unwrap();
        assert!(exact.usdc <= bought.usdc);
        assert_eq!(exact.tokens, bought.tokens);
    }
}

#[test]
fn a_presale_pool_spans_the_range_at_the_price_of_its_amounts() {
    let o = Pool::open(
        token(0x01),
        USDC_ADDRESS.address(),
        Address::ZERO,
        Units::new(250_000 * TOKEN),
        Usdc::new(100 * USDC),
        dollars(0),
        None,
        0,
    )
    .unwrap();
    let p = &o.pool;
    assert_eq!(p.virtual_usdc(), Usdc::ZERO);
    // 100 USDC for 250,000 tokens: $0.0004.
    let price = p.price().unwrap().raw();
    let want = 400_000_000_000_000u128;
    assert!(price.abs_diff(want) <= want / 1_000_000, "{price}");
    // The position takes (almost) all of both: at most a few units are left.
    assert!(100 * USDC - o.usdc.raw() <= 2);
    assert!(250_000 * TOKEN - o.tokens.raw() < TOKEN / 1_000_000);
    assert!(p.sell(Units::new(TOKEN)).is_ok());
    assert_eq!(p.buy_with(Usdc::new(0)).unwrap_err(), TradeError::TooSmall);
    assert!(p.buy_with(Usdc::new(u128::MAX)).is_err());
}
