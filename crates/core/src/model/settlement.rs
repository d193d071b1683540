//! The settler's own records on an EVM chain: the transactions it signed from the merchant's
//! relayer wallet (one per nonce, with every fee version of it) and the relayer's state.
//!
//! A transaction is stored, signed, before it is broadcast: a crash between the two sends the
//! same bytes again, never a second transfer. A replacement (same nonce, higher fee) is a new
//! version of the same record, and any version may be the one mined, so all are watched.

use super::address::Address;
use super::amount::Units;
use super::ids::TokenAddress;
use super::intent::{Owed, OwedSince, Reserve, Side};
use super::time::Millis;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxState {
    /// Signed and stored; not known to be broadcast yet.
    Signed,
    /// Broadcast at least once; waiting for a receipt.
    Sent,
    /// Mined and succeeded.
    Mined,
    /// Mined and reverted. Until the receipt is final (`ChainTx::finalized`) nothing is
    /// done about it: a reorganization may still drop it and the chain mine it again.
    Reverted,
    /// The nonce was used by another transaction of the relayer (not one of ours): none of
    /// this record's versions can be mined any more, and its intents went back to the queue.
    Abandoned,
}

/// One signed version of a transaction (the first, or a fee replacement).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxVersion {
    /// 0x + 64 hex.
    pub hash: String,
    /// The signed transaction, 0x-hex: what is broadcast, and broadcast again.
    pub raw: String,
    pub max_fee_per_gas: u128,
    pub max_priority_fee_per_gas: u128,
    pub signed_at: Millis,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainTx {
    /// The relayer's nonce: the record's key.
    pub nonce: u64,
    /// The intents it carries, in order.
    pub intents: Vec<u64>,
    pub to: Address,
    /// The calldata, 0x-hex (a replacement signs the same call again).
    pub data: String,
    pub gas_limit: u64,
    /// Oldest first; the last is the one to rebroadcast.
    pub versions: Vec<TxVersion>,
    pub state: TxState,
    /// The version that was mined, and where.
    pub mined_hash: Option<String>,
    pub block: Option<u64>,
    /// The hash of that block when the receipt came: while the receipt is not final, a
    /// block of another hash at that height means a reorganization dropped it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_hash: Option<String>,
    /// The receipt is as deep as `CHAIN_FINALITY` (or was taken before receipts were
    /// followed): no reorganization is followed past it, and a revert has been acted on.
    #[serde(default)]
    pub finalized: bool,
    pub gas_used: Option<u64>,
    /// A success's intents whose movement its receipt does not show (no `Transfer` log of
    /// it: a call to a token without code succeeds and moves nothing;
    /// `ops::settle::receipt`): not confirmed, and sent again once the receipt is final.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unshown: Vec<u64>,
    /// A revert's intents that were behind an older open movement of their token when its
    /// receipt was first read, as of its block (`ops::settle::receipt`): they may have needed
    /// what that one brings, and go again rather than fail. None: not judged then (stored
    /// before this was kept): judged when the revert is acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behind: Option<Vec<u64>>,
    /// Why it reverted, or the last broadcast error.
    pub error: Option<String>,
    /// When it was last broadcast (service time).
    pub sent_at: Option<Millis>,
    pub created_at: Millis,
}

impl ChainTx {
    /// A transaction at `nonce` for `intents`, signed as `version` and stored before it is
    /// sent (`Signed`), made at `at`.
    pub fn signed(
        nonce: u64,
        intents: Vec<u64>,
        to: Address,
        data: String,
        gas_limit: u64,
        version: TxVersion,
        at: Millis,
    ) -> ChainTx {
        ChainTx {
            nonce,
            intents,
            to,
            data,
            gas_limit,
            versions: vec![version],
            state: TxState::Signed,
            mined_hash: None,
            block: None,
            block_hash: None,
            finalized: false,
            gas_used: None,
            unshown: Vec::new(),
            behind: None,
            error: None,
            sent_at: None,
            created_at: at,
        }
    }

    pub fn latest(&self) -> Option<&TxVersion> {
        self.versions.last()
    }

    pub fn is_open(&self) -> bool {
        matches!(self.state, TxState::Signed | TxState::Sent)
    }

    /// Mined, and its receipt still followed: a reorganization may drop it (its block's hash
    /// is checked), and a revert waits to be acted on.
    pub fn is_unfinal(&self) -> bool {
        matches!(self.state, TxState::Mined | TxState::Reverted)
            && !self.finalized
            && self.block_hash.is_some()
    }

    /// A transaction that only takes its nonce (a 0-value transfer to the relayer itself):
    /// it fills a nonce a reorganization freed whose own transaction must not run again (it
    /// keeps that transaction's versions, so a receipt of one is still seen).
    pub fn is_filler(&self) -> bool {
        self.intents.is_empty()
    }
}

