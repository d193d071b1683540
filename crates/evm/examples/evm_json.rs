//! The crate's functions over JSON lines, so a Node test can drive them against a real node
//! (crates/evm/tests/anvil.test.mjs): one command a line on stdin, one answer a line on stdout.
//! Numbers wider than 2^53 travel as decimal strings, bytes as 0x-hex.
//!
//!   {"op":"address","secret":"0x…"}                                  -> {"address":"0x…"}
//!   {"op":"sign_tx","secret":"0x…","tx":{…}}                         -> {"raw":"0x…","hash":"0x…"}
//!   {"op":"bump","tx":{…},"percent":10}                              -> {"tx":{…}}
//!   {"op":"sign_auth","secret":"0x…","domain":{…},"authorization":{…}} -> {"signed":{…}}
//!     ("receive":true signs the receiveWithAuthorization form, as the market and locker take)
//!   {"op":"lock_key","owner":"0x…","id":"0x…"}                      -> {"key":"0x…"}
//!   {"op":"calldata","call":"mint","args":{…}}                       -> {"data":"0x…"}
//!   {"op":"request","method":"eth_get_logs","args":{…}}              -> {"request":{…}}
//!   {"op":"parse","kind":"receipt","response":{…}}                   -> {"result":…} or {"error":…}
//!     ("locker":"0x…" adds the receipt's released lock keys: "released":["0x…"])
//!   {"op":"revert_reason","data":"0x…"}                              -> {"reason":"…"}
//!
//! Run: cargo run -q -p tokenpad-evm --example evm_json < commands.jsonl

use std::io::{BufRead, Write};

use serde_json::{json, Value};
use tokenpad_evm::auth::{self, Authorization, Domain, SignedAuthorization};
use tokenpad_evm::rpc::{
    self, hex_data, parse_hex_data, parse_hex_fixed, BlockTag, CallRequest, LogFilter, SendError,
};
use tokenpad_evm::tx::{self, Eip1559};
use tokenpad_evm::{calls, locker, logs, Error, Result};

fn bad(what: &str) -> Error {
    Error::Json(format!("command: {what}"))
}
fn get<'a>(v: &'a Value, key: &str) -> Result<&'a Value> {
    v.get(key).ok_or_else(|| bad(&format!("missing {key}")))
}
fn text<'a>(v: &'a Value, key: &str) -> Result<&'a str> {
    get(v, key)?
        .as_str()
        .ok_or_else(|| bad(&format!("{key} is not a string")))
}
fn bytes(v: &Value, key: &str) -> Result<Vec<u8>> {
    parse_hex_data(text(v, key)?)
}
fn fixed<const N: usize>(v: &Value, key: &str) -> Result<[u8; N]> {
    parse_hex_fixed(text(v, key)?)
}
fn num<T: std::str::FromStr>(v: &Value, key: &str) -> Result<T> {
    text(v, key)?
        .parse()
        .map_err(|_| bad(&format!("{key} is not a decimal number")))
}
fn small(v: &Value, key: &str) -> Result<u64> {
    get(v, key)?
        .as_u64()
        .ok_or_else(|| bad(&format!("{key} is not a small number")))
}

fn tx_from(v: &Value) -> Result<Eip1559> {
    let to = match get(v, "to")? {
        Value::Null => None,
        _ => Some(fixed(v, "to")?),
    };
    Ok(Eip1559 {
        chain_id: num(v, "chainId")?,
        nonce: num(v, "nonce")?,
        max_priority_fee_per_gas: num(v, "maxPriorityFeePerGas")?,
        max_fee_per_gas: num(v, "maxFeePerGas")?,
        gas_limit: num(v, "gasLimit")?,
        to,
        value: num(v, "value")?,
        data: bytes(v, "data")?,
    })
}

fn tx_to(tx: &Eip1559) -> Value {
    json!({
        "chainId": tx.chain_id.to_string(),
        "nonce": tx.nonce.to_string(),
        "maxPriorityFeePerGas": tx.max_priority_fee_per_gas.to_string(),
        "maxFeePerGas": tx.max_fee_per_gas.to_string(),
        "gasLimit": tx.gas_limit.to_string(),
        "to": tx.to.map(|a| hex_data(&a)),
        "value": tx.value.to_string(),
        "data": hex_data(&tx.data),
    })
}

