//! Webhook deliveries as the object's alarm sends them (`objects/merchant/webhooks.rs`): new
//! events fanned out to the endpoints, then every due delivery sent to a simulated receiver,
//! each attempt recorded in its own transaction. The receiver may be down (an error status),
//! or answer after the sender gave up waiting (it got the event; the attempt counts as
//! failed, so the event comes again: at least once). It keeps what it accepted, in order.

use crate::node::{Node, BASE_URL};
use tokenpad_core::model::time::Millis;
use tokenpad_core::model::webhook::Attempt;
use tokenpad_core::ops::webhook::deliver;
use tokenpad_core::store::EventStore;
use tokenpad_core::{wire, Result};

/// How the receiver answers this run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Receiver {
    #[default]
    Up,
    /// Answers 500.
    Down,
    /// Takes the event, and answers too late: the attempt times out.
    Slow,
}

/// What a receiver saw: (webhook id, event seq, resource), in the order it got them.
pub type Received = Vec<(String, u64, String)>;

/// One alarm's deliveries. Returns how many attempts were made.
pub fn deliver(node: &mut Node, receiver: Receiver, got: &mut Received) -> Result<usize> {
    for _ in 0..8 {
        if !deliver::fan_out_pending(&node.store)? {
            break;
        }
        let now = node.now;
        node.txn(|s, _| {
            wire::event::seal(s, BASE_URL)?;
            deliver::fan_out(s, now)
        })?;
    }
    let mut attempts = 0;
    loop {
        let now: Millis = node.now;
        let ready = node.store.ready_deliveries(now, 32)?;
        if ready.is_empty() || attempts > 500 {
            break;
        }
        for d in ready {
            let reached = receiver != Receiver::Down;
            if reached {
                got.push((d.webhook.as_str().to_string(), d.event, d.resource.clone()));
            }
            let attempt = Attempt {
                at: now,
                duration_ms: 5,
                status: match receiver {
                    Receiver::Up => Some(200),
                    Receiver::Down => Some(500),
                    Receiver::Slow => None,
                },
                error: (receiver == Receiver::Slow).then(|| "timeout".to_string()),
                body: None,
            };
            let seq = d.seq;
            node.txn(|s, _| deliver::record(s, seq, attempt, now))?;
            attempts += 1;
        }
        // Retries wait (30 s and more): one pass per alarm, as the service clock stands.
        if receiver != Receiver::Up {
            break;
        }
    }
    Ok(attempts)
}

/// Whether any delivery is still open (pending or waiting). Read from every delivery, not the
/// store's index of the open ones, so a wrong index cannot hide one.
pub fn open_deliveries(node: &Node) -> bool {
    node.store
        .log
        .deliveries()
        .values()
        .any(|d| d.state.is_open())
}
