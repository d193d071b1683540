//! Calldata for tokenpad's contracts, and decoders for what they return or revert with.
//! Amounts are `u128` base units at this boundary; the contracts' `uint256` is wider, so
//! decoders refuse values above `u128::MAX` instead of truncating them.

use alloy_primitives::{hex, keccak256, Address, B256, U256};
use alloy_sol_types::{Panic, Revert, SolCall, SolError, SolInterface, SolValue};

use crate::abi::{self, Tokenpad::TokenpadErrors as E};
use crate::auth::SignedAuthorization;
use crate::error::{Error, Result};

fn tuple(a: &SignedAuthorization) -> abi::Authorization {
    let auth = &a.authorization;
    abi::Authorization {
        from: Address::from(auth.from),
        to: Address::from(auth.to),
        value: U256::from(auth.value),
        validAfter: U256::from(auth.valid_after),
        validBefore: U256::from(auth.valid_before),
        nonce: B256::from(auth.nonce),
        v: a.v,
        r: B256::from(a.r),
        s: B256::from(a.s),
    }
}

/// `TokenpadFactory.deploy(salt, name, symbol, supply, treasury)`: creates a token at the
/// CREATE2 address fixed by (factory, sender, salt) and mints `supply` (18-decimal base units)
/// to `treasury`, in one transaction.
pub fn factory_deploy(
    salt: [u8; 32],
    name: &str,
    symbol: &str,
    supply: u128,
    treasury: [u8; 20],
) -> Vec<u8> {
    abi::deployCall {
        salt: B256::from(salt),
        name: name.into(),
        symbol: symbol.into(),
        supply: U256::from(supply),
        treasury: Address::from(treasury),
    }
    .abi_encode()
}

/// The address `factory_deploy(salt, ..)` sent by `deployer` creates, known before it exists
/// (`TokenpadFactory.predict`, computed off chain): CREATE2 with the factory as creator,
/// `keccak256(abi.encode(deployer, salt))` as salt, and TokenpadToken's creation code hash
/// (`creationCodeHash` in contracts/build/TokenpadToken.json).
pub fn token_address(
    factory: [u8; 20],
    deployer: [u8; 20],
    salt: [u8; 32],
    creation_code_hash: [u8; 32],
) -> [u8; 20] {
    let encoded = (Address::from(deployer), B256::from(salt)).abi_encode();
    Address::from(factory)
        .create2(keccak256(encoded), B256::from(creation_code_hash))
        .into_array()
}

/// tokenpad's `batchTransferWithAuthorization(Authorization[])`: many holders' signed
/// transfers in one atomic transaction (one bad entry reverts all: simulate first).
pub fn batch_transfer_with_authorization(auths: &[SignedAuthorization]) -> Vec<u8> {
    abi::batchTransferWithAuthorizationCall {
        auths: auths.iter().map(tuple).collect(),
    }
    .abi_encode()
}

/// The largest value the packed batch calls carry (96 bits).
const PACKED_VALUE_MAX: u128 = (1 << 96) - 1;

/// `address << 96 | low`, the packed calls' word (`low` below 2^96).
fn packed_word(address: [u8; 20], low: U256) -> U256 {
    (U256::from_be_slice(&address) << 96) | low
}

