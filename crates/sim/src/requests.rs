//! A step's request as a client would send it: its method, path and JSON body, with the
//! indexes of the step resolved against what exists now.

use crate::node::Request;
use crate::step::{Req, Usdc};
use serde_json::{json, Value};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::token::TokenKind;
use tokenpad_core::store::mem::MemStore;

/// Outside wallets (withdrawals' destinations, airdrop addresses, outside senders).
pub fn outside(n: u8) -> Address {
    let mut a = [0x0a; 20];
    a[19] = n % 4;
    a[0] = 0xee;
    Address(a)
}

pub fn user(n: u8) -> String {
    format!("u{}", n % 8)
}

/// The merchant tokens, in creation order.
pub fn tokens(store: &MemStore) -> Vec<String> {
    store
        .tokens
        .iter()
        .filter(|t| t.kind == TokenKind::Merchant)
        .map(|t| t.address.to_checksum())
        .collect()
}

fn pick(list: &[String], n: u8, none: &str) -> String {
    if list.is_empty() {
        return none.to_string();
    }
    list[usize::from(n) % list.len()].clone()
}

/// A token by index (an address nothing has, when there is none).
pub fn token(store: &MemStore, n: u8) -> String {
    pick(
        &tokens(store),
        n,
        "0x000000000000000000000000000000000000bEEF",
    )
}

/// A presale by index, newest first (the older ones have mostly ended).
fn presale(store: &MemStore, n: u8) -> String {
    let ids: Vec<String> = store
        .presales
        .iter()
        .rev()
        .map(|p| p.id.as_str().to_string())
        .collect();
    pick(&ids, n, "no-such-presale")
}

fn webhook(store: &MemStore, n: u8) -> String {
    let ids: Vec<String> = store
        .log
        .webhooks
        .iter()
        .map(|w| w.id.as_str().to_string())
        .collect();
    pick(&ids, n, "wh_00000000000000000000000000000000")
}

fn holder_address(store: &MemStore, n: u8) -> String {
    let id = user(n);
    store
        .holders
        .iter()
        .find(|h| h.user_id.as_str() == id)
        .map_or_else(|| outside(n).to_checksum(), |h| h.address.to_checksum())
}

/// A USDC amount as a JSON number (its exact decimal text: serde_json keeps a number's text),
/// as clients send USDC; token amounts go as decimal strings.
fn number(usdc: Usdc) -> Value {
    serde_json::from_str(&usdc.text()).unwrap_or(Value::Null)
}

