//! Memecoin and airdrop deployments (`POST /template/memecoin`, `POST /template/airdrop`).
//!
//! A deployment is a token-creation flow on the chain port, like a create-token job: the
//! contract address is reserved at once (the merchant wallet's next CREATE address), the
//! deployment transaction is submitted at creation, and the token comes into existence once
//! that transaction is mined. The mining time goes on the merchant's schedule under
//! `deploy:<id>`, so the Durable Object alarm finishes the deployment on time even when no
//! request arrives.
//!
//! The deployed token is a Token like any other. Its supply: the recipient's amount and each
//! airdrop address's supply are balances of record; the rest is the liquidity reserve (none
//! with `noLp`). There is no app supply and no merchant supply. Its price is `initialPrice`.

use crate::address::Address;
use crate::chain;
use crate::error::{Error, ErrorCode, Result};
use crate::history::{TxRecord, TxType};
use crate::input::{self, Object};
use crate::job::JobStatus;
use crate::merchant::Ctx;
use crate::money::{self, PRICE_DECIMALS, TOKEN_DECIMALS};
use crate::store::Store;
use crate::time::{iso8601, Millis};
use crate::token::{CreateToken, Network, TokenOrigin};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// At most this many airdrop addresses per deployment.
pub const MAX_AIRDROP_ADDRESSES: usize = 1000;
/// Holders the overview page lists.
pub const PAGE_HOLDERS: u32 = 20;

const KEY_PREFIX: &str = "deploy:";

/// Deployment statuses are a job's: pending, success, failed.
pub type DeploymentStatus = JobStatus;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeploymentKind {
    Memecoin,
    Airdrop,
}

impl DeploymentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DeploymentKind::Memecoin => "memecoin",
            DeploymentKind::Airdrop => "airdrop",
        }
    }

    pub fn origin(self) -> TokenOrigin {
        match self {
            DeploymentKind::Memecoin => TokenOrigin::Memecoin,
            DeploymentKind::Airdrop => TokenOrigin::Airdrop,
        }
    }
}

/// Who receives `amount` base units at deployment (with `noLp`, also the owner and minter).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recipient {
    pub address: Address,
    pub amount: u128,
}

/// Each address receives `supply` base units at deployment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Airdrop {
    pub addresses: Vec<Address>,
    pub supply: u128,
}

/// A validated memecoin or airdrop request. Amounts are base units (18 decimals); the price
/// is USD per whole token with PRICE_DECIMALS decimals.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeployRequest {
    pub kind: DeploymentKind,
    pub name: String,
    pub symbol: String,
    pub network: Network,
    pub total_supply: u128,
    pub initial_price: u128,
    pub marketplace: bool,
    pub recipient: Option<Recipient>,
    /// Memecoin only: no liquidity pool; the recipient gets the whole supply.
    pub no_lp: bool,
    /// Airdrop only.
    pub airdrop: Option<Airdrop>,
}

/// A field of a nested object (`recipient.amount`) as a one-field object under its dotted
/// name, so the `input` readers name the full path in their errors.
fn nested(outer: Option<&Object>, path: &str, key: &str) -> Object {
    let mut m = Map::new();
    if let Some(v) = outer.and_then(|o| o.get(key)) {
        m.insert(path.to_string(), v.clone());
    }
    m
}

/// An optional nested object (`recipient`, `airdrop`): absent or null is None.
fn opt_object<'a>(m: &'a Object, field: &str) -> Result<Option<&'a Object>> {
    match m.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => Ok(Some(o)),
        Some(_) => Err(Error::field(field, format!("{field} must be an object"))),
    }
}

fn exceeds(field: &str, total: u128, allocated: Option<u128>) -> Error {
    let mut e = Error::new(
        ErrorCode::AllocationExceedsSupply,
        "The tokens allocated at deployment exceed totalSupply",
    )
    .with("field", field)
    .with("totalSupply", money::amount_json(total, TOKEN_DECIMALS));
    if let Some(a) = allocated {
        e = e.with("allocated", money::amount_json(a, TOKEN_DECIMALS));
    }
    e
}