/// The relayer wallet's state, owned by the merchant's object (the only writer).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Relayer {
    /// The next nonce to sign with; None until read from the chain the first time.
    pub next_nonce: Option<u64>,
    /// The last block whose Transfer logs were applied (deposits); None until the first scan,
    /// which starts at the chain's head (nothing before the merchant existed is its).
    pub scanned_block: Option<u64>,
    /// Why settlement is stopped, if it is (the relayer is out of gas, the RPC fails): shown
    /// by `GET /admin/merchants/:id/chain` and logged; cleared once a transaction goes out.
    pub error: Option<String>,
    pub error_at: Option<Millis>,
    /// The last blocks the scans ended at and the relayer's receipts came from, with their
    /// hashes, oldest first (see [`Relayer::checkpoint`]): a block whose hash changed since
    /// was reorganized away, and so was everything after the newest checked checkpoint that
    /// still holds.
    #[serde(default)]
    pub checkpoints: Vec<Checkpoint>,
    /// The relayer's ETH balance in wei (digits), as a settler's round last read it (in the
    /// batch that reads the chain's head: no read of its own); None before the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance_wei: Option<String>,
    /// When that round read it (service time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance_at: Option<Millis>,
    /// A reorganization removed blocks whose pool events the ledger followed: each pool's
    /// state is read from the chain again (`ops::market::resync`). Set by the rewind, in its
    /// transaction, and cleared once they are read, so a round that stops in between (the
    /// node failing) leaves them to the next, not to the pools' next events.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resync_pools: bool,
}

/// The words the settler's error (`Relayer::error`) says the relayer lacks the ETH for gas
/// with, and a token's movements wait for its code with, and deployments for the right
/// factory with: the operator's view tells them
/// apart by them (`ops::stuck`).
pub const OUT_OF_GAS: &str = "is out of gas";
pub const NO_CODE: &str = "has no code on chain";
/// And token deployments wait for a factory of this release's token code with.
pub const WRONG_FACTORY: &str = "does not deploy this release's token code";

/// How many checkpoints the relayer keeps at least; it keeps every one within
/// `CHAIN_FINALITY` blocks of the head too, up to [`MAX_CHECKPOINTS`].
pub const CHECKPOINTS: usize = 64;
/// The most checkpoints kept (the finality depth is capped so that it fits).
pub const MAX_CHECKPOINTS: usize = 512;

/// A block a scan ended at, or a receipt of the relayer's came from, and its hash then.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub block: u64,
    pub hash: String,
    /// Taken since the settler's last comparison with the chain (`round::follow`): it may
    /// come from a chain that reorganized under the round that took it, so until a round
    /// finds it and the newest checked one both still the chain's, it does not vouch for the
    /// blocks below it. (Absent in records from before: checked.)
    #[serde(default, skip_serializing_if = "is_false")]
    pub unchecked: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A balance read again is written at least this often even when it did not change (so
/// `balance_at` says how fresh it is), and otherwise only when it changed.
pub const BALANCE_REFRESH: Millis = 60_000;

impl Relayer {
    /// Notes the relayer's balance `wei` read at `at`; whether the record changed (and is
    /// worth writing): the figure moved, or the last reading is [`BALANCE_REFRESH`] old.
    pub fn note_balance(&mut self, wei: u128, at: Millis) -> bool {
        let digits = wei.to_string();
        let stale = self
            .balance_at
            .is_none_or(|then| at.saturating_sub(then) >= BALANCE_REFRESH);
        if self.balance_wei.as_deref() == Some(digits.as_str()) && !stale {
            return false;
        }
        self.balance_wei = Some(digits);
        self.balance_at = Some(at);
        true
    }

    /// Notes that `block` had `hash`, unchecked; the checkpoints stay in block order. Another
    /// hash of a block already noted is kept beside the first: the ledger took from two
    /// chains at that block, and one of them is not the chain's any more, which the next
    /// round's `follow` sees (a rewind takes away the checkpoints above its fork first, so a
    /// block is noted again only then). Those a reorganization can no longer reach go: older
    /// than `finality` blocks below `head`, beyond the newest [`CHECKPOINTS`], or past
    /// [`MAX_CHECKPOINTS`].
    pub fn checkpoint(&mut self, block: u64, hash: String, head: u64, finality: u64) {
        if !self
            .checkpoints
            .iter()
            .any(|c| c.block == block && c.hash == hash)
        {
            let at = self.checkpoints.partition_point(|c| c.block <= block);
            let unchecked = true;
            self.checkpoints.insert(
                at,
                Checkpoint {
                    block,
                    hash,
                    unchecked,
                },
            );
        }
        let floor = head.saturating_sub(finality);
        let mut keep = self.checkpoints.len();
        while keep > CHECKPOINTS {
            let oldest = self.checkpoints.len() - keep;
            let too_old = self
                .checkpoints
                .get(oldest)
                .is_some_and(|c| c.block < floor);
            if !too_old && keep <= MAX_CHECKPOINTS {
                break;
            }
            keep -= 1;
        }
        let extra = self.checkpoints.len() - keep;
        self.checkpoints.drain(..extra);
    }
}

/// Where a followed transfer's tokens sat in the ledger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Holding {
    MerchantSupply,
    /// A pool's reserve (the pool of this token).
    Pool(TokenAddress),
    /// An address's active balance.
    Row(Address),
    /// Outside what the ledger follows (USDC new to it, or gone from it).
    Outside,
}

