//! What the plan holds back behind a parked movement (`settle::plan`): its recipient's own
//! movements of every token it was to bring them (a swap's USDC too), and what depends on
//! those in turn; and what it lets go.

use crate::settle::LIMITS;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::intent::{Account, Action, Intent};
use tokenpad_core::model::token::USDC_ADDRESS;
use tokenpad_core::ops::settle::plan::plan;
use tokenpad_core::store::mem::MemStore;
use tokenpad_core::store::Store;

const HOLDER: Address = Address([3; 20]);
const OTHER: Address = Address([4; 20]);

fn token() -> TokenAddress {
    TokenAddress(Address([1; 20]))
}

fn swap(buy: bool) -> Action {
    Action::Swap {
        holder: HOLDER,
        buy,
        exact_in: true,
        amount: Units::new(5),
        limit: Units::new(1),
        booked_tokens: Units::new(5),
        booked_usdc: Units::new(5),
    }
}

fn pass_on(from: Address, to: Address) -> Action {
    Action::Transfer {
        from: Account::Wallet(from),
        to: Account::Wallet(to),
        amount: Units::new(1),
    }
}

/// The ids of what the plan sends, after `parked` (parked) and `then`, in that order.
fn planned(parked: (TokenAddress, Action), then: &[(TokenAddress, Action)]) -> Vec<u64> {
    planned_on(USDC_ADDRESS, parked, then)
}

/// The same, on a chain whose USDC is `usdc`.
fn planned_on(
    usdc: TokenAddress,
    parked: (TokenAddress, Action),
    then: &[(TokenAddress, Action)],
) -> Vec<u64> {
    let mut store = MemStore::default();
    let mut first = Intent::new(parked.0, parked.1, 1);
    first.parked = Some("reverted on chain".into());
    store.enqueue_intent(&first).unwrap();
    for (token, action) in then {
        store
            .enqueue_intent(&Intent::new(*token, action.clone(), 2))
            .unwrap();
    }
    plan(&store, LIMITS, |_| true, None, usdc)
        .unwrap()
        .iter()
        .flat_map(|b| b.intents.iter().map(|i| i.id))
        .collect()
}

#[test]
fn a_parked_sell_holds_its_holders_spends_of_the_usdc_it_was_to_bring() {
    // The holder passes on USDC the parked sell was to bring it; the one it passes it to
    // spends it in turn. Neither goes; another holder's USDC does.
    let then = [
        (USDC_ADDRESS, pass_on(HOLDER, OTHER)),
        (USDC_ADDRESS, pass_on(OTHER, Address([5; 20]))),
        (USDC_ADDRESS, pass_on(Address([6; 20]), HOLDER)),
    ];
    let sent = planned((token(), swap(false)), &then);
    assert_eq!(sent.len(), 1, "{sent:?}");
    // And of the token, as before.
    let sent = planned((token(), swap(true)), &[(token(), pass_on(HOLDER, OTHER))]);
    assert!(sent.is_empty(), "{sent:?}");
}

#[test]
fn on_a_chain_whose_usdc_is_not_bases_a_parked_sell_holds_that_usdc() {
    // A local node's or Base Sepolia's USDC: the ledger keeps the chain's address (or Base's,
    // in a ledger made before USDC followed the chain). A swap's USDC is that token.
    let chain_usdc = TokenAddress(Address([0x0c; 20]));
    let then = [
        (chain_usdc, pass_on(HOLDER, OTHER)),
        (USDC_ADDRESS, pass_on(HOLDER, OTHER)),
        (chain_usdc, pass_on(Address([6; 20]), HOLDER)),
    ];
    let sent = planned_on(chain_usdc, (token(), swap(false)), &then);
    assert_eq!(sent, vec![4], "{sent:?}");
    // And a refund of the chain's USDC waits behind the held payment it returns.
    let then = [
        (chain_usdc, pay_in(HOLDER)),
        (chain_usdc, pay_out(HOLDER)),
        (chain_usdc, pay_out(OTHER)),
    ];
    let sent = planned_on(chain_usdc, (token(), swap(false)), &then);
    assert_eq!(sent, vec![4], "{sent:?}");
}

fn pay_in(from: Address) -> Action {
    Action::Transfer {
        from: Account::Wallet(from),
        to: Account::Treasury,
        amount: Units::new(5),
    }
}

