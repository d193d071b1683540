//! The storage port of the merchant's API keys (`crate::model::key`), a part of
//! [`super::Store`].

use crate::error::Result;
use crate::model::key::ApiKey;

pub trait KeyStore {
    /// Every key record, oldest first.
    fn api_keys(&self) -> Result<Vec<ApiKey>>;
    /// Inserts or replaces a key record (by id).
    fn put_api_key(&mut self, key: &ApiKey) -> Result<()>;
    /// Forgets a key record (one that stopped working long ago).
    fn remove_api_key(&mut self, id: &str) -> Result<()>;
}