impl Holding {
    /// The ledger side that holds it (`ops::undo`'s debts and undos name sides).
    pub fn side(&self) -> Side {
        match self {
            Holding::MerchantSupply => Side::Reserve(Reserve::Merchant),
            Holding::Pool(p) => Side::Reserve(Reserve::Pooled(*p)),
            Holding::Row(a) => Side::Row(*a),
            Holding::Outside => Side::Reserve(Reserve::Minted),
        }
    }
}

/// What the ledger did with one Transfer log from outside (`ops::settle::observe`), kept so a
/// reorganization that removes the log can undo exactly that.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    pub block: u64,
    pub log_index: u64,
    pub tx: String,
    pub token: TokenAddress,
    pub from: Holding,
    pub to: Holding,
    /// What left `from` (the rest of what arrived, for USDC, was new supply).
    pub taken: Units,
    /// What arrived at `to`.
    pub given: Units,
    /// What `from` (a pool) could not give: owed (`super::intent::Owed`, since this log).
    #[serde(default)]
    pub owed: Units,
    /// The deposit record it wrote in a holder's history.
    pub record: Option<u64>,
    /// What `from` sent beyond what the ledger knew it had, paid with what a pool owed it
    /// (`ops::settle::claims`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<Claim>,
    /// What the arrival paid of the debts of `to` (`ops::undo::pay_debts`), oldest first:
    /// each as the debt was (`by` the receiver), with `amount` what it paid and `records` the
    /// debt's records after. A reorganization that removes the log owes them again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paid: Vec<Owed>,
}

/// A debt owed to the sender of a Transfer log that went with what it sent
/// (`ops::settle::claims`): `amount` of what `by` owed it since `since`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    pub by: Side,
    pub since: OwedSince,
    pub amount: Units,
    /// Sent to `by` itself: the debt is settled. Otherwise `by` owes the receiver now.
    pub settled: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_balance_is_written_when_it_moves_or_its_reading_is_old() {
        let mut r = Relayer::default();
        // The first reading is kept, as digits (never a float: wei exceed 2^53).
        let big = 12_345_678_901_234_567_890_123_u128;
        assert!(r.note_balance(big, 1_000));
        assert_eq!(r.balance_wei.as_deref(), Some("12345678901234567890123"));
        assert_eq!(r.balance_at, Some(1_000));
        // The same figure a moment later: nothing to write.
        assert!(!r.note_balance(big, 1_000 + BALANCE_REFRESH - 1));
        assert_eq!(r.balance_at, Some(1_000));
        // The same figure a minute on: written, so `balance_at` says it is fresh.
        assert!(r.note_balance(big, 1_000 + BALANCE_REFRESH));
        assert_eq!(r.balance_at, Some(1_000 + BALANCE_REFRESH));
        // Another figure: written at once.
        assert!(r.note_balance(0, 1_000 + BALANCE_REFRESH + 1));
        assert_eq!(r.balance_wei.as_deref(), Some("0"));
        // A record written before balances were kept reads, without one.
        let old: Relayer = serde_json::from_str(
            r#"{"next_nonce":3,"scanned_block":9,"error":null,"error_at":null}"#,
        )
        .unwrap_or_default();
        assert_eq!(
            (old.next_nonce, old.balance_wei, old.balance_at),
            (Some(3), None, None)
        );
    }

    /// A checkpoint at `block` with hash `hash`, checked or not.
    fn cp(block: u64, hash: &str, unchecked: bool) -> Checkpoint {
        Checkpoint {
            block,
            hash: hash.into(),
            unchecked,
        }
    }

    #[test]
    fn a_checkpoint_stored_before_the_flag_reads_as_checked() {
        let old: Option<Checkpoint> = serde_json::from_str(r#"{"block":3,"hash":"0xab"}"#).ok();
        assert_eq!(old, Some(cp(3, "0xab", false)));
        let json = serde_json::to_string(&cp(3, "0xab", false)).ok();
        assert_eq!(json.as_deref(), Some(r#"{"block":3,"hash":"0xab"}"#));
    }

    #[test]
    fn a_second_hash_of_a_block_is_kept_beside_the_first() {
        let mut r = Relayer::default();
        r.checkpoint(5, "a".into(), 10, 64);
        for c in &mut r.checkpoints {
            c.unchecked = false;
        }
        r.checkpoint(5, "a".into(), 10, 64);
        assert_eq!(
            r.checkpoints,
            vec![cp(5, "a", false)],
            "the same: kept checked"
        );
        r.checkpoint(5, "b".into(), 10, 64);
        r.checkpoint(3, "c".into(), 10, 64);
        assert_eq!(
            r.checkpoints,
            vec![cp(3, "c", true), cp(5, "a", false), cp(5, "b", true)]
        );
    }
}
