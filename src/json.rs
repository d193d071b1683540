//! Reading the service's objects out of parsed JSON, by hand.
//!
//! A derived `Deserialize` per shape costs about 6 KiB of wasm each (serde generates a map
//! and a sequence visitor per struct); reading a `serde_json::Value` (numbers kept as their
//! exact text by `arbitrary_precision`) with these few helpers costs a fraction of that, and
//! names the failing field by its path (`tokens[0].balance`).

use crate::decimal::Dec;
use crate::format::FormatOptions;
use crate::model::*;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Parses `text` as JSON and reads a `T` from it.
pub fn from_str<T: FromJson>(text: &str) -> Result<T, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    T::from_json(&v, "")
}

/// A shape readable from JSON. `path` names `v` in error messages (`""` for the root).
pub trait FromJson: Sized {
    fn from_json(v: &Value, path: &str) -> Result<Self, String>;
}

fn at(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn expected(path: &str, what: &str, v: Option<&Value>) -> String {
    let name = if path.is_empty() { "the value" } else { path };
    match v {
        None => format!("{name}: missing (expected {what})"),
        Some(v) => format!("{name}: expected {what}, got {}", describe(v)),
    }
}

/// An object being read, with its path.
pub struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: &'a str,
}

impl<'a> Obj<'a> {
    pub fn new(v: &'a Value, path: &'a str) -> Result<Obj<'a>, String> {
        match v {
            Value::Object(map) => Ok(Obj { map, path }),
            other => Err(expected(path, "an object", Some(other))),
        }
    }

    /// The value at `key`, `None` when absent or null.
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn req<T>(&self, key: &str, what: &str, f: impl Fn(&Value) -> Option<T>) -> Result<T, String> {
        let v = self.map.get(key);
        v.and_then(&f)
            .ok_or_else(|| expected(&at(self.path, key), what, v))
    }

    fn opt<T>(
        &self,
        key: &str,
        what: &str,
        f: impl Fn(&Value) -> Option<T>,
    ) -> Result<Option<T>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => f(v)
                .map(Some)
                .ok_or_else(|| expected(&at(self.path, key), what, Some(v))),
        }
    }

    pub fn str(&self, key: &str) -> Result<String, String> {
        self.req(key, "a string", |v| v.as_str().map(str::to_string))
    }

    pub fn opt_str(&self, key: &str) -> Result<Option<String>, String> {
        self.opt(key, "a string", |v| v.as_str().map(str::to_string))
    }

    pub fn bool(&self, key: &str) -> Result<bool, String> {
        self.req(key, "a boolean", Value::as_bool)
    }

    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>, String> {
        self.opt(key, "a boolean", Value::as_bool)
    }

    pub fn u64(&self, key: &str) -> Result<u64, String> {
        self.req(key, "a whole number", whole)
    }

    pub fn opt_u64(&self, key: &str) -> Result<Option<u64>, String> {
        self.opt(key, "a whole number", whole)
    }

    pub fn u32(&self, key: &str) -> Result<u32, String> {
        self.req(key, "a whole number", |v| {
            whole(v).and_then(|n| u32::try_from(n).ok())
        })
    }

    pub fn opt_u32(&self, key: &str) -> Result<Option<u32>, String> {
        self.opt(key, "a whole number", |v| {
            whole(v).and_then(|n| u32::try_from(n).ok())
        })
    }

    pub fn i64(&self, key: &str) -> Result<i64, String> {
        self.req(key, "a whole number", |v| match v {
            Value::Number(n) => n.to_string().parse().ok(),
            _ => None,
        })
    }

    pub fn dec(&self, key: &str) -> Result<Dec, String> {
        self.req(key, "a non-negative decimal", dec)
    }

    pub fn opt_dec(&self, key: &str) -> Result<Option<Dec>, String> {
        self.opt(key, "a non-negative decimal", dec)
    }

    /// The object at `key`, read as `T`.
    pub fn obj<T: FromJson>(&self, key: &str) -> Result<T, String> {
        let path = at(self.path, key);
        match self.map.get(key) {
            Some(v) => T::from_json(v, &path),
            None => Err(expected(&path, "an object", None)),
        }
    }

    pub fn opt_obj<T: FromJson>(&self, key: &str) -> Result<Option<T>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => T::from_json(v, &at(self.path, key)).map(Some),
        }
    }

    /// The array at `key`, each item read as `T`.
    pub fn list<T: FromJson>(&self, key: &str) -> Result<Vec<T>, String> {
        let path = at(self.path, key);
        match self.map.get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| T::from_json(v, &format!("{path}[{i}]")))
                .collect(),
            other => Err(expected(&path, "an array", other)),
        }
    }

    /// An object of strings at `key` (absent: empty).
    pub fn string_map(&self, key: &str) -> Result<BTreeMap<String, String>, String> {
        let path = at(self.path, key);
        match self.get(key) {
            None => Ok(BTreeMap::new()),
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| {
                    v.as_str()
                        .map(|s| (k.clone(), s.to_string()))
                        .ok_or_else(|| expected(&at(&path, k), "a string", Some(v)))
                })
                .collect(),
            Some(other) => Err(expected(&path, "an object", Some(other))),
        }
    }
}

