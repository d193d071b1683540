//! What reconciliation expects the chain to show of pools (`ops::settle::reconcile`): an
//! opened pool holds its reserves; what the ledger puts in a pool whose opening is not mined
//! yet is still the treasury's on chain. Hostile seed 3122 (`--launches`): a launch between
//! its swap step and its token had its raise pooled with no pool anywhere, and the treasury
//! read 8 USDC "too much" while nothing was wrong.

use crate::market_chain::{market_of, pool};
use crate::settle::{evm, token};
use serde_json::json;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::ops::market::{self, LiquidityRequest};
use tokenpad_core::ops::settle::reconcile::{expected, Expected};
use tokenpad_core::store::Store;

fn of(want: &[Expected], token: TokenAddress, owner: Address) -> Option<u128> {
    want.iter()
        .find(|e| e.token == token && e.owner == owner)
        .map(|e| e.ledger.raw())
}

#[test]
fn a_pool_whose_opening_is_not_mined_is_still_the_treasurys() {
    let mut fx = evm();
    let t = token(&mut fx);
    let mut tk = fx.token(&t);
    tk.can_lp = true;
    fx.store.put_token(&tk).unwrap();
    let supply = fx.token(&t).total_supply.raw();
    let req: LiquidityRequest = crate::common::body(&json!({
        "initialStartingPrice": "0.01",
        "amount": 1_000_000
    }))
    .unwrap();
    let (_, p) = market::open_liquidity(&mut fx.store, &fx.ctx, &t, &req).unwrap();
    assert!(
        p.position.id.is_none() && !p.token_reserve.is_zero(),
        "the setup"
    );
    let want = expected(&fx.store, &fx.ctx).unwrap();
    assert_eq!(of(&want, t, fx.merchant_address()), Some(supply));
    assert_eq!(of(&want, t, p.address), None, "no pool on chain to read");
    assert_eq!(of(&want, fx.usdc(), p.address), None);

    // Opened (`market_of` mines the opening): the pool holds its reserves.
    let (fx, t) = market_of(1_000_000);
    let p = pool(&fx, &t);
    let want = expected(&fx.store, &fx.ctx).unwrap();
    assert_eq!(of(&want, t, p.address), Some(p.token_reserve.raw()));
    assert_eq!(
        of(&want, t, fx.merchant_address()),
        Some(supply - p.token_reserve.raw())
    );
}
