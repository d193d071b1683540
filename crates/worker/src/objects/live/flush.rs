//! A flush: each followed topic that may have changed is read once and, when its answer
//! changed since it was last sent, goes to each relay that follows it, with the controls
//! waiting, one call per relay; then what the relays answered (`objects/live/mod.rs`).

use super::follow::{self, Snapshot, GRACE_MS};
use super::{real_now, topic, Hub, MAX_FAILURES};
use crate::hop;
use crate::hop::live::{Push, RelayCall, RelayHeld, Topic};
use std::collections::BTreeMap;
use tokenpad_core::model::time::Millis;
use tokenpad_core::store::Store;
use tokenpad_core::Result;

impl Hub {
    /// Reads each followed topic that may have changed and sends what did, with the
    /// controls waiting, one call per relay.
    pub(super) async fn flush(self) {
        let calls = match self.collect() {
            Ok(calls) => calls,
            Err(e) => {
                worker::console_error!("live: reading the followed topics: {e}");
                self.0.state.borrow_mut().stale = true;
                self.schedule();
                return;
            }
        };
        if calls.is_empty() {
            return;
        }
        let env = self.0.env.clone();
        let sends = calls.into_iter().map(|(relay, call)| {
            let env = env.clone();
            async move {
                let held = hop::relay_publish(&env, &relay, &call).await;
                (relay, call, held)
            }
        });
        let results = futures_util::future::join_all(sends).await;
        self.settle(results);
    }

    /// What to send, per relay.
    fn collect(&self) -> Result<BTreeMap<String, RelayCall>> {
        let real = real_now();
        let store = self.store();
        let stale = {
            let mut s = self.0.state.borrow_mut();
            s.scheduled = false;
            s.last_flush = real;
            std::mem::take(&mut s.stale)
        };
        let now = real.saturating_add(self.0.clock.offset(&store)?);
        let private = stale && store.merchant()?.is_some_and(|m| m.private_mode);
        self.with_followed(|followed, s| {
            let mut calls: BTreeMap<String, RelayCall> = BTreeMap::new();
            for (relay, controls) in std::mem::take(&mut s.controls) {
                calls.entry(relay).or_default().controls = controls;
            }
            if !stale {
                return Ok(calls);
            }
            for (tag, entry) in followed.topics.iter_mut() {
                let Some(topic) = Topic::from_tag(tag) else {
                    continue;
                };
                let read = match topic::read(&store, &topic, now, private) {
                    Ok(read) => read,
                    Err(e) => {
                        worker::console_error!("live: reading {tag}: {e}");
                        continue;
                    }
                };
                if entry.last.as_ref().is_some_and(|l| l.digest == read.digest) {
                    continue;
                }
                let version = s.next_version(real);
                let message = topic::message(&topic, now, &read.body)?;
                for relay in entry.relays.keys() {
                    calls.entry(relay.clone()).or_default().pushes.push(Push {
                        tag: tag.clone(),
                        version,
                        digest: read.digest.clone(),
                        message: message.clone(),
                    });
                }
                entry.last = Some(Snapshot {
                    digest: read.digest,
                    body: read.body,
                    version,
                });
            }
            Ok(calls)
        })
    }

    /// What the relays answered: topics a relay holds no socket for are forgotten; what a
    /// relay did not get is sent again at the next flush.
    fn settle(&self, results: Vec<(String, RelayCall, Result<RelayHeld>)>) {
        let store = self.store();
        let real = real_now();
        let mut retry = false;
        let settled = self.with_followed(|followed, s| {
            for (relay, call, held) in results {
                let mut gone = Vec::new();
                match held {
                    Ok(held) => {
                        s.failures.remove(&relay);
                        for (tag, n) in held.held {
                            if n == 0 {
                                gone.extend(followed.drop(
                                    &tag,
                                    &relay,
                                    real.saturating_sub(GRACE_MS),
                                ));
                            }
                        }
                    }
                    Err(e) => {
                        worker::console_error!("live: a relay did not answer: {e}");
                        let failures = s.failures.entry(relay.clone()).or_default();
                        *failures += 1;
                        if *failures >= MAX_FAILURES {
                            s.failures.remove(&relay);
                            let tags: Vec<String> = followed
                                .topics
                                .iter()
                                .filter(|(_, e)| e.relays.contains_key(&relay))
                                .map(|(t, _)| t.clone())
                                .collect();
                            for tag in tags {
                                gone.extend(followed.drop(&tag, &relay, Millis::MAX));
                            }
                            continue;
                        }
                        // Sent again: its topics' states are no longer known as sent, and
                        // its controls wait for the next flush.
                        for push in &call.pushes {
                            if let Some(e) = followed.topics.get_mut(&push.tag) {
                                e.last = None;
                            }
                        }
                        if !call.controls.is_empty() {
                            let waiting = s.controls.entry(relay.clone()).or_default();
                            let mut controls = call.controls;
                            controls.append(waiting);
                            *waiting = controls;
                        }
                        s.stale |= !call.pushes.is_empty();
                        retry = true;
                    }
                }
                follow::delete(&store, &gone)?;
            }
            Ok(())
        });
        if let Err(e) = settled {
            worker::console_error!("live: after a flush: {e}");
        }
        if retry {
            self.schedule();
        }
    }
}
