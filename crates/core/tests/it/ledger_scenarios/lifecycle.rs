//! The token job lifecycle, get-or-create of holders, and spends to a token's own merchant.

use super::{do_dist, do_out, world};
use crate::common::{assert_conserved, assert_unchanged, json as to_json, tok, user, wallet};
use crate::common::{Fx, Kind, T0};
use serde_json::json;
use tokenpad_core::error::{Error, ErrorCode as C};
use tokenpad_core::model::chain::BLOCK_MS;
use tokenpad_core::model::holder::{Holder, NewWallet};
use tokenpad_core::model::ids::JobId;
use tokenpad_core::model::job::JobStatus;
use tokenpad_core::ops::{self, Ctx};
use tokenpad_core::store::mem::MemStore;
use tokenpad_core::store::Store;
use tokenpad_core::wire::token::Job;

#[test]
fn token_job_lifecycle() {
    let mut fx = Fx::new();
    let job = fx.submit_token(json!({"name": "Gamma", "symbol": "GAM", "totalSupply": 1000}));
    assert_eq!(job.status, JobStatus::Pending);
    assert_eq!(job.submitted_at, T0);
    assert!(job.mined_at > T0 && job.mined_at <= T0 + BLOCK_MS);
    let v = to_json(&Job::read(&fx.store, &job, "https://t.example").unwrap());
    assert_eq!(v["status"], "pending");
    assert_eq!(v["jobId"], job.id.as_str());
    assert!(v.get("data").is_none());
    assert!(fx.store.token(&job.token_address).unwrap().is_none());

    // One millisecond before it is mined: still pending, no token.
    fx.ctx.now = job.mined_at - 1;
    assert_eq!(ops::due::run_due(&mut fx.store, &fx.ctx).unwrap(), 0);
    let j = ops::job::find(&fx.store, &job.id).unwrap();
    assert_eq!(j.status, JobStatus::Pending);
    assert!(fx.store.token(&job.token_address).unwrap().is_none());
    assert_eq!(fx.store.next_due().unwrap(), Some(job.mined_at));

    // Mined: the token exists, and the job reports it.
    fx.ctx.now = job.mined_at;
    assert_eq!(ops::due::run_due(&mut fx.store, &fx.ctx).unwrap(), 1);
    let j = ops::job::find(&fx.store, &job.id).unwrap();
    assert_eq!(j.status, JobStatus::Success);
    let token = fx.token(&job.token_address);
    assert_eq!(token.symbol, "GAM");
    assert_eq!(token.created_at, job.mined_at);
    assert_eq!(token.total_supply.raw(), tok("1000"));
    assert_eq!(token.remaining_app_supply.raw(), tok("150"));
    let v = to_json(&Job::read(&fx.store, &j, "https://t.example").unwrap());
    assert_eq!(v["status"], "success");
    assert_eq!(v["data"]["address"], job.token_address.to_checksum());
    assert_eq!(v["data"]["holdersCount"], 0);
    assert!(v.get("error").is_none());
    assert_conserved(&fx.store);

    // Nothing more is due; running again changes nothing.
    assert_eq!(fx.store.next_due().unwrap(), None);
    let before = fx.store.clone();
    assert_eq!(ops::due::run_due(&mut fx.store, &fx.ctx).unwrap(), 0);
    assert_unchanged(&before, &fx.store, "second run_due");

    // A second token deploys at a different address.
    let second = fx.create_token(json!({"name": "Delta", "symbol": "DEL"}));
    assert_ne!(second, job.token_address);
    assert_eq!(
        ops::job::find(&fx.store, &JobId::new_unchecked("no-such-job"))
            .unwrap_err()
            .code,
        C::JobNotFound
    );
}

/// `PUT /holder/:userId`: the path's userId is checked first, then get-or-create.
fn put_holder(
    store: &mut MemStore,
    ctx: &Ctx,
    user_id: &str,
    new_wallet: &mut dyn FnMut() -> Result<NewWallet, Error>,
) -> Result<(Holder, bool), Error> {
    let user_id = user(user_id)?;
    ops::holder::get_or_create(store, ctx, &user_id, new_wallet)
}

