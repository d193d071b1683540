//! Memecoin and airdrop deployments: a token deployed from a template, pending until its
//! deployment transaction is mined.

use super::address::Address;
use super::amount::{Price, Units};
use super::ids::{DeploymentId, TokenAddress};
use super::job::JobStatus;
use super::time::Millis;
use super::token::{Network, TokenOrigin};
use serde::{Deserialize, Serialize};

/// Deployment statuses are a job's: pending, success, failed.
pub type DeploymentStatus = JobStatus;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeploymentKind {
    Memecoin,
    Airdrop,
}

impl DeploymentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DeploymentKind::Memecoin => "memecoin",
            DeploymentKind::Airdrop => "airdrop",
        }
    }

    pub fn origin(self) -> TokenOrigin {
        match self {
            DeploymentKind::Memecoin => TokenOrigin::Memecoin,
            DeploymentKind::Airdrop => TokenOrigin::Airdrop,
        }
    }
}

/// Who receives `amount` base units at deployment (with `noLp`, also the owner and minter).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recipient {
    pub address: Address,
    pub amount: Units,
}

/// Each address receives `supply` base units at deployment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Airdrop {
    pub addresses: Vec<Address>,
    pub supply: Units,
}

/// A validated memecoin or airdrop request. Amounts are base units (18 decimals).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeploySpec {
    pub kind: DeploymentKind,
    pub name: String,
    pub symbol: String,
    pub network: Network,
    pub total_supply: Units,
    pub initial_price: Price,
    pub marketplace: bool,
    pub recipient: Option<Recipient>,
    /// Memecoin only: no liquidity pool; the recipient gets the whole supply.
    pub no_lp: bool,
    /// Airdrop only.
    pub airdrop: Option<Airdrop>,
}

impl DeploySpec {
    /// Everyone who gets tokens at deployment, in order (the recipient first). An address
    /// may appear twice (the recipient is also an airdrop address): amounts add up.
    pub fn allocations(&self) -> Vec<(Address, Units)> {
        let mut out: Vec<(Address, Units)> = Vec::new();
        if let Some(r) = &self.recipient {
            out.push((r.address, r.amount));
        }
        if let Some(a) = &self.airdrop {
            out.extend(a.addresses.iter().map(|addr| (*addr, a.supply)));
        }
        out
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Deployment {
    pub id: DeploymentId,
    pub kind: DeploymentKind,
    pub status: DeploymentStatus,
    /// Known from the start: the merchant wallet's CREATE address for this deployment.
    pub token_address: TokenAddress,
    /// Set once the transaction is submitted.
    pub tx_hash: Option<String>,
    pub submitted_at: Option<Millis>,
    /// When the transaction is (or will be) mined.
    pub mined_at: Option<Millis>,
    /// The block it was mined in, on an EVM chain (from its receipt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<u64>,
    pub created_at: Millis,
    pub request: DeploySpec,
    pub error: Option<String>,
}

/// Uniswap's swap page for the token against Circle's USDC on its network:
/// `https://app.uniswap.org/swap?chain=<chain>&inputCurrency=<USDC>&outputCurrency=<token>`.
/// None on a local node: no public exchange can reach it.
pub fn exchange_url(network: Network, token: TokenAddress) -> Option<String> {
    let (chain, usdc) = match network {
        Network::Base => ("base", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
        Network::BaseSepolia => ("base_sepolia", "0x036CbD53842c5426634e7929541eC2318f3dCF7e"),
        Network::Sepolia => ("sepolia", "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238"),
        Network::Local => return None,
    };
    Some(format!(
        "https://app.uniswap.org/swap?chain={chain}&inputCurrency={usdc}&outputCurrency={}",
        token.to_checksum()
    ))
}

/// `<base>/deployments/<id>`: the overview page the service serves.
pub fn service_build_url(base_url: &str, id: &DeploymentId) -> String {
    format!("{}/deployments/{id}", base_url.trim_end_matches('/'))
}
