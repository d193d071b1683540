//! Ethereum JSON-RPC 2.0 as plain `serde_json` values: the Worker owns the HTTP `fetch`, this
//! module owns the shapes. Requests are built by the `eth_*` functions, answers are unwrapped
//! by [`parse_response`] and typed by the `parse_*` / `*_result` functions.

mod codec;
mod requests;
mod results;
mod send_error;

pub use crate::error::RpcError;
pub use codec::{
    hex_data, parse_hex_data, parse_hex_fixed, parse_quantity, parse_quantity_u64, parse_response,
    quantity, request,
};
pub use requests::{
    anvil_set_balance, eth_block_number, eth_call, eth_chain_id, eth_estimate_gas, eth_get_balance,
    eth_get_block_by_number, eth_get_code, eth_get_logs, eth_get_transaction_by_hash,
    eth_get_transaction_count, eth_get_transaction_receipt, eth_max_priority_fee_per_gas,
    eth_send_raw_transaction, evm_increase_time, evm_mine, BlockTag, CallRequest, LogFilter,
};
pub use results::{
    data_result, hash_result, parse_block, parse_log, parse_logs, parse_receipt, parse_transaction,
    u128_result, u64_result, Block, Log, Receipt, TxInfo,
};
pub use send_error::SendError;
