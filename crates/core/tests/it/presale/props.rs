//! Whatever the buyers do, a presale ends exactly.

use super::{usdc, END, P};
use crate::common::{self, tok, usdc_address};
use proptest::prelude::*;
use serde_json::json;
use tokenpad_core::model::amount::{format_units, USDC_DECIMALS};
use tokenpad_core::model::presale::Phase;
use tokenpad_core::model::time::DAY;

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whatever the buyers do, the end is exact: a launch allocates exactly the amount
    /// bought, a refund returns every cent, and conservation holds at every step.
    #[test]
    fn launch_or_refund_is_exact(
        buys in proptest::collection::vec((0usize..5, 1u64..=30_000_000), 1..25),
        auto in any::<bool>(),
        lockup in 13u64..=28,
    ) {
        let mut p = P::new("100", json!({
            "autoLaunch": auto,
            "lockDuration": 3,
            "tokenInfo": { "name": "Moon", "symbol": "MOON", "imageUrl": "https://example.com/m.png",
                           "deploymentConfig": { "lockupPercentage": lockup } },
        }));
        let users = ["a", "b", "c", "d", "e"];
        let addrs: Vec<_> = users.iter().map(|u| p.buyer(u, "100")).collect();
        p.open();
        for (who, micro) in buys {
            let amount = format_units(u128::from(micro), USDC_DECIMALS);
            let _ = p.buy(users[who], &amount); // refusals are checked inside buy()
        }
        let paid: Vec<u128> = addrs.iter().map(|a| usdc("100") - p.usdc_active(a)).collect();
        let launchable = p.get().launchable();
        p.to(END * 1000);
        if !auto && launchable {
            let r = common::resolve_presale(&mut p.fx.store, &p.fx.ctx, &json!({ "presaleId": p.id }));
            prop_assert!(r.is_ok());
        }
        p.to(END * 1000 + 10 * DAY);
        let got = p.get();
        if launchable {
            prop_assert_eq!(got.phase, Phase::Launched);
            let total: u128 = addrs.iter().map(|a| p.fx.active(&got.token_address, a)).sum();
            prop_assert_eq!(total, got.amount_bought().raw());
            prop_assert_eq!(got.amount_bought().raw(), tok("1000000000") / 100 * u128::from(lockup));
        } else {
            prop_assert_eq!(got.phase, Phase::Refunded);
            for a in &addrs {
                prop_assert_eq!(p.usdc_active(a), usdc("100"));
            }
            prop_assert!(paid.iter().sum::<u128>() == got.purchased.raw());
        }
        prop_assert_eq!(p.fx.token(&usdc_address()).escrow.raw(), 0);
    }
}
