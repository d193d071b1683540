//! Follow-ups: work an operation calls for after it commits, outside its object, that must
//! not be lost. Today one: recording a new deployment's owner in the registry (the keyless
//! overview page finds the deployment through it). A follow-up is written in the same
//! transaction as the operation that calls for it ([`super::Txn::queue`]), so it exists
//! exactly when the operation committed; the object delivers it after the commit and retries
//! it until a delivery lands (deliveries are idempotent).

use crate::model::ids::{DeploymentId, MerchantId};
use crate::ops::Ctx;
use crate::wire::deployment::DeploymentAnswer;
use crate::wire::{Reply, Response};

/// A follow-up an answer calls for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Followup {
    /// Record the deployment's owner in the registry.
    RegisterDeployment {
        id: DeploymentId,
        merchant: MerchantId,
    },
}

impl Followup {
    /// The follow-up `reply` calls for, if any.
    pub fn of(ctx: &Ctx, reply: &Reply) -> Option<Followup> {
        match (reply.status, &reply.body) {
            (201, Response::Deployment(DeploymentAnswer::Created(created))) => {
                Some(Followup::RegisterDeployment {
                    id: created.id.clone(),
                    merchant: ctx.merchant.id.clone(),
                })
            }
            _ => None,
        }
    }

    /// Its key: one follow-up per key is ever queued (a second is the same work).
    pub fn key(&self) -> String {
        match self {
            Followup::RegisterDeployment { id, .. } => format!("owner:{id}"),
        }
    }
}
