//! The round's watch: what it sent. A receipt of any version of a transaction settles its
//! intents in the ledger; a transaction never broadcast is sent now (the same bytes); one
//! unmined for long is sent again if the node lost it, or replaced with the same nonce and a
//! higher fee; if its nonce went to another transaction, its intents go back to the queue:
//! found then, or as soon as a later nonce of the relayer's is mined while no version of it
//! is, nor known to the node.

use super::port::{Chain, Head, Ledger, Level, Sent, Signer, Step, Stop, Unsigned};
use super::{bump, Round, FEE_BUMP_PERCENT, MAX_VERSIONS};
use crate::error::Error;
use crate::model::settlement::{ChainTx, TxState, TxVersion};
use crate::ops::settle;

impl<C: Chain, S: Signer, L: Ledger> Round<'_, C, S, L> {
    pub(super) async fn watch(&self, head: &Head) -> Step {
        let open = self.ledger.read(|s| s.open_chain_txs())?;
        if open.is_empty() {
            return Ok(());
        }
        let receipts = self.chain.receipts(&open, head).await?;
        // The highest nonce of ours with a receipt: every nonce below it is used on chain.
        let mined_above = open
            .iter()
            .zip(&receipts)
            .filter(|(_, r)| r.is_some())
            .map(|(t, _)| t.nonce)
            .max();
        for (t, receipt) in open.iter().zip(receipts) {
            match receipt {
                Some(m) => {
                    if !m.success {
                        self.chain.log(
                            Level::Warn,
                            &format!(
                                "merchant {}: transaction {} (nonce {}) reverted: {}",
                                self.ctx.merchant.id,
                                m.hash,
                                t.nonce,
                                m.reason.as_deref().unwrap_or("")
                            ),
                        );
                    }
                    if t.is_filler() && t.versions.last().is_none_or(|v| v.hash != m.hash) {
                        self.chain.log(
                            Level::Error,
                            &format!(
                                "merchant {}: nonce {} was filled, yet the transaction it filled was mined ({}): reconcile",
                                self.ctx.merchant.id, t.nonce, m.hash
                            ),
                        );
                    }
                    let (ctx, nonce) = (self.ctx.clone(), t.nonce);
                    self.ledger
                        .commit(move |s| settle::mined(s, &ctx, nonce, &m))?;
                }
                None => self.unmined(t, mined_above).await?,
            }
        }
        Ok(())
    }

    /// `t`, no version of it mined. When a later nonce of ours is, another transaction took
    /// its nonce, or the node lost it and it is known nowhere (both abandon it now, not
    /// `replace_after_ms` on, so nothing more reverts behind it), or the node still holds it
    /// (then it is watched as before): where it is is asked once a round, and that answer
    /// serves `unstick` too.
    async fn unmined(&self, t: &ChainTx, mined_above: Option<u64>) -> Step {
        let asked = match mined_above {
            Some(n) if n > t.nonce => Some(self.whereabouts(t).await?),
            _ => None,
        };
        if asked == Some(Whereabouts::Taken) {
            return Ok(());
        }
        if t.state == TxState::Signed {
            return self.broadcast(t).await;
        }
        let waited = self.ctx.now.saturating_sub(t.sent_at.unwrap_or(0));
        if waited >= self.config.replace_after_ms {
            self.unstick(t, asked).await?;
        }
        Ok(())
    }

    /// A transaction unmined for long: sent again if the node lost it, else replaced with a
    /// higher fee; abandoned if its nonce went to another transaction. Either way, a nonce
    /// below it that the chain has not used and no transaction of ours holds is taken first
    /// (`fill_gaps`): the node keeps it queued behind that gap, whatever its fee. `asked`:
    /// where it is, when this round asked already.
    async fn unstick(&self, t: &ChainTx, asked: Option<Whereabouts>) -> Step {
        let whereabouts = match asked {
            Some(w) => w,
            None => self.whereabouts(t).await?,
        };
        let count = match whereabouts {
            Whereabouts::Taken => return Ok(()),
            Whereabouts::Lost { count } => count,
            // Known to the node, yet perhaps only queued: a reorganization (or a node that
            // lost its last blocks) may have taken away a transaction not ours that had used
            // a nonce below it, which no checkpoint of ours saw go.
            Whereabouts::Known => self.chain.nonce(false).await?,
        };
        if count < t.nonce {
            self.fill_gaps(Some(count)).await?;
        }
        match whereabouts {
            // Dropped from the node's pool: the same bytes again.
            Whereabouts::Lost { .. } => self.broadcast(t).await,
            Whereabouts::Known if t.versions.len() >= MAX_VERSIONS => self.broadcast(t).await,
            Whereabouts::Known => self.replace(t).await,
            Whereabouts::Taken => Ok(()),
        }
    }

    /// Where `t` is, no version of it mined (watch asked): still known to the node, or not,
    /// and then whether the chain's count of the relayer's transactions is past its nonce:
    /// another transaction took it, and it is abandoned here.
    async fn whereabouts(&self, t: &ChainTx) -> Step<Whereabouts> {
        let latest = t
            .latest()
            .ok_or_else(|| Error::internal("a transaction without a version"))?;
        if self.chain.known(&latest.hash).await? {
            return Ok(Whereabouts::Known);
        }
        let count = self.chain.nonce(false).await?;
        if count <= t.nonce {
            return Ok(Whereabouts::Lost { count });
        }
        self.abandon(t.nonce, count)?;
        Ok(Whereabouts::Taken)
    }

    /// Abandons the transaction at `nonce`, which another transaction took (its movements go
    /// back to the queue), and moves the relayer's next nonce up to `count`, the chain's count
    /// of its transactions, if it is below.
    pub(super) fn abandon(&self, nonce: u64, count: u64) -> Step {
        self.ledger.commit(move |s| {
            settle::abandoned(s, nonce, "its nonce was used by another transaction")?;
            let mut r = s.relayer()?;
            if r.next_nonce.is_none_or(|n| n < count) {
                r.next_nonce = Some(count);
                s.put_relayer(&r)?;
            }
            Ok(())
        })?;
        self.chain.log(
            Level::Warn,
            &format!(
                "merchant {}: nonce {nonce} was used by a transaction not ours: its movements go again",
                self.ctx.merchant.id
            ),
        );
        Ok(())
    }

    /// Signs `unsigned`: a version of a transaction at the round's time.
    pub(super) fn sign(&self, unsigned: &Unsigned) -> Step<TxVersion> {
        let signed = self.signer.sign(unsigned)?;
        Ok(TxVersion {
            hash: signed.hash,
            raw: signed.raw,
            max_fee_per_gas: unsigned.cap,
            max_priority_fee_per_gas: unsigned.tip,
            signed_at: self.ctx.now,
        })
    }

    /// Signs a same-nonce replacement with higher fees, stores it, and sends it.
    async fn replace(&self, t: &ChainTx) -> Step {
        let latest = t
            .latest()
            .ok_or_else(|| Error::internal("a transaction without a version"))?;
        let (tip, cap) = self.fees().await?;
        let next = Unsigned {
            nonce: t.nonce,
            to: t.to,
            data: t.data.clone(),
            gas_limit: t.gas_limit,
            tip: bump(latest.max_priority_fee_per_gas, FEE_BUMP_PERCENT).max(tip),
            cap: bump(latest.max_fee_per_gas, FEE_BUMP_PERCENT).max(cap),
        };
        let mut replaced = t.clone();
        replaced.versions.push(self.sign(&next)?);
        replaced.state = TxState::Signed;
        let stored = replaced.clone();
        self.ledger.commit(move |s| settle::replaced(s, &stored))?;
        self.broadcast(&replaced).await
    }

    /// Sends the latest version of `t` (again: sending the same bytes twice is harmless).
    pub(super) async fn broadcast(&self, t: &ChainTx) -> Step {
        let answer = self.chain.send(t).await?;
        self.answered(t, answer).await
    }

    /// Notes what the node answered to `t`: sent (or known, or its nonce used), or why not.
    pub(super) async fn answered(&self, t: &ChainTx, answer: Sent) -> Step {
        let error = match answer {
            // Known already, or its nonce used (by this very transaction, which the next
            // receipt check finds, or by another: then it is abandoned after a while).
            Sent::Accepted | Sent::AlreadyKnown | Sent::NonceTooLow => None,
            Sent::InsufficientFunds => return Err(Stop::Held(self.out_of_gas(None))),
            Sent::Underpriced(_) if t.versions.len() < MAX_VERSIONS => {
                return Box::pin(self.replace(t)).await;
            }
            Sent::Underpriced(message) | Sent::Other(message) => Some(message),
        };
        let (nonce, now) = (t.nonce, self.ctx.now);
        let sent = error.is_none();
        self.ledger.commit(move |s| {
            if let Some(mut stored) = s.chain_tx(nonce)? {
                if stored.is_open() {
                    if sent {
                        stored.state = TxState::Sent;
                        stored.sent_at = Some(now);
                    }
                    stored.error = error;
                    s.put_chain_tx(&stored)?;
                }
            }
            if sent {
                let mut r = s.relayer()?;
                if r.error.is_some() {
                    r.error = None;
                    r.error_at = None;
                    s.put_relayer(&r)?;
                }
            }
            Ok(())
        })?;
        Ok(())
    }
}

/// Where an unmined transaction of the relayer's is (`Round::whereabouts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Whereabouts {
    /// The node knows its latest version.
    Known,
    /// The node knows it not, and the chain's count of the relayer's transactions (`count`)
    /// is not past its nonce: the node lost it.
    Lost { count: u64 },
    /// Another transaction took its nonce: abandoned.
    Taken,
}
