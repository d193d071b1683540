//! Undoing refused movements (`ops::undo`): what the ledger gave back and took back, once the
//! chain refused a movement.

use crate::common::{assert_conserved, usdc_address};
use crate::market_chain::{mine_next, USDC};
use crate::settle::{evm, token};
use tokenpad_core::model::amount::Usdc;
use tokenpad_core::ops::ledger;
use tokenpad_core::ops::settle::plan::Call;

/// The faucet's mint refused: the holder's test USDC is taken back and the supply shrinks by
/// as much (undoing into `Minted` used to grow it by as much again, breaking conservation).
#[test]
fn a_refused_faucet_mint_shrinks_the_supply_back() {
    let mut fx = evm();
    let _ = token(&mut fx);
    let h = fx.holder("erin");
    let supply = fx.token(&usdc_address()).total_supply;
    ledger::deposit_usdc(&mut fx.store, &fx.ctx, &h.address, Usdc::new(7 * USDC)).unwrap();
    assert_eq!(
        fx.token(&usdc_address()).total_supply.raw(),
        supply.raw() + 7 * USDC
    );
    mine_next(&mut fx, Call::Mint, None);
    assert_eq!(fx.active(&usdc_address(), &h.address), 0);
    assert_eq!(fx.token(&usdc_address()).total_supply, supply);
    assert_conserved(&fx.store);
}
