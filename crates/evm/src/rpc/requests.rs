//! Request builders for the calls a settler makes. Each returns a complete request object
//! ([`super::request`]); the caller picks the id and may batch several in one JSON array.

use serde_json::{json, Value};

use super::codec::{hex_data, quantity, request};

/// Which state a read sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockTag {
    /// The head block: what is settled (modulo reorgs).
    Latest,
    /// The head plus the node's pending transactions: the next free nonce, counting sends
    /// still in its pool.
    Pending,
    /// A specific block.
    Number(u64),
}

impl BlockTag {
    fn to_json(self) -> Value {
        match self {
            Self::Latest => json!("latest"),
            Self::Pending => json!("pending"),
            Self::Number(n) => json!(quantity(n.into())),
        }
    }
}

/// A message call for `eth_call` / `eth_estimateGas`. `from` matters when the callee reads
/// `msg.sender` (a factory's CREATE2 address depends on it); `None` lets the node pick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallRequest {
    /// The simulated sender.
    pub from: Option<[u8; 20]>,
    /// The contract called.
    pub to: [u8; 20],
    /// Calldata.
    pub data: Vec<u8>,
}

impl CallRequest {
    fn to_json(&self) -> Value {
        let mut call = json!({ "to": hex_data(&self.to), "data": hex_data(&self.data) });
        if let (Some(from), Some(object)) = (self.from, call.as_object_mut()) {
            object.insert("from".into(), json!(hex_data(&from)));
        }
        call
    }
}

/// An `eth_getLogs` filter over an inclusive block range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogFilter {
    /// First block, inclusive.
    pub from_block: u64,
    /// Last block, inclusive. Keep ranges modest: providers cap them (often 1,000 to 10,000
    /// blocks) and answer with an error beyond.
    pub to_block: u64,
    /// Emitting contracts (any of them); empty means any contract.
    pub addresses: Vec<[u8; 20]>,
    /// Topics by position: an empty entry matches anything, one value must match exactly,
    /// several match any of them. Trailing positions may be left out.
    pub topics: Vec<Vec<[u8; 32]>>,
}

impl LogFilter {
    fn to_json(&self) -> Value {
        let topics: Vec<Value> = self
            .topics
            .iter()
            .map(|position| match position.as_slice() {
                [] => Value::Null,
                [one] => json!(hex_data(one)),
                many => json!(many.iter().map(|t| hex_data(t)).collect::<Vec<_>>()),
            })
            .collect();
        let addresses: Vec<String> = self.addresses.iter().map(|a| hex_data(a)).collect();
        json!({
            "fromBlock": quantity(self.from_block.into()),
            "toBlock": quantity(self.to_block.into()),
            "address": addresses,
            "topics": topics,
        })
    }
}

/// `eth_chainId`: check the node serves the chain the keys sign for.
pub fn eth_chain_id(id: u64) -> Value {
    request(id, "eth_chainId", json!([]))
}

/// `eth_blockNumber`: the head, to bound log scans and count confirmations.
pub fn eth_block_number(id: u64) -> Value {
    request(id, "eth_blockNumber", json!([]))
}

/// `eth_getBlockByNumber(tag, false)`: the base fee (for fee caps) and the timestamp (the
/// chain's clock, which EIP-3009 validity windows are judged against).
pub fn eth_get_block_by_number(id: u64, block: BlockTag) -> Value {
    request(id, "eth_getBlockByNumber", json!([block.to_json(), false]))
}

/// `eth_maxPriorityFeePerGas`: the node's tip suggestion.
pub fn eth_max_priority_fee_per_gas(id: u64) -> Value {
    request(id, "eth_maxPriorityFeePerGas", json!([]))
}

/// `eth_getTransactionCount(address, tag)`: `Latest` is the count of mined transactions,
/// `Pending` also counts the node's pool.
pub fn eth_get_transaction_count(id: u64, address: [u8; 20], block: BlockTag) -> Value {
    request(
        id,
        "eth_getTransactionCount",
        json!([hex_data(&address), block.to_json()]),
    )
}

/// `eth_getBalance(address, tag)`: the relayer's ETH for gas.
pub fn eth_get_balance(id: u64, address: [u8; 20], block: BlockTag) -> Value {
    request(
        id,
        "eth_getBalance",
        json!([hex_data(&address), block.to_json()]),
    )
}

/// `eth_getCode(address, tag)`: a contract's code (`0x` for an address without one: a call to
/// it "succeeds" and does nothing, so a token is used only once its code is there).
pub fn eth_get_code(id: u64, address: [u8; 20], block: BlockTag) -> Value {
    request(
        id,
        "eth_getCode",
        json!([hex_data(&address), block.to_json()]),
    )
}

/// `eth_sendRawTransaction(raw)`; its errors classify with [`super::SendError::classify`].
pub fn eth_send_raw_transaction(id: u64, raw: &[u8]) -> Value {
    request(id, "eth_sendRawTransaction", json!([hex_data(raw)]))
}

