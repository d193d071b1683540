//! Token-creation jobs: a token deployed by `POST /merchant/create-token`, pending until its
//! deployment transaction is mined.

use super::ids::{JobId, TokenAddress};
use super::time::Millis;
use super::token::TokenSpec;
use serde::{Deserialize, Serialize};

/// Where a job (or a deployment) stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(inline))]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    Pending,
    Success,
    Failed,
    /// A deployment transaction that is not getting mined (Metal's SDK knows it). The
    /// embedded chain mines every transaction in its next block, so it never reports it.
    Stuck,
}

impl JobStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Pending => "pending",
            JobStatus::Success => "success",
            JobStatus::Failed => "failed",
            JobStatus::Stuck => "stuck",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub id: JobId,
    pub status: JobStatus,
    pub token_address: TokenAddress,
    /// The deployment transaction's hash, once there is one.
    pub tx_hash: Option<String>,
    pub submitted_at: Millis,
    /// When the deployment is (or, on an EVM chain, was seen) mined.
    pub mined_at: Millis,
    /// The block it was mined in, on an EVM chain (from its receipt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<u64>,
    pub request: TokenSpec,
    pub error: Option<String>,
}
