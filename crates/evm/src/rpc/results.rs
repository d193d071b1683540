//! Typed views of the results a settler reads. Only the fields it needs are parsed, and each
//! is checked (a missing or malformed field is an error, never a default).

use serde_json::Value;

use super::codec::{parse_hex_data, parse_hex_fixed, parse_quantity, parse_quantity_u64};
use crate::error::{Error, Result};

/// A mined transaction's receipt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Receipt {
    /// `true` if it succeeded, `false` if it reverted (its gas is spent and its nonce used
    /// either way).
    pub status: bool,
    /// The block it was mined in.
    pub block_number: u64,
    /// That block's hash (a reorganization that drops the block gives its number another).
    pub block_hash: Option<[u8; 32]>,
    /// Gas used by this transaction.
    pub gas_used: u64,
    /// Wei per gas actually paid (base fee + tip).
    pub effective_gas_price: u128,
    /// The created contract, for a contract creation.
    pub contract_address: Option<[u8; 20]>,
    /// Logs emitted (none if it reverted).
    pub logs: Vec<Log>,
}

/// One mined event log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Log {
    /// The emitting contract.
    pub address: [u8; 20],
    /// The event signature hash, then the indexed arguments.
    pub topics: Vec<[u8; 32]>,
    /// The non-indexed arguments, ABI-encoded.
    pub data: Vec<u8>,
    /// The block it is in.
    pub block_number: u64,
    /// The transaction that emitted it.
    pub transaction_hash: [u8; 32],
    /// Its position in the block: (block_number, log_index) identifies it.
    pub log_index: u64,
}

/// The block fields the settler needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// Block number.
    pub number: u64,
    /// EIP-1559 base fee; `None` before London (never on Base or anvil's defaults).
    pub base_fee_per_gas: Option<u128>,
    /// Unix seconds; the clock EIP-3009 validity windows are judged against.
    pub timestamp: u64,
    /// The block's hash (a reorganization changes the hash at a number).
    pub hash: Option<[u8; 32]>,
    /// The most gas its transactions may use together (a transaction's limit must fit).
    pub gas_limit: Option<u64>,
}

/// What `eth_getTransactionByHash` tells about a sent transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxInfo {
    /// Its hash.
    pub hash: [u8; 32],
    /// The sender nonce it uses.
    pub nonce: u64,
    /// `None` while it waits in a pool.
    pub block_number: Option<u64>,
}

fn field<'a>(object: &'a Value, name: &str) -> Result<&'a Value> {
    object
        .get(name)
        .filter(|v| !v.is_null())
        .ok_or_else(|| Error::Json(format!("missing field {name}")))
}

fn str_field<'a>(object: &'a Value, name: &str) -> Result<&'a str> {
    field(object, name)?
        .as_str()
        .ok_or_else(|| Error::Json(format!("field {name} is not a string")))
}

fn as_str(value: &Value) -> Result<&str> {
    value
        .as_str()
        .ok_or_else(|| Error::Json(format!("expected a string, got {value}")))
}

fn u64_field(object: &Value, name: &str) -> Result<u64> {
    parse_quantity_u64(str_field(object, name)?)
}

fn optional_str_field<'a>(object: &'a Value, name: &str) -> Result<Option<&'a str>> {
    match object.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => as_str(v).map(Some),
    }
}

/// A quantity result that fits `u64` (`eth_chainId`, `eth_blockNumber`,
/// `eth_getTransactionCount`, `eth_estimateGas`).
pub fn u64_result(result: &Value) -> Result<u64> {
    parse_quantity_u64(as_str(result)?)
}

/// A quantity result up to `u128` (`eth_getBalance`, `eth_maxPriorityFeePerGas`).
pub fn u128_result(result: &Value) -> Result<u128> {
    parse_quantity(as_str(result)?)
}

/// A data result (`eth_call`'s return data).
pub fn data_result(result: &Value) -> Result<Vec<u8>> {
    parse_hex_data(as_str(result)?)
}

/// A 32-byte hash result (`eth_sendRawTransaction`'s transaction hash).
pub fn hash_result(result: &Value) -> Result<[u8; 32]> {
    parse_hex_fixed(as_str(result)?)
}

