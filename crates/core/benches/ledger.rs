//! The core alone: ledger operations applied to the in-memory store, per second
//! (`cargo bench -p tokenpad-core`). Each operation runs as the Worker runs it, minus storage:
//! the typed request (decoded once, as the edge does), the balance checks, the embedded
//! chain's stamp, the history records. Criterion prints each as time per operation and as
//! operations per second ("thrpt").
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "../tests/it/common.rs"]
mod common;

use common::{body, Fx};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::json;
use std::hint::black_box;
use tokenpad_core::model::ids::UserId;
use tokenpad_core::ops::ledger::{DistributeRequest, Outflow};
use tokenpad_core::ops::{self};

fn ledger(c: &mut Criterion) {
    let mut fx = Fx::new();
    let token = fx.create_token(
        json!({"name": "Bench", "symbol": "BNCH", "totalSupply": 1_000_000_000_000u64}),
    );
    for id in ["alice", "bob", "carol"] {
        fx.holder(id);
    }
    let carol = fx.holder("carol").address;
    // Plenty for every iteration criterion may run: each spends or sends 1 token.
    let funding: DistributeRequest =
        body(&json!({"sendToId": "alice", "amount": 10_000_000_000u64})).unwrap();
    ops::ledger::distribute(&mut fx.store, &fx.ctx, &token, &funding).unwrap();
    let funding: DistributeRequest =
        body(&json!({"sendToId": "bob", "amount": 10_000_000_000u64})).unwrap();
    ops::ledger::distribute(&mut fx.store, &fx.ctx, &token, &funding).unwrap();

    let distribute: DistributeRequest = body(&json!({"sendToId": "carol", "amount": 1})).unwrap();
    let spend =
        Outflow::Spend(body(&json!({"tokenAddress": token.to_string(), "amount": 1})).unwrap());
    let transfer = Outflow::Transfer(
        body(&json!({"tokenAddress": token.to_string(), "amount": 1, "toAddress": carol.to_string()})).unwrap(),
    );
    let alice = UserId::parse("alice").unwrap();
    let bob = UserId::parse("bob").unwrap();

    let mut g = c.benchmark_group("ledger (in memory)");
    g.throughput(Throughput::Elements(1));
    g.bench_function("distribute", |b| {
        b.iter(|| {
            ops::ledger::distribute(&mut fx.store, &fx.ctx, &token, black_box(&distribute)).unwrap()
        })
    });
    g.bench_function("spend", |b| {
        b.iter(|| ops::ledger::move_out(&mut fx.store, &fx.ctx, &alice, black_box(&spend)).unwrap())
    });
    g.bench_function("transfer", |b| {
        b.iter(|| {
            ops::ledger::move_out(&mut fx.store, &fx.ctx, &bob, black_box(&transfer)).unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, ledger);
criterion_main!(benches);