/// A JSON number that is a whole number (`7`, not `7.5`, `-1` or `"7"`).
fn whole(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.to_string().parse().ok(),
        _ => None,
    }
}

/// A decimal from a JSON number (its exact text) or a decimal string.
fn dec(v: &Value) -> Option<Dec> {
    match v {
        Value::Number(n) => Dec::parse(&n.to_string()),
        Value::String(s) => Dec::parse(s),
        _ => None,
    }
}

impl FromJson for TokenHolder {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let o = Obj::new(v, path)?;
        Ok(TokenHolder {
            id: o.str("id")?,
            address: o.str("address")?,
            balance: o.dec("balance")?,
            value: o.dec("value")?,
        })
    }
}

impl FromJson for Token {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let o = Obj::new(v, path)?;
        Ok(Token {
            id: o.str("id")?,
            address: o.str("address")?,
            name: o.str("name")?,
            symbol: o.str("symbol")?,
            decimals: o.u32("decimals")?,
            network: o.str("network")?,
            total_supply: o.dec("totalSupply")?,
            starting_app_supply: o.dec("startingAppSupply")?,
            remaining_app_supply: o.dec("remainingAppSupply")?,
            merchant_supply: o.dec("merchantSupply")?,
            liquidity_supply: o.dec("liquiditySupply")?,
            merchant_address: o.str("merchantAddress")?,
            price: o.opt_dec("price")?,
            can_distribute: o.bool("canDistribute")?,
            can_airdrop: o.bool("canAirdrop")?,
            can_lp: o.bool("canLP")?,
            image_url: o.opt_str("imageUrl")?,
            created_at: o.str("createdAt")?,
            origin: o.opt_str("origin")?,
            marketplace: o.opt_bool("marketplace")?,
            holders: o.list("holders")?,
            holders_count: o.u64("holdersCount")?,
        })
    }
}

/// The fields every holder item shares.
struct ItemBase {
    id: String,
    address: String,
    name: String,
    symbol: String,
    balance: Dec,
    value: Dec,
    status: String,
    kind: String,
}

fn item_base(o: &Obj) -> Result<ItemBase, String> {
    Ok(ItemBase {
        id: o.str("id")?,
        address: o.str("address")?,
        name: o.str("name")?,
        symbol: o.str("symbol")?,
        balance: o.dec("balance")?,
        value: o.dec("value")?,
        status: o.str("status")?,
        kind: o.str("type")?,
    })
}

impl FromJson for TokenItem {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let b = item_base(&Obj::new(v, path)?)?;
        Ok(TokenItem {
            id: b.id,
            address: b.address,
            name: b.name,
            symbol: b.symbol,
            balance: b.balance,
            value: b.value,
            status: b.status,
            kind: b.kind,
        })
    }
}

impl FromJson for LockItem {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let o = Obj::new(v, path)?;
        let b = item_base(&o)?;
        Ok(LockItem {
            id: b.id,
            address: b.address,
            name: b.name,
            symbol: b.symbol,
            balance: b.balance,
            value: b.value,
            status: b.status,
            kind: b.kind,
            unlock_date: o.str("unlockDate")?,
        })
    }
}

