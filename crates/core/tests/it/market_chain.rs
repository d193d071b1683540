//! Markets on an EVM chain, in the core: a pool's opening and a holder's swaps as intents, and
//! what the ledger does with what the chain reports (the settler's receipts and scans, faked
//! here with the events a Uniswap pool and tokenpad's market would emit). The same flows run
//! against a real node in tests/http/markets.test.mjs.

use crate::common::{assert_conserved, body, tok, Fx};
use crate::settle::{evm, evm_on_base, plan_of, receipt_of, sign, token, CHAIN_USDC, LIMITS};
use serde_json::json;
use tokenpad_core::error::ErrorCode as C;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::{Units, Usdc};
use tokenpad_core::model::chain::{ChainPoint, PoolEvent};
use tokenpad_core::model::history::ChainStatus;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::intent::{Action, IntentStatus};
use tokenpad_core::model::pool::Pool;
use tokenpad_core::ops::ledger;
use tokenpad_core::ops::market::{self, BuyRequest, LiquidityRequest, SellRequest};
use tokenpad_core::ops::settle::observe::{observe, Observed};
use tokenpad_core::ops::settle::plan::Call;
use tokenpad_core::ops::settle::reorg::rewind;
use tokenpad_core::ops::settle::{self, Mined};
use tokenpad_core::store::Store;

pub(crate) const USDC: u128 = 1_000_000;

pub(crate) fn pool(fx: &Fx, t: &TokenAddress) -> Pool {
    fx.store.pool(t).unwrap().unwrap()
}

/// Sends the next planned transaction; `events` is what its receipt shows (None: it reverted).
pub(crate) fn mine_next(fx: &mut Fx, call: Call, events: Option<Vec<PoolEvent>>) -> u64 {
    let batches = plan_of(fx, LIMITS);
    let b = batches.first().expect("something to send");
    assert_eq!(b.call, call);
    let nonce = fx.store.relayer().unwrap().next_nonce.unwrap_or(0);
    let tx = sign(fx, nonce, b);
    let mut m: Mined = receipt_of(fx, &tx, events.is_some());
    m.events = events.unwrap_or_default();
    let ctx = fx.ctx.clone();
    settle::mined(&mut fx.store, &ctx, nonce, &m).unwrap();
    assert_conserved(&fx.store);
    m.block
}

/// A token with its pool opened (1,000,000 tokens at $0.01), the opening mined, and a holder
/// with USDC (its faucet mint mined).
fn market() -> (Fx, TokenAddress) {
    market_of(1_000_000)
}

/// `market` for a merchant made on `fx`'s chain.
fn market_on(fx: Fx) -> (Fx, TokenAddress) {
    market_in(fx, 1_000_000)
}

/// `market`, with a pool of `tokens` tokens (fewer: each trade moves the price more).
pub(crate) fn market_of(tokens: u64) -> (Fx, TokenAddress) {
    market_in(evm(), tokens)
}

fn market_in(fx: Fx, tokens: u64) -> (Fx, TokenAddress) {
    let (mut fx, t) = lp_token_in(fx);
    let req: LiquidityRequest =
        body(&json!({"initialStartingPrice": "0.01", "amount": tokens})).unwrap();
    let (_, p) = market::open_liquidity(&mut fx.store, &fx.ctx, &t, &req).unwrap();
    assert_eq!(p.position.id, None, "the NFT comes with the mined opening");
    let h = fx.holder("dave");
    ledger::deposit_usdc(&mut fx.store, &fx.ctx, &h.address, Usdc::new(1_000 * USDC)).unwrap();
    // Before the opening is mined the pool does not trade.
    let err = buy(&mut fx, json!({"tokenAddress": t, "usdcAmount": 5})).unwrap_err();
    assert_eq!(err.code, C::PoolPending);
    let (a0, a1) = oriented(&p, p.token_reserve.raw(), p.usdc_reserve.raw());
    let opened = PoolEvent::Opened {
        pool: p.address,
        position_id: 7,
        liquidity: p.position.liquidity,
        amount0: a0,
        amount1: a1,
        at: at(10, 3),
    };
    mine_next(&mut fx, Call::OpenPool, Some(vec![opened]));
    mine_next(&mut fx, Call::Mint, Some(Vec::new()));
    let p = pool(&fx, &t);
    assert_eq!(p.position.id, Some(7));
    assert_eq!(p.chain.as_ref().map(|c| c.at), Some(at(10, 3)));
    (fx, t)
}

