//! The examples of the routes the Worker's shell answers itself, without the merchant's object
//! (health, the document, admin, the deployment page): each written as its wire type reads it
//! and written back ([`typed`]), so a field the type does not have fails the generation.

use crate::wire::admin::{
    ChainFaultsRequest, ChainFaultsResult, Clock, CreateMerchantRequest, FaucetRequest,
    FaucetResult, FaultsRequest, FaultsResult, Health, MerchantCreated, TimeAdvanceRequest,
};
use crate::wire::chain::{ChainOverview, ChainReport, ChainRetried, ReconcileReport};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

type R<T> = Result<T, String>;

/// `v` read as a `T` and written back: the example as the type has it.
pub fn typed<T: DeserializeOwned + Serialize>(v: &Value) -> R<Value> {
    let t: T = serde_json::from_value(v.clone())
        .map_err(|e| format!("{} does not read {v}: {e}", std::any::type_name::<T>()))?;
    serde_json::to_value(&t).map_err(|e| e.to_string())
}

/// `v` if it reads as a `T` (a request: kept as written, since a request type writes its
/// absent fields as null).
pub fn accepted<T: DeserializeOwned>(v: Value) -> R<Value> {
    serde_json::from_value::<T>(v.clone())
        .map_err(|e| format!("{} does not read {v}: {e}", std::any::type_name::<T>()))?;
    Ok(v)
}

/// The admin and shell examples for a merchant `id` with a token and a holder at `holder`.
pub fn admin_examples(id: &str, token: &str, holder: &str) -> R<BTreeMap<String, Value>> {
    let mut out = BTreeMap::new();
    let mut put = |name: &str, v: R<Value>| -> R<()> {
        out.insert(name.to_string(), v?);
        Ok(())
    };
    let hash = format!("0x{}", "3c".repeat(32));
    put(
        "getHealth.200",
        typed::<Health>(&json!({
            "ok": true, "version": env!("CARGO_PKG_VERSION"),
            "commit": "34ffa8a3d1c2e0b9f8a7c6d5e4f3a2b1c0d9e8f7", "chain": { "kind": "embedded" }
        })),
    )?;
    put(
        "getOpenApi.200",
        Ok(json!({
            "openapi": "3.1.0", "info": { "title": "tokenpad", "version": env!("CARGO_PKG_VERSION") }, "paths": { "/health": {} }
        })),
    )?;
    put(
        "adminCreateMerchant.request",
        accepted::<CreateMerchantRequest>(json!({ "name": "Acme Rewards" })),
    )?;
    put(
        "adminCreateMerchant.201",
        typed::<MerchantCreated>(&json!({
            "id": id, "name": "Acme Rewards", "merchantAddress": "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf",
            "secretKey": format!("sk_{id}_{}", "0f".repeat(16)), "publicKey": format!("pk_{id}_{}", "a1".repeat(16))
        })),
    )?;
    let clock = json!({ "offsetSeconds": 3600, "now": "2030-01-01T01:00:00.000Z", "nowUnix": 1_893_459_600u64 });
    put(
        "adminAdvanceTime.request",
        accepted::<TimeAdvanceRequest>(json!({ "seconds": 3600 })),
    )?;
    put("adminAdvanceTime.200", typed::<Clock>(&clock))?;
    put("adminTime.200", typed::<Clock>(&clock))?;
    put(
        "adminFaucet.request",
        accepted::<FaucetRequest>(json!({ "address": holder, "usdcAmount": 100 })),
    )?;
    put(
        "adminFaucet.200",
        typed::<FaucetResult>(&json!({
            "success": true, "transactionHash": hash, "chainStatus": "confirmed", "blockNumber": 42,
            "address": holder, "usdcAmount": 100
        })),
    )?;
    put(
        "adminChainFaults.request",
        accepted::<ChainFaultsRequest>(json!({ "merchantId": id, "count": 2 })),
    )?;
    put(
        "adminChainFaults.200",
        typed::<ChainFaultsResult>(&json!({ "success": true, "failNext": 2 })),
    )?;
    put(
        "adminFaults.request",
        accepted::<FaultsRequest>(json!({ "kind": "lost_answers", "merchantId": id, "count": 3 })),
    )?;
    put(
        "adminFaults.200",
        typed::<FaultsResult>(&json!({ "success": true, "kind": "lost_answers" })),
    )?;
    let relayer = "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf";
    let usdc = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
    let parked = json!({
        "kind": "parked", "count": 1, "since": "2030-01-01T00:58:00.000Z",
        "what": "1 movement(s) parked for an operator; the first: reverted on chain: ERC20InsufficientBalance(0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf, 0, 10000000)",
        "action": format!("Repair what parked them (each one's reason is in GET /admin/merchants/{id}/chain: a treasury short of a token gets it at {relayer}; gas that never sufficed needs the relayer funded), then POST /admin/merchants/{id}/chain/retry sends them again")
    });
    put(
        "adminChain.200",
        typed::<ChainReport>(&json!({
            "merchantId": id, "kind": "evm", "chainId": 84532,
            "relayer": { "address": relayer, "balanceWei": "2000000000000000", "nextNonce": 12, "scannedBlock": 1200 },
            "openMovements": 1, "transactions": [], "failed": [],
            "parked": [{
                "id": 41, "tokenAddress": usdc, "movement": "transfer",
                "why": "reverted on chain: ERC20InsufficientBalance(0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf, 0, 10000000)",
                "since": "2030-01-01T00:58:00.000Z", "attempts": 1
            }],
            "stuck": [parked.clone()], "waiting": [], "stuckAfterMs": 600_000
        })),
    )?;
    put(
        "adminChainRetry.200",
        typed::<ChainRetried>(&json!({ "success": true, "merchantId": id, "retried": 1 })),
    )?;
    put(
        "adminChainOverview.200",
        typed::<ChainOverview>(&json!({
            "kind": "evm", "chainId": 84532,
            "node": { "status": "reachable", "checkedAt": "2030-01-01T01:00:00.000Z", "lastContactAt": "2030-01-01T01:00:00.000Z" },
            "relayers": { "reporting": 3, "ready": 3, "outOfGas": 0, "waiting": 0, "stuck": 1 },
            "stuckAfterMs": 600_000,
            "stuck": [{ "merchantId": id, "checkedAt": "2030-01-01T01:00:00.000Z", "issues": [parked] }]
        })),
    )?;
    put(
        "adminReconcile.200",
        typed::<ReconcileReport>(&json!({
            "merchantId": id, "chainId": 84532, "blockNumber": 1200, "openMovements": 0, "checked": 6,
            "differences": [], "pools": [], "stepsChecked": 3,
            "steps": [{
                "kind": "lock", "tokenAddress": token,
                "what": format!("lock {id}-presale:0 (key 0x{}) of {holder}", "5e".repeat(32)),
                "ledger": "locked: 1000 units until 2030-01-08T00:00:00.000Z",
                "chain": "released"
            }]
        })),
    )?;
    put("getDeploymentPage.200", Ok(Value::String(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Pepe Two (PEPE2)</title></head>\
         <body><h1>Pepe Two (PEPE2)</h1><p>Deployed on base at {token}</p></body></html>"
    ))))?;
    Ok(out)
}