#[test]
fn get_or_create_is_idempotent() {
    let mut fx = Fx::new();
    let mut calls = 0u32;
    let mut next = 10u8;
    let mut make = || -> Result<NewWallet, Error> {
        calls += 1;
        next += 1;
        Ok(NewWallet {
            address: wallet(next).address,
            sealed_key: "aa".into(),
        })
    };
    let (h1, created1) = put_holder(&mut fx.store, &fx.ctx, "user-1", &mut make).unwrap();
    fx.advance(5_000);
    let (h2, created2) = put_holder(&mut fx.store, &fx.ctx, "user-1", &mut make).unwrap();
    assert!(created1);
    assert!(!created2);
    assert_eq!(h1, h2);
    assert_eq!(h1.created_at, T0);
    let (h3, created3) = put_holder(&mut fx.store, &fx.ctx, "user 2", &mut make).unwrap();
    assert!(created3);
    assert_ne!(h3.address, h1.address);
    assert_eq!(calls, 2, "one wallet per new userId");
    assert_eq!(fx.store.holders.len(), 2);

    // An invalid userId never asks for a wallet.
    let mut never = || -> Result<NewWallet, Error> { panic!("wallet made for an invalid userId") };
    for bad in ["", "a\nb", &"x".repeat(129)] {
        let err = put_holder(&mut fx.store, &fx.ctx, bad, &mut never).unwrap_err();
        assert_eq!(err.code, C::InvalidUserId);
    }
    // A failing wallet source creates nothing.
    let before = fx.store.clone();
    let mut failing = || -> Result<NewWallet, Error> { Err(Error::internal("no randomness")) };
    let err = put_holder(&mut fx.store, &fx.ctx, "user-3", &mut failing).unwrap_err();
    assert_eq!(err.code, C::Internal);
    assert_unchanged(&before, &fx.store, "failed wallet");
    // A colliding address is refused rather than shared.
    let mut colliding = || {
        Ok(NewWallet {
            address: h1.address,
            sealed_key: "bb".into(),
        })
    };
    let err = put_holder(&mut fx.store, &fx.ctx, "user-4", &mut colliding).unwrap_err();
    assert_eq!(err.code, C::Internal);
    assert_unchanged(&before, &fx.store, "collision");
    assert_eq!(
        ops::holder::find(&fx.store, &user("user-3").unwrap())
            .unwrap_err()
            .code,
        C::HolderNotFound
    );
}

#[test]
fn spend_goes_to_the_tokens_own_merchant_address() {
    let mut w = world();
    let ext2 = w.addr("ext2");
    let custom = w.fx.create_token(
        json!({"name": "Custom", "symbol": "CUS", "merchantAddress": ext2.to_checksum().to_ascii_lowercase()}),
    );
    w.names.insert("CUS", custom.address());
    assert_eq!(w.fx.token(&custom).merchant_address, ext2);
    do_dist(&mut w, "CUS", "alice", json!(10));
    let r = do_out(&mut w, Kind::Spend, "alice", "CUS", json!(4), "");
    assert_eq!(r.to, ext2);
    let r = do_out(&mut w, Kind::Transfer, "alice", "CUS", json!(1), "ext2");
    assert_eq!(r.to, ext2);
    let t = w.fx.token(&custom);
    assert_eq!(t.merchant_supply.raw(), tok("50000005"));
    assert_eq!(w.fx.active(&custom, &ext2), 0);
    // The merchant's own wallet is just another address for this token.
    do_out(&mut w, Kind::Transfer, "alice", "CUS", json!(1), "merchant");
    assert_eq!(w.fx.active(&custom, &w.addr("merchant")), tok("1"));
    assert_eq!(w.fx.token(&custom).merchant_supply.raw(), tok("50000005"));
}
