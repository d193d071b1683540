//! What a revert of the relayer's leaves for the invariants (`check`): whether it reverted for
//! want of funds behind a fault, or built on a movement the chain refused (or a transfer a
//! reorganization took away), or is the chain's own refusal (`SimChain::natural_reverts`,
//! which the overdraft check reads).

use super::{SentTx, SimChain};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::intent::{Account, Action};
use tokenpad_core::ops::settle::needs;

impl SimChain {
    /// What movement `id` (of `token`, doing `action`), sent back, leaves open
    /// (`reverted_open`): every token it needs, as the ledger's `needs` counts them (a sell
    /// sent back also leaves its holder without the USDC it was to bring).
    pub(super) fn open_in(
        usdc: Address,
        id: u64,
        token: TokenAddress,
        action: &Action,
    ) -> [(Address, u64); 2] {
        needs(TokenAddress(usdc), token, action).map(|t| (t.address(), id))
    }

    /// Movement `id` was sent back (a fault, a reorganization, a nonce taken from outside).
    pub(super) fn send_back(&mut self, id: u64, token: TokenAddress, action: &Action) {
        self.reverted_open
            .extend(Self::open_in(self.usdc, id, token, action));
    }

    /// Whether a movement of `token` older than `id` was sent back and is still open.
    pub(super) fn open_before(&self, id: u64, token: Address) -> bool {
        self.reverted_open
            .iter()
            .any(|(t, older)| *t == token && *older < id)
    }

    /// Movement `id` was carried out: no longer open in any token.
    pub(super) fn landed(&mut self, id: u64, token: TokenAddress, action: &Action) {
        for k in Self::open_in(self.usdc, id, token, action) {
            self.reverted_open.remove(&k);
        }
    }

    /// `tx` reverted: `ours` by a fault (injected, or out of gas), `why` the chain's reason.
    pub(super) fn judge_revert(&mut self, tx: &SentTx, ours: bool, why: Option<&str>) {
        let usdc = TokenAddress(self.usdc);
        // Behind a fault: it reverted for want of funds while an older movement of a token
        // it needs, reverted by a fault (or behind one), had not been carried out: this one
        // may have needed what that one brings.
        let want = why.is_some_and(|why| why.contains("InsufficientBalance"));
        let older: Vec<(Address, u64)> = if ours || !want {
            Vec::new()
        } else {
            self.reverted_open
                .iter()
                .filter(|(t, older)| {
                    tx.intents.iter().any(|(id, token, action)| {
                        older < id
                            && needs(usdc, *token, action)
                                .iter()
                                .any(|n| *t == n.address())
                    })
                })
                .copied()
                .collect()
        };
        let behind = !older.is_empty();
        for (id, token, action) in &tx.intents {
            self.reverted_behind.insert(*id, older.clone());
            if ours || behind {
                self.send_back(*id, *token, action);
            }
        }
        if ours || behind {
            return;
        }
        // Built on a refusal: it spends what an older movement to its spender was to
        // bring, which the chain refused for its own reason (a swap the market moved past
        // its bound) and which was never carried out. The ledger books optimistically, so
        // the spend fails too (and its undo nets the debt the refusal left).
        let built_on_refused = want
            && tx.intents.iter().any(|(id, token, action)| {
                self.payer(action).is_some_and(|spender| {
                    self.refused.iter().any(|(t, to, older)| {
                        older < id
                            && *to == spender
                            && !self.executed.contains_key(older)
                            && needs(usdc, *token, action)
                                .iter()
                                .any(|n| *t == n.address())
                    })
                })
            });
        // Built on a transfer a reorganization took away for good (`reorged_away`).
        let built_on_reorged = want
            && tx.intents.iter().any(|(_, token, action)| {
                action.spender().is_some_and(|spender| {
                    needs(usdc, *token, action)
                        .iter()
                        .any(|t| self.reorged_away.contains(&(t.address(), spender)))
                })
            });
        for (id, token, action) in &tx.intents {
            if let Some(to) = self.payee(action) {
                for t in needs(usdc, *token, action) {
                    self.refused.insert((t.address(), to, *id));
                }
            }
        }
        if !built_on_refused && !built_on_reorged {
            let why = why.unwrap_or_default().to_string();
            self.natural_reverts.push((tx.hash.clone(), why));
        }
    }
}

impl SimChain {
    /// Whose balance a movement spends on chain: its holder's (a transfer it signs, its
    /// swap), or the treasury's (the relayer's wallet) for what the treasury sends: its
    /// transfers (a refund), a pool's opening (the raise), its locks.
    fn payer(&self, action: &Action) -> Option<Address> {
        match action {
            Action::Transfer {
                from: Account::Treasury,
                ..
            }
            | Action::OpenPool { .. }
            | Action::Lock { .. } => Some(self.relayer),
            _ => action.spender(),
        }
    }

    /// Whose balance a movement brings something on chain: its recipient's, or the
    /// treasury's for a payment into it (a presale's purchase).
    fn payee(&self, action: &Action) -> Option<Address> {
        match action {
            Action::Transfer {
                to: Account::Treasury,
                ..
            } => Some(self.relayer),
            _ => action.recipient(),
        }
    }
}