/// A fixture on an EVM chain with a token whose merchant may open its pool.
fn lp_token() -> (Fx, TokenAddress) {
    lp_token_in(evm())
}

fn lp_token_in(mut fx: Fx) -> (Fx, TokenAddress) {
    let t = token(&mut fx);
    let mut tk = fx.token(&t);
    tk.can_lp = true;
    fx.store.put_token(&tk).unwrap();
    (fx, t)
}

pub(crate) fn at(block: u64, log_index: u64) -> ChainPoint {
    ChainPoint { block, log_index }
}

fn oriented<T>(p: &Pool, token: T, usdc: T) -> (T, T) {
    if p.token_is_0 {
        (token, usdc)
    } else {
        (usdc, token)
    }
}

pub(crate) fn buy(
    fx: &mut Fx,
    req: serde_json::Value,
) -> tokenpad_core::Result<market::TradeReceipt> {
    let r: BuyRequest = body(&req)?;
    let user = crate::common::user("dave")?;
    market::buy(&mut fx.store, &fx.ctx, &user, &r)
}

/// The Swap event a pool would emit for `trade` (pool's deltas: positive paid in), leaving it
/// at `after`'s state.
pub(crate) fn swap_event(
    before: &Pool,
    tokens: i128,
    usdc: i128,
    after: &Pool,
    at: ChainPoint,
) -> PoolEvent {
    let (amount0, amount1) = oriented(before, tokens, usdc);
    PoolEvent::Swap {
        pool: before.address,
        amount0,
        amount1,
        sqrt_price_x96: after.sqrt_price_x96,
        liquidity: after.liquidity,
        tick: after.tick,
        at,
        tx: "0xswap".into(),
    }
}

#[test]
fn a_buy_books_its_bound_then_takes_what_was_mined() {
    let (mut fx, t) = market();
    let dave = fx.holder("dave");
    let before = pool(&fx, &t);
    let r = buy(&mut fx, json!({"tokenAddress": t, "usdcAmount": 20})).unwrap();
    // Booked: the quote less the default 1 %; the USDC paid exactly.
    let quoted = r.trade.tokens.raw();
    assert_eq!(r.booked.tokens.raw(), quoted * 99 / 100);
    assert_eq!(r.booked.usdc.raw(), 20 * USDC);
    assert_eq!(fx.active(&t, &dave.address), quoted * 99 / 100);
    let i = fx.store.open_intents(10).unwrap().pop().unwrap();
    let Action::Swap {
        limit,
        amount,
        exact_in: true,
        buy: true,
        ..
    } = i.action
    else {
        panic!("a swap: {:?}", i.action);
    };
    assert_eq!((amount.raw(), limit.raw()), (20 * USDC, quoted * 99 / 100));
    // The state already counts the swap; the chain's receipt says exactly the quote.
    let expected = pool(&fx, &t);
    assert_eq!(expected.sqrt_price_x96, r.trade.after.sqrt_price_x96);
    let tokens = i128::try_from(quoted).unwrap();
    let event = swap_event(
        &before,
        -tokens,
        20 * USDC as i128,
        &r.trade.after,
        at(12, 1),
    );
    mine_next(&mut fx, Call::Swap, Some(vec![event]));
    assert_eq!(fx.active(&t, &dave.address), quoted);
    let p = pool(&fx, &t);
    assert_eq!(
        p.token_reserve,
        before.token_reserve.minus(Units::new(quoted)).unwrap()
    );
    assert_eq!(p.usdc_reserve, Usdc::new(20 * USDC));
    assert_eq!(p.sqrt_price_x96, r.trade.after.sqrt_price_x96);
    assert_eq!(fx.token(&t).price, p.price());
    // Both records show the mined amounts, confirmed.
    let legs: Vec<_> = fx
        .store
        .history
        .iter()
        .filter(|h| h.kind.as_str() == "buy")
        .collect();
    assert_eq!(legs.len(), 2);
    assert!(legs
        .iter()
        .all(|h| h.chain_status == ChainStatus::Confirmed));
    assert!(legs.iter().any(|h| h.amount.raw() == quoted));
    assert!(legs.iter().any(|h| h.amount.raw() == 20 * USDC));
}