/// `eth_getTransactionReceipt`'s result; `None` while the transaction is not mined.
pub fn parse_receipt(result: &Value) -> Result<Option<Receipt>> {
    if result.is_null() {
        return Ok(None);
    }
    let status = match str_field(result, "status")? {
        "0x1" => true,
        "0x0" => false,
        other => return Err(Error::Json(format!("receipt status {other:?}"))),
    };
    let logs = parse_logs(field(result, "logs")?)?;
    let contract_address = optional_str_field(result, "contractAddress")?
        .map(parse_hex_fixed)
        .transpose()?;
    let block_hash = optional_str_field(result, "blockHash")?
        .map(parse_hex_fixed)
        .transpose()?;
    Ok(Some(Receipt {
        status,
        block_number: u64_field(result, "blockNumber")?,
        block_hash,
        gas_used: u64_field(result, "gasUsed")?,
        effective_gas_price: parse_quantity(str_field(result, "effectiveGasPrice")?)?,
        contract_address,
        logs,
    }))
}

/// One log object (from `eth_getLogs` or a receipt). Pending logs (no block yet) are refused:
/// the settler only acts on mined ones.
pub fn parse_log(value: &Value) -> Result<Log> {
    let topics = field(value, "topics")?
        .as_array()
        .ok_or_else(|| Error::Json("topics is not an array".into()))?
        .iter()
        .map(|t| parse_hex_fixed(as_str(t)?))
        .collect::<Result<Vec<_>>>()?;
    Ok(Log {
        address: parse_hex_fixed(str_field(value, "address")?)?,
        topics,
        data: parse_hex_data(str_field(value, "data")?)?,
        block_number: u64_field(value, "blockNumber")?,
        transaction_hash: parse_hex_fixed(str_field(value, "transactionHash")?)?,
        log_index: u64_field(value, "logIndex")?,
    })
}

/// `eth_getLogs`'s result (an array of logs).
pub fn parse_logs(result: &Value) -> Result<Vec<Log>> {
    result
        .as_array()
        .ok_or_else(|| Error::Json(format!("expected an array of logs, got {result}")))?
        .iter()
        .map(parse_log)
        .collect()
}

/// `eth_getBlockByNumber`'s result; `None` for a block the node does not have (yet).
pub fn parse_block(result: &Value) -> Result<Option<Block>> {
    if result.is_null() {
        return Ok(None);
    }
    let base_fee_per_gas = optional_str_field(result, "baseFeePerGas")?
        .map(parse_quantity)
        .transpose()?;
    let hash = optional_str_field(result, "hash")?
        .map(parse_hex_fixed)
        .transpose()?;
    let gas_limit = optional_str_field(result, "gasLimit")?
        .map(parse_quantity_u64)
        .transpose()?;
    Ok(Some(Block {
        number: u64_field(result, "number")?,
        base_fee_per_gas,
        hash,
        gas_limit,
        timestamp: u64_field(result, "timestamp")?,
    }))
}

