//! Presales: raise USDC toward a target, then launch a token whose buyers receive locked
//! tokens, or refund every buyer in full.
//!
//! Status is a pure function of time and money (`Presale::status`), so a read computes the
//! same answer an alarm would. What must *happen* at a time (the launch decision at the end,
//! each completion step, each unlock) sits on the merchant's schedule under `presale:<id>` and
//! `unlock:<lockId>`, and `due::run_due` runs it, from a request or the Durable Object alarm.
//!
//! A launch runs five durable steps, each its own transaction that records its transaction
//! hashes together with its effect: swapping, token-created, tokens-withdrawn, distributing,
//! completed. A crash between steps resumes at the step it was on; a finished step is never
//! repeated, because its effect and the record that it is done commit together. A step whose
//! chain submission fails is retried with exponential backoff and counted in retryCount.

use crate::address::Address;
use crate::chain;
use crate::crypto;
use crate::error::{Error, ErrorCode, Result};
use crate::history::TxType;
use crate::holder::{self, Holder};
use crate::input::{self, within, Object};
use crate::ledger::{self, add, sub, Movement};
use crate::merchant::Ctx;
use crate::money::{self, TOKEN_DECIMALS, USDC_DECIMALS};
use crate::store::{Lock, Store};
use crate::time::{iso8601, Millis, DAY, SECOND};
use crate::token::{Network, Token, TokenKind, TokenOrigin, USDC_ADDRESS};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

pub const MIN_TARGET_USDC: u128 = 2;
pub const MAX_TARGET_USDC: u128 = 200_000;
/// A presale is launchable from this share of its target, in percent.
pub const LAUNCH_THRESHOLD_PERCENT: u128 = 70;
pub const DEFAULT_LOCK_DAYS: u64 = 7;
pub const MAX_LOCK_DAYS: u64 = 365;
pub const DEFAULT_LOCKUP_PERCENT: u64 = 25;
pub const MIN_LOCKUP_PERCENT: u64 = 13;
pub const MAX_LOCKUP_PERCENT: u64 = 28;
/// Supply of a token launched by a presale, in whole tokens.
pub const LAUNCH_SUPPLY_TOKENS: u128 = 1_000_000_000;
/// Backoff of a failed completion step: 2^retries seconds, capped.
pub const MAX_BACKOFF: Millis = 60 * SECOND;
/// Latest end date accepted (2100-01-01), so timestamps stay in range everywhere.
pub const MAX_TIMESTAMP: u64 = 4_102_444_800;

const KEY_PREFIX: &str = "presale:";
const UNLOCK_PREFIX: &str = "unlock:";
const METADATA_FIELDS: [&str; 5] = [
    "description",
    "telegramLink",
    "websiteLink",
    "xLink",
    "farcasterLink",
];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TokenInfo {
    pub name: String,
    pub symbol: String,
    pub image_url: String,
    pub metadata: Map<String, Value>,
    pub lockup_percentage: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Participant {
    pub user_id: String,
    pub address: Address,
    pub usdc: u128,
}

/// Where a presale is in its life, beyond what time and money say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Taking part is possible while the status is active.
    Open,
    /// The completion steps are running.
    Launching,
    Launched,
    Refunded,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    Pending,
    Swapping,
    TokenCreated,
    TokensWithdrawn,
    Distributing,
    Completed,
}

