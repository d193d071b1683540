//! One SQLite transaction per operation, through the Durable Object's `transactionSync`.
//!
//! workers-rs does not wrap `transactionSync`, so we call it through js_sys. The closure runs
//! synchronously inside the transaction; when it returns an error we throw, and SQLite rolls
//! every write back. That is what makes "completely or not at all" hold even when storage
//! itself fails half-way through an operation.
//!
//! The object's row cache (`cache/mod.rs`, in `watch`) learns where each transaction begins and
//! how it ended, so it keeps a transaction's writes only once SQLite committed them, and the
//! events it held back from SQLite are inserted before the commit. Every transaction's books
//! (`watch.books`: what it moved per token) are checked just before it commits: a transaction
//! that broke conservation for any token rolls back, whichever operation wrote it.

use super::sql::{SqlStore, Watch};
use std::cell::RefCell;
use std::rc::Rc;
use tokenpad_core::{Error, Result};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// Every transaction goes through one closure type: `transactionSync`'s JS glue (what
/// `Closure::once` generates per closure type, some kilobytes each) is then made once, not for
/// each of the few dozen places that open a transaction. The generic part only moves the
/// value out.
type Work = Box<dyn FnOnce() -> Result<()>>;

/// Runs `f` as a value-returning [`Work`].
fn erased<T: 'static>(f: impl FnOnce() -> Result<T> + 'static) -> (Work, Rc<RefCell<Option<T>>>) {
    let slot = Rc::new(RefCell::new(None));
    let inner = Rc::clone(&slot);
    let work: Work = Box::new(move || {
        let value = f()?;
        *inner.borrow_mut() = Some(value);
        Ok(())
    });
    (work, slot)
}

fn taken<T>(slot: &Rc<RefCell<Option<T>>>) -> Result<T> {
    slot.borrow_mut()
        .take()
        .ok_or_else(|| Error::internal("transaction closure did not run"))
}

pub fn transaction<T: 'static>(
    storage: &worker::Storage,
    watch: &Watch,
    f: impl FnOnce() -> Result<T> + 'static,
) -> Result<T> {
    let (work, slot) = erased(f);
    transaction_once(storage, watch, work)?;
    taken(&slot)
}

fn transaction_once(storage: &worker::Storage, watch: &Watch, f: Work) -> Result<()> {
    watch
        .cache
        .try_borrow_mut()
        .map_err(|_| Error::internal("the row cache is busy"))?
        .begin();
    let books = watch.books.clone();
    books
        .try_borrow_mut()
        .map_err(|_| Error::internal("the books are busy"))?
        .clear();
    // Events the cache still holds back (`cache/events.rs`; a path that did not seal them) go
    // into SQLite before the commit.
    let events = SqlStore::new(storage.sql()).watching(watch.clone());
    let outcome = run_once(
        storage,
        Box::new(move || {
            f()?;
            // Conservation per token, once, whatever the transaction did: an error rolls it back.
            books
                .try_borrow_mut()
                .map_err(|_| Error::internal("the books are busy"))?
                .check()?;
            events.insert_held_events()
        }),
    );
    match watch.cache.try_borrow_mut() {
        Ok(mut cache) => cache.end(outcome.is_ok()),
        // Never (the object is single-threaded); if it were, the cache would keep nothing.
        Err(_) => worker::console_error!("the row cache was busy at the end of a transaction"),
    }
    outcome
}

pub fn run<T: 'static>(
    storage: &worker::Storage,
    f: impl FnOnce() -> Result<T> + 'static,
) -> Result<T> {
    let (work, slot) = erased(f);
    run_once(storage, work)?;
    taken(&slot)
}

fn run_once(storage: &worker::Storage, f: Work) -> Result<()> {
    let raw: &JsValue = storage.as_raw().as_ref();
    let func = js_sys::Reflect::get(raw, &JsValue::from_str("transactionSync"))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or_else(|| Error::internal("storage.transactionSync is not available"))?;
    let slot: Rc<RefCell<Option<Result<()>>>> = Rc::new(RefCell::new(None));
    let inner = slot.clone();
    let closure = Closure::once(move || -> std::result::Result<JsValue, JsValue> {
        let outcome = f();
        let failed = outcome.is_err();
        *inner.borrow_mut() = Some(outcome);
        if failed {
            Err(JsValue::from_str("tokenpad: rolled back"))
        } else {
            Ok(JsValue::UNDEFINED)
        }
    });
    let called = func.call1(raw, closure.as_ref());
    drop(closure);
    let outcome = slot.borrow_mut().take();
    match (outcome, called) {
        // The work succeeded but the commit did not: nothing happened.
        (Some(Ok(_)), Err(e)) => Err(Error::internal(format!("commit failed: {e:?}"))),
        (Some(result), _) => result,
        (None, Err(e)) => Err(Error::internal(format!("transaction failed: {e:?}"))),
        (None, Ok(_)) => Err(Error::internal("transaction closure did not run")),
    }
}
