//! What the service reads of tokenpad's own contracts: for reconciliation, a lock as the lock
//! contract stores it (`locks(key)`, the key being [`crate::locker::key`]`(owner, id)`) and
//! who owns a position the market contract keeps (`positionOwner(positionId)`); for the
//! settler, which token code a factory deploys (`TOKEN_CREATION_CODE_HASH()`). Views only:
//! nothing here is ever sent in a transaction.

use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{sol, SolCall};

use crate::error::{Error, Result};

sol! {
    // TokenpadLocker's public mapping getter.
    function locks(bytes32 key) returns (
        address token,
        uint96 amount,
        address beneficiary,
        uint64 unlockAt,
        bool released
    );
    // TokenpadMarket's public mapping getter.
    function positionOwner(uint256 positionId) returns (address owner);
    // TokenpadFactory's immutable: keccak256 of the token creation code it deploys.
    function TOKEN_CREATION_CODE_HASH() returns (bytes32);
}

/// `TokenpadFactory.TOKEN_CREATION_CODE_HASH()`: the token code the factory deploys, which
/// every token's address follows from.
pub fn factory_code_hash() -> Vec<u8> {
    TOKEN_CREATION_CODE_HASHCall {}.abi_encode()
}

/// What `factory_code_hash` returns.
pub fn decode_factory_code_hash(return_data: &[u8]) -> Result<[u8; 32]> {
    TOKEN_CREATION_CODE_HASHCall::abi_decode_returns_validate(return_data)
        .map(|h| h.0)
        .map_err(|e| Error::Abi(e.to_string()))
}

/// A lock as the lock contract stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredLock {
    pub token: [u8; 20],
    pub amount: u128,
    /// The zero address: no lock has that key.
    pub beneficiary: [u8; 20],
    /// UNIX seconds.
    pub unlock_at: u64,
    pub released: bool,
}

impl StoredLock {
    /// Whether a lock has that key at all.
    pub fn exists(&self) -> bool {
        self.beneficiary != [0; 20]
    }
}

/// `locks(key)`: the lock stored under `key` (a [`crate::locker::key`]).
pub fn lock_at(key: [u8; 32]) -> Vec<u8> {
    locksCall {
        key: B256::from(key),
    }
    .abi_encode()
}

/// What `locks(key)` returned.
pub fn decode_lock(return_data: &[u8]) -> Result<StoredLock> {
    let r = locksCall::abi_decode_returns_validate(return_data)
        .map_err(|e| Error::Abi(format!("locks(): {e}")))?;
    Ok(StoredLock {
        token: r.token.0 .0,
        amount: u128::try_from(r.amount).map_err(|_| Error::Abi("locks(): amount".into()))?,
        beneficiary: r.beneficiary.0 .0,
        unlock_at: r.unlockAt,
        released: r.released,
    })
}

/// `positionOwner(positionId)`: who may collect the position's fees (the treasury that
/// opened the pool); the zero address for a position the market does not keep.
pub fn position_owner(position_id: u64) -> Vec<u8> {
    positionOwnerCall {
        positionId: U256::from(position_id),
    }
    .abi_encode()
}

/// What `positionOwner(positionId)` returned.
pub fn decode_position_owner(return_data: &[u8]) -> Result<[u8; 20]> {
    let owner: Address = positionOwnerCall::abi_decode_returns_validate(return_data)
        .map_err(|e| Error::Abi(format!("positionOwner(): {e}")))?;
    Ok(owner.0 .0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use alloy_sol_types::SolValue;

    #[test]
    fn selectors_are_the_contracts() {
        // viem's toFunctionSelector of the signatures in contracts/build/*.json's ABIs.
        assert_eq!(locksCall::SELECTOR, [0xed, 0x5e, 0x84, 0x37]);
        assert_eq!(positionOwnerCall::SELECTOR, [0xb3, 0x06, 0x0d, 0x36]);
        assert_eq!(&lock_at([7; 32])[4..], &[7u8; 32][..]);
        assert_eq!(position_owner(5)[35], 5);
        assert_eq!(
            factory_code_hash(),
            alloy_primitives::keccak256("TOKEN_CREATION_CODE_HASH()")[..4].to_vec()
        );
        assert_eq!(decode_factory_code_hash(&[7; 32]).unwrap(), [7; 32]);
        assert!(decode_factory_code_hash(&[7; 31]).is_err());
    }

    #[test]
    fn a_stored_lock_reads_back_and_an_unknown_key_is_no_lock() {
        let words = (
            Address::repeat_byte(1),
            U256::from(1_000u64),
            Address::repeat_byte(2),
            U256::from(1_900_000_000u64),
            true,
        )
            .abi_encode_params();
        let l = decode_lock(&words).unwrap();
        assert_eq!(
            l,
            StoredLock {
                token: [1; 20],
                amount: 1_000,
                beneficiary: [2; 20],
                unlock_at: 1_900_000_000,
                released: true,
            }
        );
        assert!(l.exists());
        let none = decode_lock(&[0u8; 160]).unwrap();
        assert!(!none.exists());
        assert!(decode_lock(&[0u8; 31]).is_err());
        let owner = (Address::repeat_byte(9),).abi_encode_params();
        assert_eq!(decode_position_owner(&owner).unwrap(), [9; 20]);
    }
}
