//! The typed operation: what a merchant request asks for, decoded once, in the merchant's
//! Durable Object, from the route, path parameters, query and body the edge matched and
//! parsed. Nothing downstream looks at strings to decide what to do. Each resource family
//! decodes its own routes (`token::decode`, `ledger::decode`, ...); this is the list of them.

use super::deployment::{self, DeploymentOp};
use super::holder::{self, HolderOp};
use super::hooks::{self, HookOp};
use super::keys::{self, KeyOp};
use super::ledger::{self, LedgerOp};
use super::market::{self, MarketOp};
use super::merchant::{self, MerchantOp};
use super::presale::{self, PresaleOp};
use super::routes::Route;
use super::session::{self, SessionOp};
use super::token::{self, TokenOp};
use crate::error::{Error, Result};

pub use super::holder::HolderRef;
pub use super::parts::Parts;

/// Every operation of a merchant's API, by resource family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Token(TokenOp),
    Holder(HolderOp),
    Ledger(LedgerOp),
    Deployment(DeploymentOp),
    Presale(PresaleOp),
    Market(MarketOp),
    Session(SessionOp),
    Merchant(MerchantOp),
    /// The merchant's API keys.
    Keys(KeyOp),
    /// The event log and webhooks.
    Hooks(HookOp),
}

impl Op {
    /// Whether it changes state, as its route declares (its family's `ROUTES`): a write runs
    /// in a transaction and seals its events; a read needs neither.
    pub fn writes(&self) -> bool {
        self.route().writes()
    }

    /// The route it was decoded from.
    pub fn route(&self) -> Route {
        match self {
            Op::Token(op) => op.route(),
            Op::Holder(op) => op.route(),
            Op::Ledger(op) => op.route(),
            Op::Deployment(op) => op.route(),
            Op::Presale(op) => op.route(),
            Op::Market(op) => op.route(),
            Op::Session(op) => op.route(),
            Op::Merchant(op) => op.route(),
            Op::Keys(op) => op.route(),
            Op::Hooks(op) => op.route(),
        }
    }

    /// Decodes a merchant route's request. `None` for routes the edge serves itself.
    pub fn decode(route: Route, parts: &Parts) -> Result<Option<Op>> {
        // Each family in turn, stopping at the one that knows the route: every request pays
        // for the families before its own, not for all ten (and their answers' moves).
        macro_rules! first {
            ($($family:ident => $variant:ident),* $(,)?) => {
                $(if let Some(op) = $family::decode(route, parts)? {
                    return Ok(Some(Op::$variant(op)));
                })*
            };
        }
        first!(
            ledger => Ledger,
            presale => Presale,
            market => Market,
            holder => Holder,
            token => Token,
            deployment => Deployment,
            session => Session,
            merchant => Merchant,
            keys => Keys,
            hooks => Hooks,
        );
        Ok(None)
    }

    /// Decodes a request the edge routed to the merchant's object: every such route has an
    /// operation, so a route without one is an internal error, not the caller's.
    pub fn decode_routed(route: Route, parts: &Parts) -> Result<Op> {
        Op::decode(route, parts)?
            .ok_or_else(|| Error::internal("a merchant route without an operation"))
    }
}
