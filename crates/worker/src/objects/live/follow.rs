//! Which relays follow which topics of a merchant, in its object: in memory, and in SQLite so
//! that an object that restarts (evicted, deployed) while relays hold sockets keeps sending
//! them changes. A pair (tag, relay) is written when a relay first asks for the tag, and
//! deleted when the relay says it has no socket left for it (`Followed::drop`), which a relay
//! that restarted says at the first change it is sent. A pair admitted in the last
//! [`GRACE_MS`] is kept whatever the relay says: its socket may not be accepted yet (the
//! relay answered a change that crossed the admission).
//!
//! Beside each topic, the last state sent for it (`Snapshot`): what a flush compares a new
//! read with, and what a new socket gets while nothing changed since.

use crate::adapters::sql::SqlStore;
use serde::Deserialize;
use std::collections::BTreeMap;
use tokenpad_core::model::time::Millis;
use tokenpad_core::Result;
use worker::SqlStorageValue;

/// A pair admitted this recently (real time) is not dropped.
pub const GRACE_MS: Millis = 30_000;

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS live_relays \
     (tag TEXT NOT NULL, relay TEXT NOT NULL, PRIMARY KEY (tag, relay)) WITHOUT ROWID";

/// The last state sent for a topic.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub digest: String,
    /// The answer as a JSON string literal (`topic::Read::body`).
    pub body: String,
    pub version: u64,
}

#[derive(Debug, Default)]
pub struct Entry {
    /// The relays following the topic, each with when it was last admitted (real time; a
    /// pair read back from SQLite counts as admitted when it was read).
    pub relays: BTreeMap<String, Millis>,
    pub last: Option<Snapshot>,
}

/// The topics followed, by tag (`p:`, `h:`, and the sessions' `s:`).
#[derive(Debug, Default)]
pub struct Followed {
    pub topics: BTreeMap<String, Entry>,
}

#[derive(Deserialize)]
struct Row {
    tag: String,
    relay: String,
}

impl Followed {
    /// The pairs SQLite holds (the table made on first use).
    pub fn load(store: &SqlStore, now: Millis) -> Result<Followed> {
        store.exec(SCHEMA, vec![])?;
        let rows: Vec<Row> = store.rows("SELECT tag, relay FROM live_relays", vec![])?;
        let mut followed = Followed::default();
        for row in rows {
            followed.add(&row.tag, &row.relay, now);
        }
        Ok(followed)
    }

    /// Relay `relay` follows `tag` (admitted at `now`, real time); whether the pair is new
    /// (to be written: [`write`]).
    pub fn add(&mut self, tag: &str, relay: &str, now: Millis) -> bool {
        let entry = self.topics.entry(tag.to_string()).or_default();
        entry.relays.insert(relay.to_string(), now).is_none()
    }

    /// Relay `relay` has no socket left for `tag`: the pair goes, unless it was admitted
    /// after `before` (real time). A relay left with no topic loses its sessions' tags too.
    /// The pairs that went (to be deleted: [`delete`]).
    pub fn drop(&mut self, tag: &str, relay: &str, before: Millis) -> Vec<(String, String)> {
        let admitted = self.topics.get(tag).and_then(|e| e.relays.get(relay));
        if admitted.is_none_or(|at| *at >= before) {
            return Vec::new();
        }
        let mut gone = vec![tag.to_string()];
        let follows_a_topic = self
            .topics
            .iter()
            .any(|(t, e)| t != tag && !t.starts_with("s:") && e.relays.contains_key(relay));
        if !follows_a_topic {
            gone.extend(
                self.topics
                    .iter()
                    .filter(|(t, e)| t.starts_with("s:") && e.relays.contains_key(relay))
                    .map(|(t, _)| t.clone()),
            );
        }
        for t in &gone {
            if let Some(e) = self.topics.get_mut(t) {
                e.relays.remove(relay);
                if e.relays.is_empty() {
                    self.topics.remove(t);
                }
            }
        }
        gone.into_iter().map(|t| (t, relay.to_string())).collect()
    }

    /// The relays following `tag`.
    pub fn relays_of(&self, tag: &str) -> Vec<String> {
        self.topics
            .get(tag)
            .map(|e| e.relays.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// The relays following any tag that starts with `prefix`, each once.
    pub fn relays_with(&self, prefix: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .topics
            .iter()
            .filter(|(t, _)| t.starts_with(prefix))
            .flat_map(|(_, e)| e.relays.keys().cloned())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    pub fn is_empty(&self) -> bool {
        self.topics.is_empty()
    }
}

/// Writes a new pair.
pub fn write(store: &SqlStore, tag: &str, relay: &str) -> Result<()> {
    store.exec(
        "INSERT OR IGNORE INTO live_relays (tag, relay) VALUES (?, ?)",
        vec![tag.into(), relay.into()],
    )?;
    Ok(())
}

/// Deletes pairs that went.
pub fn delete(store: &SqlStore, pairs: &[(String, String)]) -> Result<()> {
    for (tag, relay) in pairs {
        let args: Vec<SqlStorageValue> = vec![tag.as_str().into(), relay.as_str().into()];
        store.exec("DELETE FROM live_relays WHERE tag = ? AND relay = ?", args)?;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_goes_only_when_its_relay_has_no_socket_and_its_grace_passed() {
        let mut f = Followed::default();
        assert!(f.add("p:1", "r1", 1_000));
        assert!(!f.add("p:1", "r1", 2_000), "the same pair is not new");
        assert!(f.add("p:1", "r2", 1_000));
        assert!(f.add("h:alice", "r3", 1_000));
        assert!(f.add("s:alice", "r3", 1_000));
        // Admitted at 2,000: not dropped before then.
        assert!(f.drop("p:1", "r1", 2_000).is_empty());
        assert_eq!(
            f.drop("p:1", "r1", 2_001),
            [("p:1".to_string(), "r1".to_string())]
        );
        assert_eq!(f.relays_with("p:"), ["r2"]);
        // A relay left with no topic loses its sessions' tags with it.
        let gone = f.drop("h:alice", "r3", 5_000);
        assert_eq!(gone.len(), 2, "{gone:?}");
        assert!(f.relays_with("s:").is_empty());
        assert!(f.drop("p:9", "r1", 9_000).is_empty(), "an unknown pair");
        assert!(!f.is_empty());
        f.drop("p:1", "r2", 9_000);
        assert!(f.is_empty());
    }
}