/// `eth_getTransactionByHash`'s result; `None` if the node does not know the transaction
/// (never received, or dropped from its pool).
pub fn parse_transaction(result: &Value) -> Result<Option<TxInfo>> {
    if result.is_null() {
        return Ok(None);
    }
    let block_number = optional_str_field(result, "blockNumber")?
        .map(parse_quantity_u64)
        .transpose()?;
    Ok(Some(TxInfo {
        hash: parse_hex_fixed(str_field(result, "hash")?)?,
        nonce: u64_field(result, "nonce")?,
        block_number,
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::json;

    fn word(byte: &str) -> String {
        format!("0x{}", byte.repeat(32))
    }

    fn log_json() -> Value {
        json!({
            "address": "0x5fbdb2315678afecb367f032d93f642f64180aa3",
            "topics": [word("dd"), word("00"), word("01")],
            "data": "0x00000000000000000000000000000000000000000000000000000000000f4240",
            "blockHash": word("bb"),
            "blockNumber": "0x5",
            "blockTimestamp": "0x6553f100",
            "transactionHash": word("cc"),
            "transactionIndex": "0x0",
            "logIndex": "0x2",
            "removed": false
        })
    }

    #[test]
    fn scalar_results() {
        assert_eq!(u64_result(&json!("0x7a69")).unwrap(), 31337);
        assert_eq!(
            u128_result(&json!("0xde0b6b3a7640000")).unwrap(),
            10u128.pow(18)
        );
        assert_eq!(data_result(&json!("0x")).unwrap(), Vec::<u8>::new());
        assert_eq!(hash_result(&json!(word("cc"))).unwrap(), [0xcc; 32]);
        assert!(matches!(u64_result(&json!(31337)), Err(Error::Json(_))));
        assert!(matches!(hash_result(&json!("0xcc")), Err(Error::Hex(_))));
    }

    #[test]
    fn receipts() {
        let receipt = json!({
            "status": "0x1",
            "blockNumber": "0x5",
            "gasUsed": "0x1a2b",
            "effectiveGasPrice": "0x3b9aca07",
            "contractAddress": null,
            "logs": [log_json()],
            "transactionHash": word("cc"),
        });
        let r = parse_receipt(&receipt).unwrap().unwrap();
        assert!(r.status);
        assert_eq!(
            (r.block_number, r.gas_used, r.effective_gas_price),
            (5, 0x1a2b, 1_000_000_007)
        );
        assert_eq!(r.contract_address, None);
        assert_eq!(
            r.block_hash,
            receipt["blockHash"]
                .as_str()
                .map(|h| parse_hex_fixed(h).unwrap())
        );
        assert_eq!(r.logs.len(), 1);
        assert_eq!(parse_receipt(&Value::Null).unwrap(), None);

        let mut created = receipt.clone();
        created["status"] = json!("0x0");
        created["contractAddress"] = json!("0x5fbdb2315678afecb367f032d93f642f64180aa3");
        let c = parse_receipt(&created).unwrap().unwrap();
        assert!(!c.status);
        assert!(c.contract_address.is_some());

        for (field, bad) in [
            ("status", json!("0x2")),
            ("status", Value::Null),
            ("gasUsed", json!(5)),
            ("logs", json!({})),
        ] {
            let mut broken = receipt.clone();
            broken[field] = bad;
            assert!(parse_receipt(&broken).is_err(), "{field}");
        }
    }

    #[test]
    fn logs() {
        let l = parse_log(&log_json()).unwrap();
        assert_eq!(l.topics, vec![[0xdd; 32], [0; 32], [1; 32]]);
        assert_eq!(l.data.len(), 32);
        assert_eq!(
            (l.block_number, l.log_index, l.transaction_hash),
            (5, 2, [0xcc; 32])
        );
        assert_eq!(
            parse_logs(&json!([log_json(), log_json()])).unwrap().len(),
            2
        );
        assert_eq!(parse_logs(&json!([])).unwrap(), vec![]);
        let mut pending = log_json();
        pending["blockNumber"] = Value::Null;
        assert!(parse_log(&pending).is_err(), "pending logs are refused");
        assert!(parse_logs(&json!({})).is_err());
    }

    #[test]
    fn blocks() {
        let block = json!({"number": "0x10", "baseFeePerGas": "0x3b9aca00", "timestamp": "0x6553f100", "hash": word("bb"), "gasLimit": "0x1c9c380"});
        let b = parse_block(&block).unwrap().unwrap();
        assert_eq!(
            b,
            Block {
                number: 16,
                base_fee_per_gas: Some(1_000_000_000),
                timestamp: 0x6553_f100,
                hash: Some([0xbb; 32]),
                gas_limit: Some(30_000_000),
            }
        );
        let legacy = json!({"number": "0x10", "timestamp": "0x1"});
        assert_eq!(
            parse_block(&legacy).unwrap().unwrap().base_fee_per_gas,
            None
        );
        assert_eq!(parse_block(&Value::Null).unwrap(), None);
    }

    #[test]
    fn transactions() {
        let pending =
            json!({"hash": word("cc"), "nonce": "0x3", "blockNumber": null, "blockHash": null});
        assert_eq!(
            parse_transaction(&pending).unwrap(),
            Some(TxInfo {
                hash: [0xcc; 32],
                nonce: 3,
                block_number: None
            })
        );
        let mined = json!({"hash": word("cc"), "nonce": "0x3", "blockNumber": "0x9"});
        assert_eq!(
            parse_transaction(&mined).unwrap().unwrap().block_number,
            Some(9)
        );
        assert_eq!(parse_transaction(&Value::Null).unwrap(), None);
    }
}
