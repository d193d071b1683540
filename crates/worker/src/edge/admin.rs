//! The operator's routes (`x-admin-key`): merchant creation, and in local runs and tests the
//! service clock, the test faucet and chain fault injection. They are orchestrated here, at
//! the edge, across the registry and the merchants' objects.

use super::incoming::Incoming;
use crate::adapters::wallet::random;
use crate::config;
use crate::hop::{self, InitArgs, MerchantCall, RegistryCall};
use crate::http;
use serde_json::Value;
use tokenpad_core::auth::{hashes_equal, key_hash, last4, new_keys};
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::model::time::{iso8601, Millis, Timestamp};
use tokenpad_core::wire::admin::{
    self, ChainFaultsRequest, ChainFaultsResult, Clock, CreateMerchantRequest, FaucetRequest,
    FaucetResult, FaultKind, FaultsRequest, FaultsResult, MerchantCreated, TimeAdvanceRequest,
};
use tokenpad_core::wire::decode;
use tokenpad_core::wire::routes::Matched;
use tokenpad_core::{Error, ErrorCode, Result};
use worker::{Env, Response};

fn internal(e: worker::Error) -> Error {
    Error::internal(e.to_string())
}

/// The admin key must match ADMIN_API_KEY; with none configured, admin routes are closed.
pub fn check_key(req: &Incoming, env: &Env) -> Result<()> {
    let invalid = || Error::new(ErrorCode::InvalidAdminKey, "Missing or invalid x-admin-key");
    let expected = config::string(env, "ADMIN_API_KEY")
        .filter(|k| !k.is_empty())
        .ok_or_else(invalid)?;
    let given = req.header("x-admin-key").ok_or_else(invalid)?;
    if hashes_equal(&key_hash(&given), &key_hash(&expected)) {
        Ok(())
    } else {
        Err(invalid())
    }
}

fn not_found() -> Error {
    Error::new(ErrorCode::NotFound, "No such route")
}

/// Serves an admin route (its key already checked).
pub async fn serve(env: &Env, matched: &Matched, body: &Value) -> Result<Response> {
    let route = matched.route;
    let merchant = || -> Result<MerchantId> {
        let id = matched.params.first().map(String::as_str).unwrap_or("");
        MerchantId::parse(id).map_err(|_| {
            Error::new(ErrorCode::MerchantNotFound, "No such merchant").with("field", "merchantId")
        })
    };
    let dev = |flag: &str| {
        if config::flag(env, flag) {
            Ok(())
        } else {
            Err(not_found())
        }
    };
    match route {
        admin::ADMIN_CREATE_MERCHANT => create_merchant(env, decode::body(body)?).await,
        admin::ADMIN_TIME => {
            let reg = hop::registry(env, &RegistryCall::List).await?;
            clock(reg.offset_ms)
        }
        admin::ADMIN_TIME_ADVANCE => {
            dev("ALLOW_TIME_TRAVEL")?;
            time_advance(env, decode::body(body)?).await
        }
        admin::ADMIN_CHAIN => super::chain::chain(env, merchant()?).await,
        admin::ADMIN_RECONCILE => super::chain::reconcile(env, merchant()?).await,
        admin::ADMIN_CHAIN_RETRY => super::chain::retry(env, merchant()?).await,
        admin::ADMIN_CHAIN_OVERVIEW => super::health::overview(env).await,
        admin::ADMIN_CHAIN_FAULTS => {
            dev("ALLOW_TIME_TRAVEL")?;
            chain_faults(env, decode::body(body)?).await
        }
        admin::ADMIN_FAULTS => {
            dev("ALLOW_TIME_TRAVEL")?;
            faults(env, decode::body(body)?).await
        }
        admin::ADMIN_FAUCET => {
            dev("ENABLE_FAUCET")?;
            faucet(env, decode::body(body)?).await
        }
        _ => Err(not_found()),
    }
}

async fn create_merchant(env: &Env, req: CreateMerchantRequest) -> Result<Response> {
    let created = make_merchant(env, req.name.into_string(), None).await?;
    http::json(201, &created).map_err(internal)
}

/// Makes a merchant named `name` (its id and first keys, its registry entry, its object), and
/// its first owner when an account made it: the merchant with its keys, shown this once.
pub(super) async fn make_merchant(
    env: &Env,
    name: String,
    owner: Option<String>,
) -> Result<MerchantCreated> {
    let (id, secret_key, public_key) = new_keys(&random::<80>()?);
    let reg = hop::registry(
        env,
        &RegistryCall::Register {
            id: id.clone(),
            name: name.clone(),
        },
    )
    .await?;
    let init = MerchantCall::Init(InitArgs {
        id: id.clone(),
        name,
        secret_key_hash: key_hash(&secret_key),
        public_key_hash: key_hash(&public_key),
        secret_key_last4: Some(last4(&secret_key)),
        public_key_last4: Some(last4(&public_key)),
        // A merchant created after time travel starts on the service clock, not real time.
        offset_ms: reg.offset_ms,
        owner,
    });
    let mut created: MerchantCreated = hop::merchant_typed(env, &id, &init).await?;
    super::local_node::fund_relayer(env, &created.merchant_address).await;
    created.secret_key = Some(secret_key);
    created.public_key = Some(public_key);
    Ok(created)
}