fn authorization_from(v: &Value) -> Result<Authorization> {
    Ok(Authorization {
        from: fixed(v, "from")?,
        to: fixed(v, "to")?,
        value: num(v, "value")?,
        valid_after: num(v, "validAfter")?,
        valid_before: num(v, "validBefore")?,
        nonce: fixed(v, "nonce")?,
    })
}

fn signed_from(v: &Value) -> Result<SignedAuthorization> {
    let v_byte = u8::try_from(small(v, "v")?).map_err(|_| bad("v"))?;
    Ok(SignedAuthorization {
        authorization: authorization_from(get(v, "authorization")?)?,
        v: v_byte,
        r: fixed(v, "r")?,
        s: fixed(v, "s")?,
    })
}

fn signed_to(s: &SignedAuthorization) -> Value {
    let a = &s.authorization;
    json!({
        "authorization": {
            "from": hex_data(&a.from), "to": hex_data(&a.to), "value": a.value.to_string(),
            "validAfter": a.valid_after.to_string(), "validBefore": a.valid_before.to_string(),
            "nonce": hex_data(&a.nonce),
        },
        "v": s.v, "r": hex_data(&s.r), "s": hex_data(&s.s),
    })
}

fn calldata(call: &str, a: &Value) -> Result<Vec<u8>> {
    Ok(match call {
        "factory_deploy" => calls::factory_deploy(
            fixed(a, "salt")?,
            text(a, "name")?,
            text(a, "symbol")?,
            num(a, "supply")?,
            fixed(a, "treasury")?,
        ),
        "batch_transfer_with_authorization" => {
            let list = get(a, "signed")?
                .as_array()
                .ok_or_else(|| bad("signed is not an array"))?;
            calls::batch_transfer_with_authorization(
                &list.iter().map(signed_from).collect::<Result<Vec<_>>>()?,
            )
        }
        "batch_transfer_with_authorization_packed" => {
            let list = get(a, "signed")?
                .as_array()
                .ok_or_else(|| bad("signed is not an array"))?;
            calls::batch_transfer_with_authorization_packed(
                &list.iter().map(signed_from).collect::<Result<Vec<_>>>()?,
            )
            .ok_or_else(|| bad("an authorization does not fit the packed form"))?
        }
        "batch_transfer" | "batch_transfer_packed" => {
            let list = get(a, "transfers")?
                .as_array()
                .ok_or_else(|| bad("transfers is not an array"))?;
            let transfers = list
                .iter()
                .map(|t| Ok((fixed(t, "to")?, num(t, "amount")?)))
                .collect::<Result<Vec<_>>>()?;
            if call == "batch_transfer" {
                calls::batch_transfer(&transfers)
            } else {
                calls::batch_transfer_packed(&transfers)
                    .ok_or_else(|| bad("an amount does not fit the packed form"))?
            }
        }
        "transfer_with_authorization" => {
            calls::transfer_with_authorization(&signed_from(get(a, "signed")?)?)
        }
        "transfer" => calls::transfer(fixed(a, "to")?, num(a, "amount")?),
        "mint" => calls::mint(fixed(a, "to")?, num(a, "amount")?),
        "balance_of" => calls::balance_of(fixed(a, "owner")?),
        "authorization_state" => {
            calls::authorization_state(fixed(a, "authorizer")?, fixed(a, "nonce")?)
        }
        "locker_lock" => {
            let list = get(a, "locks")?
                .as_array()
                .ok_or_else(|| bad("locks is not an array"))?;
            let locks = list
                .iter()
                .map(|l| {
                    Ok(locker::NewLock {
                        id: fixed(l, "id")?,
                        beneficiary: fixed(l, "beneficiary")?,
                        amount: num(l, "amount")?,
                        unlock_at: num(l, "unlockAt")?,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            locker::lock(fixed(a, "token")?, &signed_from(get(a, "signed")?)?, &locks)
        }
        "locker_release" => {
            let list = get(a, "keys")?
                .as_array()
                .ok_or_else(|| bad("keys is not an array"))?;
            let keys = list
                .iter()
                .map(|k| parse_hex_fixed(k.as_str().unwrap_or_default()))
                .collect::<Result<Vec<_>>>()?;
            locker::release(&keys)
        }
        other => return Err(bad(&format!("unknown call {other}"))),
    })
}

fn tag(a: &Value) -> Result<BlockTag> {
    Ok(match a.get("block").and_then(Value::as_str) {
        None | Some("latest") => BlockTag::Latest,
        Some("pending") => BlockTag::Pending,
        Some(_) => BlockTag::Number(num(a, "block")?),
    })
}

fn call_request(a: &Value) -> Result<CallRequest> {
    let from = match a.get("from") {
        None | Some(Value::Null) => None,
        Some(_) => Some(fixed(a, "from")?),
    };
    Ok(CallRequest {
        from,
        to: fixed(a, "to")?,
        data: bytes(a, "data")?,
    })
}

fn request(method: &str, id: u64, a: &Value) -> Result<Value> {
    Ok(match method {
        "eth_chain_id" => rpc::eth_chain_id(id),
        "eth_block_number" => rpc::eth_block_number(id),
        "eth_get_block_by_number" => rpc::eth_get_block_by_number(id, tag(a)?),
        "eth_max_priority_fee_per_gas" => rpc::eth_max_priority_fee_per_gas(id),
        "eth_get_transaction_count" => {
            rpc::eth_get_transaction_count(id, fixed(a, "address")?, tag(a)?)
        }
        "eth_get_balance" => rpc::eth_get_balance(id, fixed(a, "address")?, tag(a)?),
        "eth_send_raw_transaction" => rpc::eth_send_raw_transaction(id, &bytes(a, "raw")?),
        "eth_get_transaction_receipt" => rpc::eth_get_transaction_receipt(id, fixed(a, "hash")?),
        "eth_get_transaction_by_hash" => rpc::eth_get_transaction_by_hash(id, fixed(a, "hash")?),
        "eth_call" => rpc::eth_call(id, &call_request(a)?, tag(a)?),
        "eth_estimate_gas" => rpc::eth_estimate_gas(id, &call_request(a)?),
        "eth_get_logs" => {
            let list = |key: &str| get(a, key).map(|v| v.as_array().cloned().unwrap_or_default());
            let addresses = list("addresses")?
                .iter()
                .map(|x| parse_hex_fixed(x.as_str().unwrap_or_default()))
                .collect::<Result<_>>()?;
            let topics = list("topics")?
                .iter()
                .map(|p| {
                    p.as_array()
                        .cloned()
                        .unwrap_or_default()
                        .iter()
                        .map(|t| parse_hex_fixed(t.as_str().unwrap_or_default()))
                        .collect()
                })
                .collect::<Result<_>>()?;
            rpc::eth_get_logs(
                id,
                &LogFilter {
                    from_block: num(a, "fromBlock")?,
                    to_block: num(a, "toBlock")?,
                    addresses,
                    topics,
                },
            )
        }
        other => return Err(bad(&format!("unknown method {other}"))),
    })
}

fn log_to(l: &rpc::Log) -> Value {
    json!({
        "address": hex_data(&l.address),
        "topics": l.topics.iter().map(|t| hex_data(t)).collect::<Vec<_>>(),
        "data": hex_data(&l.data),
        "blockNumber": l.block_number.to_string(),
        "transactionHash": hex_data(&l.transaction_hash),
        "logIndex": l.log_index.to_string(),
        "transfer": logs::decode_transfer(l).map(|t| json!({
            "token": hex_data(&t.token), "from": hex_data(&t.from), "to": hex_data(&t.to), "value": t.value.to_string(),
        })),
    })
}

/// Parses a whole JSON-RPC response the way the Worker will: envelope first, then the result.
/// A receipt also gets the keys of the locks `locker` released in it, when `locker` is given.
fn parse(kind: &str, response: &Value, locker: Option<[u8; 20]>) -> Result<Value> {
    let result = match rpc::parse_response(response) {
        Ok(result) => result,
        Err(e) => {
            let send = match SendError::classify(&e) {
                SendError::Other(_) => "Other".to_owned(),
                known => format!("{known:?}"),
            };
            let reason = e.revert_data().map(|d| calls::revert_reason(&d));
            return Ok(
                json!({"error": {"code": e.code, "message": e.message, "data": e.data}, "sendError": send, "revertReason": reason}),
            );
        }
    };
    let parsed = match kind {
        "u64" => json!(rpc::u64_result(&result)?.to_string()),
        "u128" => json!(rpc::u128_result(&result)?.to_string()),
        "data" => json!(hex_data(&rpc::data_result(&result)?)),
        "hash" => json!(hex_data(&rpc::hash_result(&result)?)),
        "balance" => json!(calls::decode_u128(&rpc::data_result(&result)?)?.to_string()),
        "bool" => json!(calls::decode_bool(&rpc::data_result(&result)?)?),
        "address" => json!(hex_data(&calls::decode_address(&rpc::data_result(
            &result
        )?)?)),
        "logs" => json!(rpc::parse_logs(&result)?
            .iter()
            .map(log_to)
            .collect::<Vec<_>>()),
        "receipt" => match rpc::parse_receipt(&result)? {
            None => Value::Null,
            Some(r) => json!({
                "status": r.status, "blockNumber": r.block_number.to_string(), "gasUsed": r.gas_used.to_string(),
                "effectiveGasPrice": r.effective_gas_price.to_string(),
                "contractAddress": r.contract_address.map(|a| hex_data(&a)),
                "logs": r.logs.iter().map(log_to).collect::<Vec<_>>(),
                "released": locker.map(|l| locker::released(&r.logs, l).iter().map(|k| hex_data(k)).collect::<Vec<_>>()),
            }),
        },
        "block" => match rpc::parse_block(&result)? {
            None => Value::Null,
            Some(b) => {
                json!({"number": b.number.to_string(), "baseFeePerGas": b.base_fee_per_gas.map(|f| f.to_string()), "timestamp": b.timestamp.to_string()})
            }
        },
        "transaction" => match rpc::parse_transaction(&result)? {
            None => Value::Null,
            Some(t) => {
                json!({"hash": hex_data(&t.hash), "nonce": t.nonce.to_string(), "blockNumber": t.block_number.map(|n| n.to_string())})
            }
        },
        other => return Err(bad(&format!("unknown kind {other}"))),
    };
    Ok(json!({ "result": parsed }))
}

fn run(command: &Value) -> Result<Value> {
    let op = text(command, "op")?;
    Ok(match op {
        "address" => json!({"address": hex_data(&auth::address_of(&fixed(command, "secret")?)?)}),
        "sign_tx" => {
            let signed = tx::sign(&tx_from(get(command, "tx")?)?, &fixed(command, "secret")?)?;
            json!({"raw": hex_data(&signed.raw), "hash": hex_data(&signed.hash)})
        }
        "bump" => {
            let percent = u32::try_from(small(command, "percent")?).map_err(|_| bad("percent"))?;
            json!({"tx": tx_to(&tx::bump(&tx_from(get(command, "tx")?)?, percent))})
        }
        "sign_auth" => {
            let d = get(command, "domain")?;
            let domain = Domain {
                name: text(d, "name")?.into(),
                version: text(d, "version")?.into(),
                chain_id: num(d, "chainId")?,
                verifying_contract: fixed(d, "verifyingContract")?,
            };
            let (authorization, secret) = (
                authorization_from(get(command, "authorization")?)?,
                fixed(command, "secret")?,
            );
            let signed = if command.get("receive").and_then(Value::as_bool) == Some(true) {
                auth::sign_receive(&domain, &authorization, &secret)?
            } else {
                auth::sign(&domain, &authorization, &secret)?
            };
            json!({"signed": signed_to(&signed), "domainSeparator": hex_data(&auth::domain_separator(&domain))})
        }
        "calldata" => {
            json!({"data": hex_data(&calldata(text(command, "call")?, get(command, "args")?)?)})
        }
        "request" => {
            json!({"request": request(text(command, "method")?, small(command, "id")?, command.get("args").unwrap_or(&Value::Null))?})
        }
        "parse" => {
            let locker = match command.get("locker") {
                None | Some(Value::Null) => None,
                Some(_) => Some(fixed(command, "locker")?),
            };
            parse(text(command, "kind")?, get(command, "response")?, locker)?
        }
        "lock_key" => {
            json!({"key": hex_data(&locker::key(fixed(command, "owner")?, fixed(command, "id")?))})
        }
        "revert_reason" => json!({"reason": calls::revert_reason(&bytes(command, "data")?)}),
        other => return Err(bad(&format!("unknown op {other}"))),
    })
}

fn main() -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str::<Value>(&line) {
            Ok(command) => run(&command).unwrap_or_else(|e| json!({"failed": e.to_string()})),
            Err(e) => json!({"failed": format!("not JSON: {e}")}),
        };
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(())
}
