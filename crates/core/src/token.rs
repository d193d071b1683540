//! Tokens and their supply model.
//!
//! A token's supply is split into the app supply (what the merchant distributes to its users),
//! the merchant's own supply, and the liquidity reserve; whatever has left those pools sits in
//! some address's balance. The conservation invariant, checked after every operation:
//!
//! `totalSupply = remainingAppSupply + merchantSupply + liquiditySupply + Σ balances`
//!
//! `held` is that Σ, kept in the token row so the check costs nothing per operation; the
//! property tests recompute it from every balance.

use crate::address::Address;
use crate::error::{Error, ErrorCode, Result};
use crate::input::{self, Object};
use crate::money::{self, TOKEN_DECIMALS, USDC_DECIMALS};
use crate::time::{iso8601, Millis};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Network {
    Base,
    BaseSepolia,
    Sepolia,
}

impl Network {
    pub const ALL: [Network; 3] = [Network::Base, Network::BaseSepolia, Network::Sepolia];

    pub fn as_str(self) -> &'static str {
        match self {
            Network::Base => "base",
            Network::BaseSepolia => "base-sepolia",
            Network::Sepolia => "sepolia",
        }
    }

    pub fn parse(s: &str) -> Result<Network> {
        Network::ALL
            .into_iter()
            .find(|n| n.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Network::ALL.iter().map(|n| n.as_str()).collect();
                Error::new(
                    ErrorCode::InvalidNetwork,
                    format!("network must be one of: {}", names.join(", ")),
                )
                .with("field", "network")
                .with("allowed", names)
            })
    }
}

/// What a token is to the merchant: its own token, or the USDC it holds for its users.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    Merchant,
    Usdc,
}

/// How a token came to be. Presale and template tokens are Tokens like any other; the origin
/// says which flow made them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenOrigin {
    /// `POST /merchant/create-token` (the dashboard's operation).
    #[default]
    Dashboard,
    Presale,
    Memecoin,
    Airdrop,
    /// The merchant's USDC ledger.
    Usdc,
}

impl TokenOrigin {
    pub fn as_str(self) -> &'static str {
        match self {
            TokenOrigin::Dashboard => "dashboard",
            TokenOrigin::Presale => "presale",
            TokenOrigin::Memecoin => "memecoin",
            TokenOrigin::Airdrop => "airdrop",
            TokenOrigin::Usdc => "usdc",
        }
    }
}

/// Circle's USDC contract on Base: the address USDC balances are reported under.
pub const USDC_ADDRESS: &str = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Token {
    pub address: Address,
    pub kind: TokenKind,
    pub name: String,
    pub symbol: String,
    pub decimals: u8,
    pub network: Network,
    pub total_supply: u128,
    pub starting_app_supply: u128,
    pub remaining_app_supply: u128,
    pub merchant_supply: u128,
    pub liquidity_supply: u128,
    /// Σ of every address's balance (active and locked).
    pub held: u128,
    /// Held by the service on behalf of a pending operation: the USDC paid into presales
    /// that have neither launched nor refunded yet.
    #[serde(default)]
    pub escrow: u128,
    pub merchant_address: Address,
    /// USD per whole token with PRICE_DECIMALS decimals; None until a price exists.
    pub price: Option<u128>,
    pub can_distribute: bool,
    pub can_airdrop: bool,
    pub can_lp: bool,
    pub image_url: Option<String>,
    pub created_at: Millis,
    #[serde(default)]
    pub origin: TokenOrigin,
    /// Listed on the service's marketplace (template deployments).
    #[serde(default)]
    pub marketplace: bool,
}

impl Token {
    /// The one rule every token obeys. An error here is a bug in the ledger, so it is an
    /// internal error: the operation is refused and rolled back rather than stored.
    pub fn check_conservation(&self) -> Result<()> {
        let accounted = self
            .remaining_app_supply
            .checked_add(self.merchant_supply)
            .and_then(|s| s.checked_add(self.liquidity_supply))
            .and_then(|s| s.checked_add(self.escrow))
            .and_then(|s| s.checked_add(self.held));
        if accounted == Some(self.total_supply) {
            Ok(())
        } else {
            Err(Error::internal(format!(
                "conservation broken for {}: total {} != app {} + merchant {} + liquidity {} + escrow {} + held {}",
                self.address,
                self.total_supply,
                self.remaining_app_supply,
                self.merchant_supply,
                self.liquidity_supply,
                self.escrow,
                self.held
            )))
        }
    }

