//! What `GET /health` says of an EVM chain, from the settlers' own contact with it: each
//! merchant's settler reports how its latest round went (`ChainReport`: did the node answer,
//! is the relayer ready), and `/health` summarizes the latest reports. No request to
//! `/health` calls the node: what it says is at most one settlement round (`CHAIN_SCAN_MS`,
//! 15 s by default) plus one report interval old, and says when it was checked.
//!
//! A report also says whether the merchant's settlement is stuck (`ops::stuck`), and why:
//! `/health` counts the stuck merchants without naming them; `GET /admin/chain` lists them.

use super::admin::{HealthNode, HealthRelayers};
use super::chain::StuckMerchant;
use crate::model::ids::MerchantId;
use crate::model::time::{iso8601, Millis, Timestamp};
use crate::ops::stuck::Issue;
use serde::{Deserialize, Serialize};

/// A report older than this says nothing of the node now (its settler stopped reporting).
pub const STALE_AFTER: Millis = 5 * 60 * 1000;

pub use crate::ops::settle::round::{NodeStatus, RelayerStatus};

/// One settler's latest round, in wall-clock time (never the service's time-travel clock).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChainReport {
    pub node: NodeStatus,
    pub relayer: RelayerStatus,
    /// When the round ran.
    pub checked_at: Millis,
    /// When the node last answered a whole round (None: not since this settler started).
    pub last_contact_at: Option<Millis>,
    /// What holds the merchant's settlement up (empty: nothing), for an operator: no secret
    /// is in it (`ops::stuck::Issue`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stuck: Vec<Issue>,
}

impl ChainReport {
    /// Whether `self` says something `before` did not (so it is worth reporting now): the
    /// node's or the relayer's state, or what holds settlement up (its kinds; counts and
    /// texts go with the next report that is due anyway).
    pub fn differs(&self, before: &ChainReport) -> bool {
        let kinds = |r: &ChainReport| r.stuck.iter().map(|i| i.kind).collect::<Vec<_>>();
        self.node != before.node || self.relayer != before.relayer || kinds(self) != kinds(before)
    }

    /// `self`, keeping what `before` knew of the last contact when `self` knows none.
    pub fn after(mut self, before: Option<&ChainReport>) -> ChainReport {
        self.last_contact_at = self
            .last_contact_at
            .or(before.and_then(|b| b.last_contact_at));
        self
    }
}

/// The node's state and the relayers' from the settlers' reports at `now`: the freshest
/// report says whether the node answers; fresh reports count the relayers.
pub fn summarize(reports: &[ChainReport], now: Millis) -> (HealthNode, HealthRelayers) {
    let fresh: Vec<&ChainReport> = reports
        .iter()
        .filter(|r| now.saturating_sub(r.checked_at) <= STALE_AFTER)
        .collect();
    let latest = fresh.iter().max_by_key(|r| r.checked_at);
    let last_contact = reports.iter().filter_map(|r| r.last_contact_at).max();
    let (status, error) = match latest.map(|r| r.node) {
        None => ("unknown", None),
        Some(NodeStatus::Reachable) => ("reachable", None),
        Some(NodeStatus::Unreachable) => (
            "unreachable",
            Some("The chain's node did not answer the settler's latest round (a timeout, a network or HTTP error): movements wait until it answers"),
        ),
        Some(NodeStatus::Failing) => (
            "failing",
            Some("The chain's node answered the settler's latest round with an error: movements wait"),
        ),
    };
    let count = |s: RelayerStatus| fresh.iter().filter(|r| r.relayer == s).count() as u64;
    let stuck = fresh.iter().filter(|r| !r.stuck.is_empty()).count() as u64;
    let node = HealthNode {
        status: status.into(),
        checked_at: latest.map(|r| iso8601(r.checked_at)),
        last_contact_at: last_contact.map(iso8601),
        error: error.map(str::to_string),
    };
    let relayers = HealthRelayers {
        reporting: fresh.len() as u64,
        ready: count(RelayerStatus::Ready),
        out_of_gas: count(RelayerStatus::OutOfGas),
        waiting: count(RelayerStatus::Waiting),
        stuck,
    };
    (node, relayers)
}

/// What `/health` says of stuck merchants: how many, never which.
pub fn warning(relayers: &HealthRelayers) -> Option<String> {
    (relayers.stuck > 0).then(|| {
        format!(
            "{} merchant(s) have settlement stuck (a movement parked for an operator, or held up past CHAIN_STUCK_AFTER_MS): GET /admin/chain lists them, with what to do",
            relayers.stuck
        )
    })
}

/// Every merchant whose latest report says its settlement is stuck, oldest report first
/// (however old: a settler that stopped reporting while stuck stays listed).
pub fn stuck_merchants(reports: &[(MerchantId, ChainReport)]) -> Vec<StuckMerchant> {
    let mut out: Vec<StuckMerchant> = reports
        .iter()
        .filter(|(_, r)| !r.stuck.is_empty())
        .map(|(m, r)| StuckMerchant {
            merchant_id: m.clone(),
            checked_at: Timestamp::at(r.checked_at),
            issues: r.stuck.clone(),
        })
        .collect();
    out.sort_by(|a, b| a.checked_at.cmp(&b.checked_at));
    out
}

