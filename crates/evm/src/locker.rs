//! Calldata for tokenpad's lock contract (`contracts/TokenpadLocker.sol`) and what its
//! receipts say: the treasury locks a batch of presale allocations (its own receive
//! authorization of the total, one lock per buyer with its unlock time), and anyone releases
//! due locks to their beneficiaries.
//!
//! A lock's id is the caller's own: the contract stores it under [`key`]`(caller, id)`, so
//! nobody else can take or block it. `lock` takes ids; `release`, `locks` and the `Released`
//! events name keys.

use alloy_primitives::{keccak256, Address, B256, U256};
use alloy_sol_types::{SolCall, SolEvent, SolValue};

use crate::abi;
use crate::auth::SignedAuthorization;
use crate::rpc::Log;

/// topic 0 of the locker's `Released`.
pub const RELEASED_TOPIC: [u8; 32] = abi::Released::SIGNATURE_HASH.0;

/// The key the locker stores `owner`'s lock `id` under (`TokenpadLocker.lockKey`):
/// keccak256(abi.encode(owner, id)). What `release` takes and `Released` names.
pub fn key(owner: [u8; 20], id: [u8; 32]) -> [u8; 32] {
    keccak256((Address::from(owner), B256::from(id)).abi_encode()).0
}

/// One lock of a batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewLock {
    /// The caller's id for it; the lock is stored under [`key`]`(caller, id)`.
    pub id: [u8; 32],
    pub beneficiary: [u8; 20],
    pub amount: u128,
    /// UNIX seconds.
    pub unlock_at: u64,
}

/// `lock(token, pull, ids, beneficiaries, amounts, unlockAts)`: `pulled` is the treasury's
/// receive authorization of the batch's total to the locker. Sent by the treasury (the pull's
/// signer), whose namespace the ids are in.
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

/// `release(keys)`: releases those that are due; the others are skipped. Keys, not ids:
/// [`key`]`(treasury, id)` each (an unknown key reverts the whole batch).
pub fn release(keys: &[[u8; 32]]) -> Vec<u8> {
    abi::releaseCall {
        keys: keys.iter().map(|k| B256::from(*k)).collect(),
    }
    .abi_encode()
}

/// The lock keys a receipt's logs show `locker` released.
pub fn released(logs: &[Log], locker: [u8; 20]) -> Vec<[u8; 32]> {
    logs.iter()
        .filter(|l| l.address == locker && l.topics.first() == Some(&RELEASED_TOPIC))
        .filter_map(|l| {
            let topics = l.topics.iter().map(|t| B256::from(*t));
            abi::Released::decode_raw_log_validate(topics, &l.data)
                .ok()
                .map(|e| e.key.0)
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use alloy_primitives::hex;

    #[test]
    fn key_is_the_contracts_lock_key() {
        // TokenpadLocker.lockKey(owner, id), read from the contract on anvil (eth_call at
        // contracts/build/TokenpadLocker.json's code); tests/chain/locker.test.mjs and
        // crates/evm/tests/anvil.test.mjs check the same formula against the live contract.
        let owner = hex!("3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");
        let id = keccak256(b"presale-1/buyer-0").0;
        assert_eq!(
            key(owner, id),
            hex!("927e10d65a1cb28fedfd5766df7ba67521909bae7e0e72889df33d95b42834c4")
        );
        assert_ne!(
            key(owner, id),
            key([0; 20], id),
            "another owner, another key"
        );
        assert_ne!(key(owner, id), id);
    }

    fn log(address: [u8; 20], event: &impl SolEvent) -> Log {
        let data = event.encode_log_data();
        Log {
            address,
            topics: data.topics().iter().map(|t| t.0).collect(),
            data: data.data.to_vec(),
            block_number: 1,
            transaction_hash: [0; 32],
            log_index: 0,
        }
    }

    #[test]
    fn released_reads_the_keys_of_the_lockers_released_events_only() {
        let locker = [0x10; 20];
        let event = |k: u8| abi::Released {
            key: B256::repeat_byte(k),
            token: Address::repeat_byte(1),
            beneficiary: Address::repeat_byte(2),
            amount: U256::from(5u8),
        };
        let locked = abi::Locked {
            key: B256::repeat_byte(9),
            token: Address::repeat_byte(1),
            beneficiary: Address::repeat_byte(2),
            owner: Address::repeat_byte(3),
            id: B256::repeat_byte(4),
            amount: U256::from(5u8),
            unlockAt: 6,
        };
        let logs = [
            log(locker, &event(7)),
            log(locker, &locked),
            log([0x11; 20], &event(8)), // another contract's event of the same shape
            log(locker, &event(9)),
        ];
        assert_eq!(released(&logs, locker), vec![[7; 32], [9; 32]]);
    }

    #[test]
    fn selectors_and_topics_are_the_lockers() {
        // From contracts/build/TokenpadLocker.json, as solc reported them.
        assert_eq!(abi::lockCall::SELECTOR, [0x06, 0x45, 0xc2, 0x07]);
        assert_eq!(abi::releaseCall::SELECTOR, [0xab, 0xed, 0x3b, 0x27]);
        assert_eq!(abi::lockKeyCall::SELECTOR, [0x9b, 0xef, 0x71, 0x12]);
        assert_eq!(
            RELEASED_TOPIC,
            hex!("f841af1340fe1d6814e6ec7893c8cc8939c12ee8d084afe073c5b10dc8fc794c")
        );
        assert_eq!(
            abi::Locked::SIGNATURE_HASH.0,
            hex!("b0166aa6b1f25de2cd3f13253849e12e3f16bf08d19eee5867e289518802e854")
        );
    }
}