    /// The merchant's USDC ledger: supply grows with deposits and shrinks with withdrawals.
    pub fn usdc(merchant_address: Address, now: Millis) -> Result<Token> {
        Ok(Token {
            address: input::parse_address("usdc", USDC_ADDRESS)?,
            kind: TokenKind::Usdc,
            name: "USD Coin".into(),
            symbol: "USDC".into(),
            decimals: USDC_DECIMALS,
            network: Network::Base,
            total_supply: 0,
            starting_app_supply: 0,
            remaining_app_supply: 0,
            merchant_supply: 0,
            liquidity_supply: 0,
            held: 0,
            escrow: 0,
            merchant_address,
            price: money::pow10(u32::from(money::PRICE_DECIMALS)),
            can_distribute: false,
            can_airdrop: false,
            can_lp: false,
            image_url: None,
            created_at: now,
            origin: TokenOrigin::Usdc,
            marketplace: false,
        })
    }

    pub fn value_of(&self, balance: u128) -> u128 {
        self.price
            .map(|p| money::value_micro_usd(balance, self.decimals, p))
            .unwrap_or(0)
    }

    pub fn amount(&self, base_units: u128) -> Value {
        money::amount_json(base_units, self.decimals)
    }
}

/// One row of a token's holder list, as the store returns it.
#[derive(Clone, Debug, PartialEq)]
pub struct HolderRow {
    pub owner: Address,
    pub balance: u128,
    /// The merchant's userId when the address is one of its custodial holders.
    pub user_id: Option<String>,
}

pub fn value_json(micro_usd: u128) -> Value {
    money::amount_json(micro_usd, money::VALUE_DECIMALS)
}

/// The Token object of the interface (plus additive fields), with its top holders.
pub fn token_json(token: &Token, holders: &[HolderRow], holders_count: u64) -> Value {
    let holders: Vec<Value> = holders
        .iter()
        .map(|h| {
            json!({
                "id": h.user_id.clone().unwrap_or_else(|| h.owner.to_checksum()),
                "address": h.owner.to_checksum(),
                "balance": token.amount(h.balance),
                "value": value_json(token.value_of(h.balance)),
            })
        })
        .collect();
    let address = token.address.to_checksum();
    json!({
        "id": address,
        "address": address,
        "name": token.name,
        "symbol": token.symbol,
        "decimals": token.decimals,
        "network": token.network.as_str(),
        "totalSupply": token.amount(token.total_supply),
        "startingAppSupply": token.amount(token.starting_app_supply),
        "remainingAppSupply": token.amount(token.remaining_app_supply),
        "merchantSupply": token.amount(token.merchant_supply),
        "liquiditySupply": token.amount(token.liquidity_supply),
        "merchantAddress": token.merchant_address.to_checksum(),
        "price": token.price.map(|p| money::amount_json(p, money::PRICE_DECIMALS)),
        "canDistribute": token.can_distribute,
        "canAirdrop": token.can_airdrop,
        "canLP": token.can_lp,
        "imageUrl": token.image_url,
        "createdAt": iso8601(token.created_at),
        "origin": token.origin.as_str(),
        "marketplace": token.marketplace,
        "holders": holders,
        "holdersCount": holders_count,
    })
}

/// What `POST /merchant/create-token` asks for, validated, with the contract's defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreateToken {
    pub name: String,
    pub symbol: String,
    pub network: Network,
    pub total_supply: u128,
    pub merchant_address: Option<Address>,
    pub can_distribute: bool,
    pub can_airdrop: bool,
    pub can_lp: bool,
    pub image_url: Option<String>,
}

pub const DEFAULT_TOTAL_SUPPLY_TOKENS: u128 = 1_000_000_000;
/// Share of the supply for the app (startingAppSupply) and the merchant, in percent;
/// the rest is the liquidity reserve.
pub const APP_SHARE_PERCENT: u128 = 15;
pub const MERCHANT_SHARE_PERCENT: u128 = 5;

/// A new token's `name` and `symbol` from a request, by the rules every token shares (made
/// by the dashboard operation, a presale or a template): a name of 1 to 64 characters and a
/// symbol of 1 to 11 ASCII letters or digits.
pub fn parse_name_symbol(m: &Object) -> Result<(String, String)> {
    let name = input::req_str(m, "name")?;
    if name.chars().count() > 64 {
        return Err(Error::field("name", "name must be at most 64 characters"));
    }
    let symbol = input::req_str(m, "symbol")?;
    if symbol.len() > 11 || !symbol.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(Error::field(
            "symbol",
            "symbol must be 1 to 11 letters or digits",
        ));
    }
    Ok((name, symbol))
}