impl FromJson for PresaleItemMetadata {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let o = Obj::new(v, path)?;
        Ok(PresaleItemMetadata {
            presale_id: o.str("presaleId")?,
            progress: o.dec("progress")?,
            end_date: o.str("endDate")?,
        })
    }
}

impl FromJson for PresaleItem {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let o = Obj::new(v, path)?;
        let b = item_base(&o)?;
        Ok(PresaleItem {
            id: b.id,
            address: b.address,
            name: b.name,
            symbol: b.symbol,
            balance: b.balance,
            value: b.value,
            status: b.status,
            kind: b.kind,
            metadata: o.obj("metadata")?,
        })
    }
}

impl FromJson for HolderFull {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let o = Obj::new(v, path)?;
        Ok(HolderFull {
            success: o.bool("success")?,
            id: o.str("id")?,
            address: o.str("address")?,
            total_value: o.dec("totalValue")?,
            tokens: o.list("tokens")?,
            presales: o.list("presales")?,
            locks: o.list("locks")?,
        })
    }
}

impl FromJson for TokenBalance {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let o = Obj::new(v, path)?;
        Ok(TokenBalance {
            name: o.str("name")?,
            symbol: o.str("symbol")?,
            id: o.str("id")?,
            address: o.str("address")?,
            balance: o.dec("balance")?,
            value: o.dec("value")?,
            locked_balance: o.opt_dec("lockedBalance")?,
            decimals: o.opt_u32("decimals")?,
        })
    }
}

impl FromJson for PresaleParticipant {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let o = Obj::new(v, path)?;
        Ok(PresaleParticipant {
            id: o.str("id")?,
            address: o.str("address")?,
            usdc_amount: o.dec("usdcAmount")?,
            token_percentage: o.dec("tokenPercentage")?,
        })
    }
}

impl FromJson for PresaleTokenInfo {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let o = Obj::new(v, path)?;
        Ok(PresaleTokenInfo {
            name: o.str("name")?,
            symbol: o.str("symbol")?,
            image_url: o.str("imageUrl")?,
        })
    }
}

impl FromJson for CompletionState {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let o = Obj::new(v, path)?;
        Ok(CompletionState {
            step: o.str("step")?,
            transactions: o.string_map("transactions")?,
            retry_count: o.opt_u32("retryCount")?.unwrap_or(0),
            last_error: o.opt_str("lastError")?,
        })
    }
}

impl FromJson for PresaleInfo {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let o = Obj::new(v, path)?;
        Ok(PresaleInfo {
            distributed: o.bool("distributed")?,
            distribute_tx_hash: o.opt_str("distributeTxHash")?,
        })
    }
}

impl FromJson for TokenDeploymentInfo {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let o = Obj::new(v, path)?;
        Ok(TokenDeploymentInfo {
            token_address: o.str("tokenAddress")?,
            hash: o.str("hash")?,
            amount_tokens_bought: o.str("amountTokensBought")?,
        })
    }
}

impl FromJson for Presale {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let o = Obj::new(v, path)?;
        Ok(Presale {
            id: o.str("id")?,
            name: o.str("name")?,
            description: o.str("description")?,
            start_timestamp: o.i64("startTimestamp")?,
            end_timestamp: o.i64("endTimestamp")?,
            target_usdc_amount: o.dec("targetUsdcAmount")?,
            purchased_usdc_amount: o.dec("purchasedUsdcAmount")?,
            status: o.str("status")?,
            participants: o.list("participants")?,
            token_info: o.obj("tokenInfo")?,
            signer_address: o.opt_str("signerAddress")?,
            lock_duration: o.opt_u32("lockDuration")?,
            auto_launch: o.opt_bool("autoLaunch")?,
            lockup_percentage: o.opt_u32("lockupPercentage")?,
            token_address: o.opt_str("tokenAddress")?,
            completion_state: o.opt_obj("completionState")?,
            presale_info: o.opt_obj("presaleInfo")?,
            token_deployment_info: o.opt_obj("tokenDeploymentInfo")?,
        })
    }
}

