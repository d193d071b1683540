//! Passwords, hashed with argon2id (RustCrypto's `argon2`), at parameters measured to fit a
//! Worker's CPU per request (docs/accounts.md, "Password hashing"). The salt comes from the
//! caller (the shell's randomness): the core has none.
//!
//! Stored as `argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt hex>$<hash hex>`: the
//! parameters travel with the hash, so raising them later leaves old hashes verifiable (and
//! [`needs_rehash`] says when to store a new one, at the next login).

use crate::error::{Error, Result};
use argon2::{Algorithm, Argon2, Params, Version};

/// Memory in KiB, passes and lanes: OWASP's second argon2id line (19 MiB, 2 passes, 1 lane).
/// Measured in workerd: docs/accounts.md.
pub const M_KIB: u32 = 19_456;
pub const T_COST: u32 = 2;
pub const P_LANES: u32 = 1;

const OUT: usize = 32;

/// The stored form of a hash nobody's password matches: an unknown email's login checks its
/// password against it, so it costs what a known one does and answers the same.
pub fn dummy() -> String {
    format!(
        "argon2id$v=19$m={M_KIB},t={T_COST},p={P_LANES}${}${}",
        "00".repeat(16),
        "00".repeat(OUT)
    )
}

fn engine(m: u32, t: u32, p: u32) -> Result<Argon2<'static>> {
    let params = Params::new(m, t, p, Some(OUT))
        .map_err(|e| Error::internal(format!("argon2 parameters: {e}")))?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

fn derive(password: &str, salt: &[u8], m: u32, t: u32, p: u32) -> Result<[u8; OUT]> {
    let mut out = [0u8; OUT];
    engine(m, t, p)?
        .hash_password_into(password.as_bytes(), salt, &mut out)
        .map_err(|e| Error::internal(format!("argon2: {e}")))?;
    Ok(out)
}

/// `password` hashed under `salt` at the current parameters, in its stored form.
pub fn hash(password: &str, salt: &[u8; 16]) -> Result<String> {
    let out = derive(password, salt, M_KIB, T_COST, P_LANES)?;
    Ok(format!(
        "argon2id$v=19$m={M_KIB},t={T_COST},p={P_LANES}${}${}",
        hex::encode(salt),
        hex::encode(out)
    ))
}

struct Stored {
    m: u32,
    t: u32,
    p: u32,
    salt: Vec<u8>,
    hash: Vec<u8>,
}

fn parse(stored: &str) -> Option<Stored> {
    let mut parts = stored.split('$');
    if parts.next()? != "argon2id" || parts.next()? != "v=19" {
        return None;
    }
    let mut m = None;
    let mut t = None;
    let mut p = None;
    for kv in parts.next()?.split(',') {
        let (k, v) = kv.split_once('=')?;
        let v: u32 = v.parse().ok()?;
        match k {
            "m" => m = Some(v),
            "t" => t = Some(v),
            "p" => p = Some(v),
            _ => return None,
        }
    }
    let salt = hex::decode(parts.next()?).ok()?;
    let hash = hex::decode(parts.next()?).ok()?;
    Some(Stored {
        m: m?,
        t: t?,
        p: p?,
        salt,
        hash,
    })
}

/// Whether `password` is the one `stored` was made from. The comparison has no early exit.
/// A stored form that does not parse matches nothing (after the same work as one that does).
pub fn verify(password: &str, stored: &str) -> bool {
    let (s, known) = match parse(stored) {
        Some(s) => (s, true),
        None => match parse(&dummy()) {
            Some(s) => (s, false),
            None => return false,
        },
    };
    let Ok(out) = derive(password, &s.salt, s.m, s.t, s.p) else {
        return false;
    };
    let same = out.len() == s.hash.len()
        && out
            .iter()
            .zip(&s.hash)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    known && same
}

/// Whether `stored` was made at other parameters than today's (rehash it at the next login).
pub fn needs_rehash(stored: &str) -> bool {
    parse(stored).is_none_or(|s| (s.m, s.t, s.p) != (M_KIB, T_COST, P_LANES))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn hashes_verify_their_password_only() {
        let stored = hash("correct horse battery", &[7; 16]).unwrap();
        assert!(stored.starts_with("argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(verify("correct horse battery", &stored));
        assert!(!verify("correct horse batterY", &stored));
        // Another salt, another hash.
        assert_ne!(stored, hash("correct horse battery", &[8; 16]).unwrap());
        assert!(!needs_rehash(&stored));
        assert!(needs_rehash(&stored.replace("t=2", "t=1")));
        // The dummy matches nothing, nor does a malformed record.
        assert!(!verify("", &dummy()));
        assert!(!verify("correct horse battery", "garbage"));
    }
}
