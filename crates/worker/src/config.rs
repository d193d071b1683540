//! Operator configuration, read from the Worker's environment (vars and secrets).

/// A secret or var by name; secrets win, so production keys live in `wrangler secret put`.
pub fn string(env: &worker::Env, name: &str) -> Option<String> {
    if let Ok(s) = env.secret(name) {
        return Some(s.to_string());
    }
    env.var(name).ok().map(|v| v.to_string())
}

/// A flag that is on only when set to exactly "true".
pub fn flag(env: &worker::Env, name: &str) -> bool {
    string(env, name).as_deref() == Some("true")
}