#[test]
fn another_traders_swap_moves_the_price_and_a_refused_sell_is_undone() {
    let (mut fx, t) = market();
    let dave = fx.holder("dave");
    let before = pool(&fx, &t);
    // Someone else buys 100 USDC worth through the router: the scan sees the pool's event.
    let outside = before.buy_with(Usdc::new(100 * USDC)).unwrap();
    let tokens = i128::try_from(outside.tokens.raw()).unwrap();
    let event = swap_event(
        &before,
        -tokens,
        100 * USDC as i128,
        &outside.after,
        at(11, 0),
    );
    market::follow(&mut fx.store, std::slice::from_ref(&event)).unwrap();
    let moved = pool(&fx, &t);
    assert!(moved.price() > before.price());
    assert_eq!(fx.token(&t).price, moved.price());
    // The same event again (a rescan) changes nothing; an older one neither.
    market::follow(&mut fx.store, &[event]).unwrap();
    assert_eq!(pool(&fx, &t), moved);
    // dave buys, then sells; the sell reverts on chain: both its legs come back.
    let r = buy(&mut fx, json!({"tokenAddress": t, "usdcAmount": 10})).unwrap();
    let b = i128::try_from(r.trade.tokens.raw()).unwrap();
    let event = swap_event(&moved, -b, 10 * USDC as i128, &r.trade.after, at(13, 0));
    mine_next(&mut fx, Call::Swap, Some(vec![event]));
    let held = fx.active(&t, &dave.address);
    let usdc_before = fx.active(&fx.usdc(), &dave.address);
    let sell: SellRequest = body(&json!({"tokenAddress": t, "tokenAmount": "500"})).unwrap();
    let user = crate::common::user("dave").unwrap();
    market::sell(&mut fx.store, &fx.ctx, &user, &sell).unwrap();
    assert_eq!(fx.active(&t, &dave.address), held - tok("500"));
    mine_next(&mut fx, Call::Swap, None);
    assert_eq!(fx.active(&t, &dave.address), held);
    assert_eq!(fx.active(&fx.usdc(), &dave.address), usdc_before);
    let failed = fx.store.failed_intents(10).unwrap();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].status, IntentStatus::Failed);
    // The pool is back at the chain's state after dave's buy.
    assert_eq!(pool(&fx, &t).sqrt_price_x96, r.trade.after.sqrt_price_x96);
    assert_eq!(
        fx.store
            .history
            .iter()
            .filter(|h| h.kind.as_str() == "reversal")
            .count(),
        2
    );
}

#[test]
fn an_opening_the_chain_refuses_puts_the_tokens_back() {
    let (mut fx, t) = lp_token();
    let reserve = fx.token(&t).liquidity_supply;
    let req: LiquidityRequest = body(&json!({"initialStartingPrice": "0.5"})).unwrap();
    market::open_liquidity(&mut fx.store, &fx.ctx, &t, &req).unwrap();
    assert!(fx.token(&t).pooled > Units::ZERO);
    mine_next(&mut fx, Call::OpenPool, None);
    assert!(fx.store.pool(&t).unwrap().is_none());
    let tk = fx.token(&t);
    assert_eq!((tk.liquidity_supply, tk.pooled), (reserve, Units::ZERO));
    // It can be opened again.
    market::open_liquidity(&mut fx.store, &fx.ctx, &t, &req).unwrap();
}