/// `eth_getTransactionReceipt(hash)`: `null` until mined.
pub fn eth_get_transaction_receipt(id: u64, hash: [u8; 32]) -> Value {
    request(id, "eth_getTransactionReceipt", json!([hex_data(&hash)]))
}

/// `eth_getTransactionByHash(hash)`: whether the node still knows a sent transaction.
pub fn eth_get_transaction_by_hash(id: u64, hash: [u8; 32]) -> Value {
    request(id, "eth_getTransactionByHash", json!([hex_data(&hash)]))
}

/// `eth_call(call, tag)`: reads, and simulations of a batch before paying for it.
pub fn eth_call(id: u64, call: &CallRequest, block: BlockTag) -> Value {
    request(id, "eth_call", json!([call.to_json(), block.to_json()]))
}

/// `eth_estimateGas(call)` against the latest state.
pub fn eth_estimate_gas(id: u64, call: &CallRequest) -> Value {
    request(id, "eth_estimateGas", json!([call.to_json()]))
}

/// `eth_getLogs(filter)`.
pub fn eth_get_logs(id: u64, filter: &LogFilter) -> Value {
    request(id, "eth_getLogs", json!([filter.to_json()]))
}

/// `anvil_setBalance(address, wei)`: a local node (anvil) only, for local runs' relayers.
pub fn anvil_set_balance(id: u64, address: [u8; 20], wei: u128) -> Value {
    request(
        id,
        "anvil_setBalance",
        json!([hex_data(&address), quantity(wei)]),
    )
}

/// `evm_increaseTime(seconds)` then `evm_mine`: a local node's clock moved forward (local
/// runs' time travel), with a block at the new time.
pub fn evm_increase_time(id: u64, seconds: u64) -> Value {
    request(id, "evm_increaseTime", json!([quantity(seconds.into())]))
}

pub fn evm_mine(id: u64) -> Value {
    request(id, "evm_mine", json!([]))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn reads_name_the_block() {
        assert_eq!(eth_chain_id(1)["method"], "eth_chainId");
        assert_eq!(eth_block_number(2)["params"], json!([]));
        assert_eq!(
            eth_get_block_by_number(3, BlockTag::Latest)["params"],
            json!(["latest", false])
        );
        assert_eq!(
            eth_get_block_by_number(3, BlockTag::Number(255))["params"],
            json!(["0xff", false])
        );
        assert_eq!(
            eth_get_transaction_count(4, [0xab; 20], BlockTag::Pending)["params"],
            json!([format!("0x{}", "ab".repeat(20)), "pending"])
        );
        assert_eq!(
            eth_get_balance(5, [0; 20], BlockTag::Latest)["method"],
            "eth_getBalance"
        );
        assert_eq!(
            eth_max_priority_fee_per_gas(6)["method"],
            "eth_maxPriorityFeePerGas"
        );
        assert_eq!(
            eth_get_code(7, [0x01; 20], BlockTag::Latest)["params"],
            json!([format!("0x{}", "01".repeat(20)), "latest"])
        );
    }

    #[test]
    fn transactions_are_sent_and_looked_up_as_hex() {
        let send = eth_send_raw_transaction(7, &[2, 0xf8]);
        assert_eq!(send["method"], "eth_sendRawTransaction");
        assert_eq!(send["params"], json!(["0x02f8"]));
        let hash = format!("0x{}", "11".repeat(32));
        assert_eq!(
            eth_get_transaction_receipt(8, [0x11; 32])["params"],
            json!([hash])
        );
        assert_eq!(
            eth_get_transaction_by_hash(9, [0x11; 32])["params"],
            json!([hash])
        );
    }

    #[test]
    fn calls_carry_from_only_when_given() {
        let mut call = CallRequest {
            from: None,
            to: [1; 20],
            data: vec![0x70, 0xa0],
        };
        let plain = eth_call(10, &call, BlockTag::Latest);
        assert_eq!(
            plain["params"],
            json!([{"to": format!("0x{}", "01".repeat(20)), "data": "0x70a0"}, "latest"])
        );
        call.from = Some([2; 20]);
        let estimate = eth_estimate_gas(11, &call);
        assert_eq!(
            estimate["params"][0]["from"],
            format!("0x{}", "02".repeat(20))
        );
        assert_eq!(estimate["params"].as_array().map(Vec::len), Some(1));
    }

    #[test]
    fn log_filters_put_topics_by_position() {
        let filter = LogFilter {
            from_block: 16,
            to_block: 31,
            addresses: vec![[1; 20], [2; 20]],
            topics: vec![vec![[0xaa; 32]], vec![], vec![[0xbb; 32], [0xcc; 32]]],
        };
        let word = |b: &str| format!("0x{}", b.repeat(32));
        assert_eq!(
            eth_get_logs(12, &filter)["params"],
            json!([{
                "fromBlock": "0x10",
                "toBlock": "0x1f",
                "address": [format!("0x{}", "01".repeat(20)), format!("0x{}", "02".repeat(20))],
                "topics": [word("aa"), null, [word("bb"), word("cc")]],
            }])
        );
    }
}