impl DeployRequest {
    /// Validates a request body. Fields are checked in a fixed order (name, symbol,
    /// totalSupply, initialPrice, network, marketplace, recipient, noLp, airdrop, then the
    /// rules across fields), so the first problem is the one reported.
    pub fn parse(kind: DeploymentKind, m: &Object) -> Result<DeployRequest> {
        let (name, symbol) = crate::token::parse_name_symbol(m)?;
        let total_supply = input::req_amount(m, "totalSupply", TOKEN_DECIMALS)?;
        let initial_price = input::req_amount(m, "initialPrice", PRICE_DECIMALS)?;
        let network = Network::parse(&input::req_str(m, "network")?)?;
        let marketplace = input::req_bool(m, "marketplace")?;
        let recipient = Self::parse_recipient(kind, m)?;

        let no_lp = match kind {
            DeploymentKind::Memecoin => input::opt_bool(m, "noLp")?.unwrap_or(false),
            DeploymentKind::Airdrop => false,
        };
        let airdrop = match kind {
            DeploymentKind::Airdrop => Some(Self::parse_airdrop(m)?),
            DeploymentKind::Memecoin => None,
        };

        if no_lp {
            let Some(r) = &recipient else {
                return Err(Error::field(
                    "recipient.address",
                    "noLp requires recipient.address (the owner and minter) and recipient.amount",
                ));
            };
            if r.amount != total_supply {
                return Err(Error::new(
                    ErrorCode::InvalidAmount,
                    "With noLp, recipient.amount must equal totalSupply",
                )
                .with("field", "recipient.amount")
                .with(
                    "totalSupply",
                    money::amount_json(total_supply, TOKEN_DECIMALS),
                ));
            }
        }
        let to_recipient = recipient.as_ref().map_or(0, |r| r.amount);
        match &airdrop {
            None => {
                if to_recipient > total_supply {
                    return Err(exceeds(
                        "recipient.amount",
                        total_supply,
                        Some(to_recipient),
                    ));
                }
            }
            Some(a) => {
                let allocated = u128::try_from(a.addresses.len())
                    .ok()
                    .and_then(|n| a.supply.checked_mul(n))
                    .and_then(|s| s.checked_add(to_recipient));
                if allocated.is_none_or(|x| x > total_supply) {
                    return Err(exceeds("airdrop.supply", total_supply, allocated));
                }
            }
        }

        Ok(DeployRequest {
            kind,
            name,
            symbol,
            network,
            total_supply,
            initial_price,
            marketplace,
            recipient,
            no_lp,
            airdrop,
        })
    }

    /// `recipient: { address, amount }`: both or neither. A memecoin's amount may also be
    /// named `supply` (the interface's sample request does); both names with different
    /// values is refused.
    fn parse_recipient(kind: DeploymentKind, m: &Object) -> Result<Option<Recipient>> {
        let r = opt_object(m, "recipient")?;
        let address = input::opt_address(
            &nested(r, "recipient.address", "address"),
            "recipient.address",
        )?;
        let amount = opt_amount(&nested(r, "recipient.amount", "amount"), "recipient.amount")?;
        let amount = match kind {
            DeploymentKind::Memecoin => {
                let supply =
                    opt_amount(&nested(r, "recipient.supply", "supply"), "recipient.supply")?;
                match (amount, supply) {
                    (Some(a), Some(s)) if a != s => {
                        return Err(Error::field(
                            "recipient.amount",
                            "recipient.amount and recipient.supply are two names for one amount: give one",
                        ))
                    }
                    (a, s) => a.or(s),
                }
            }
            DeploymentKind::Airdrop => amount,
        };
        match (address, amount) {
            (None, None) => Ok(None),
            (Some(address), Some(amount)) => Ok(Some(Recipient { address, amount })),
            (None, Some(_)) => Err(Error::field(
                "recipient.address",
                "recipient.address is required with recipient.amount",
            )),
            (Some(_), None) => Err(Error::field(
                "recipient.amount",
                "recipient.amount is required with recipient.address",
            )),
        }
    }

