//! Calldata for tokenpad's lock contract (`contracts/TokenpadLocker.sol`) and what its
//! receipts say: the treasury locks a batch of presale allocations (its own receive
//! authorization of the total, one lock per buyer with its unlock time), and anyone releases
//! due locks to their beneficiaries.

use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolEvent};

use crate::abi;
use crate::auth::SignedAuthorization;
use crate::rpc::Log;

/// topic 0 of the locker's `Released`.
pub const RELEASED_TOPIC: [u8; 32] = abi::Released::SIGNATURE_HASH.0;

/// One lock of a batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewLock {
    pub id: [u8; 32],
    pub beneficiary: [u8; 20],
    pub amount: u128,
    /// UNIX seconds.
    pub unlock_at: u64,
}

/// `lock(token, pull, ids, beneficiaries, amounts, unlockAts)`: `pulled` is the treasury's
/// receive authorization of the batch's total to the locker.
pub fn lock(token: [u8; 20], pulled: &SignedAuthorization, locks: &[NewLock]) -> Vec<u8> {
    let a = &pulled.authorization;
    abi::lockCall {
        token: Address::from(token),
        pull: abi::Pull {
            from: Address::from(a.from),
            value: U256::from(a.value),
            validAfter: U256::from(a.valid_after),
            validBefore: U256::from(a.valid_before),
            nonce: B256::from(a.nonce),
            v: pulled.v,
            r: B256::from(pulled.r),
            s: B256::from(pulled.s),
        },
        ids: locks.iter().map(|l| B256::from(l.id)).collect(),
        beneficiaries: locks.iter().map(|l| Address::from(l.beneficiary)).collect(),
        amounts: locks.iter().map(|l| U256::from(l.amount)).collect(),
        unlockAts: locks.iter().map(|l| l.unlock_at).collect(),
    }
    .abi_encode()
}

/// `release(ids)`: releases those that are due; the others are skipped.
pub fn release(ids: &[[u8; 32]]) -> Vec<u8> {
    abi::releaseCall {
        ids: ids.iter().map(|id| B256::from(*id)).collect(),
    }
    .abi_encode()
}

/// The lock ids a receipt's logs show `locker` released.
pub fn released(logs: &[Log], locker: [u8; 20]) -> Vec<[u8; 32]> {
    logs.iter()
        .filter(|l| l.address == locker && l.topics.first() == Some(&RELEASED_TOPIC))
        .filter_map(|l| {
            let topics = l.topics.iter().map(|t| B256::from(*t));
            abi::Released::decode_raw_log_validate(topics, &l.data)
                .ok()
                .map(|e| e.id.0)
        })
        .collect()
}
