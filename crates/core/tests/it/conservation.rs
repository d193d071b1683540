//! Conservation per token, checked where a transaction commits (`model::books`): whatever
//! wrote the rows, a transaction whose balances and token records disagree does not commit.

use crate::common::{tok, Fx};
use tokenpad_core::error::ErrorCode;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::balance::Balance;
use tokenpad_core::model::books::Books;
use tokenpad_core::store::Store;

fn demo(fx: &mut Fx) -> tokenpad_core::model::ids::TokenAddress {
    let t = fx
        .create_token(serde_json::json!({ "name": "Books", "symbol": "BKS", "totalSupply": 1000 }));
    fx.store.commit().expect("a created token balances");
    t
}

#[test]
fn a_balance_written_without_its_token_is_refused_at_the_commit() {
    let mut fx = Fx::new();
    let t = demo(&mut fx);
    let alice = fx.holder("alice").address;
    // One unit out of nowhere: the balance moves, held does not.
    let b = Balance {
        active: Units::new(tok("1")),
        locked: Units::ZERO,
    };
    fx.store.put_balance(&t, &alice, &b).unwrap();
    let e = fx.store.commit().unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
    assert!(e.message.contains("conservation broken"), "{}", e.message);
}

#[test]
fn a_token_whose_parts_do_not_add_up_is_refused_at_the_commit() {
    let mut fx = Fx::new();
    let t = demo(&mut fx);
    let mut token = fx.token(&t);
    token.merchant_supply = token.merchant_supply.checked_add(Units::new(1)).unwrap();
    fx.store.put_token(&token).unwrap();
    let e = fx.store.commit().unwrap_err();
    assert!(e.message.contains("conservation broken"), "{}", e.message);
}

#[test]
fn a_move_booked_on_both_sides_commits_and_its_reverse_too() {
    let mut fx = Fx::new();
    let t = demo(&mut fx);
    let alice = fx.holder("alice").address;
    let bob = fx.holder("bob").address;
    // From the reserve to alice: held and her balance move together.
    fx.lock(&t, &alice, tok("5"));
    fx.store.commit().unwrap();
    // Between two holders: held does not move, the two balances cancel.
    let a = fx.balance(&t, &alice);
    fx.store
        .put_balance(
            &t,
            &alice,
            &Balance {
                active: a.active,
                locked: Units::new(tok("3")),
            },
        )
        .unwrap();
    fx.store
        .put_balance(
            &t,
            &bob,
            &Balance {
                active: Units::ZERO,
                locked: Units::new(tok("2")),
            },
        )
        .unwrap();
    fx.store.commit().unwrap();
    // Half a move (alice gives back 1, nobody takes it) is caught even after a good one.
    fx.store
        .put_balance(
            &t,
            &alice,
            &Balance {
                active: a.active,
                locked: Units::new(tok("2")),
            },
        )
        .unwrap();
    assert!(fx.store.commit().is_err());
}

#[test]
fn sums_too_large_to_add_are_an_error_not_a_wrap() {
    let mut books = Books::default();
    let t =
        tokenpad_core::model::ids::TokenAddress(tokenpad_core::model::address::Address([7; 20]));
    let huge = Balance {
        active: Units::new(u128::MAX),
        locked: Units::ZERO,
    };
    books
        .balance_written(&t, &Balance::default(), &huge)
        .unwrap();
    assert!(books
        .balance_written(&t, &Balance::default(), &huge)
        .is_err());
    let overflowing = Balance {
        active: Units::new(u128::MAX),
        locked: Units::new(1),
    };
    assert!(Books::default()
        .balance_written(&t, &Balance::default(), &overflowing)
        .is_err());
}
