//! The service's public objects, as the client returns them (field names as on the wire).
//!
//! Every amount is a [`Dec`], read (by `json.rs`) from the exact text of the JSON number and handed to
//! JavaScript as a decimal string. Integers that stay far below 2^53 (timestamps, counts,
//! decimals) are numbers. The TypeScript declarations of these shapes are in
//! `src/tokenpad.d.ts`; `openapi.json` is the source of truth for both.

use crate::decimal::Dec;
use serde::Serialize;
use std::collections::BTreeMap;

/// `GET /token/:address`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Token {
    pub id: String,
    pub address: String,
    pub name: String,
    pub symbol: String,
    pub decimals: u32,
    pub network: String,
    pub total_supply: Dec,
    pub starting_app_supply: Dec,
    pub remaining_app_supply: Dec,
    pub merchant_supply: Dec,
    pub liquidity_supply: Dec,
    pub merchant_address: String,
    pub price: Option<Dec>,
    pub can_distribute: bool,
    pub can_airdrop: bool,
    #[serde(rename = "canLP")]
    pub can_lp: bool,
    pub image_url: Option<String>,
    pub created_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marketplace: Option<bool>,
    pub holders: Vec<TokenHolder>,
    pub holders_count: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TokenHolder {
    pub id: String,
    pub address: String,
    pub balance: Dec,
    pub value: Dec,
}

