//! The operator's view of settlement: `GET /admin/merchants/:merchantId/chain` (the relayer,
//! transactions in flight, failed and parked movements, whether settlement is stuck and what
//! to do), `POST /admin/merchants/:merchantId/chain/retry` (parked movements sent again),
//! `GET /admin/chain` (every merchant whose settlement is stuck) and
//! `GET /admin/merchants/:merchantId/reconcile` (the ledger against `balanceOf` on chain, for
//! every holder and token, and what each completed step left on chain).

use super::admin::{HealthNode, HealthRelayers};
use crate::model::address::Address;
use crate::model::decimal::Decimal;
use crate::model::ids::{MerchantId, TokenAddress, UserId};
use crate::model::intent::{Action, Intent};
use crate::model::settlement::{ChainTx, TxState};
use crate::model::time::Timestamp;
use crate::ops::stuck::Issue;
use serde::{Deserialize, Serialize};

/// `GET /admin/merchants/:merchantId/chain`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChainReport {
    pub merchant_id: MerchantId,
    /// `embedded` or `evm`.
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = ["embedded", "evm"])))]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_id: Option<u64>,
    /// The merchant's relayer wallet (an EVM chain): it signs and pays for every transaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relayer: Option<RelayerReport>,
    /// Movements recorded in the ledger and not settled on chain yet.
    pub open_movements: u64,
    /// Transactions signed and not mined yet, lowest nonce first.
    pub transactions: Vec<ChainTxReport>,
    /// The latest movements the chain refused (undone in the ledger), newest first.
    pub failed: Vec<FailedMovement>,
    /// Movements held for an operator (a revert of ours, gas that never sufficed), oldest
    /// first: still open, never sent until `POST /admin/merchants/:merchantId/chain/retry`.
    #[serde(default)]
    pub parked: Vec<ParkedMovement>,
    /// What holds settlement up: parked movements at once, and past `stuckAfterMs` a
    /// transaction not mined, the relayer's trouble (out of gas, the node failing), movements
    /// queued; each with what an operator can do. Empty when settlement is not stuck.
    #[serde(default)]
    pub stuck: Vec<Issue>,
    /// What waits, and needs nothing done (releases the chain's clock has not reached).
    #[serde(default)]
    pub waiting: Vec<Issue>,
    /// `CHAIN_STUCK_AFTER_MS` (an EVM chain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stuck_after_ms: Option<u64>,
    /// The relayer's nonce on chain is below its next one and no transaction of ours is open
    /// for it (the settler fills such a gap itself; this says it is there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce_gap: Option<NonceGap>,
}

/// A movement held for an operator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ParkedMovement {
    pub id: u64,
    pub token_address: TokenAddress,
    /// What it does on chain.
    #[cfg_attr(
        feature = "codegen",
        schemars(extend("enum" = ["deploy", "transfer", "mint", "open_pool", "swap", "lock", "release"]))
    )]
    pub movement: String,
    /// Why: the chain's revert reason, or how often it ran out of gas.
    pub why: String,
    /// When it was parked (absent for one parked before that was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Timestamp>,
    /// How many transactions carried it.
    pub attempts: u32,
}

/// A gap in the relayer's nonces: the chain waits for `chainNonce`, which nothing open uses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct NonceGap {
    /// The relayer's transaction count on chain (its next nonce there).
    pub chain_nonce: u64,
    /// The nonce the settler signs with next.
    pub next_nonce: u64,
    pub action: String,
}

/// `POST /admin/merchants/:merchantId/chain/retry`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChainRetried {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    pub success: bool,
    pub merchant_id: MerchantId,
    /// How many parked movements went back to the queue (0: none was parked).
    pub retried: u64,
}

