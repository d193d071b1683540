//! `GET /health`: whether the service can run, on which chain, and on an EVM chain whether
//! its node answers and how the merchants' relayers stand, as the settlers last found them
//! (`tokenpad_core::wire::health`: each settler reports its rounds to the registry). No
//! request here calls the node; the registry's summary is kept for a few seconds per isolate,
//! so a monitor polling `/health` costs the registry one read per isolate in that time. Never
//! the RPC URL, nor the node's own error text, nor which merchants are stuck (only how many:
//! `GET /admin/chain`, `overview` below, lists them for the operator).

use crate::hop::{self, RegistryCall};
use crate::http;
use std::cell::RefCell;
use tokenpad_core::model::time::Millis;
use tokenpad_core::wire::admin::{Health, HealthChain};
use tokenpad_core::wire::chain::ChainOverview;
use tokenpad_core::wire::health::{node_down, stuck_merchants, summarize, warning};
use tokenpad_core::{Error, Result};
use worker::{Env, Response};

/// The release this Worker is: the workspace's version (Cargo.toml).
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The commit of its sources, as scripts/build-worker.sh passes it (`TOKENPAD_COMMIT`, read
/// when this crate compiles: cargo rebuilds it when the value changes); `unknown` for a build
/// made some other way.
const COMMIT: &str = match option_env!("TOKENPAD_COMMIT") {
    Some(c) => c,
    None => "unknown",
};

/// How long an isolate answers `/health` from the registry's last summary.
const KEPT_MS: Millis = 2_000;

thread_local! {
    static KEPT: RefCell<Option<(Millis, Health)>> = const { RefCell::new(None) };
}

/// The service's health: its chain (and on an EVM chain its node and relayers), or why its
/// configuration is unusable.
pub async fn health(env: &Env) -> Health {
    let config = match crate::adapters::evm::config::read(env) {
        Ok(c) => c,
        Err(e) => {
            return Health {
                ok: false,
                version: VERSION.into(),
                commit: COMMIT.into(),
                chain: HealthChain {
                    kind: "evm".into(),
                    chain_id: None,
                    node: None,
                    relayers: None,
                },
                error: Some(e.message.clone()),
                warning: None,
            }
        }
    };
    let mode = config.mode();
    let Some(evm) = config.evm() else {
        return Health {
            ok: true,
            version: VERSION.into(),
            commit: COMMIT.into(),
            chain: HealthChain {
                kind: mode.kind().into(),
                chain_id: None,
                node: None,
                relayers: None,
            },
            error: None,
            warning: None,
        };
    };
    let now = crate::clock::now_ms();
    let kept = KEPT.with(|k| {
        k.borrow()
            .as_ref()
            .filter(|(at, _)| now.saturating_sub(*at) < KEPT_MS)
            .map(|(_, h)| h.clone())
    });
    if let Some(h) = kept {
        return h;
    }
    let (node, relayers, error) = match hop::registry(env, &RegistryCall::ChainHealth).await {
        Ok(state) => {
            let (node, relayers) = summarize(&state.chain_reports, now);
            let error = node.error.clone().filter(|_| node_down(&node));
            (Some(node), Some(relayers), error)
        }
        Err(e) => {
            worker::console_error!("/health: the registry: {}", e.message);
            (None, None, None)
        }
    };
    // A merchant stuck is said, and counted, but is not the service's trouble: `ok` stays.
    let warning = relayers.as_ref().and_then(warning);
    let h = Health {
        ok: error.is_none(),
        version: VERSION.into(),
        commit: COMMIT.into(),
        chain: HealthChain {
            kind: mode.kind().into(),
            chain_id: Some(evm.chain.chain_id),
            node,
            relayers,
        },
        error,
        warning,
    };
    KEPT.with(|k| *k.borrow_mut() = Some((now, h.clone())));
    h
}

/// `GET /admin/chain`: the node and the relayers as `/health` has them, and every merchant
/// whose settler's latest report says it is stuck, with why and what to do (the registry's
/// reports, by merchant; no request here calls the node).
pub async fn overview(env: &Env) -> Result<Response> {
    let config = crate::adapters::evm::config::read(env)?;
    let mut out = ChainOverview {
        kind: config.mode().kind().into(),
        chain_id: None,
        node: None,
        relayers: None,
        stuck_after_ms: None,
        stuck: Vec::new(),
    };
    if let Some(evm) = config.evm() {
        let state = hop::registry(env, &RegistryCall::ChainReports).await?;
        let reports: Vec<_> = state
            .merchant_reports
            .iter()
            .map(|(_, r)| r.clone())
            .collect();
        let (node, relayers) = summarize(&reports, crate::clock::now_ms());
        out.chain_id = Some(evm.chain.chain_id);
        out.node = Some(node);
        out.relayers = Some(relayers);
        out.stuck_after_ms = Some(evm.stuck_after_ms);
        out.stuck = stuck_merchants(&state.merchant_reports);
    }
    http::json(200, &out).map_err(|e| Error::internal(e.to_string()))
}