/// On a chain whose USDC is its own, and on Base's.
#[test]
fn a_buy_that_reverts_behind_the_mint_that_funds_it_goes_again_after_it() {
    a_buy_behind_the_mint_that_funds_it(evm());
    a_buy_behind_the_mint_that_funds_it(evm_on_base());
}

fn a_buy_behind_the_mint_that_funds_it(fx: Fx) {
    let (mut fx, t) = market_on(fx);
    let before = pool(&fx, &t);
    // erin's test USDC (a faucet mint), and a buy with it before the mint is mined.
    let erin = fx.holder("erin");
    ledger::deposit_usdc(&mut fx.store, &fx.ctx, &erin.address, Usdc::new(50 * USDC)).unwrap();
    let user = crate::common::user("erin").unwrap();
    let req: BuyRequest = body(&json!({"tokenAddress": t, "usdcAmount": 20})).unwrap();
    let bought = market::buy(&mut fx.store, &fx.ctx, &user, &req).unwrap();
    // The mint runs out of gas (ours); the swap, mined after it, reverts for want of the USDC
    // it brings. Found by the simulator (crates/sim, seed 213 --hostile): only an older open
    // movement of the swap's own token counted, so the buy was refused and undone.
    revert_behind_out_of_gas(&mut fx, Call::Mint, Call::Swap);
    // Both go again, in their order, and land.
    mine_next(&mut fx, Call::Mint, Some(Vec::new()));
    let tokens = i128::try_from(bought.trade.tokens.raw()).unwrap();
    let event = swap_event(
        &before,
        -tokens,
        20 * USDC as i128,
        &bought.trade.after,
        at(14, 0),
    );
    mine_next(&mut fx, Call::Swap, Some(vec![event]));
    assert_eq!(fx.active(&t, &erin.address), bought.trade.tokens.raw());
    assert_eq!(fx.active(&fx.usdc(), &erin.address), 30 * USDC);
    assert!(fx.store.failed_intents(10).unwrap().is_empty());
    assert!(fx
        .store
        .history
        .iter()
        .all(|h| h.kind.as_str() != "reversal"));
}

/// On a chain whose USDC is its own, and on Base's.
#[test]
fn a_usdc_transfer_that_reverts_behind_the_sell_that_funds_it_goes_again_after_it() {
    a_usdc_transfer_behind_the_sell_that_funds_it(evm());
    a_usdc_transfer_behind_the_sell_that_funds_it(evm_on_base());
}

fn a_usdc_transfer_behind_the_sell_that_funds_it(fx: Fx) {
    let (mut fx, t) = market_on(fx);
    // dave's buy puts USDC in the pool.
    let p0 = pool(&fx, &t);
    let r = buy(&mut fx, json!({"tokenAddress": t, "usdcAmount": 50})).unwrap();
    let b = i128::try_from(r.trade.tokens.raw()).unwrap();
    let event = swap_event(&p0, -b, 50 * USDC as i128, &r.trade.after, at(11, 0));
    mine_next(&mut fx, Call::Swap, Some(vec![event]));
    // fay holds tokens and no USDC: she sells some, then passes on 1 USDC of what the sell
    // brings, before the sell is mined.
    crate::settle::distribute(&mut fx, &t, "fay", 1_000);
    crate::settle::settle_all(&mut fx);
    let user = crate::common::user("fay").unwrap();
    let sell: SellRequest = body(&json!({"tokenAddress": t, "tokenAmount": "500"})).unwrap();
    market::sell(&mut fx.store, &fx.ctx, &user, &sell).unwrap();
    let usdc = fx.usdc();
    crate::reverts::pass_on(&mut fx, &usdc, "fay", "dave", 1);
    // The sell runs out of gas (ours); the transfer, mined after it, reverts for want of its
    // USDC. Found by the simulator (crates/sim, seed 5119 --steps 1000 --hostile, a buy of
    // another token behind a sell): a swap's USDC did not count as an older movement of USDC,
    // so what needed it was refused and undone.
    revert_behind_out_of_gas(&mut fx, Call::Swap, Call::Transfers);
    let open = fx.store.open_intents(10).unwrap();
    assert_eq!(
        open.iter().map(|i| i.status).collect::<Vec<_>>(),
        [IntentStatus::Queued, IntentStatus::Queued],
        "both go again, in their order"
    );
}

