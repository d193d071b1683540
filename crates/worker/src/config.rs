//! Operator configuration, read from the Worker's environment (vars and secrets).

use std::cell::RefCell;
use std::collections::HashMap;

thread_local! {
    /// What each name read as. An isolate's environment is fixed for its life (a deployment
    /// or a changed var starts new isolates), so a name is looked up in it once: each lookup
    /// crosses into JavaScript twice, and a request reads several.
    static READ: RefCell<HashMap<String, Option<String>>> = RefCell::new(HashMap::new());
}

/// A secret or var by name; secrets win, so production keys live in `wrangler secret put`.
pub fn string(env: &worker::Env, name: &str) -> Option<String> {
    if let Some(known) = READ.with(|r| r.borrow().get(name).cloned()) {
        return known;
    }
    let value = lookup(env, name);
    READ.with(|r| r.borrow_mut().insert(name.to_string(), value.clone()));
    value
}

fn lookup(env: &worker::Env, name: &str) -> Option<String> {
    if let Ok(s) = env.secret(name) {
        return Some(s.to_string());
    }
    env.var(name).ok().map(|v| v.to_string())
}

/// A flag that is on only when set to exactly "true".
pub fn flag(env: &worker::Env, name: &str) -> bool {
    string(env, name).as_deref() == Some("true")
}