/// The service clock: real time plus the time-travel offset (0 unless a local run moved it).
fn clock(offset: Millis) -> Result<Response> {
    let now = crate::clock::now_ms() + offset;
    http::json(
        200,
        &Clock {
            offset_seconds: offset / 1000,
            now: Timestamp::at(now),
            now_unix: now / 1000,
        },
    )
    .map_err(internal)
}

/// Moves the service clock (the registry's offset), then tells every merchant's object.
/// Each is told even after one fails: the offset it is sent is the clock's whole offset, so
/// one that missed it catches up on the next advance. Any that did not take it: 503
/// `unavailable` naming them (the clock itself has moved).
async fn time_advance(env: &Env, req: TimeAdvanceRequest) -> Result<Response> {
    let reg = hop::registry(
        env,
        &RegistryCall::Advance {
            seconds: req.seconds.get(),
        },
    )
    .await?;
    let now = crate::clock::now_ms().saturating_add(reg.offset_ms) / 1_000;
    super::local_node::advance(env, now).await;
    let call = MerchantCall::Advance {
        offset_ms: reg.offset_ms,
    };
    let mut missed = Vec::new();
    for id in &reg.merchants {
        if let Err(e) = hop::merchant_typed::<Value>(env, id, &call).await {
            worker::console_error!("time advance: merchant {id}: {}", e.message);
            missed.push(id.as_str().to_string());
        }
    }
    if !missed.is_empty() {
        return Err(Error::new(
            ErrorCode::Unavailable,
            format!(
                "The clock moved to {}, but {} merchant object(s) did not take it; the next POST /admin/time/advance brings them to the clock",
                iso8601(crate::clock::now_ms().saturating_add(reg.offset_ms)),
                missed.len()
            ),
        )
        .with("merchants", missed)
        .with("offsetSeconds", reg.offset_ms / 1000));
    }
    clock(reg.offset_ms)
}

/// The merchant's next `count` fallible chain submissions fail (local runs and tests), to
/// exercise retries and backoff.
async fn chain_faults(env: &Env, req: ChainFaultsRequest) -> Result<Response> {
    let count = u32::try_from(req.count.get()).unwrap_or(0);
    let result: ChainFaultsResult =
        hop::merchant_typed(env, &req.merchant_id, &MerchantCall::ChainFaults { count }).await?;
    http::json(200, &result).map_err(internal)
}

/// Makes one part of the service fail on purpose (local runs and tests), so the tests can
/// show it recovers: a poisoned due item, lost answers of a merchant object, failing alarm
/// writes, failing registry writes.
async fn faults(env: &Env, req: FaultsRequest) -> Result<Response> {
    let count = req.count.map_or(1, |c| u32::try_from(c.get()).unwrap_or(1));
    let done = |id: Option<String>| {
        http::json(
            200,
            &FaultsResult {
                success: true,
                kind: req.kind,
                id,
            },
        )
        .map_err(internal)
    };
    if req.kind == FaultKind::RegistryWrites {
        hop::registry(env, &RegistryCall::Faults { count }).await?;
        return done(None);
    }
    let merchant = req
        .merchant_id
        .clone()
        .ok_or_else(|| Error::field("merchantId", "merchantId is required for this kind"))?;
    let call = MerchantCall::Fault {
        kind: req.kind,
        count,
    };
    let result: FaultsResult = hop::merchant_typed(env, &merchant, &call).await?;
    done(result.id)
}

/// Test USDC for a holder of `merchantId`, or of whichever merchant has that holder.
async fn faucet(env: &Env, req: FaucetRequest) -> Result<Response> {
    let targets: Vec<MerchantId> = match req.merchant_id {
        Some(id) => vec![id],
        None => hop::registry(env, &RegistryCall::List).await?.merchants,
    };
    let call = MerchantCall::Faucet {
        address: req.address,
        usdc: req.usdc_amount.amount(),
    };
    for id in targets {
        match hop::merchant_typed::<FaucetResult>(env, &id, &call).await {
            Ok(result) => return http::json(200, &result).map_err(internal),
            // Not this merchant's holder, or no merchant at that id: try the next one.
            Err(e)
                if matches!(
                    e.code,
                    ErrorCode::HolderNotFound | ErrorCode::MerchantNotFound
                ) => {}
            Err(e) => return Err(e),
        }
    }
    Err(Error::new(
        ErrorCode::HolderNotFound,
        "No holder has that address",
    ))
}