/// tokenpad's `batchTransferWithAuthorizationPacked(PackedAuthorization[])`: the same batch in
/// five words per authorization instead of nine (about 1,000 gas less each, and no
/// `AuthorizationUsed` event: contracts/TOKEN.md). None when one of them does not fit the
/// packed form (a `valid_after` other than 0, a value of 2^96 or more): send
/// [`batch_transfer_with_authorization`] then. Tokens deployed before the packed calls
/// existed lack them.
pub fn batch_transfer_with_authorization_packed(auths: &[SignedAuthorization]) -> Option<Vec<u8>> {
    let packed = auths
        .iter()
        .map(|a| {
            let auth = &a.authorization;
            if auth.valid_after != 0 || auth.value > PACKED_VALUE_MAX {
                return None;
            }
            let low = (U256::from(auth.valid_before) << 8) | U256::from(a.v);
            Some(abi::PackedAuthorization {
                fromAndValue: packed_word(auth.from, U256::from(auth.value)),
                toValidBeforeAndV: packed_word(auth.to, low),
                nonce: B256::from(auth.nonce),
                r: B256::from(a.r),
                s: B256::from(a.s),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(abi::batchTransferWithAuthorizationPackedCall { auths: packed }.abi_encode())
}

/// `transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, v, r, s)`, with
/// the signature as (v, r, s): the form Circle's USDC (FiatTokenV2) has, so one settlement path
/// serves USDC too, which lacks the batch call.
pub fn transfer_with_authorization(a: &SignedAuthorization) -> Vec<u8> {
    let t = tuple(a);
    abi::transferWithAuthorizationCall {
        from: t.from,
        to: t.to,
        value: t.value,
        validAfter: t.validAfter,
        validBefore: t.validBefore,
        nonce: t.nonce,
        v: t.v,
        r: t.r,
        s: t.s,
    }
    .abi_encode()
}

/// tokenpad's `batchTransfer(to[], values[])`: the sender's own tokens to many recipients in
/// one atomic transaction, with no signature per transfer (the treasury's distributions).
pub fn batch_transfer(transfers: &[([u8; 20], u128)]) -> Vec<u8> {
    abi::batchTransferCall {
        to: transfers.iter().map(|(to, _)| Address::from(*to)).collect(),
        values: transfers.iter().map(|(_, v)| U256::from(*v)).collect(),
    }
    .abi_encode()
}

/// tokenpad's `batchTransferPacked(items)`: [`batch_transfer`] in one word per recipient
/// (`to << 96 | value`) instead of two (about 350 gas less each). None when a value is 2^96 or
/// more: send [`batch_transfer`] then. Tokens deployed before the packed calls existed lack it.
pub fn batch_transfer_packed(transfers: &[([u8; 20], u128)]) -> Option<Vec<u8>> {
    let items = transfers
        .iter()
        .map(|(to, value)| {
            (*value <= PACKED_VALUE_MAX).then(|| packed_word(*to, U256::from(*value)))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(abi::batchTransferPackedCall { items }.abi_encode())
}

/// ERC-20 `transfer(to, amount)` from the sender's own balance (the relayer's, e.g. a treasury).
pub fn transfer(to: [u8; 20], amount: u128) -> Vec<u8> {
    abi::transferCall {
        to: Address::from(to),
        value: U256::from(amount),
    }
    .abi_encode()
}

/// TestUSDC's `mint(to, amount)`: local and test chains only (anyone can mint there).
pub fn mint(to: [u8; 20], amount: u128) -> Vec<u8> {
    abi::mintCall {
        to: Address::from(to),
        amount: U256::from(amount),
    }
    .abi_encode()
}

/// ERC-20 `balanceOf(owner)`; decode the `eth_call` result with [`decode_u128`].
pub fn balance_of(owner: [u8; 20]) -> Vec<u8> {
    abi::balanceOfCall {
        account: Address::from(owner),
    }
    .abi_encode()
}

/// `authorizationState(authorizer, nonce)`: whether a nonce is spent, which tells a settler
/// whether an authorization already landed; decode with [`decode_bool`].
pub fn authorization_state(authorizer: [u8; 20], nonce: [u8; 32]) -> Vec<u8> {
    abi::authorizationStateCall {
        authorizer: Address::from(authorizer),
        nonce: B256::from(nonce),
    }
    .abi_encode()
}

/// One `uint256` return value (e.g. `balanceOf`), refused if it exceeds `u128::MAX`.
pub fn decode_u128(return_data: &[u8]) -> Result<u128> {
    let value = abi::balanceOfCall::abi_decode_returns_validate(return_data)?;
    u128::try_from(value).map_err(|_| Error::TooLarge {
        what: "uint256 return value",
    })
}

/// One `bool` return value (e.g. `authorizationState`); words other than 0 or 1 are refused.
pub fn decode_bool(return_data: &[u8]) -> Result<bool> {
    Ok(abi::authorizationStateCall::abi_decode_returns_validate(
        return_data,
    )?)
}

/// One `address` return value (e.g. `deploy`'s token, when simulated with `eth_call`).
pub fn decode_address(return_data: &[u8]) -> Result<[u8; 20]> {
    Ok(abi::deployCall::abi_decode_returns_validate(return_data)?.into_array())
}

/// A one-line, human-readable reason for revert data (from `eth_call`, `eth_estimateGas` or a
/// node's error `data`): `Error(string)`'s text, `Panic(uint256)`'s meaning, tokenpad's and
/// OpenZeppelin's custom errors with their arguments, else the unknown selector in hex.
pub fn revert_reason(data: &[u8]) -> String {
    let Some(selector) = data.get(..4) else {
        return if data.is_empty() {
            "reverted without a reason".into()
        } else {
            format!("malformed revert data {}", hex::encode_prefixed(data))
        };
    };
    if selector == Revert::SELECTOR {
        if let Ok(r) = Revert::abi_decode(data) {
            return r.reason;
        }
    } else if selector == Panic::SELECTOR {
        if let Ok(p) = Panic::abi_decode(data) {
            return format!("panic {:#x}: {}", p.code, p.as_geth_str());
        }
    } else if let Ok(e) = E::abi_decode(data) {
        return describe(&e);
    }
    format!(
        "unknown error {} ({} bytes)",
        hex::encode_prefixed(selector),
        data.len()
    )
}

fn describe(e: &E) -> String {
    match e {
        E::EIP3009InvalidSignature(_) => {
            "EIP3009InvalidSignature: the signature does not recover to the authorizer".into()
        }
        E::EIP3009AuthorizationNotYetValid(x) => {
            format!(
                "EIP3009AuthorizationNotYetValid: valid only after {}",
                x.validAfter
            )
        }
        E::EIP3009AuthorizationExpired(x) => {
            format!(
                "EIP3009AuthorizationExpired: valid only before {}",
                x.validBefore
            )
        }
        E::EIP3009AuthorizationUsedOrCanceled(x) => format!(
            "EIP3009AuthorizationUsedOrCanceled: nonce {} of {} is already used or canceled",
            x.nonce, x.authorizer
        ),
        E::EIP3009CallerMustBePayee(x) => format!(
            "EIP3009CallerMustBePayee: caller {} is not the payee {}",
            x.caller, x.payee
        ),
        E::EIP3009LengthMismatch(x) => format!(
            "EIP3009LengthMismatch: {} recipients, {} values",
            x.recipients, x.values
        ),
        E::TokenpadTokenAlreadyInitialized(_) => "TokenpadTokenAlreadyInitialized".into(),
        E::TokenpadTokenUnauthorizedInitializer(x) => format!(
            "TokenpadTokenUnauthorizedInitializer: {} is not the token's creator",
            x.caller
        ),
        E::TokenpadFactoryAlreadyDeployed(x) => {
            format!(
                "TokenpadFactoryAlreadyDeployed: the token exists at {}",
                x.token
            )
        }
        E::ERC20InsufficientBalance(x) => format!(
            "ERC20InsufficientBalance: {} has {}, needs {}",
            x.sender, x.balance, x.needed
        ),
        E::ERC20InvalidSender(x) => format!("ERC20InvalidSender: {}", x.sender),
        E::ERC20InvalidReceiver(x) => format!("ERC20InvalidReceiver: {}", x.receiver),
        E::ERC20InsufficientAllowance(x) => format!(
            "ERC20InsufficientAllowance: {} may spend {}, needs {}",
            x.spender, x.allowance, x.needed
        ),
        E::ERC20InvalidApprover(x) => format!("ERC20InvalidApprover: {}", x.approver),
        E::ERC20InvalidSpender(x) => format!("ERC20InvalidSpender: {}", x.spender),
        E::SafeERC20FailedOperation(x) => format!("SafeERC20FailedOperation: {}", x.token),
        E::TokenpadMarketTokensNotSorted(x) => format!(
            "TokenpadMarketTokensNotSorted: {} is not below {}",
            x.token0, x.token1
        ),
        E::TokenpadMarketPullNotFromCaller(x) => format!(
            "TokenpadMarketPullNotFromCaller: {} did not send the call ({} did)",
            x.from, x.caller
        ),
        E::TokenpadMarketNothingToDeposit(_) => {
            "TokenpadMarketNothingToDeposit: both amounts are zero".into()
        }
        E::TokenpadMarketPoolOccupied(x) => format!(
            "TokenpadMarketPoolOccupied: someone else's liquidity is in the way in the pool {}",
            x.pool
        ),
        E::TokenpadMarketNonceMismatch(_) => {
            "TokenpadMarketNonceMismatch: the authorization is for another trade".into()
        }
        E::TokenpadMarketBadValue(_) => {
            "TokenpadMarketBadValue: the authorization's value is not the trade's".into()
        }
        E::TokenpadMarketNoPool(x) => format!(
            "TokenpadMarketNoPool: no pool of {} and {}",
            x.tokenIn, x.tokenOut
        ),
        E::TokenpadMarketUnauthorizedCallback(_) => {
            "TokenpadMarketUnauthorizedCallback: not the pool being traded".into()
        }
        E::TokenpadMarketInsufficientLiquidity(_) => {
            "TokenpadMarketInsufficientLiquidity: the pool cannot fill the whole trade".into()
        }
        E::TokenpadMarketSlippage(x) => format!(
            "TokenpadMarketSlippage: {} is past the trade's bound {}",
            x.amount, x.limit
        ),
        E::TokenpadMarketUnknownPosition(x) => format!(
            "TokenpadMarketUnknownPosition: {} was not opened by the market",
            x.positionId
        ),
        E::TokenpadMarketUnexpectedNFT(x) => {
            format!("TokenpadMarketUnexpectedNFT: from {}", x.collection)
        }
        E::TokenpadLockerPullNotFromCaller(x) => format!(
            "TokenpadLockerPullNotFromCaller: {} did not send the call ({} did)",
            x.from, x.caller
        ),
        E::TokenpadLockerNoLocks(_) => "TokenpadLockerNoLocks: the batch is empty".into(),
        E::TokenpadLockerValueMismatch(x) => format!(
            "TokenpadLockerValueMismatch: the pull brings {}, the locks total {}",
            x.value, x.total
        ),
        E::TokenpadLockerLockExists(x) => {
            format!("TokenpadLockerLockExists: the caller's id {} is used", x.id)
        }
        E::TokenpadLockerBadAmount(x) => format!("TokenpadLockerBadAmount: lock {}", x.id),
        E::TokenpadLockerBadBeneficiary(x) => {
            format!("TokenpadLockerBadBeneficiary: lock {}", x.id)
        }
        E::TokenpadLockerLengthMismatch(_) => "TokenpadLockerLengthMismatch".into(),
        E::TokenpadLockerUnknownLock(x) => {
            format!("TokenpadLockerUnknownLock: no lock has key {}", x.key)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use alloy_primitives::hex;

    #[test]
    fn token_address_matches_the_contracts_readme_vector() {
        let token = token_address(
            hex!("e7f1725E7734CE288F8367e1Bb143E90bb3F0512"),
            hex!("f39Fd6e51aad88F6F4ce6aB8827279cffFb92266"),
            B256::with_last_byte(1).0,
            hex!("6788d5f46694750af2f4298993a6689feece4a5c23bb724e8efbad150a34c533"),
        );
        assert_eq!(token, hex!("aBc6244BED60AcaF301039E9098E6129F6E77422"));
    }

    #[test]
    fn packed_calls_carry_what_fits_and_refuse_the_rest() {
        let signed = |value: u128, valid_after: u64| SignedAuthorization {
            authorization: crate::auth::Authorization {
                from: [0x11; 20],
                to: [0x22; 20],
                value,
                valid_after,
                valid_before: u64::MAX,
                nonce: [0x33; 32],
            },
            v: 28,
            r: [0x44; 32],
            s: [0x55; 32],
        };
        let top = (1u128 << 96) - 1;
        let data = batch_transfer_with_authorization_packed(&[signed(top, 0)]).unwrap();
        let call = abi::batchTransferWithAuthorizationPackedCall::abi_decode(&data).unwrap();
        let a = &call.auths[0];
        assert_eq!(a.fromAndValue >> 96, U256::from_be_slice(&[0x11; 20]));
        assert_eq!(a.fromAndValue & U256::from(top), U256::from(top));
        assert_eq!(a.toValidBeforeAndV >> 96, U256::from_be_slice(&[0x22; 20]));
        assert_eq!(
            (a.toValidBeforeAndV >> 8) & U256::from(u128::MAX >> 40),
            U256::from(u64::MAX)
        );
        assert_eq!(a.toValidBeforeAndV & U256::from(0xff), U256::from(28));
        assert_eq!(
            (a.nonce, a.r, a.s),
            (
                B256::repeat_byte(0x33),
                B256::repeat_byte(0x44),
                B256::repeat_byte(0x55)
            )
        );
        // a value past 96 bits, or a window that opens later, does not fit: the plain call then
        assert_eq!(
            batch_transfer_with_authorization_packed(&[signed(top, 0), signed(top + 1, 0)]),
            None
        );
        assert_eq!(
            batch_transfer_with_authorization_packed(&[signed(1, 1)]),
            None
        );

        let data = batch_transfer_packed(&[([0x66; 20], top), ([0x77; 20], 0)]).unwrap();
        let call = abi::batchTransferPackedCall::abi_decode(&data).unwrap();
        assert_eq!(call.items.len(), 2);
        assert_eq!(call.items[0] >> 96, U256::from_be_slice(&[0x66; 20]));
        assert_eq!(call.items[0] & U256::from(top), U256::from(top));
        assert_eq!(call.items[1], U256::from_be_slice(&[0x77; 20]) << 96);
        assert_eq!(batch_transfer_packed(&[([0x66; 20], top + 1)]), None);
    }

    #[test]
    fn decoders_refuse_malformed_return_data() {
        assert!(matches!(decode_u128(&[]), Err(Error::Abi(_))));
        assert!(matches!(decode_u128(&[0; 31]), Err(Error::Abi(_))));
        let mut two = [0u8; 32];
        two[31] = 2;
        assert!(
            matches!(decode_bool(&two), Err(Error::Abi(_))),
            "a bool word must be 0 or 1"
        );
        let mut dirty = [0u8; 32];
        dirty[0] = 1;
        assert!(
            matches!(decode_address(&dirty), Err(Error::Abi(_))),
            "dirty address padding"
        );
        assert_eq!(decode_u128(&[0; 32]).unwrap(), 0);
    }

    #[test]
    fn revert_reason_names_errors_with_their_arguments() {
        let data = E::ERC20InsufficientBalance(abi::Tokenpad::ERC20InsufficientBalance {
            sender: Address::from(hex!("70997970c51812dc3a010c7d01b50e0d17dc79c8")),
            balance: U256::from(5u8),
            needed: U256::from(10u8),
        })
        .abi_encode();
        assert_eq!(
            revert_reason(&data),
            "ERC20InsufficientBalance: 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 has 5, needs 10"
        );
        let used = E::EIP3009AuthorizationUsedOrCanceled(
            abi::Tokenpad::EIP3009AuthorizationUsedOrCanceled {
                authorizer: Address::from([0x11; 20]),
                nonce: B256::repeat_byte(0xab),
            },
        )
        .abi_encode();
        assert!(revert_reason(&used).contains(&format!("nonce {}", B256::repeat_byte(0xab))));
    }

    #[test]
    fn revert_reason_falls_back_to_the_selector() {
        assert_eq!(revert_reason(&[]), "reverted without a reason");
        assert_eq!(revert_reason(&[1, 2, 3]), "malformed revert data 0x010203");
        assert_eq!(
            revert_reason(&hex!("deadbeef")),
            "unknown error 0xdeadbeef (4 bytes)"
        );
        // A known selector with truncated arguments is not trusted as that error.
        let mut data = abi::Tokenpad::EIP3009AuthorizationExpired::SELECTOR.to_vec();
        data.extend_from_slice(&[0; 16]);
        let selector = hex::encode(abi::Tokenpad::EIP3009AuthorizationExpired::SELECTOR);
        assert_eq!(
            revert_reason(&data),
            format!("unknown error 0x{selector} (20 bytes)")
        );
        // Error(string) whose string is cut short.
        let mut cut = Revert::from("a reason long enough").abi_encode();
        cut.truncate(40);
        assert!(revert_reason(&cut).starts_with("unknown error 0x08c379a0"));
    }
}
