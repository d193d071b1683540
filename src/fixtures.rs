//! Service answers as the worker writes them (the core's wire types), for the native tests.

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