/// Whether the node's state (`HealthNode::status`) means settlement cannot proceed.
pub fn node_down(node: &HealthNode) -> bool {
    matches!(node.status.as_str(), "unreachable" | "failing")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::ops::stuck::IssueKind;

    fn report(node: NodeStatus, relayer: RelayerStatus, at: Millis) -> ChainReport {
        ChainReport {
            node,
            relayer,
            checked_at: at,
            last_contact_at: (node == NodeStatus::Reachable).then_some(at),
            stuck: Vec::new(),
        }
    }

    #[test]
    fn the_freshest_report_says_whether_the_node_answers() {
        let now = 10 * 60 * 1000;
        let (node, relayers) = summarize(&[], now);
        assert_eq!((node.status.as_str(), relayers.reporting), ("unknown", 0));
        let up = report(NodeStatus::Reachable, RelayerStatus::Ready, now - 20_000);
        let broke = report(NodeStatus::Reachable, RelayerStatus::OutOfGas, now - 30_000);
        let down =
            report(NodeStatus::Unreachable, RelayerStatus::Unknown, now - 5_000).after(Some(&up));
        assert_eq!(down.last_contact_at, Some(now - 20_000), "kept from before");
        let (node, relayers) = summarize(&[up.clone(), broke.clone(), down.clone()], now);
        assert_eq!(node.status, "unreachable");
        assert!(node_down(&node));
        assert_eq!(node.last_contact_at, Some(iso8601(now - 20_000)));
        assert_eq!(node.checked_at, Some(iso8601(now - 5_000)));
        assert!(node.error.unwrap().contains("did not answer"));
        assert_eq!(
            (relayers.reporting, relayers.ready, relayers.out_of_gas),
            (3, 1, 1)
        );
        // The node answers again.
        let back = report(NodeStatus::Reachable, RelayerStatus::Ready, now - 1_000);
        let (node, _) = summarize(&[up, broke, down, back], now);
        assert_eq!((node.status.as_str(), node.error), ("reachable", None));
        // Reports older than five minutes say nothing of now.
        let old = report(NodeStatus::Unreachable, RelayerStatus::Unknown, 0);
        let (node, relayers) = summarize(&[old], now);
        assert_eq!((node.status.as_str(), relayers.reporting), ("unknown", 0));
        assert!(!node_down(&node));
    }

    #[test]
    fn a_report_is_sent_again_only_when_it_says_something_new() {
        let a = report(NodeStatus::Reachable, RelayerStatus::Ready, 1);
        let b = report(NodeStatus::Reachable, RelayerStatus::Ready, 2);
        assert!(!b.differs(&a));
        let c = report(NodeStatus::Failing, RelayerStatus::Unknown, 3);
        assert!(c.differs(&b));
        // Stuck, or stuck another way, is new; the same kinds with other figures are not.
        let issue = |kind, count| Issue {
            kind,
            count,
            since: Timestamp::at(1),
            what: String::new(),
            action: String::new(),
        };
        let mut d = b.clone();
        d.stuck = vec![issue(IssueKind::Parked, 1)];
        assert!(d.differs(&b));
        let mut e = d.clone();
        e.stuck = vec![issue(IssueKind::Parked, 2)];
        assert!(!e.differs(&d));
        e.stuck.push(issue(IssueKind::Queued, 1));
        assert!(e.differs(&d));
    }

    #[test]
    fn health_counts_stuck_merchants_without_naming_them_and_the_admin_list_names_them() {
        let now = 10 * 60 * 1000;
        let mut stuck = report(NodeStatus::Reachable, RelayerStatus::Ready, now - 1_000);
        stuck.stuck = vec![Issue {
            kind: IssueKind::Parked,
            count: 1,
            since: Timestamp::at(now - 2_000),
            what: "1 movement(s) parked".into(),
            action: "retry".into(),
        }];
        let fine = report(NodeStatus::Reachable, RelayerStatus::Ready, now - 500);
        let mut old = stuck.clone();
        old.checked_at = 0; // its settler stopped reporting
        let (_, relayers) = summarize(&[stuck.clone(), fine.clone(), old.clone()], now);
        assert_eq!((relayers.reporting, relayers.stuck), (2, 1));
        let w = warning(&relayers).unwrap();
        assert!(
            w.starts_with("1 merchant(s)") && w.contains("GET /admin/chain"),
            "{w}"
        );
        let (_, none) = summarize(std::slice::from_ref(&fine), now);
        assert_eq!(warning(&none), None);
        let m = |s: &str| MerchantId::new_unchecked(s);
        let listed = stuck_merchants(&[(m("a"), stuck), (m("b"), fine), (m("c"), old)]);
        let ids: Vec<&str> = listed.iter().map(|s| s.merchant_id.as_str()).collect();
        assert_eq!(
            ids,
            vec!["c", "a"],
            "stuck ones only, the stale one too, oldest first"
        );
        assert_eq!(listed[1].issues[0].action, "retry");
    }
}
