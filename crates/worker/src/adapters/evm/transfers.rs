//! What a planned batch of transfers sends (`build.rs` for the other calls): the treasury's own
//! (a batch the relayer sends as the treasury: no signature per movement; USDC's plain
//! `transfer`, one at a time) or holders' (EIP-3009 authorizations, each signed by its
//! holder's key).
//!
//! A token deployed from the current build (`TokenCode::Packed`) takes both batches in their
//! packed forms (`batchTransferPacked`, `batchTransferWithAuthorizationPacked`: one word per
//! recipient, five per authorization, no `AuthorizationUsed` events), which cost about 350 and
//! 2,600 gas less per movement; a token from an earlier build, or a value too large for the
//! packed form (2^96 base units or more), gets the plain calls.
//!
//! A holder's authorization nonce is the holder's counter its intent took when it was queued
//! (0, 1, 2, ... as a 32-byte big-endian number; `Intent::auth_nonce`): a holder's nonces then
//! share words of the token's bitmap of authorization states, and its second and later
//! transfers find their storage slot already written. Intents queued before holders' nonces
//! were counted keep the nonce derived from the merchant and the intent's id. Either way,
//! signing an intent again gives the same nonce.

use super::build::{
    bad, evm_err, Builder, Built, BATCH_BASE_GAS, BATCH_ITEM_GAS, SINGLE_TRANSFER_GAS,
    TREASURY_ITEM_GAS, TREASURY_TRANSFER_GAS, VALID_BEFORE,
};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::intent::{Action, Intent};
use tokenpad_core::model::token::TokenCode;
use tokenpad_core::ops::settle::plan::Batch;
use tokenpad_core::store::Store;
use tokenpad_core::Result;
use tokenpad_evm::auth::{self, Authorization, Domain, SignedAuthorization};
use tokenpad_evm::calls;

/// A counted nonce as the 32 bytes signed: `n` big-endian in the last 8 (word n >> 8, bit
/// n & 255 of the token's bitmap).
pub fn counted_nonce(n: u64) -> [u8; 32] {
    let mut nonce = [0u8; 32];
    if let Some(tail) = nonce.get_mut(24..) {
        tail.copy_from_slice(&n.to_be_bytes());
    }
    nonce
}

/// `n` items' gas floor: a batch's base and `item` each.
fn floor(n: usize, item: u64) -> u64 {
    let n = u64::try_from(n).unwrap_or(u64::MAX);
    BATCH_BASE_GAS.saturating_add(item.saturating_mul(n))
}

impl Builder<'_> {
    /// Whether `token`'s contract has the packed batch calls (USDC never does).
    fn packed(&self, token: &Address) -> Result<bool> {
        if self.evm.is_usdc(token) {
            return Ok(false);
        }
        Ok(self
            .store
            .token(&TokenAddress(*token))?
            .is_some_and(|t| t.code == TokenCode::Packed))
    }

    /// The treasury's own transfers: the relayer is the treasury, so it sends them itself, with
    /// no signature per movement. Exactly once all the same: the transaction's nonce is the
    /// relayer's, and a transaction is stored signed before it is sent.
    pub(super) fn treasury(&self, b: &Batch) -> Result<Built> {
        let token = b.token.address();
        let transfers = b
            .intents
            .iter()
            .map(|i| match &i.action {
                Action::Transfer { to, amount, .. } => Ok((self.address(to), amount.raw())),
                _ => Err(bad(format!("intent {} is not a transfer", i.id))),
            })
            .collect::<Result<Vec<_>>>()?;
        let to = self.chain_address(&token);
        if let [(recipient, amount)] = transfers.as_slice() {
            if self.evm.is_usdc(&token) {
                return Ok(Built {
                    to,
                    data: calls::transfer(*recipient, *amount),
                    gas_limit: TREASURY_TRANSFER_GAS,
                });
            }
        }
        let packed = if self.packed(&token)? {
            calls::batch_transfer_packed(&transfers)
        } else {
            None
        };
        Ok(Built {
            to,
            data: packed.unwrap_or_else(|| calls::batch_transfer(&transfers)),
            gas_limit: floor(transfers.len(), TREASURY_ITEM_GAS),
        })
    }

    /// Holders' transfers, each authorized by its holder's signature.
    pub(super) fn holders(&self, b: &Batch) -> Result<Built> {
        let token = b.token.address();
        let domain = self.domain(&token)?;
        let auths = b
            .intents
            .iter()
            .map(|i| self.authorize(&domain, i))
            .collect::<Result<Vec<_>>>()?;
        let to = self.chain_address(&token);
        if let [one] = auths.as_slice() {
            if self.evm.is_usdc(&token) {
                return Ok(Built {
                    to,
                    data: calls::transfer_with_authorization(one),
                    gas_limit: SINGLE_TRANSFER_GAS,
                });
            }
        }
        let packed = if self.packed(&token)? {
            calls::batch_transfer_with_authorization_packed(&auths)
        } else {
            None
        };
        Ok(Built {
            to,
            data: packed.unwrap_or_else(|| calls::batch_transfer_with_authorization(&auths)),
            gas_limit: floor(auths.len(), BATCH_ITEM_GAS),
        })
    }

    /// The nonce a holder signs intent `i` with: its counted one, or (queued before holders'
    /// nonces were counted) the one derived from the merchant and the intent.
    pub fn auth_nonce(&self, i: &Intent) -> [u8; 32] {
        i.auth_nonce.map_or_else(|| self.nonce(i.id), counted_nonce)
    }

    fn authorize(&self, domain: &Domain, i: &Intent) -> Result<SignedAuthorization> {
        let Action::Transfer { from, to, amount } = &i.action else {
            return Err(bad(format!("intent {} is not a transfer", i.id)));
        };
        let a = Authorization {
            from: self.address(from),
            to: self.address(to),
            value: amount.raw(),
            valid_after: 0,
            valid_before: VALID_BEFORE,
            nonce: self.auth_nonce(i),
        };
        auth::sign(domain, &a, &self.secret(from)?).map_err(evm_err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counted_nonce_is_the_number_big_endian_in_the_last_eight_bytes() {
        assert_eq!(counted_nonce(0), [0u8; 32]);
        let mut one = [0u8; 32];
        one[31] = 1;
        assert_eq!(counted_nonce(1), one);
        let mut next_word = [0u8; 32];
        next_word[30] = 1;
        assert_eq!(
            counted_nonce(256),
            next_word,
            "nonce 256 opens the bitmap's second word"
        );
        let max = counted_nonce(u64::MAX);
        assert_eq!(max[..24], [0u8; 24]);
        assert_eq!(max[24..], [0xff; 8]);
    }
}