    fn parse_airdrop(m: &Object) -> Result<Airdrop> {
        let a = opt_object(m, "airdrop")?
            .ok_or_else(|| Error::field("airdrop", "airdrop is required"))?;
        let list = match a.get("addresses") {
            None | Some(Value::Null) => {
                return Err(Error::field(
                    "airdrop.addresses",
                    "airdrop.addresses is required",
                ))
            }
            Some(Value::Array(list)) => list,
            Some(_) => {
                return Err(Error::field(
                    "airdrop.addresses",
                    "airdrop.addresses must be an array of addresses",
                ))
            }
        };
        if list.is_empty() {
            return Err(Error::field(
                "airdrop.addresses",
                "airdrop.addresses must not be empty",
            ));
        }
        if list.len() > MAX_AIRDROP_ADDRESSES {
            return Err(Error::field(
                "airdrop.addresses",
                format!("airdrop.addresses has at most {MAX_AIRDROP_ADDRESSES} addresses"),
            )
            .with("max", MAX_AIRDROP_ADDRESSES));
        }
        let mut addresses: Vec<Address> = Vec::with_capacity(list.len());
        let mut seen = std::collections::BTreeSet::new();
        for (i, v) in list.iter().enumerate() {
            let address = v.as_str().and_then(Address::parse).ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidAddress,
                    format!("airdrop.addresses[{i}] must be a 0x-prefixed 20-byte hex address"),
                )
                .with("field", "airdrop.addresses")
                .with("index", i)
            })?;
            // Address equality is on the bytes, so this is case-insensitive.
            if !seen.insert(address) {
                return Err(Error::field(
                    "airdrop.addresses",
                    format!(
                        "airdrop.addresses[{i}] repeats {}: each address may appear once",
                        address.to_checksum()
                    ),
                )
                .with("index", i)
                .with("address", address.to_checksum()));
            }
            addresses.push(address);
        }
        let supply = input::req_amount(
            &nested(Some(a), "airdrop.supply", "supply"),
            "airdrop.supply",
            TOKEN_DECIMALS,
        )?;
        Ok(Airdrop { addresses, supply })
    }

    /// Everyone who gets tokens at deployment, in order (the recipient first). An address
    /// may appear twice (the recipient is also an airdrop address): amounts add up.
    pub fn allocations(&self) -> Vec<(Address, u128)> {
        let mut out: Vec<(Address, u128)> = Vec::new();
        if let Some(r) = &self.recipient {
            out.push((r.address, r.amount));
        }
        if let Some(a) = &self.airdrop {
            out.extend(a.addresses.iter().map(|addr| (*addr, a.supply)));
        }
        out
    }
}

