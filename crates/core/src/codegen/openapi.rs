//! `components.schemas` of openapi.json, made from the wire types: responses as they are
//! serialized, requests as they are deserialized. The rest of the document (the path items'
//! prose and responses, parameters, responses, security, headers, info, tags) is written by
//! hand, but for the skeletons of missing path items (`skeleton`); [`render`] replaces only
//! the schemas in its text and leaves every other byte as it was.

use super::jsontext::pretty;
use crate::model::address::Address;
use crate::model::decimal::{AmountInput, Decimal};
use crate::model::ids::UserId;
use crate::model::time::Timestamp;
use crate::model::token::Network;
use crate::ops::deployment::{AirdropRequest, MemecoinRequest};
use crate::ops::keys::{CreateKeyRequest, RollKeyRequest};
use crate::ops::ledger::{DistributeRequest, SendRequest, SpendRequest};
use crate::ops::market::{BuyRequest, LiquidityRequest, SellRequest};
use crate::ops::presale::{BuyPresaleRequest, CreatePresaleRequest, ResolvePresaleRequest};
use crate::ops::session::CreateSessionRequest;
use crate::ops::settings::PatchSettingsRequest;
use crate::ops::token::{CreateTokenRequest, PatchTokenRequest};
use crate::ops::webhook::{CreateWebhookRequest, UpdateWebhookRequest};
use crate::schema::{
    drop_null, DeploymentStatusRequest, EventSelectorList, OpenApiDocument, TxHash,
};
use crate::wire::account;
use crate::wire::admin::{
    ChainFaultsRequest, ChainFaultsResult, Clock, CreateMerchantRequest, ErrorBody, FaucetRequest,
    FaucetResult, FaultsRequest, FaultsResult, Health, MerchantCreated, TimeAdvanceRequest,
};
use crate::wire::chain::{ChainOverview, ChainReport, ChainRetried, ReconcileReport};
use crate::wire::deployment::{DeploymentCreated, DeploymentStatusResult};
use crate::wire::event::{Event, EventPage};
use crate::wire::holder::{HolderFull, TokenBalance};
use crate::wire::keys::{KeyCreated, KeyInfo, KeyList, KeyRolled};
use crate::wire::ledger::{DistributeResult, LedgerResult, RewardResult, TxPage};
use crate::wire::market::{LiquidityCreated, TradeFigures, TradeResult};
use crate::wire::merchant::{MerchantSettings, ParkedWork};
use crate::wire::merchant_chain::MerchantChain;
use crate::wire::presale::{BuyPresaleResult, Presale, PresaleMerchant, ResolveResult};
use crate::wire::session::{SessionCreated, SessionInfo, SessionsRevoked};
use crate::wire::token::{CreateTokenAccepted, Job, Token};
use crate::wire::webhook::{Delivery, DeliveryPage, Webhook, WebhookCreated, WebhookDeleted};
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value};

/// Schemas listed first, in this order (the shared field types); the rest follow by name.
const FIRST: [&str; 7] = [
    "Address",
    "TxHash",
    "Timestamp",
    "UserId",
    "Network",
    "AmountInput",
    "Amount",
];

fn generator(settings: SchemaSettings) -> SchemaGenerator {
    settings
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
        })
        .into_generator()
}

/// Every schema of `components.schemas`, in the document's order.
pub fn schemas() -> Result<Vec<(String, Value)>, String> {
    let mut out = generator(SchemaSettings::draft2020_12().for_serialize());
    macro_rules! add {
        ($g:ident: $($ty:ty),* $(,)?) => {$( let _ = $g.subschema_for::<$ty>(); )*};
    }
    add!(out: TxHash, Timestamp, Address, UserId, Network, Decimal, EventSelectorList);
    add!(out: Health, OpenApiDocument, ErrorBody, MerchantCreated, Clock, FaucetResult);
    add!(out: ChainFaultsResult, Token, CreateTokenAccepted, Job, HolderFull, TokenBalance);
    add!(out: DistributeResult, LedgerResult, TxPage, DeploymentCreated, DeploymentStatusResult);
    add!(out: Presale, PresaleMerchant, BuyPresaleResult, ResolveResult);
    add!(out: RewardResult, LiquidityCreated, TradeResult, TradeFigures);
    add!(out: ParkedWork, FaultsResult, ChainReport, ReconcileReport);
    add!(out: ChainRetried, ChainOverview, MerchantChain);
    add!(out: Event, EventPage, Webhook, WebhookCreated, WebhookDeleted, Delivery, DeliveryPage);
    add!(out: SessionCreated, SessionInfo, SessionsRevoked, MerchantSettings);
    add!(out: KeyInfo, KeyList, KeyCreated, KeyRolled);
    add!(out: account::Accepted, account::EmailOnly, account::Account, account::AccountMerchantCreated);
    add!(out: account::DashboardToken, account::Members, account::Invite, account::Mailbox);
    let mut inp = generator(SchemaSettings::draft2020_12().for_deserialize());
    add!(inp: AmountInput, CreateMerchantRequest, TimeAdvanceRequest, FaucetRequest);
    add!(inp: ChainFaultsRequest, CreateTokenRequest, PatchTokenRequest, DistributeRequest);
    add!(inp: SpendRequest, SendRequest, MemecoinRequest, AirdropRequest);
    add!(inp: DeploymentStatusRequest, CreatePresaleRequest, BuyPresaleRequest);
    add!(inp: ResolvePresaleRequest, LiquidityRequest, BuyRequest, SellRequest);
    add!(inp: ResolvePresaleRequest, FaultsRequest);
    add!(inp: CreateWebhookRequest, UpdateWebhookRequest);
    add!(inp: CreateSessionRequest, PatchSettingsRequest);
    add!(inp: CreateKeyRequest, RollKeyRequest);
    add!(inp: account::Credentials, account::LinkToken, account::ResetRequest);
    add!(inp: account::ResetConfirm, account::CreateMerchant, account::InviteRequest);
    add!(inp: account::RemoveMember);

    let mut all = out.take_definitions(true);
    for v in all.values_mut() {
        tidy(v);
    }
    for (name, mut v) in inp.take_definitions(true) {
        tidy(&mut v);
        match all.get(&name) {
            Some(have) if *have != v => {
                return Err(format!(
                    "schema {name} differs between requests and responses"
                ))
            }
            _ => {
                all.insert(name, v);
            }
        }
    }
    // schemars tells two types of one name apart by a number: `Foo2`.
    if let Some(name) = all
        .keys()
        .find(|n| n.ends_with(|c: char| c.is_ascii_digit()))
    {
        return Err(format!(
            "two types are named {}: rename one with #[schemars(rename = ..)]",
            name.trim_end_matches(|c: char| c.is_ascii_digit())
        ));
    }
    let mut ordered = Vec::new();
    for name in FIRST {
        let v = all
            .remove(name)
            .ok_or_else(|| format!("no schema {name}"))?;
        ordered.push((name.to_string(), v));
    }
    ordered.extend(all);
    Ok(ordered)
}