impl Step {
    pub fn as_str(self) -> &'static str {
        match self {
            Step::Pending => "pending",
            Step::Swapping => "swapping",
            Step::TokenCreated => "token-created",
            Step::TokensWithdrawn => "tokens-withdrawn",
            Step::Distributing => "distributing",
            Step::Completed => "completed",
        }
    }

    fn next(self) -> Option<Step> {
        match self {
            Step::Pending => Some(Step::Swapping),
            Step::Swapping => Some(Step::TokenCreated),
            Step::TokenCreated => Some(Step::TokensWithdrawn),
            Step::TokensWithdrawn => Some(Step::Distributing),
            Step::Distributing => Some(Step::Completed),
            Step::Completed => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Pending,
    Active,
    Completed,
    Ended,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Active => "active",
            Status::Completed => "completed",
            Status::Ended => "ended",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    /// The last step finished (`pending` before the launch starts).
    pub step: Step,
    pub transactions: BTreeMap<String, String>,
    pub retry_count: u32,
    pub last_error: Option<String>,
    /// Service time at which a step last ran (succeeded or failed). With the alarm working,
    /// it is the step's due time, not the time somebody next looked.
    #[serde(default)]
    pub updated_at: Option<Millis>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Deployment {
    pub token_address: Address,
    pub hash: String,
    pub amount_bought: u128,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Presale {
    pub id: String,
    pub name: String,
    pub description: String,
    /// UNIX seconds.
    pub start: u64,
    pub end: u64,
    /// USDC base units.
    pub target: u128,
    pub purchased: u128,
    pub token_info: TokenInfo,
    pub lock_days: u64,
    pub auto_launch: bool,
    pub signer: Address,
    /// Reserved at creation, so buyers can see where their token will live.
    pub token_address: Address,
    /// How many holders bought in; the participants themselves are rows of their own
    /// (`Store::participants`), so a purchase writes one row, not the whole list.
    #[serde(default)]
    pub participant_count: u64,
    pub phase: Phase,
    pub completion: Completion,
    pub deployment: Option<Deployment>,
    pub distributed: bool,
    pub distribute_tx: Option<String>,
    pub created_at: Millis,
}

impl Presale {
    pub fn start_ms(&self) -> Millis {
        self.start.saturating_mul(SECOND)
    }

    pub fn end_ms(&self) -> Millis {
        self.end.saturating_mul(SECOND)
    }

    /// pending before start; active until the end while below target; completed once the
    /// target is reached (or the presale launched); ended when the end passes below target
    /// (and after a refund).
    pub fn status(&self, now: Millis) -> Status {
        match self.phase {
            Phase::Refunded => Status::Ended,
            Phase::Launching | Phase::Launched => Status::Completed,
            Phase::Open if self.purchased >= self.target => Status::Completed,
            Phase::Open if now < self.start_ms() => Status::Pending,
            Phase::Open if now < self.end_ms() => Status::Active,
            Phase::Open => Status::Ended,
        }
    }

    /// At least 70 % of the target raised.
    pub fn launchable(&self) -> bool {
        self.purchased.saturating_mul(100) >= self.target.saturating_mul(LAUNCH_THRESHOLD_PERCENT)
    }

    fn key(&self) -> String {
        format!("{KEY_PREFIX}{}", self.id)
    }

    /// Tokens sold to buyers: lockupPercentage % of the launch supply, in base units.
    pub fn amount_bought(&self) -> u128 {
        launch_supply() / 100 * u128::from(self.token_info.lockup_percentage)
    }

    pub fn progress_percent(&self) -> Value {
        percent(self.purchased, self.target)
    }
}

fn launch_supply() -> u128 {
    LAUNCH_SUPPLY_TOKENS * money::pow10(u32::from(TOKEN_DECIMALS)).unwrap_or(1)
}

/// `part / whole x 100`, floored to 6 decimals, as a JSON number.
fn percent(part: u128, whole: u128) -> Value {
    let micro = money::mul_div(part, 100_000_000, whole).unwrap_or(0);
    money::amount_json(micro, 6)
}

/// Each participant's share of `bought`: floor(bought x usdc / purchased); what the floors
/// leave over goes to the largest participant (the earliest of equals), so the shares sum
/// to `bought` exactly.
pub fn shares(participants: &[Participant], bought: u128) -> Result<Vec<u128>> {
    let purchased = participants
        .iter()
        .try_fold(0u128, |acc, p| acc.checked_add(p.usdc))
        .ok_or_else(|| Error::internal("purchased overflow"))?;
    if purchased == 0 {
        return Ok(vec![0; participants.len()]);
    }
    let mut out = participants
        .iter()
        .map(|p| {
            money::mul_div(bought, p.usdc, purchased)
                .ok_or_else(|| Error::internal("share overflow"))
        })
        .collect::<Result<Vec<u128>>>()?;
    let given = out.iter().sum::<u128>();
    let rest = bought
        .checked_sub(given)
        .ok_or_else(|| Error::internal("shares exceed the amount bought"))?;
    let mut largest = 0;
    for (i, p) in participants.iter().enumerate() {
        if participants.get(largest).is_some_and(|l| p.usdc > l.usdc) {
            largest = i;
        }
    }
    if let Some(s) = out.get_mut(largest) {
        *s += rest;
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// Creation

fn parse_token_info(m: &Object) -> Result<TokenInfo> {
    let ti = input::req_object(m, "tokenInfo")?;
    let (name, symbol) = within("tokenInfo", crate::token::parse_name_symbol(&ti))?;
    let image_url = within("tokenInfo", input::opt_http_url(&ti, "imageUrl"))?
        .ok_or_else(|| Error::field("tokenInfo.imageUrl", "tokenInfo.imageUrl is required"))?;
    let mut metadata = Map::new();
    if let Some(md) = within("tokenInfo", input::opt_object(&ti, "metadata"))? {
        for field in METADATA_FIELDS {
            if let Some(v) = within("tokenInfo.metadata", input::opt_str(&md, field))? {
                metadata.insert(field.into(), Value::String(v));
            }
        }
    }
    let lockup_percentage = match within("tokenInfo", input::opt_object(&ti, "deploymentConfig"))? {
        Some(dc) => within(
            "tokenInfo.deploymentConfig",
            input::opt_int(
                &dc,
                "lockupPercentage",
                MIN_LOCKUP_PERCENT,
                MAX_LOCKUP_PERCENT,
            ),
        )?
        .unwrap_or(DEFAULT_LOCKUP_PERCENT),
        None => DEFAULT_LOCKUP_PERCENT,
    };
    Ok(TokenInfo {
        name,
        symbol,
        image_url,
        metadata,
        lockup_percentage,
    })
}

/// Validates `POST /merchant/presale` and makes the presale. `id` is a fresh UUID.
pub fn create(store: &mut dyn Store, ctx: &Ctx, body: &Object, id: String) -> Result<Presale> {
    let name = input::req_str(body, "name")?;
    if name.chars().count() > 200 {
        return Err(Error::field("name", "name must be at most 200 characters"));
    }
    let description = input::req_str(body, "description")?;
    if description.chars().count() > 5000 {
        return Err(Error::field(
            "description",
            "description must be at most 5000 characters",
        ));
    }
    let start = input::req_int(body, "startTimestamp", 0, MAX_TIMESTAMP)?;
    let end = input::req_int(body, "endTimestamp", 0, MAX_TIMESTAMP)?;
    if start >= end {
        return Err(Error::field(
            "endTimestamp",
            "endTimestamp must be after startTimestamp",
        ));
    }
    if end.saturating_mul(SECOND) <= ctx.now {
        return Err(Error::field(
            "endTimestamp",
            "endTimestamp must be in the future",
        ));
    }
    let target = input::req_amount(body, "targetUsdcAmount", USDC_DECIMALS)?;
    let unit = money::pow10(u32::from(USDC_DECIMALS)).unwrap_or(1);
    if target < MIN_TARGET_USDC * unit || target > MAX_TARGET_USDC * unit {
        return Err(Error::new(
            ErrorCode::InvalidAmount,
            format!("targetUsdcAmount must be from {MIN_TARGET_USDC} to {MAX_TARGET_USDC}"),
        )
        .with("field", "targetUsdcAmount"));
    }
    let token_info = parse_token_info(body)?;
    let lock_days =
        input::opt_int(body, "lockDuration", 0, MAX_LOCK_DAYS)?.unwrap_or(DEFAULT_LOCK_DAYS);
    let auto_launch = input::opt_bool(body, "autoLaunch")?.unwrap_or(true);

    let token_address = chain::next_contract_address(store, &ctx.merchant.address)?;
    let signer_hash = crypto::keccak256(format!("tokenpad presale signer {id}").as_bytes());
    let mut signer = [0u8; 20];
    signer.copy_from_slice(signer_hash.get(12..).unwrap_or(&[0u8; 20]));
    let presale = Presale {
        id,
        name,
        description,
        start,
        end,
        target,
        purchased: 0,
        token_info,
        lock_days,
        auto_launch,
        signer: Address(signer),
        token_address,
        participant_count: 0,
        phase: Phase::Open,
        completion: Completion {
            step: Step::Pending,
            transactions: BTreeMap::new(),
            retry_count: 0,
            last_error: None,
            updated_at: None,
        },
        deployment: None,
        distributed: false,
        distribute_tx: None,
        created_at: ctx.now,
    };
    store.put_presale(&presale)?;
    // The launch-or-refund decision at the end; `run` reschedules it as needed.
    store.schedule(&presale.key(), presale.end_ms())?;
    Ok(presale)
}

pub fn find(store: &dyn Store, id: &str) -> Result<Presale> {
    store.presale(id)?.ok_or_else(|| {
        Error::new(
            ErrorCode::PresaleNotFound,
            format!("No presale with id {id}"),
        )
    })
}

fn usdc(store: &dyn Store) -> Result<Token> {
    ledger::find_token(store, &input::parse_address("usdc", USDC_ADDRESS)?)
}

// ---------------------------------------------------------------------------------------
// Taking part

/// `POST /holder/:userId/buy-presale { presaleId, usdcAmount }`.
pub fn buy(store: &mut dyn Store, ctx: &Ctx, user_id: &str, body: &Object) -> Result<Value> {
    let holder = holder::find(store, user_id)?;
    let mut p = find(store, &input::req_str(body, "presaleId")?)?;
    let amount = input::req_amount(body, "usdcAmount", USDC_DECIMALS)?;
    let status = p.status(ctx.now);
    if p.phase != Phase::Open || status != Status::Active {
        return Err(Error::new(
            ErrorCode::PresaleNotActive,
            format!(
                "The presale is {}: it takes part only while active",
                status.as_str()
            ),
        )
        .with("status", status.as_str()));
    }
    let remaining = sub(p.target, p.purchased)?;
    if amount > remaining {
        return Err(Error::new(
            ErrorCode::TargetExceeded,
            "The purchase is larger than what remains of the target",
        )
        .with("remaining", money::amount_json(remaining, USDC_DECIMALS)));
    }
    let mut usdc = usdc(store)?;
    let mut bal = ledger::debit_check(store, &usdc, &holder, amount)?;
    bal.active = sub(bal.active, amount)?;
    usdc.held = sub(usdc.held, amount)?;
    usdc.escrow = add(usdc.escrow, amount)?;
    usdc.check_conservation()?;
    p.purchased = add(p.purchased, amount)?;
    let part = match store.participant(&p.id, &holder.user_id)? {
        Some(mut x) => {
            x.usdc = add(x.usdc, amount)?;
            x
        }
        None => {
            p.participant_count += 1;
            Participant {
                user_id: holder.user_id.clone(),
                address: holder.address,
                usdc: amount,
            }
        }
    };
    let hash = chain::submit(
        store,
        &ctx.merchant.id,
        "presale_buy",
        &[p.id.as_bytes(), &holder.address.0, &amount.to_be_bytes()],
        ctx.now,
    )?;
    store.put_balance(&usdc.address, &holder.address, &bal)?;
    store.put_token(&usdc)?;
    store.put_participant(&p.id, &part)?;
    let mv = Movement {
        hash: &hash,
        token: &usdc,
        amount,
        from: holder.address,
        to: p.signer,
    };
    store.append_history(&mv.record(ctx, 0, TxType::PresaleBuy, &holder.user_id))?;
    if p.purchased == p.target && p.auto_launch {
        // Target reached: launch now rather than at the end.
        p.phase = Phase::Launching;
        store.schedule(&p.key(), ctx.now)?;
    }
    store.put_presale(&p)?;
    Ok(json!({
        "success": true,
        "transactionHash": hash,
        "presaleId": p.id,
        "usdcAmount": money::amount_json(amount, USDC_DECIMALS),
    }))
}

// ---------------------------------------------------------------------------------------
// Time: the end-of-sale decision, completion steps, unlocks

/// Runs the presale or unlock a schedule key names, if it is one of ours.
pub fn run_scheduled(store: &mut dyn Store, ctx: &Ctx, key: &str, at: Millis) -> Result<bool> {
    if let Some(id) = key.strip_prefix(KEY_PREFIX) {
        if let Some(p) = store.presale(id)? {
            run(store, ctx, p, at)?;
        }
        return Ok(true);
    }
    if let Some(id) = key.strip_prefix(UNLOCK_PREFIX) {
        unlock(store, ctx, id, at)?;
        return Ok(true);
    }
    Ok(false)
}

/// One scheduled run of a presale at logical time `at`.
fn run(store: &mut dyn Store, ctx: &Ctx, mut p: Presale, at: Millis) -> Result<()> {
    match p.phase {
        Phase::Open => {
            if p.purchased >= p.target && p.auto_launch {
                p.phase = Phase::Launching;
                return step(store, ctx, p, at);
            }
            if at < p.end_ms() {
                store.schedule(&p.key(), p.end_ms())?;
                return store.put_presale(&p);
            }
            if !p.launchable() {
                return refund(store, ctx, p, at);
            }
            if p.auto_launch {
                p.phase = Phase::Launching;
                return step(store, ctx, p, at);
            }
            // Launchable without autoLaunch: it waits for resolve.
            Ok(())
        }
        Phase::Launching => step(store, ctx, p, at),
        Phase::Launched | Phase::Refunded => Ok(()),
    }
}

fn backoff(retries: u32) -> Millis {
    let exp = retries.min(16);
    (SECOND << exp).min(MAX_BACKOFF)
}

/// Submits a step's transactions. On failure, nothing of the step happens: the failure is
/// counted, the step is rescheduled after a backoff, and that bookkeeping commits.
fn submit_all(
    store: &mut dyn Store,
    ctx: &Ctx,
    p: &mut Presale,
    at: Millis,
    kinds: &[&str],
) -> Result<Option<Vec<String>>> {
    let mut hashes = Vec::new();
    for kind in kinds {
        match chain::try_submit(store, &ctx.merchant.id, kind, &[p.id.as_bytes()], at)? {
            Ok(h) => hashes.push(h),
            Err(failure) => {
                p.completion.retry_count = p.completion.retry_count.saturating_add(1);
                p.completion.last_error = Some(failure.0);
                store.schedule(
                    &p.key(),
                    at.saturating_add(backoff(p.completion.retry_count)),
                )?;
                store.put_presale(p)?;
                return Ok(None);
            }
        }
    }
    p.completion.last_error = None;
    Ok(Some(hashes))
}

/// Runs the next completion step, then schedules the one after it for when this step's
/// transactions are mined.
fn step(store: &mut dyn Store, ctx: &Ctx, mut p: Presale, at: Millis) -> Result<()> {
    let Some(next) = p.completion.step.next() else {
        p.phase = Phase::Launched;
        return store.put_presale(&p);
    };
    let at_ctx = Ctx {
        now: at,
        merchant: ctx.merchant.clone(),
    };
    let names: &[(&str, &str)] = match next {
        Step::Swapping => &[("swap_approval", "swapApprovalTx"), ("swap", "swapTx")],
        Step::TokenCreated => &[("token_creation", "tokenCreationTx")],
        Step::TokensWithdrawn => &[("withdraw", "withdrawTx")],
        Step::Distributing => &[
            ("distribution_approval", "distributionApprovalTx"),
            ("distribution", "distributionTx"),
        ],
        Step::Completed | Step::Pending => &[],
    };
    let kinds: Vec<&str> = names.iter().map(|(k, _)| *k).collect();
    p.completion.updated_at = Some(ctx.now);
    let Some(hashes) = submit_all(store, ctx, &mut p, at, &kinds)? else {
        return Ok(());
    };
    for ((_, label), hash) in names.iter().zip(&hashes) {
        p.completion
            .transactions
            .insert((*label).to_string(), hash.clone());
    }
    let last_hash = hashes.last().cloned().unwrap_or_default();
    match next {
        Step::Swapping => swap(store, &p)?,
        Step::TokenCreated => create_token(store, ctx, &mut p, &last_hash, at)?,
        Step::TokensWithdrawn => withdraw_bought(store, &p)?,
        Step::Distributing => distribute(store, &at_ctx, &mut p, &last_hash)?,
        Step::Completed | Step::Pending => {}
    }
    p.completion.step = next;
    if next == Step::Completed {
        p.phase = Phase::Launched;
    } else {
        store.schedule(&p.key(), chain::mined_at(at))?;
    }
    store.put_presale(&p)
}

/// The raised USDC leaves custody for the launch's liquidity pool.
fn swap(store: &mut dyn Store, p: &Presale) -> Result<()> {
    let mut usdc = usdc(store)?;
    usdc.escrow = sub(usdc.escrow, p.purchased)?;
    usdc.total_supply = sub(usdc.total_supply, p.purchased)?;
    usdc.check_conservation()?;
    store.put_token(&usdc)
}

/// The presale's token comes into existence at its reserved address, its whole supply in
/// the pool until the bought tokens are withdrawn.
fn create_token(
    store: &mut dyn Store,
    ctx: &Ctx,
    p: &mut Presale,
    hash: &str,
    at: Millis,
) -> Result<()> {
    if store.token(&p.token_address)?.is_some() {
        return Err(Error::internal("presale token address already in use"));
    }
    let supply = launch_supply();
    let bought = p.amount_bought();
    let token = Token {
        address: p.token_address,
        kind: TokenKind::Merchant,
        name: p.token_info.name.clone(),
        symbol: p.token_info.symbol.clone(),
        decimals: TOKEN_DECIMALS,
        network: Network::Base,
        total_supply: supply,
        starting_app_supply: 0,
        remaining_app_supply: 0,
        merchant_supply: 0,
        liquidity_supply: supply,
        held: 0,
        escrow: 0,
        merchant_address: ctx.merchant.address,
        price: money::price_from(p.purchased, bought, TOKEN_DECIMALS),
        can_distribute: false,
        can_airdrop: false,
        can_lp: true,
        image_url: Some(p.token_info.image_url.clone()),
        created_at: at,
        origin: TokenOrigin::Presale,
        marketplace: false,
    };
    token.check_conservation()?;
    store.put_token(&token)?;
    p.deployment = Some(Deployment {
        token_address: p.token_address,
        hash: hash.to_string(),
        amount_bought: bought,
    });
    Ok(())
}

fn launched_token(store: &dyn Store, p: &Presale) -> Result<Token> {
    ledger::find_token(store, &p.token_address)
}

/// The bought tokens move from the pool to the presale signer, ready to distribute.
fn withdraw_bought(store: &mut dyn Store, p: &Presale) -> Result<()> {
    let mut token = launched_token(store, p)?;
    let bought = p.amount_bought();
    token.liquidity_supply = sub(token.liquidity_supply, bought)?;
    token.held = add(token.held, bought)?;
    let mut bal = store.balance(&token.address, &p.signer)?;
    bal.active = add(bal.active, bought)?;
    token.check_conservation()?;
    store.put_balance(&token.address, &p.signer, &bal)?;
    store.put_token(&token)
}

/// Each buyer's share moves from the signer into a lock that opens lockDuration days later.
fn distribute(store: &mut dyn Store, ctx: &Ctx, p: &mut Presale, hash: &str) -> Result<()> {
    let token = launched_token(store, p)?;
    let bought = p.amount_bought();
    let participants = store.participants(&p.id)?;
    let shares = shares(&participants, bought)?;
    let mut signer_bal = store.balance(&token.address, &p.signer)?;
    signer_bal.active = sub(signer_bal.active, bought)?;
    store.put_balance(&token.address, &p.signer, &signer_bal)?;
    let unlock_at = ctx.now.saturating_add(p.lock_days.saturating_mul(DAY));
    for (i, (part, share)) in participants.iter().zip(shares).enumerate() {
        if share == 0 {
            continue;
        }
        let mut bal = store.balance(&token.address, &part.address)?;
        bal.locked = add(bal.locked, share)?;
        store.put_balance(&token.address, &part.address, &bal)?;
        let lock = Lock {
            id: format!("{}:{i}", p.id),
            token: token.address,
            owner: part.address,
            amount: share,
            unlock_at,
        };
        store.put_lock(&lock)?;
        store.schedule(&format!("{UNLOCK_PREFIX}{}", lock.id), unlock_at)?;
        let mv = Movement {
            hash,
            token: &token,
            amount: share,
            from: p.signer,
            to: part.address,
        };
        let side = u32::try_from(i).unwrap_or(u32::MAX);
        store.append_history(&mv.record(ctx, side, TxType::PresaleAllocation, &part.user_id))?;
    }
    token.check_conservation()?;
    p.distributed = true;
    p.distribute_tx = Some(hash.to_string());
    Ok(())
}

/// A lock's unlock date has come: its tokens become active.
fn unlock(store: &mut dyn Store, ctx: &Ctx, lock_id: &str, at: Millis) -> Result<()> {
    let Some(lock) = store.lock(lock_id)? else {
        return Ok(());
    };
    let token = ledger::find_token(store, &lock.token)?;
    let mut bal = store.balance(&lock.token, &lock.owner)?;
    bal.locked = sub(bal.locked, lock.amount)?;
    bal.active = add(bal.active, lock.amount)?;
    let hash = chain::submit(store, &ctx.merchant.id, "unlock", &[lock_id.as_bytes()], at)?;
    store.put_balance(&lock.token, &lock.owner, &bal)?;
    store.remove_lock(lock_id)?;
    if let Some(h) = store.holder_by_address(&lock.owner)? {
        let at_ctx = Ctx {
            now: at,
            merchant: ctx.merchant.clone(),
        };
        let mv = Movement {
            hash: &hash,
            token: &token,
            amount: lock.amount,
            from: lock.owner,
            to: lock.owner,
        };
        store.append_history(&mv.record(&at_ctx, 0, TxType::Unlock, &h.user_id))?;
    }
    Ok(())
}

/// Every buyer gets their USDC back in full; the presale ends.
fn refund(store: &mut dyn Store, ctx: &Ctx, mut p: Presale, at: Millis) -> Result<()> {
    let mut usdc = usdc(store)?;
    let at_ctx = Ctx {
        now: at,
        merchant: ctx.merchant.clone(),
    };
    let participants = store.participants(&p.id)?;
    let hash = if participants.is_empty() {
        None
    } else {
        Some(chain::submit(
            store,
            &ctx.merchant.id,
            "presale_refund",
            &[p.id.as_bytes()],
            at,
        )?)
    };
    for (i, part) in participants.iter().enumerate() {
        let mut bal = store.balance(&usdc.address, &part.address)?;
        bal.active = add(bal.active, part.usdc)?;
        usdc.escrow = sub(usdc.escrow, part.usdc)?;
        usdc.held = add(usdc.held, part.usdc)?;
        store.put_balance(&usdc.address, &part.address, &bal)?;
        if let Some(hash) = &hash {
            let mv = Movement {
                hash,
                token: &usdc,
                amount: part.usdc,
                from: p.signer,
                to: part.address,
            };
            let side = u32::try_from(i).unwrap_or(u32::MAX);
            store.append_history(&mv.record(
                &at_ctx,
                side,
                TxType::PresaleRefund,
                &part.user_id,
            ))?;
        }
    }
    usdc.check_conservation()?;
    store.put_token(&usdc)?;
    p.phase = Phase::Refunded;
    store.unschedule(&p.key())?;
    store.put_presale(&p)
}

// ---------------------------------------------------------------------------------------
// Resolve

/// `POST /merchant/presale/resolve` and `POST /resolve-presale` `{ presaleId }`: launch a
/// launchable presale now; refund one that ended below the threshold (again: idempotent).
pub fn resolve(store: &mut dyn Store, ctx: &Ctx, body: &Object) -> Result<Value> {
    let p = find(store, &input::req_str(body, "presaleId")?)?;
    let outcome = match p.phase {
        Phase::Launching | Phase::Launched => {
            return Err(Error::new(
                ErrorCode::PresaleAlreadyResolved,
                "The presale has already been launched",
            ))
        }
        Phase::Refunded => "refunded",
        Phase::Open if p.launchable() => {
            let mut p = p.clone();
            p.phase = Phase::Launching;
            step(store, ctx, p, ctx.now)?;
            "launching"
        }
        Phase::Open if ctx.now >= p.end_ms() => {
            refund(store, ctx, p.clone(), ctx.now)?;
            "refunded"
        }
        Phase::Open => {
            return Err(Error::new(
                ErrorCode::LaunchThresholdNotReached,
                format!("A presale launches from {LAUNCH_THRESHOLD_PERCENT}% of its target"),
            )
            .with(
                "purchasedUsdcAmount",
                money::amount_json(p.purchased, USDC_DECIMALS),
            )
            .with(
                "targetUsdcAmount",
                money::amount_json(p.target, USDC_DECIMALS),
            )
            .with("thresholdPercent", LAUNCH_THRESHOLD_PERCENT as u64))
        }
    };
    let p = find(store, &p.id)?;
    Ok(json!({
        "success": true,
        "presaleId": p.id,
        "outcome": outcome,
        "presale": merchant_json(store, &p, ctx.now)?,
    }))
}

// ---------------------------------------------------------------------------------------
// Views

/// The public form, with its participants in the order of their first purchase.
pub fn public_json(store: &dyn Store, p: &Presale, now: Millis) -> Result<Value> {
    let participants: Vec<Value> = store
        .participants(&p.id)?
        .iter()
        .map(|x| {
            json!({
                "id": x.user_id,
                "address": x.address.to_checksum(),
                "usdcAmount": money::amount_json(x.usdc, USDC_DECIMALS),
                "tokenPercentage": percent(x.usdc, p.purchased),
            })
        })
        .collect();
    Ok(json!({
        "id": p.id,
        "name": p.name,
        "description": p.description,
        "startTimestamp": p.start,
        "endTimestamp": p.end,
        "targetUsdcAmount": money::amount_json(p.target, USDC_DECIMALS),
        "purchasedUsdcAmount": money::amount_json(p.purchased, USDC_DECIMALS),
        "status": p.status(now).as_str(),
        "participants": participants,
        "tokenInfo": {
            "name": p.token_info.name,
            "symbol": p.token_info.symbol,
            "imageUrl": p.token_info.image_url,
        },
    }))
}

/// The merchant form: the public form plus signer, lock, completion and deployment details.
pub fn merchant_json(store: &dyn Store, p: &Presale, now: Millis) -> Result<Value> {
    let mut v = public_json(store, p, now)?;
    let Some(obj) = v.as_object_mut() else {
        return Ok(v);
    };
    obj.insert("signerAddress".into(), json!(p.signer.to_checksum()));
    obj.insert("lockDuration".into(), json!(p.lock_days));
    obj.insert("autoLaunch".into(), json!(p.auto_launch));
    obj.insert(
        "lockupPercentage".into(),
        json!(p.token_info.lockup_percentage),
    );
    obj.insert("tokenAddress".into(), json!(p.token_address.to_checksum()));
    let mut completion = json!({
        "step": p.completion.step.as_str(),
        "transactions": p.completion.transactions,
        "retryCount": p.completion.retry_count,
    });
    if let Some(e) = &p.completion.last_error {
        completion["lastError"] = json!(e);
    }
    if let Some(t) = p.completion.updated_at {
        completion["updatedAt"] = json!(iso8601(t));
    }
    obj.insert("completionState".into(), completion);
    let mut info = json!({ "distributed": p.distributed });
    if let Some(h) = &p.distribute_tx {
        info["distributeTxHash"] = json!(h);
    }
    obj.insert("presaleInfo".into(), info);
    if let Some(d) = &p.deployment {
        obj.insert(
            "tokenDeploymentInfo".into(),
            json!({
                "tokenAddress": d.token_address.to_checksum(),
                "hash": d.hash,
                "amountTokensBought": d.amount_bought.to_string(),
            }),
        );
    }
    Ok(v)
}

/// The holder's `presales` items: positions in presales not yet distributed or refunded,
/// with the USDC invested (micro-dollars) for the holder's total value.
pub fn holder_items(store: &dyn Store, holder: &Holder) -> Result<Vec<(u128, Value)>> {
    let mut items = Vec::new();
    for id in store.participations(&holder.user_id)? {
        let Some(p) = store.presale(&id)? else {
            continue;
        };
        if p.distributed || matches!(p.phase, Phase::Refunded | Phase::Launched) {
            continue;
        }
        let Some(part) = store.participant(&id, &holder.user_id)? else {
            continue;
        };
        let expected = money::mul_div(p.amount_bought(), part.usdc, p.purchased).unwrap_or(0);
        let address = p.token_address.to_checksum();
        items.push((
            part.usdc,
            json!({
                "id": address,
                "address": address,
                "name": p.token_info.name,
                "symbol": p.token_info.symbol,
                "balance": money::amount_json(expected, TOKEN_DECIMALS),
                "value": money::amount_json(part.usdc, USDC_DECIMALS),
                "status": "pending",
                "type": "presale",
                "metadata": {
                    "presaleId": p.id,
                    "progress": p.progress_percent(),
                    "endDate": iso8601(p.end_ms()),
                },
            }),
        ));
    }
    Ok(items)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn part(usdc: u128) -> Participant {
        Participant {
            user_id: format!("u{usdc}"),
            address: Address::ZERO,
            usdc,
        }
    }

    #[test]
    fn shares_floor_and_give_the_remainder_to_the_largest() {
        let ps = vec![part(1), part(1), part(1)];
        assert_eq!(shares(&ps, 10).unwrap(), vec![4, 3, 3]);
        let ps = vec![part(1), part(5), part(2)];
        assert_eq!(shares(&ps, 9).unwrap(), vec![1, 6, 2]);
        assert_eq!(shares(&[], 9).unwrap(), Vec::<u128>::new());
    }

    #[test]
    fn backoff_doubles_and_caps() {
        assert_eq!(backoff(1), 2 * SECOND);
        assert_eq!(backoff(2), 4 * SECOND);
        assert_eq!(backoff(10), MAX_BACKOFF);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }

    proptest! {
        #[test]
        fn shares_always_sum_exactly(
            usdc in proptest::collection::vec(1u128..=200_000_000_000, 1..50),
            lockup in 13u128..=28,
        ) {
            let ps: Vec<Participant> = usdc.iter().map(|u| part(*u)).collect();
            let bought = launch_supply() / 100 * lockup;
            let s = shares(&ps, bought).unwrap();
            prop_assert_eq!(s.iter().sum::<u128>(), bought);
            let purchased: u128 = usdc.iter().sum();
            for (share, u) in s.iter().zip(&usdc) {
                // Everyone gets at least their floor.
                prop_assert!(*share >= money::mul_div(bought, *u, purchased).unwrap());
            }
        }
    }
}