/// An outside buy's USDC in the pool, booked in part to dave's sell not mined yet; a
/// reorganization drops the outside buy and the new chain mines it again, then the sell. The
/// rewind cannot take back what the sell took (the pool owes it), and the outside buy's
/// arrival on the new chain pays that first: the ledger's pool ends at the chain's.
#[test]
fn a_pool_that_owes_since_a_reorganization_is_paid_by_the_trade_mined_again() {
    let (mut fx, t) = market();
    let ctx = fx.ctx.clone();
    let dave = fx.holder("dave");
    let outside = Address([0x99; 20]);
    let p0 = pool(&fx, &t);
    let r = buy(&mut fx, json!({"tokenAddress": t, "usdcAmount": 50})).unwrap();
    let b = i128::try_from(r.trade.tokens.raw()).unwrap();
    let event = swap_event(&p0, -b, 50 * USDC as i128, &r.trade.after, at(11, 0));
    mine_next(&mut fx, Call::Swap, Some(vec![event]));
    // The outside buy of 1,000 USDC, in block 13: its Transfer logs and the pool's event.
    let before = pool(&fx, &t);
    let outside_buy = before.buy_with(Usdc::new(1_000 * USDC)).unwrap();
    let logs = |block: u64| {
        [
            Observed {
                token: CHAIN_USDC,
                from: outside,
                to: before.address,
                amount: Units::new(1_000 * USDC),
                hash: format!("0x{:064x}", 0x0b0b_0000 + block),
                block,
                log_index: 0,
            },
            Observed {
                token: t,
                from: before.address,
                to: outside,
                amount: outside_buy.tokens,
                hash: format!("0x{:064x}", 0x0b0b_0000 + block),
                block,
                log_index: 1,
            },
        ]
    };
    let followed = |fx: &mut Fx, block: u64| {
        for o in logs(block) {
            observe(&mut fx.store, &ctx, &o).unwrap();
        }
        let tokens = i128::try_from(outside_buy.tokens.raw()).unwrap();
        let e = swap_event(
            &before,
            -tokens,
            1_000 * USDC as i128,
            &outside_buy.after,
            at(block, 2),
        );
        market::follow(&mut fx.store, &[e]).unwrap();
    };
    followed(&mut fx, 13);
    // dave sells all he bought, at the higher price: more USDC than his buy put in.
    let moved = pool(&fx, &t);
    let held = fx.active(&t, &dave.address);
    let sell: SellRequest =
        body(&json!({"tokenAddress": t, "tokenAmount": units_text(held)})).unwrap();
    let user = crate::common::user("dave").unwrap();
    let s = market::sell(&mut fx.store, &ctx, &user, &sell).unwrap();
    assert!(
        s.booked.usdc.raw() > 50 * USDC,
        "the setup: the sell takes some of the outside buy's USDC"
    );
    // Block 13 is gone: the pool had less than the 1,000 USDC to give back.
    rewind(&mut fx.store, &ctx, 12).unwrap();
    assert_conserved(&fx.store);
    let owed: u128 = fx
        .token(&CHAIN_USDC)
        .owed
        .iter()
        .map(|d| d.amount.raw())
        .sum();
    assert_eq!(owed, s.booked.usdc.raw() - 50 * USDC);
    // The new chain mines the outside buy again (block 14), then dave's sell.
    followed(&mut fx, 14);
    assert!(
        fx.token(&fx.usdc()).owed.is_empty(),
        "its arrival paid the pool's debt"
    );
    let sold = i128::try_from(s.trade.tokens.raw()).unwrap();
    let usdc_out = i128::try_from(s.trade.usdc.raw()).unwrap();
    let event = swap_event(&moved, sold, -usdc_out, &s.trade.after, at(15, 0));
    mine_next(&mut fx, Call::Swap, Some(vec![event]));
    // On chain the pool holds 50 + 1,000 USDC less what the sell paid out.
    let chain = 1_050 * USDC - s.trade.usdc.raw();
    assert_eq!(pool(&fx, &t).usdc_reserve.raw(), chain);
    assert_conserved(&fx.store);
}

