//! Group commit: writes that arrive together share one commit.
//!
//! The runtime commits what a task wrote once the task is done (its implicit transaction;
//! each operation's `transactionSync` is a savepoint inside it), and holds the task's answers
//! until that commit is durable. A write's cost is mostly its commit: the pages it dirtied,
//! written to SQLite's WAL and synced. When writes arrive faster than the object commits them
//! (a launch's buyers, a merchant's batch), a write waits at a gate, a zero timer every write
//! arriving meanwhile waits at too; the timer lets them all through in one task, each in its
//! own transaction as before, and the runtime commits them once. The pages they share (the
//! newest history and event leaves, the token row, the key table's newest leaf, SQLite's
//! sequence page) are written once, and one sync serves them all: `bench/sqlite.mjs --gate`
//! priced it (docs/performance.md, "Group commit").
//!
//! A write that arrives alone (none began within [`BUSY_MS`] before it) goes at once, as
//! before: waiting for a timer would only add to it. Nothing else changes: an operation still
//! commits completely or not at all (its own transaction), a refused one rolls back alone, and
//! no answer leaves before the commit that holds its write.

use js_sys::{Function, Promise, Reflect};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use worker::wasm_bindgen_futures::JsFuture;

/// A write that begins within this many milliseconds of the write before it waits at the gate.
/// The runtime's clock moves between calls (not within one), in milliseconds.
pub const BUSY_MS: f64 = 2.0;

/// The gate open now: its timer, and how many writes wait at it.
struct Open {
    timer: Promise,
    waiting: Rc<Cell<u32>>,
}

#[derive(Default)]
pub struct WriteGate {
    open: RefCell<Option<Open>>,
    /// When the last write began (the runtime's clock).
    last: Cell<f64>,
}

impl WriteGate {
    /// Lets a write through: at once when it arrives alone; otherwise once the gate opens, with
    /// every write that arrived meanwhile. How many went through together (1: at once).
    pub async fn pass(&self) -> u32 {
        let now = js_sys::Date::now();
        let busy = now - self.last.get() < BUSY_MS;
        self.last.set(now);
        let joined = self
            .join()
            .or_else(|| if busy { self.open_gate() } else { None });
        let Some((timer, waiting)) = joined else {
            return 1;
        };
        // The timer never rejects; if it did, the write goes on all the same.
        let _ = JsFuture::from(timer).await;
        // The first write through closes this gate: a write arriving after it opens the next.
        let mut open = self.open.borrow_mut();
        if open
            .as_ref()
            .is_some_and(|o| Rc::ptr_eq(&o.waiting, &waiting))
        {
            *open = None;
        }
        waiting.get()
    }

    /// The gate open now, joined.
    fn join(&self) -> Option<(Promise, Rc<Cell<u32>>)> {
        let open = self.open.borrow();
        let o = open.as_ref()?;
        o.waiting.set(o.waiting.get().saturating_add(1));
        Some((o.timer.clone(), Rc::clone(&o.waiting)))
    }

    /// A new gate, its timer set; None where no timer can be set (the write goes at once).
    fn open_gate(&self) -> Option<(Promise, Rc<Cell<u32>>)> {
        let timer = zero_timer()?;
        let waiting = Rc::new(Cell::new(1));
        *self.open.borrow_mut() = Some(Open {
            timer: timer.clone(),
            waiting: Rc::clone(&waiting),
        });
        Some((timer, waiting))
    }
}

/// A promise the runtime's `setTimeout(…, 0)` resolves: after the calls already waiting to be
/// delivered to the object.
fn zero_timer() -> Option<Promise> {
    let set_timeout = Reflect::get(&js_sys::global(), &JsValue::from_str("setTimeout"))
        .ok()?
        .dyn_into::<Function>()
        .ok()?;
    let mut set = false;
    let timer = Promise::new(&mut |resolve, _reject| {
        set = set_timeout
            .call2(&JsValue::UNDEFINED, &resolve, &JsValue::from(0))
            .is_ok();
    });
    set.then_some(timer)
}