/// `GET /admin/chain`: the chain's node as `/health` has it, and every merchant whose
/// settler's latest report says its settlement is stuck.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChainOverview {
    /// `embedded` or `evm`.
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = ["embedded", "evm"])))]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<HealthNode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relayers: Option<HealthRelayers>,
    /// `CHAIN_STUCK_AFTER_MS` (an EVM chain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stuck_after_ms: Option<u64>,
    /// Each merchant stuck, as its settler last reported (a report older than five minutes
    /// is listed too: its settler stopped reporting).
    pub stuck: Vec<StuckMerchant>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StuckMerchant {
    pub merchant_id: MerchantId,
    /// When its settler's round that reported it ran (wall-clock time).
    pub checked_at: Timestamp,
    pub issues: Vec<Issue>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RelayerReport {
    pub address: Address,
    /// Its ETH balance in wei (a decimal string); absent when the node could not be asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", schemars(extend("pattern" = "^[0-9]+$")))]
    pub balance_wei: Option<String>,
    /// The nonce its next transaction uses (absent before its first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_nonce: Option<u64>,
    /// The last block scanned for deposits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scanned_block: Option<u64>,
    /// Why settlement is stopped (out of gas: the address to fund; the RPC failing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChainTxReport {
    pub nonce: u64,
    /// `signed` (stored, not sent yet) or `sent`.
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = ["signed", "sent"])))]
    pub state: String,
    /// Every version's hash (a replacement adds one), oldest first.
    pub hashes: Vec<String>,
    /// How many ledger movements it carries.
    pub movements: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FailedMovement {
    pub id: u64,
    pub token_address: TokenAddress,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `GET /admin/merchants/:merchantId/reconcile`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReconcileReport {
    pub merchant_id: MerchantId,
    /// The EVM chain compared with; absent on the embedded chain, which is the ledger itself
    /// (nothing to compare: `checked` is 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_id: Option<u64>,
    /// The block the balances were read at: the chain's newest when asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_number: Option<u64>,
    /// The last block the ledger has scanned for transfers it did not send (deposits, and
    /// anyone else's transfers of the merchant's tokens or of its holders' USDC), which stays
    /// `CHAIN_CONFIRMATIONS` behind the chain's newest. Such a transfer mined after it is not
    /// in the ledger yet: a difference it makes is the scan's lag, gone once the next scan
    /// (every `CHAIN_SCAN_MS`) passes its block. Absent before the first scan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scanned_block: Option<u64>,
    /// Movements not settled yet: while there are any, ledger and chain differ by them.
    pub open_movements: u64,
    /// Balances compared: every holder's of every token it has, and the treasury's of each
    /// of the merchant's tokens.
    pub checked: u64,
    /// Where the ledger and the chain disagree; empty when they agree. Pools are owners too:
    /// each pool contract's balance of its token and of USDC against the pool's reserves.
    pub differences: Vec<Difference>,
    /// Each pool's state (`slot0`'s price and tick, `liquidity()`) against what the ledger
    /// last followed from the pool's events.
    #[serde(default)]
    pub pools: Vec<PoolCheck>,
    /// What each completed step left on chain, checked: every lock the ledger keeps in the
    /// lock contract (`locks(key)`: token, amount, beneficiary, unlock time, not released;
    /// and one the ledger released, released), every open pool (code, an initialized price,
    /// the position the market keeps for the merchant's wallet), and every launched presale's
    /// raise (its pool opening moved it into the pool).
    #[serde(default)]
    pub steps_checked: u64,
    /// Where a step's outcome on chain is not what the ledger says; empty when all agree.
    #[serde(default)]
    pub steps: Vec<StepMismatch>,
}

/// A completed step whose outcome on chain differs from the ledger's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StepMismatch {
    /// `lock`, `pool` or `raise`.
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = ["lock", "pool", "raise"])))]
    pub kind: String,
    /// Which: the lock (its ledger id and key on chain), the pool, the presale.
    pub what: String,
    pub token_address: TokenAddress,
    /// What the ledger says.
    pub ledger: String,
    /// What the chain says.
    pub chain: String,
}

/// One pool's state, in the ledger and on chain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PoolCheck {
    pub token_address: TokenAddress,
    pub symbol: String,
    pub pool: Address,
    /// What the ledger followed; null until the pool's opening is mined.
    pub ledger: Option<PoolStateReport>,
    pub chain: PoolStateReport,
    /// Whether the two agree.
    pub matches: bool,
}

/// A Uniswap v3 pool's state: `slot0`'s price and tick, and the active liquidity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PoolStateReport {
    /// Digits.
    pub sqrt_price_x96: String,
    pub tick: i32,
    /// Digits.
    pub liquidity: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Difference {
    pub token_address: TokenAddress,
    pub symbol: String,
    pub owner: Address,
    /// The holder; absent for the treasury (the merchant's relayer wallet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<UserId>,
    /// What the ledger says (active + locked), in whole tokens.
    pub ledger: Decimal,
    /// What `balanceOf` says.
    pub chain: Decimal,
}

/// What a movement does on chain, as the chain views name it.
pub fn movement(i: &Intent) -> &'static str {
    match i.action {
        Action::Deploy { .. } => "deploy",
        Action::Transfer { .. } => "transfer",
        Action::Mint { .. } => "mint",
        Action::OpenPool { .. } => "open_pool",
        Action::Swap { .. } => "swap",
        Action::Lock { .. } => "lock",
        Action::Release { .. } => "release",
    }
}