fn pay_out(to: Address) -> Action {
    Action::Transfer {
        from: Account::Treasury,
        to: Account::Wallet(to),
        amount: Units::new(5),
    }
}

#[test]
fn a_held_payment_into_the_treasury_holds_the_treasurys_return_of_it_alone() {
    // Hostile seed 16108: the holder's presale purchase (USDC into the treasury) waits behind
    // a parked movement of its USDC; the presale's refund of it to the holder waits behind
    // the purchase, and so does what the holder does with the refund. The treasury's USDC to
    // anyone else goes.
    let then = [
        (USDC_ADDRESS, pay_in(HOLDER)),
        (USDC_ADDRESS, pay_out(HOLDER)),
        (USDC_ADDRESS, pass_on(HOLDER, OTHER)),
        (USDC_ADDRESS, pay_out(OTHER)),
        (token(), pay_out(HOLDER)),
    ];
    let parked = (USDC_ADDRESS, pay_out(HOLDER));
    let sent = planned(parked, &then);
    assert_eq!(sent, vec![5, 6], "{sent:?}");
}

fn opening(usdc: u128) -> Action {
    Action::OpenPool {
        tokens: Units::new(5),
        usdc: Units::new(usdc),
        sqrt_price_x96: "79228162514264337593543950336".into(),
        tick_lower: -887_220,
        tick_upper: 887_220,
    }
}

#[test]
fn a_held_payment_of_usdc_into_the_treasury_holds_a_pool_opening_that_pays_usdc() {
    // A launch's opening pays the raise: a buyer's purchase held back (here behind a parked
    // movement of its USDC) holds it, on any chain's USDC, and the opening holds what follows
    // it in its token (it trades in the pool). An opening with tokens alone goes.
    let chain_usdc = TokenAddress(Address([0x0c; 20]));
    for usdc in [USDC_ADDRESS, chain_usdc] {
        let then = [
            (usdc, pay_in(HOLDER)),
            (token(), opening(5)),
            (token(), pass_on(OTHER, Address([7; 20]))),
            (TokenAddress(Address([2; 20])), opening(0)),
        ];
        let sent = planned_on(usdc, (usdc, pay_out(HOLDER)), &then);
        assert_eq!(sent, vec![5], "{sent:?}");
    }
}

#[test]
fn what_waits_behind_a_parked_opening_holds_what_depends_on_it_in_turn() {
    // A sell of the token waits behind its pool's parked opening (it trades in the pool); the
    // USDC it was to bring its holder has not come either, so the holder's spends of USDC
    // wait behind the sell. Another holder's USDC goes.
    let chain_usdc = TokenAddress(Address([0x0c; 20]));
    for usdc in [USDC_ADDRESS, chain_usdc] {
        let then = [
            (token(), swap(false)),
            (usdc, pass_on(HOLDER, OTHER)),
            (usdc, pass_on(Address([6; 20]), Address([7; 20]))),
        ];
        let sent = planned_on(usdc, (token(), opening(5)), &then);
        assert_eq!(sent, vec![4], "{sent:?}");
    }
}

#[test]
fn what_the_plan_leaves_for_a_later_round_holds_what_depends_on_it() {
    // The token is being deployed again (a reorganization took its deployment away): its
    // sell waits for it, and so does the holder's payment of the USDC the sell brings;
    // another holder's USDC goes. Hostile seed 31159 (`--own-usdc`): the payment went out
    // ahead of the sell and reverted for want of that USDC.
    let chain_usdc = TokenAddress(Address([0x0c; 20]));
    for usdc in [USDC_ADDRESS, chain_usdc] {
        let mut store = MemStore::default();
        let deploy = Action::Deploy {
            salt: "0x00".into(),
            name: "T".into(),
            symbol: "T".into(),
            supply: Units::new(1),
        };
        let then = [
            (token(), deploy),
            (token(), swap(false)),
            (usdc, pass_on(HOLDER, OTHER)),
            (usdc, pass_on(Address([6; 20]), Address([7; 20]))),
        ];
        for (t, action) in then {
            store.enqueue_intent(&Intent::new(t, action, 1)).unwrap();
        }
        let sent: Vec<u64> = plan(&store, LIMITS, |_| true, None, usdc)
            .unwrap()
            .iter()
            .flat_map(|b| b.intents.iter().map(|i| i.id))
            .collect();
        assert_eq!(sent, vec![1, 4], "{sent:?}");
    }
}