/// The request `req` is now: method, path, body.
pub fn build(store: &MemStore, now_s: u64, req: &Req) -> Request {
    let (method, path, body): (&'static str, String, Value) = match req {
        Req::PutHolder { user: u } => ("PUT", format!("/holder/{}", user(*u)), Value::Null),
        Req::Distribute {
            token: t,
            user: u,
            amount,
        } => (
            "POST",
            format!("/token/{}/distribute", token(store, *t)),
            json!({ "sendToId": user(*u), "amount": amount.text() }),
        ),
        Req::Spend {
            user: u,
            token: t,
            amount,
        } => (
            "POST",
            format!("/holder/{}/spend", user(*u)),
            json!({ "tokenAddress": token(store, *t), "amount": amount.text() }),
        ),
        Req::Transfer {
            user: u,
            token: t,
            to,
            amount,
        } => (
            "POST",
            format!("/holder/{}/transfer", user(*u)),
            json!({ "tokenAddress": token(store, *t), "amount": amount.text(), "toAddress": holder_address(store, *to) }),
        ),
        Req::Withdraw {
            user: u,
            token: t,
            to,
            amount,
        } => (
            "POST",
            format!("/holder/{}/withdraw", user(*u)),
            json!({ "tokenAddress": token(store, *t), "amount": amount.text(), "toAddress": outside(*to).to_checksum() }),
        ),
        Req::CreateToken { n, supply } => (
            "POST",
            "/merchant/create-token".into(),
            json!({ "name": format!("Sim {n}"), "symbol": format!("SIM{n}"), "canDistribute": true, "canLP": true, "totalSupply": supply.text() }),
        ),
        Req::CreatePresale {
            target,
            minutes,
            lockup,
            auto,
            lock_days,
        } => (
            "POST",
            "/merchant/presale".into(),
            json!({
                "name": "Sim presale", "description": "A simulated presale",
                "startTimestamp": now_s, "endTimestamp": now_s + u64::from(*minutes) * 60,
                "targetUsdcAmount": number(*target), "autoLaunch": auto, "lockDuration": lock_days,
                "tokenInfo": { "name": "Presold", "symbol": "PRE", "imageUrl": "https://img.example/pre.png",
                               "deploymentConfig": { "lockupPercentage": lockup } },
            }),
        ),
        Req::BuyPresale {
            user: u,
            presale: p,
            usdc,
        } => (
            "POST",
            format!("/holder/{}/buy-presale", user(*u)),
            json!({ "presaleId": presale(store, *p), "usdcAmount": number(*usdc) }),
        ),
        Req::Resolve { presale: p } => (
            "POST",
            "/merchant/presale/resolve".into(),
            json!({ "presaleId": presale(store, *p) }),
        ),
        Req::OpenPool {
            token: t,
            cents,
            amount,
        } => (
            "POST",
            format!("/token/{}/liquidity", token(store, *t)),
            json!({ "initialStartingPrice": format!("{}.{:02}", cents / 100, cents % 100), "amount": amount.text() }),
        ),
        Req::Buy {
            user: u,
            token: t,
            usdc,
            slippage_bps,
        } => (
            "POST",
            format!("/holder/{}/buy", user(*u)),
            json!({ "tokenAddress": token(store, *t), "usdcAmount": number(*usdc), "slippageBps": slippage_bps }),
        ),
        Req::Sell {
            user: u,
            token: t,
            amount,
        } => (
            "POST",
            format!("/holder/{}/sell", user(*u)),
            json!({ "tokenAddress": token(store, *t), "tokenAmount": amount.text() }),
        ),
        Req::Memecoin {
            supply,
            micro,
            recipient,
        } => (
            "POST",
            "/template/memecoin".into(),
            json!({ "name": "Meme", "symbol": "MEME", "totalSupply": supply.text(), "initialPrice": format!("0.{micro:06}"),
                    "network": "base", "marketplace": true,
                    "recipient": { "address": outside(1).to_checksum(), "amount": recipient.text() } }),
        ),
        Req::Airdrop { wallets, each } => (
            "POST",
            "/template/airdrop".into(),
            json!({ "name": "Drop", "symbol": "DROP", "totalSupply": 1_000_000, "initialPrice": "0.5", "network": "base",
                    "marketplace": false,
                    "airdrop": { "addresses": (0..*wallets).map(|w| outside(w).to_checksum()).collect::<Vec<_>>(), "supply": each.text() },
                    "recipient": { "address": outside(3).to_checksum(), "amount": 10 } }),
        ),
        Req::Session { user: u, limit } => {
            let mut body = json!({ "scopes": ["read", "spend", "transfer", "buy-presale"], "ttlSeconds": 3600 });
            if let Some(max) = limit {
                body["limits"] =
                    json!([{ "tokenAddress": token(store, 0), "maxPerSession": max.text() }]);
            }
            ("POST", format!("/holder/{}/session", user(*u)), body)
        }
        Req::Revoke { user: u } => (
            "DELETE",
            format!("/holder/{}/sessions", user(*u)),
            Value::Null,
        ),
        Req::Webhook { all } => (
            "POST",
            "/merchant/webhooks".into(),
            json!({ "url": "https://hooks.example.com/sim", "events": if *all { json!(["*"]) } else { json!(["transaction.*", "presale.*"]) } }),
        ),
        Req::DeleteWebhook { n } => (
            "DELETE",
            format!("/merchant/webhooks/{}", webhook(store, *n)),
            Value::Null,
        ),
        Req::Ping { n } => (
            "POST",
            format!("/merchant/webhooks/{}/test", webhook(store, *n)),
            Value::Null,
        ),
        Req::GetHolder { user: u } => ("GET", format!("/holder/{}", user(*u)), Value::Null),
        Req::History { user: u } => (
            "GET",
            format!("/holder/{}/transactions", user(*u)),
            Value::Null,
        ),
        Req::Token { token: t } => ("GET", format!("/token/{}", token(store, *t)), Value::Null),
    };
    Request {
        method,
        path,
        body,
        session: None,
        key: None,
    }
}

/// The holder a request acts for, when a session token could send it.
pub fn holder_of(req: &Req) -> Option<u8> {
    match req {
        Req::Spend { user, .. }
        | Req::Transfer { user, .. }
        | Req::BuyPresale { user, .. }
        | Req::GetHolder { user }
        | Req::History { user } => Some(*user),
        _ => None,
    }
}
