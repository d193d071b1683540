//! Presales through the core: the status function, creation rules, buying, the launch's
//! five durable steps with retries, distribution into locks, unlocks, refunds and resolve.

mod launch;
mod props;
mod rules;

use crate::common::{self, assert_conserved, assert_unchanged, units, usdc_address, Fx, T0};
use serde_json::{json, Value};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::USDC_DECIMALS;
use tokenpad_core::model::ids::PresaleId;
use tokenpad_core::model::presale::{Presale, Status};
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::presale::Purchase;

pub const START: u64 = T0 / 1000 + 60;
pub const END: u64 = START + 3600;

pub fn usdc(text: &str) -> u128 {
    units(text, USDC_DECIMALS)
}

pub fn body(target: &str, extra: Value) -> Value {
    let mut b = json!({
        "name": "Launch",
        "description": "Our token",
        "startTimestamp": START,
        "endTimestamp": END,
        "targetUsdcAmount": common::num(target),
        "tokenInfo": { "name": "Moon", "symbol": "MOON", "imageUrl": "https://example.com/moon.png" },
    });
    if let (Some(b), Some(e)) = (b.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            b.insert(k.clone(), v.clone());
        }
    }
    b
}

pub struct P {
    pub fx: Fx,
    pub id: PresaleId,
}

impl P {
    pub fn new(target: &str, extra: Value) -> P {
        let mut fx = Fx::new();
        let p = common::create_presale(&mut fx.store, &fx.ctx, &body(target, extra), "p-1")
            .expect("create");
        assert_eq!(p.status(fx.ctx.now), Status::Pending);
        P { fx, id: p.id }
    }

    /// The same presale, made by a merchant on an EVM chain (`settle::evm`).
    pub fn on_evm(target: &str, extra: Value) -> P {
        let mut fx = crate::settle::evm();
        let p = common::create_presale(&mut fx.store, &fx.ctx, &body(target, extra), "p-1")
            .expect("create");
        P { fx, id: p.id }
    }

    /// A holder with `funds` of test USDC, minted (queued as a faucet mint on an EVM chain).
    pub fn minted(&mut self, user: &str, funds: &str) -> Address {
        let h = self.fx.holder(user).address;
        let funds = tokenpad_core::model::amount::Usdc::new(usdc(funds));
        tokenpad_core::ops::ledger::deposit_usdc(&mut self.fx.store, &self.fx.ctx, &h, funds)
            .unwrap();
        h
    }

    pub fn get(&self) -> Presale {
        tokenpad_core::ops::presale::find(&self.fx.store, &self.id).unwrap()
    }

    /// A funded holder.
    pub fn buyer(&mut self, user: &str, funds: &str) -> Address {
        let h = self.fx.holder(user);
        common::deposit(&mut self.fx.store, &self.fx.ctx, &h.address, usdc(funds)).unwrap();
        h.address
    }

    pub fn buy(&mut self, user: &str, amount: &str) -> tokenpad_core::Result<Purchase> {
        let before = self.fx.store.clone();
        let r = common::buy_presale(
            &mut self.fx.store,
            &self.fx.ctx,
            user,
            &json!({ "presaleId": self.id, "usdcAmount": common::num(amount) }),
        );
        if r.is_err() {
            assert_unchanged(&before, &self.fx.store, "refused buy");
        }
        assert_conserved(&self.fx.store);
        r
    }

    /// `POST /merchant/presale/resolve` for this presale; a refusal changes nothing.
    pub fn resolve(&mut self) -> tokenpad_core::Result<Value> {
        let before = self.fx.store.clone();
        let r = common::resolve_presale(
            &mut self.fx.store,
            &self.fx.ctx,
            &json!({ "presaleId": self.id }),
        );
        if r.is_err() {
            assert_unchanged(&before, &self.fx.store, "refused resolve");
        }
        r
    }

    pub fn to(&mut self, at: Millis) {
        self.fx.ctx.now = at;
        tokenpad_core::ops::due::run_due(&mut self.fx.store, &self.fx.ctx).unwrap();
        assert_conserved(&self.fx.store);
    }

    pub fn open(&mut self) {
        self.to(START * 1000);
    }

    pub fn usdc_active(&self, a: &Address) -> u128 {
        self.fx.active(&usdc_address(), a)
    }
}