/// An optional amount: absent or null is None; anything else must be a valid amount > 0.
fn opt_amount(m: &Object, field: &str) -> Result<Option<u128>> {
    match m.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => input::req_amount(m, field, TOKEN_DECIMALS).map(Some),
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Deployment {
    /// A version-4 UUID.
    pub id: String,
    pub kind: DeploymentKind,
    pub status: DeploymentStatus,
    /// Known from the start: the merchant wallet's CREATE address for this deployment.
    pub token_address: Address,
    /// Set once the transaction is submitted.
    pub tx_hash: Option<String>,
    pub submitted_at: Option<Millis>,
    /// When the transaction is (or will be) mined.
    pub mined_at: Option<Millis>,
    pub created_at: Millis,
    pub request: DeployRequest,
    pub error: Option<String>,
}

/// Reserves the token's address, submits the deployment transaction and records the
/// deployment, pending until the transaction is mined. `id` is a fresh UUID.
pub fn create(
    store: &mut dyn Store,
    ctx: &Ctx,
    request: DeployRequest,
    id: String,
) -> Result<Deployment> {
    let address = chain::next_contract_address(store, &ctx.merchant.address)?;
    let submitted = chain::try_submit(
        store,
        &ctx.merchant.id,
        "deploy",
        &[
            &address.0,
            request.kind.as_str().as_bytes(),
            request.symbol.as_bytes(),
        ],
        ctx.now,
    )?;
    let mut d = Deployment {
        id,
        kind: request.kind,
        status: DeploymentStatus::Pending,
        token_address: address,
        tx_hash: None,
        submitted_at: None,
        mined_at: None,
        created_at: ctx.now,
        request,
        error: None,
    };
    match submitted {
        Ok(hash) => {
            let mined = chain::mined_at(ctx.now);
            d.tx_hash = Some(hash);
            d.submitted_at = Some(ctx.now);
            d.mined_at = Some(mined);
            store.schedule(&format!("{KEY_PREFIX}{}", d.id), mined)?;
        }
        Err(failure) => {
            d.status = DeploymentStatus::Failed;
            d.error = Some(failure.0);
        }
    }
    store.put_deployment(&d)?;
    Ok(d)
}

/// Finishes a deployment whose transaction is mined: the token comes into existence with
/// its balances of record. Idempotent: a deployment that is no longer pending is left alone.
fn finish(store: &mut dyn Store, ctx: &Ctx, id: &str) -> Result<()> {
    let Some(mut d) = store.deployment(id)? else {
        return Ok(());
    };
    if d.status != DeploymentStatus::Pending {
        return Ok(());
    }
    if store.token(&d.token_address)?.is_some() {
        d.status = DeploymentStatus::Failed;
        d.error = Some("a contract already exists at the deployment address".into());
        return store.put_deployment(&d);
    }
    let at = d.mined_at.unwrap_or(ctx.now);
    let req = &d.request;
    // Built by the same constructor as every token, then given this flow's supply model.
    let mut token = CreateToken {
        name: req.name.clone(),
        symbol: req.symbol.clone(),
        network: req.network,
        total_supply: req.total_supply,
        merchant_address: None,
        can_distribute: false,
        can_airdrop: req.kind == DeploymentKind::Airdrop,
        can_lp: !req.no_lp,
        image_url: None,
    }
    .into_token(d.token_address, ctx.merchant.address, at);
    let overflow = || Error::internal("deployment allocation overflow");
    let allocations = req.allocations();
    let mut held: u128 = 0;
    for (_, amount) in &allocations {
        held = held.checked_add(*amount).ok_or_else(overflow)?;
    }
    token.starting_app_supply = 0;
    token.remaining_app_supply = 0;
    token.merchant_supply = 0;
    token.liquidity_supply = req.total_supply.checked_sub(held).ok_or_else(overflow)?;
    token.held = held;
    token.price = Some(req.initial_price);
    token.origin = req.kind.origin();
    token.marketplace = req.marketplace;
    token.check_conservation()?;
    store.put_token(&token)?;

    let hash = d.tx_hash.clone().unwrap_or_default();
    for (i, (owner, amount)) in allocations.iter().enumerate() {
        let mut bal = store.balance(&token.address, owner)?;
        bal.active = bal.active.checked_add(*amount).ok_or_else(overflow)?;
        store.put_balance(&token.address, owner, &bal)?;
        // A custodial holder of this merchant sees the tokens in its history.
        if let Some(h) = store.holder_by_address(owner)? {
            store.append_history(&TxRecord {
                id: format!("{hash}-{i}"),
                hash: hash.clone(),
                kind: TxType::Distribute,
                user_id: h.user_id,
                token: token.address,
                symbol: token.symbol.clone(),
                decimals: token.decimals,
                amount: *amount,
                from: token.address,
                to: *owner,
                at,
            })?;
        }
    }
    d.status = DeploymentStatus::Success;
    d.mined_at = Some(at);
    store.put_deployment(&d)
}

/// Finishes the deployment a schedule key names, if the key is one of ours.
pub fn run_scheduled(store: &mut dyn Store, ctx: &Ctx, key: &str) -> Result<bool> {
    match key.strip_prefix(KEY_PREFIX) {
        Some(id) => finish(store, ctx, id).map(|_| true),
        None => Ok(false),
    }
}

/// This merchant's deployment `id`, of `kind` when given. Unknown, or of the other kind:
/// 404 `deployment_not_found` (a memecoin id is not an airdrop).
pub fn find(store: &dyn Store, id: &str, kind: Option<DeploymentKind>) -> Result<Deployment> {
    store
        .deployment(id)?
        .filter(|d| kind.is_none_or(|k| d.kind == k))
        .ok_or_else(|| {
            let what = kind.map_or("deployment", DeploymentKind::as_str);
            Error::new(
                ErrorCode::DeploymentNotFound,
                format!("No {what} deployment with id {id}"),
            )
        })
}

/// `https://app.uniswap.org/swap?chain=<chain>&outputCurrency=<token>`.
pub fn exchange_url(network: Network, token: &Address) -> String {
    let chain = match network {
        Network::Base => "base",
        Network::BaseSepolia => "base_sepolia",
        Network::Sepolia => "sepolia",
    };
    format!(
        "https://app.uniswap.org/swap?chain={chain}&outputCurrency={}",
        token.to_checksum()
    )
}

/// `<base>/deployments/<id>`: the overview page the service serves.
pub fn service_build_url(base_url: &str, id: &str) -> String {
    format!("{}/deployments/{id}", base_url.trim_end_matches('/'))
}

/// The Deployment object of the interface: `{ id, status, tokenAddress, transactionHash?,
/// serviceBuildUrl?, exchangeUrl?, error? }`. The two URLs only on success.
pub fn to_json(d: &Deployment, base_url: &str) -> Value {
    let mut v = json!({
        "id": d.id,
        "status": d.status.as_str(),
        "tokenAddress": d.token_address.to_checksum(),
    });
    if let Some(h) = &d.tx_hash {
        v["transactionHash"] = Value::String(h.clone());
    }
    if d.status == DeploymentStatus::Success {
        v["serviceBuildUrl"] = Value::String(service_build_url(base_url, &d.id));
        v["exchangeUrl"] = Value::String(exchange_url(d.request.network, &d.token_address));
    }
    if let Some(e) = &d.error {
        v["error"] = Value::String(e.clone());
    }
    v
}

/// The status response: `{ has_more: false, data: Deployment }`.
pub fn status_json(d: &Deployment, base_url: &str) -> Value {
    json!({ "has_more": false, "data": to_json(d, base_url) })
}

/// What the overview page shows, as data (the worker renders it): the deployment, the
/// token's figures and, once deployed, its top holders by address. Holder userIds are the
/// merchant's own ids for its users and the page is public, so they are left out.
pub fn overview(store: &dyn Store, d: &Deployment, base_url: &str) -> Result<Value> {
    let req = &d.request;
    let mut v = json!({
        "id": d.id,
        "kind": d.kind.as_str(),
        "status": d.status.as_str(),
        "name": req.name,
        "symbol": req.symbol,
        "network": req.network.as_str(),
        "tokenAddress": d.token_address.to_checksum(),
        "totalSupply": money::amount_json(req.total_supply, TOKEN_DECIMALS),
        "price": money::amount_json(req.initial_price, PRICE_DECIMALS),
        "marketplace": req.marketplace,
        "transactionHash": d.tx_hash,
        "createdAt": iso8601(d.created_at),
        "serviceBuildUrl": service_build_url(base_url, &d.id),
        "holders": [],
        "holdersCount": 0,
    });
    if let Some(e) = &d.error {
        v["error"] = Value::String(e.clone());
    }
    if d.status == DeploymentStatus::Success {
        v["exchangeUrl"] = Value::String(exchange_url(req.network, &d.token_address));
        if let Some(at) = d.mined_at {
            v["minedAt"] = Value::String(iso8601(at));
        }
        if let Some(token) = store.token(&d.token_address)? {
            let (holders, count) = store.top_holders(&token.address, PAGE_HOLDERS)?;
            v["holders"] = holders
                .iter()
                .map(|h| {
                    json!({
                        "address": h.owner.to_checksum(),
                        "balance": token.amount(h.balance),
                    })
                })
                .collect();
            v["holdersCount"] = json!(count);
            v["liquiditySupply"] = token.amount(token.liquidity_supply);
        }
    }
    Ok(v)
}