/// Makes a generated schema read like openapi.json: drops schemars' integer formats (uint8,
/// uint64: not formats OpenAPI or Ajv know), drops an `enum` next to a `const`, joins the
/// lines of descriptions (doc comments), and writes an optional field (`Option<T>`) as
/// optional but not null:
/// - in a response, serde leaves it out when `None` (every `skip_serializing_if` of the wire
///   types is `Option::is_none`), so a field that is there is never null (an `Option` field
///   serde always writes is required, and may be null);
/// - in a request, the document describes the canonical form, leaving the field out (serde
///   also reads `null` as absent).
fn tidy(v: &mut Value) {
    match v {
        Value::Array(items) => items.iter_mut().for_each(tidy),
        Value::Object(m) => {
            if m.get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with("uint") || f == "int8" || f == "int16")
            {
                m.remove("format");
            }
            if m.contains_key("const") {
                m.remove("enum");
            }
            if let Some(Value::String(d)) = m.get_mut("description") {
                *d = join_lines(d);
            }
            not_null_unless_required(m);
            m.values_mut().for_each(tidy);
        }
        _ => {}
    }
}

fn not_null_unless_required(m: &mut Map<String, Value>) {
    let required: Vec<String> = match m.get("required") {
        Some(Value::Array(r)) => r
            .iter()
            .filter_map(|s| s.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    };
    let Some(Value::Object(props)) = m.get_mut("properties") else {
        return;
    };
    for (name, p) in props.iter_mut() {
        if !required.contains(name) {
            if let Value::Object(p) = p {
                drop_null(p);
            }
        }
    }
}

/// Doc comments wrap at 100 columns; a description is one paragraph per line.
fn join_lines(d: &str) -> String {
    d.split("\n\n")
        .map(|para| {
            para.split('\n')
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// `text` (openapi.json) with its `components.schemas` replaced by `schemas`. The document is
/// laid out as `JSON.stringify(doc, null, 2)` writes it, and so are the schemas.
pub fn render(text: &str, schemas: &[(String, Value)]) -> Result<String, String> {
    render_section(text, "schemas", schemas)
}

/// `text` with `info.version` set to `version` (the workspace's, which the npm package and
/// `GET /health` name too), every other byte as it was.
pub fn set_version(text: &str, version: &str) -> Result<String, String> {
    const TAG: &str = "\n    \"version\": \"";
    let info = text
        .find("\n  \"info\": {\n")
        .ok_or("openapi.json: no info (at 2 spaces)")?;
    let start = text
        .get(info..)
        .and_then(|rest| rest.find(TAG))
        .map(|i| info + i + TAG.len())
        .ok_or("openapi.json: no info.version (at 4 spaces)")?;
    let end = text
        .get(start..)
        .and_then(|rest| rest.find('"'))
        .map(|i| start + i)
        .ok_or("openapi.json: info.version does not end")?;
    let mut out = String::with_capacity(text.len());
    out.push_str(text.get(..start).unwrap_or_default());
    out.push_str(version);
    out.push_str(text.get(end..).unwrap_or_default());
    Ok(out)
}

/// `text` with its `components.<name>` replaced by `items` (the generated sections: schemas,
/// examples).
pub fn render_section(text: &str, name: &str, items: &[(String, Value)]) -> Result<String, String> {
    let start_tag = format!("\n    \"{name}\": {{\n");
    let start = text
        .find(&start_tag)
        .ok_or_else(|| format!("openapi.json: no components.{name} (at 4 spaces)"))?;
    let body = start + start_tag.len();
    let end = text
        .get(body..)
        .and_then(|rest| {
            rest.match_indices("\n    }")
                .map(|(i, _)| body + i)
                .find(|&i| {
                    text.get(i + 6..i + 7)
                        .is_some_and(|c| c == "," || c == "\n")
                })
        })
        .ok_or_else(|| format!("openapi.json: components.{name} does not end"))?;
    let mut out = String::with_capacity(text.len());
    out.push_str(text.get(..body).unwrap_or_default());
    for (i, (key, item)) in items.iter().enumerate() {
        let value = pretty(item)?.replace('\n', "\n      ");
        let key = serde_json::to_string(key).map_err(|e| e.to_string())?;
        out.push_str(&format!("      {key}: {value}"));
        out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
    }
    out.push_str(text.get(end + 1..).unwrap_or_default());
    Ok(out)
}