impl FromJson for FormatOptions {
    fn from_json(v: &Value, path: &str) -> Result<Self, String> {
        let o = Obj::new(v, path)?;
        let digits = |key: &str| -> Result<Option<u8>, String> {
            o.opt(key, "a whole number 0..=255", |v| {
                whole(v).and_then(|n| u8::try_from(n).ok())
            })
        };
        Ok(FormatOptions {
            locale: o.opt_str("locale")?,
            maximum_fraction_digits: digits("maximumFractionDigits")?,
            minimum_fraction_digits: digits("minimumFractionDigits")?,
            value_fraction_digits: digits("valueFractionDigits")?,
            rounding_mode: o.opt_str("roundingMode")?,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::model::fixtures::*;

    #[test]
    fn reads_every_fixture() {
        let t: Token = from_str(TOKEN).unwrap();
        assert_eq!(t.holders.len(), 2);
        assert!(t.image_url.is_none());
        let h: HolderFull = from_str(HOLDER).unwrap();
        assert_eq!(
            h.presales[0].metadata.presale_id,
            "6f1c1b2e-8a8e-4a53-9d57-0d7c3b8e9a10"
        );
        let p: Presale = from_str(PRESALE).unwrap();
        assert_eq!(p.start_timestamp, 1_795_262_400);
        let b: TokenBalance = from_str(BALANCE).unwrap();
        assert_eq!(b.locked_balance, Some(Dec::zero()));
        assert_eq!(b.decimals, Some(18));
    }

    #[test]
    fn errors_name_the_field_by_path() {
        let mut v: Value = serde_json::from_str(HOLDER).unwrap();
        v["tokens"][1]["balance"] = Value::String("-1".into());
        assert_eq!(
            HolderFull::from_json(&v, "").unwrap_err(),
            "tokens[1].balance: expected a non-negative decimal, got a string"
        );
        v["tokens"] = Value::Null;
        assert_eq!(
            HolderFull::from_json(&v, "").unwrap_err(),
            "tokens: expected an array, got null"
        );
        let mut v: Value = serde_json::from_str(PRESALE).unwrap();
        v.as_object_mut().unwrap().remove("tokenInfo");
        assert_eq!(
            Presale::from_json(&v, "").unwrap_err(),
            "tokenInfo: missing (expected an object)"
        );
        v["tokenInfo"] = serde_json::json!({"name": "M", "symbol": 5, "imageUrl": ""});
        assert_eq!(
            Presale::from_json(&v, "").unwrap_err(),
            "tokenInfo.symbol: expected a string, got a number"
        );
        assert_eq!(
            from_str::<Token>("[1]").unwrap_err(),
            "the value: expected an object, got an array"
        );
        assert!(from_str::<Token>("{").is_err());
    }

    #[test]
    fn numbers_keep_their_exact_text_and_integers_stay_whole() {
        let mut v: Value = serde_json::from_str(PRESALE).unwrap();
        v["targetUsdcAmount"] = serde_json::from_str("123456789012345678901234.000001").unwrap();
        v["lockDuration"] = serde_json::from_str("7.5").unwrap();
        assert!(Presale::from_json(&v, "")
            .unwrap_err()
            .starts_with("lockDuration:"));
        v["lockDuration"] = serde_json::from_str("7").unwrap();
        let p = Presale::from_json(&v, "").unwrap();
        assert_eq!(
            p.target_usdc_amount.to_string(),
            "123456789012345678901234.000001"
        );
        assert_eq!(p.lock_duration, Some(7));
    }

    #[test]
    fn format_options() {
        let o: FormatOptions =
            from_str(r#"{"locale":"de-DE","maximumFractionDigits":2,"roundingMode":"trunc"}"#)
                .unwrap();
        assert_eq!(o.locale.as_deref(), Some("de-DE"));
        assert_eq!(o.maximum_fraction_digits, Some(2));
        assert!(from_str::<FormatOptions>(r#"{"maximumFractionDigits":-1}"#).is_err());
        assert_eq!(
            from_str::<FormatOptions>("{}").unwrap(),
            FormatOptions::default()
        );
    }
}