impl ChainTxReport {
    /// A transaction in flight, as the chain views show it (its error through [`redact`]).
    pub fn of(t: &ChainTx) -> ChainTxReport {
        ChainTxReport {
            nonce: t.nonce,
            state: if t.state == TxState::Signed {
                "signed"
            } else {
                "sent"
            }
            .into(),
            hashes: t.versions.iter().map(|x| x.hash.clone()).collect(),
            movements: u64::try_from(t.intents.len()).unwrap_or(u64::MAX),
            error: t.error.as_deref().map(redact),
        }
    }
}

impl FailedMovement {
    /// A movement the chain refused.
    pub fn of(i: &Intent) -> FailedMovement {
        FailedMovement {
            id: i.id,
            token_address: i.token,
            transaction_hash: i.hash.clone(),
            error: i.error.as_deref().map(redact),
        }
    }
}

impl ParkedMovement {
    /// A movement held for an operator.
    pub fn of(i: &Intent) -> ParkedMovement {
        ParkedMovement {
            id: i.id,
            token_address: i.token,
            movement: movement(i).into(),
            why: redact(i.parked.as_deref().unwrap_or_default()),
            since: i.parked_at.map(Timestamp::at),
            attempts: i.attempts,
        }
    }
}

/// What stands in for a URL in a chain error shown to anyone.
pub const URL_REDACTED: &str = "[url]";

/// A chain error as an answer may show it: every URL in it (`scheme://...` up to a space or
/// quote) replaced by [`URL_REDACTED`]. The settler's own errors never name the RPC endpoint
/// (its URL is a secret: providers put API keys in it), and the settler takes the endpoint's
/// parts out of what a node says before storing it (`redact_secret`); this is the second
/// fence, for text from a node that names a URL of its own.
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        // The scheme: the letters (and + - .) right before "://".
        let head = rest.get(..at).unwrap_or_default();
        let scheme = head
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            .last()
            .map_or(at, |(i, _)| i);
        out.push_str(head.get(..scheme).unwrap_or_default());
        let tail = rest.get(at + 3..).unwrap_or_default();
        let end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`'))
            .unwrap_or(tail.len());
        out.push_str(URL_REDACTED);
        rest = tail.get(end..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// `text` without the secret parts of the RPC endpoint `url`: the URL itself, its user
/// information, and each path segment, query value and fragment of 8 characters or more
/// (where providers put keys), each replaced by `[redacted]`; then [`redact`].
pub fn redact_secret(text: &str, url: &str) -> String {
    let mut secrets: Vec<&str> = vec![url];
    let after_scheme = url.split_once("://").map_or(url, |(_, r)| r);
    let (authority, path) = after_scheme
        .split_once('/')
        .map_or((after_scheme, ""), |(a, p)| (a, p));
    if let Some((user, _)) = authority.rsplit_once('@') {
        secrets.extend(user.split(':'));
    }
    let (path, fragment) = path.split_once('#').map_or((path, ""), |(p, f)| (p, f));
    let (path, query) = path.split_once('?').map_or((path, ""), |(p, q)| (p, q));
    secrets.extend(path.split('/'));
    secrets.extend(
        query
            .split('&')
            .map(|kv| kv.split_once('=').map_or(kv, |(_, v)| v)),
    );
    secrets.push(fragment);
    secrets.retain(|s| s.chars().count() >= 8);
    // Longest first: a part inside another is taken out with it.
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut out = text.to_string();
    for s in secrets {
        out = out.replace(s, "[redacted]");
    }
    redact(&out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_taken_out_of_chain_errors() {
        assert_eq!(
            redact("the node refused: see https://rpc.example/v2/KEY123?x=1 for more"),
            "the node refused: see [url] for more"
        );
        assert_eq!(redact("a (wss://n.example/k) b"), "a ([url] b");
        assert_eq!(redact("\"http://a/b\" and ftp://c"), "\"[url]\" and [url]");
        let plain = "the relayer 0xAbC is out of gas: it has 5 wei";
        assert_eq!(redact(plain), plain);
        assert_eq!(redact(""), "");
        assert_eq!(redact("://x"), "[url]");
    }

    #[test]
    fn the_endpoints_secret_parts_are_taken_out() {
        let url = "https://user:hunter2pass@base-mainnet.g.alchemy.com/v2/abcdef123456?apikey=zyxwvu987654#fragment1";
        let said = "invalid key abcdef123456 (apikey zyxwvu987654, hunter2pass, fragment1) v2";
        assert_eq!(
            redact_secret(said, url),
            "invalid key [redacted] (apikey [redacted], [redacted], [redacted]) v2"
        );
        assert_eq!(redact_secret(&format!("at {url}"), url), "at [redacted]");
        // Short parts (v2, a host's words) stay: they are no key and would eat ordinary words.
        assert_eq!(
            redact_secret("v3 refused", "https://x.infura.io/v3/0123456789abcdef"),
            "v3 refused"
        );
    }
}