/// `GET /holder/:userId`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HolderFull {
    pub success: bool,
    pub id: String,
    pub address: String,
    pub total_value: Dec,
    pub tokens: Vec<TokenItem>,
    pub presales: Vec<PresaleItem>,
    pub locks: Vec<LockItem>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TokenItem {
    pub id: String,
    pub address: String,
    pub name: String,
    pub symbol: String,
    pub balance: Dec,
    pub value: Dec,
    pub status: String,
    #[serde(rename = "type")]
    pub kind: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LockItem {
    pub id: String,
    pub address: String,
    pub name: String,
    pub symbol: String,
    pub balance: Dec,
    pub value: Dec,
    pub status: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub unlock_date: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PresaleItem {
    pub id: String,
    pub address: String,
    pub name: String,
    pub symbol: String,
    pub balance: Dec,
    pub value: Dec,
    pub status: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub metadata: PresaleItemMetadata,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PresaleItemMetadata {
    pub presale_id: String,
    pub progress: Dec,
    pub end_date: String,
}

/// `GET /holder/:userIdOrAddress/token/:tokenAddress`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenBalance {
    pub name: String,
    pub symbol: String,
    pub id: String,
    pub address: String,
    pub balance: Dec,
    pub value: Dec,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locked_balance: Option<Dec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decimals: Option<u32>,
}

/// `GET /token/presales/:presaleId` (public form); the merchant form adds the optional fields.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Presale {
    pub id: String,
    pub name: String,
    pub description: String,
    pub start_timestamp: i64,
    pub end_timestamp: i64,
    pub target_usdc_amount: Dec,
    pub purchased_usdc_amount: Dec,
    pub status: String,
    pub participants: Vec<PresaleParticipant>,
    pub token_info: PresaleTokenInfo,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signer_address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lock_duration: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_launch: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lockup_percentage: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion_state: Option<CompletionState>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presale_info: Option<PresaleInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_deployment_info: Option<TokenDeploymentInfo>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PresaleParticipant {
    pub id: String,
    pub address: String,
    pub usdc_amount: Dec,
    pub token_percentage: Dec,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PresaleTokenInfo {
    pub name: String,
    pub symbol: String,
    pub image_url: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompletionState {
    pub step: String,
    pub transactions: BTreeMap<String, String>,
    pub retry_count: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PresaleInfo {
    pub distributed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distribute_tx_hash: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenDeploymentInfo {
    pub token_address: String,
    pub hash: String,
    /// Base units (18 decimals) as a digit string, as the service writes it.
    pub amount_tokens_bought: String,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod fixtures {
    //! Service responses as the worker writes them (shapes from openapi.json).

    pub const TOKEN: &str = r#"{
      "id": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
      "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
      "name": "Demo Token", "symbol": "DEMO", "decimals": 18, "network": "base",
      "totalSupply": 1000000000, "startingAppSupply": 150000000,
      "remainingAppSupply": 149998765.432109876543210988,
      "merchantSupply": 50000000, "liquiditySupply": 800000000,
      "merchantAddress": "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
      "price": 0.15, "canDistribute": true, "canAirdrop": false, "canLP": false,
      "imageUrl": null, "createdAt": "2026-11-21T12:00:00.000Z", "origin": "dashboard",
      "marketplace": false,
      "holders": [
        {"id": "alice", "address": "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
         "balance": 1234.567890123456789012, "value": 185.185183},
        {"id": "bob", "address": "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
         "balance": 0.000000000000000001, "value": 0}
      ],
      "holdersCount": 2
    }"#;

    pub const HOLDER: &str = r#"{
      "success": true, "id": "alice", "address": "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
      "totalValue": 1285.185183,
      "tokens": [
        {"id": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
         "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "name": "Demo Token",
         "symbol": "DEMO", "balance": 1234.567890123456789012, "value": 185.185183,
         "status": "active", "type": "token"},
        {"id": "0x0000000000000000000000000000000000000Usd",
         "address": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "name": "USD Coin",
         "symbol": "USDC", "balance": 40, "value": 40, "status": "active", "type": "token"}
      ],
      "presales": [
        {"id": "0x1111111111111111111111111111111111111111",
         "address": "0x1111111111111111111111111111111111111111", "name": "Moon",
         "symbol": "MOON", "balance": 75000000, "value": 60, "status": "pending",
         "type": "presale",
         "metadata": {"presaleId": "6f1c1b2e-8a8e-4a53-9d57-0d7c3b8e9a10", "progress": 60,
                      "endDate": "2026-11-21T13:00:00.000Z"}}
      ],
      "locks": [
        {"id": "0x2222222222222222222222222222222222222222",
         "address": "0x2222222222222222222222222222222222222222", "name": "Star",
         "symbol": "STAR", "balance": 250000000, "value": 1000, "status": "locked",
         "type": "lock", "unlockDate": "2026-11-28T12:00:00.000Z"}
      ]
    }"#;

    pub const PRESALE: &str = r#"{
      "id": "6f1c1b2e-8a8e-4a53-9d57-0d7c3b8e9a10", "name": "Moon launch",
      "description": "The MOON presale", "startTimestamp": 1795262400,
      "endTimestamp": 1795266000, "targetUsdcAmount": 100, "purchasedUsdcAmount": 60.5,
      "status": "active",
      "participants": [
        {"id": "carol", "address": "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
         "usdcAmount": 0.5, "tokenPercentage": 0.826446},
        {"id": "bob", "address": "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
         "usdcAmount": 60, "tokenPercentage": 99.173553}
      ],
      "tokenInfo": {"name": "Moon", "symbol": "MOON", "imageUrl": "https://example.com/moon.png"}
    }"#;

    pub const BALANCE: &str = r#"{
      "name": "Demo Token", "symbol": "DEMO",
      "id": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
      "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
      "balance": 9007199254740993.000000000000000001, "lockedBalance": 0,
      "value": 1351079888211148.95, "decimals": 18
    }"#;
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::fixtures::*;
    use super::*;

    #[test]
    fn reads_every_shape_with_exact_amounts() {
        let t: Token = crate::json::from_str(TOKEN).unwrap();
        assert_eq!(
            t.remaining_app_supply.to_string(),
            "149998765.432109876543210988"
        );
        assert_eq!(t.holders[1].balance.to_string(), "0.000000000000000001");
        assert_eq!(
            t.price.as_ref().map(ToString::to_string),
            Some("0.15".into())
        );
        assert!(t.can_distribute && !t.can_lp);

        let h: HolderFull = crate::json::from_str(HOLDER).unwrap();
        assert_eq!(h.locks[0].unlock_date, "2026-11-28T12:00:00.000Z");
        assert_eq!(h.presales[0].metadata.progress.to_string(), "60");

        let p: Presale = crate::json::from_str(PRESALE).unwrap();
        assert_eq!(p.purchased_usdc_amount.to_string(), "60.5");
        assert_eq!(p.completion_state, None);

        let b: TokenBalance = crate::json::from_str(BALANCE).unwrap();
        assert_eq!(b.balance.to_string(), "9007199254740993.000000000000000001");
    }

    #[test]
    fn writes_the_wire_names_with_amounts_as_strings() {
        let t: Token = crate::json::from_str(TOKEN).unwrap();
        let v = serde_json::to_value(&t).unwrap();
        for key in [
            "totalSupply",
            "startingAppSupply",
            "remainingAppSupply",
            "canLP",
            "imageUrl",
            "holdersCount",
        ] {
            assert!(v.get(key).is_some(), "{key}");
        }
        assert_eq!(v["remainingAppSupply"], "149998765.432109876543210988");
        assert!(v["imageUrl"].is_null());
        let h: HolderFull = crate::json::from_str(HOLDER).unwrap();
        let v = serde_json::to_value(&h).unwrap();
        assert_eq!(v["tokens"][0]["type"], "token");
        assert_eq!(v["locks"][0]["unlockDate"], "2026-11-28T12:00:00.000Z");
        let p: Presale = crate::json::from_str(PRESALE).unwrap();
        let v = serde_json::to_value(&p).unwrap();
        assert!(v.get("completionState").is_none());
        assert_eq!(v["tokenInfo"]["imageUrl"], "https://example.com/moon.png");
    }

    #[test]
    fn reads_the_merchant_presale_form() {
        let mut v: serde_json::Value = serde_json::from_str(PRESALE).unwrap();
        v["completionState"] = serde_json::json!({
            "step": "token-created", "retryCount": 1,
            "transactions": {"swapTx": "0xabc", "tokenCreationTx": "0xdef"}
        });
        v["presaleInfo"] = serde_json::json!({"distributed": false});
        v["lockDuration"] = serde_json::json!(7);
        let p: Presale = crate::json::from_str(&v.to_string()).unwrap();
        let c = p.completion_state.unwrap();
        assert_eq!(c.step, "token-created");
        assert_eq!(c.transactions["swapTx"], "0xabc");
        assert_eq!(p.lock_duration, Some(7));
    }
}
