//! Memecoin and airdrop deployments: create, status (three request forms), and the data of
//! the public overview page.

use super::Reply;
use crate::envelope::Envelope;
use crate::sql_store::SqlStore;
use crate::wallet::random;
use serde_json::{json, Value};
use tokenpad_core::deployment::{self, DeployRequest, DeploymentKind};
use tokenpad_core::ids::uuid_v4;
use tokenpad_core::merchant::Ctx;
use tokenpad_core::{Error, Result};

/// `POST /template/memecoin`, `POST /template/airdrop` -> 201 `{ id }`.
pub fn create(store: &mut SqlStore, ctx: &Ctx, req: &Envelope, kind: DeploymentKind) -> Reply {
    let request = DeployRequest::parse(kind, &req.object()?)?;
    let d = deployment::create(store, ctx, request, uuid_v4(random()?))?;
    Ok((201, json!({ "id": d.id })))
}

/// `GET /template/<kind>/status/:id`, `GET /<kind>/status?id=`, `POST /<kind>/status {id}`
/// -> `{ has_more: false, data }`.
pub fn status(store: &mut SqlStore, req: &Envelope, kind: DeploymentKind) -> Reply {
    let id = requested_id(req)?;
    let d = deployment::find(store, &id, Some(kind))?;
    Ok((200, deployment::status_json(&d, base_url(req))))
}

/// The overview page's data for `GET /deployments/:id` (the edge renders the HTML).
pub fn page(store: &mut SqlStore, req: &Envelope) -> Reply {
    let d = deployment::find(store, req.param(0)?, None)?;
    Ok((200, deployment::overview(store, &d, base_url(req))?))
}

fn base_url(req: &Envelope) -> &str {
    req.base_url.as_deref().unwrap_or("")
}

/// The id from the path, else the JSON body's `id`, else the query's `id`. The interface
/// calls it an integer in one place, so a JSON number is read as its text.
fn requested_id(req: &Envelope) -> Result<String> {
    if let Some(id) = req.params.first() {
        return Ok(id.clone());
    }
    let body = req.object()?;
    let from_body = match body.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(_) => return Err(Error::field("id", "id must be a string")),
    };
    from_body
        .or_else(|| req.query("id").map(String::from))
        .filter(|id| !id.trim().is_empty())
        .ok_or_else(|| Error::field("id", "id is required"))
}
