//! The runtime's clock.

/// Milliseconds since the Unix epoch (`Date.now()`: no Date object made, as
/// `worker::Date::now()` makes one on every read).
pub fn now_ms() -> u64 {
    worker::js_sys::Date::now() as u64
}
