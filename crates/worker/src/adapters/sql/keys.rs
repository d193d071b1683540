//! The merchant's API keys in its object's SQLite (`KeyStore`): one JSON document per key
//! beside its id and creation time. A merchant stored before key records kept its two keys'
//! hashes in its own record; [`SqlStore::migrate_keys`] makes them records named "Default",
//! once (when the merchant has no key record yet), as the object first opens its storage.

use super::db::{int, parse, text, SqlStore, MERCHANT_KEY};
use serde::Deserialize;
use tokenpad_core::model::key::{ApiKey, KeyKind};
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::keys;
use tokenpad_core::store::keys::KeyStore;
use tokenpad_core::Result;

pub(crate) const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS api_keys (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, data TEXT NOT NULL)",
];

#[derive(Deserialize)]
struct Row {
    data: String,
}

/// What a merchant record from before key records holds of its keys.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LegacyKeys {
    #[serde(default)]
    secret_key_hash: Option<String>,
    #[serde(default)]
    public_key_hash: Option<String>,
    #[serde(default)]
    created_at: Millis,
}

/// Set once the merchant's keys from before key records have been made records.
const MIGRATED: &str = "keys_migrated";

impl SqlStore {
    /// Makes the key records of a merchant stored before them (its two hashes, named
    /// "Default"), once: then [`MIGRATED`] says so, and later releases never look again (a
    /// record forgotten long after it was revoked does not come back). Each insert is
    /// idempotent (ids are derived from the hashes), so a migration cut short is finished by
    /// the next one.
    pub(super) fn migrate_keys(&mut self) -> Result<()> {
        if self.meta::<bool>(MIGRATED)?.unwrap_or(false) {
            return Ok(());
        }
        if let Some(legacy) = self.meta::<LegacyKeys>(MERCHANT_KEY)? {
            let pairs = [
                (KeyKind::Secret, legacy.secret_key_hash),
                (KeyKind::Public, legacy.public_key_hash),
            ];
            for (kind, hash) in pairs {
                if let Some(hash) = hash.filter(|h| !h.is_empty()) {
                    let key = keys::migrated(kind, &hash, legacy.created_at);
                    self.keys_write();
                    self.exec(
                        "INSERT OR IGNORE INTO api_keys (id, created_at, data) VALUES (?, ?, ?)",
                        vec![
                            key.id.as_str().into(),
                            int(key.created_at),
                            text(&key)?.into(),
                        ],
                    )?;
                }
            }
        }
        self.put_meta(MIGRATED, &true)
    }
}

impl KeyStore for SqlStore {
    fn api_keys(&self) -> Result<Vec<ApiKey>> {
        let rows: Vec<Row> =
            self.rows("SELECT data FROM api_keys ORDER BY created_at, id", vec![])?;
        rows.iter().map(|r| parse(&r.data)).collect()
    }

    fn put_api_key(&mut self, key: &ApiKey) -> Result<()> {
        // Before the write: a copy in memory is stale even if this write fails half-way.
        self.keys_write();
        self.exec(
            "INSERT OR REPLACE INTO api_keys (id, created_at, data) VALUES (?, ?, ?)",
            vec![
                key.id.as_str().into(),
                int(key.created_at),
                text(key)?.into(),
            ],
        )?;
        Ok(())
    }

    fn remove_api_key(&mut self, id: &str) -> Result<()> {
        self.keys_write();
        self.exec("DELETE FROM api_keys WHERE id = ?", vec![id.into()])?;
        Ok(())
    }
}