impl CreateToken {
    pub fn parse(m: &Object) -> Result<CreateToken> {
        let (name, symbol) = parse_name_symbol(m)?;
        let network = match input::opt_str(m, "network")? {
            Some(n) => Network::parse(&n)?,
            None => Network::Base,
        };
        let total_supply = match m.get("totalSupply").filter(|v| !v.is_null()) {
            Some(v) => money::parse_amount_value("totalSupply", v, TOKEN_DECIMALS)?,
            None => DEFAULT_TOTAL_SUPPLY_TOKENS * money::pow10(18).unwrap_or(1),
        };
        Ok(CreateToken {
            name,
            symbol,
            network,
            total_supply,
            merchant_address: input::opt_address(m, "merchantAddress")?,
            can_distribute: input::opt_bool(m, "canDistribute")?.unwrap_or(true),
            can_airdrop: input::opt_bool(m, "canAirdrop")?.unwrap_or(false),
            can_lp: input::opt_bool(m, "canLP")?.unwrap_or(false),
            image_url: input::opt_http_url(m, "imageUrl")?,
        })
    }

    /// The token this request creates at `address`, its supply split 15 / 5 / 80.
    pub fn into_token(self, address: Address, merchant_wallet: Address, now: Millis) -> Token {
        let app = self.total_supply / 100 * APP_SHARE_PERCENT
            + self.total_supply % 100 * APP_SHARE_PERCENT / 100;
        let merchant = self.total_supply / 100 * MERCHANT_SHARE_PERCENT
            + self.total_supply % 100 * MERCHANT_SHARE_PERCENT / 100;
        Token {
            address,
            kind: TokenKind::Merchant,
            name: self.name,
            symbol: self.symbol,
            decimals: TOKEN_DECIMALS,
            network: self.network,
            total_supply: self.total_supply,
            starting_app_supply: app,
            remaining_app_supply: app,
            merchant_supply: merchant,
            liquidity_supply: self.total_supply - app - merchant,
            held: 0,
            escrow: 0,
            merchant_address: self.merchant_address.unwrap_or(merchant_wallet),
            price: None,
            can_distribute: self.can_distribute,
            can_airdrop: self.can_airdrop,
            can_lp: self.can_lp,
            image_url: self.image_url,
            created_at: now,
            origin: TokenOrigin::Dashboard,
            marketplace: false,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn create_token_defaults_and_split() {
        let m = input::object(&json!({"name": "Demo", "symbol": "DEMO"})).unwrap();
        let req = CreateToken::parse(&m).unwrap();
        assert_eq!(req.network, Network::Base);
        assert!(req.can_distribute);
        let t = req.into_token(Address::ZERO, Address::ZERO, 0);
        let one = money::pow10(18).unwrap();
        assert_eq!(t.total_supply, 1_000_000_000 * one);
        assert_eq!(t.starting_app_supply, 150_000_000 * one);
        assert_eq!(t.merchant_supply, 50_000_000 * one);
        assert_eq!(t.liquidity_supply, 800_000_000 * one);
        t.check_conservation().unwrap();
    }

    #[test]
    fn odd_supplies_still_conserve() {
        for total in ["1", "0.000000000000000001", "0.000000000000000199", "7.77"] {
            let m =
                input::object(&json!({"name": "T", "symbol": "T", "totalSupply": total})).unwrap();
            let t = CreateToken::parse(&m)
                .unwrap()
                .into_token(Address::ZERO, Address::ZERO, 0);
            t.check_conservation().unwrap();
        }
    }

    #[test]
    fn create_token_validation_table() {
        let table = [
            (json!({"symbol": "X"}), "invalid_request"),
            (json!({"name": "X"}), "invalid_request"),
            (
                json!({"name": "X", "symbol": "BAD SYMBOL"}),
                "invalid_request",
            ),
            (
                json!({"name": "X", "symbol": "X", "network": "mainnet"}),
                "invalid_network",
            ),
            (
                json!({"name": "X", "symbol": "X", "totalSupply": 0}),
                "invalid_amount",
            ),
            (
                json!({"name": "X", "symbol": "X", "totalSupply": -5}),
                "invalid_amount",
            ),
            (
                json!({"name": "X", "symbol": "X", "merchantAddress": "0x12"}),
                "invalid_address",
            ),
            (
                json!({"name": "X", "symbol": "X", "canDistribute": "yes"}),
                "invalid_request",
            ),
            (
                json!({"name": "X", "symbol": "X", "imageUrl": "file:///etc/passwd"}),
                "invalid_request",
            ),
            (json!({"name": 5, "symbol": "X"}), "invalid_request"),
        ];
        for (body, code) in table {
            let m = input::object(&body).unwrap();
            let err = CreateToken::parse(&m).unwrap_err();
            assert_eq!(err.code.as_str(), code, "{body}");
        }
    }
}