/// `n` base units of an 18-decimal token as decimal text.
fn units_text(n: u128) -> String {
    let e18 = 10u128.pow(18);
    format!("{}.{:018}", n / e18, n % e18)
}

#[test]
fn a_pool_opening_that_reverts_behind_an_older_usdc_movement_goes_again_after_it() {
    let (mut fx, t) = lp_token();
    // A USDC movement older than the opening, still open (a faucet mint here; a presale
    // buyer's USDC to the treasury, which a launch's opening pays with, in the simulator's
    // seed 972).
    let erin = fx.holder("erin");
    ledger::deposit_usdc(&mut fx.store, &fx.ctx, &erin.address, Usdc::new(50 * USDC)).unwrap();
    let req: LiquidityRequest =
        body(&json!({"initialStartingPrice": "0.01", "amount": 1_000_000})).unwrap();
    market::open_liquidity(&mut fx.store, &fx.ctx, &t, &req).unwrap();
    // The mint runs out of gas (ours); the opening, mined after it, reverts for want of funds.
    revert_behind_out_of_gas(&mut fx, Call::Mint, Call::OpenPool);
    // Not refused: the pool stays, pending, and its opening goes again after the mint.
    assert!(fx.store.pool(&t).unwrap().is_some());
    let again = plan_of(&fx, LIMITS);
    let calls: Vec<Call> = again.iter().map(|b| b.call).collect();
    assert_eq!(calls, [Call::Mint, Call::OpenPool]);
}

/// Plans what is queued, a test-USDC mint then a `then` (`Call`s in that order), signs both,
/// and reads their receipts: the mint out of gas (ours), the other reverted for want of funds
/// after it. Nothing is refused.
/// The next two transactions, `first` then `then`: the first runs out of gas (ours), the
/// second reverts for want of funds behind it. Nothing is refused.
fn revert_behind_out_of_gas(fx: &mut Fx, first: Call, then: Call) {
    let batches = plan_of(fx, LIMITS);
    let calls: Vec<Call> = batches.iter().map(|b| b.call).collect();
    assert_eq!(calls, [first, then]);
    let nonce = fx.store.relayer().unwrap().next_nonce.unwrap_or(0);
    let older = sign(fx, nonce, &batches[0]);
    let second = sign(fx, nonce + 1, &batches[1]);
    let oog = Mined {
        gas_used: older.gas_limit,
        reason: Some("out of gas".into()),
        ..receipt_of(fx, &older, false)
    };
    let ctx = fx.ctx.clone();
    settle::mined(&mut fx.store, &ctx, older.nonce, &oog).unwrap();
    let reverted = Mined {
        reason: Some("ERC20InsufficientBalance".into()),
        ..receipt_of(fx, &second, false)
    };
    settle::mined(&mut fx.store, &ctx, second.nonce, &reverted).unwrap();
    assert_conserved(&fx.store);
    assert!(fx.store.failed_intents(10).unwrap().is_empty());
}
