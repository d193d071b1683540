//! The object's side of `GET /live` (the design: `objects/live/mod.rs`): a relay asks to
//! admit a client's socket, and the object checks its credential as every request's is (a
//! key, or a holder's session token), charges its opener's rate budget for it, and answers
//! who opened it with each topic's current message, or the refusal. And what the relays
//! hear of a committed operation besides its changes.

use super::{caller, MerchantObject};
use crate::adapters::sql::SqlStore;
use crate::hop::live::WatchCall;
use crate::http::Answer;
use crate::objects::live;
use tokenpad_core::model::time::Millis;
use tokenpad_core::Result;

impl MerchantObject {
    pub(super) fn admit_socket(&self, call: WatchCall) -> Result<Answer> {
        let store = self.store()?;
        let merchant = self
            .hot_merchant(&store)?
            .ok_or_else(|| caller::unknown(&call.credential))?;
        let caller = self.caller(&store, &merchant, &call.credential)?;
        // A socket spends its opener's budget once, as a request would (a public key's per
        // client address, a session's per session too; never the secret key's).
        self.charge(&caller, &call.client)?;
        let now = self.now()?;
        let admitted = self.live.admit(
            &store,
            &caller,
            &merchant.id,
            merchant.private_mode,
            call,
            now,
        )?;
        Answer::json(200, &admitted)
    }

    /// What the relays hear of a committed operation: a holder's sessions revoked, or
    /// private mode turned on, close sockets.
    pub(super) fn tell_relays(&self, tell: live::Tell, store: &SqlStore, now: Millis) {
        match tell {
            live::Tell::Nothing => {}
            live::Tell::Revoked(user) => self.live.revoked(&user, now),
            live::Tell::Settings => {
                if let Ok(Some(m)) = self.hot_merchant(store) {
                    if m.private_mode {
                        self.live.private_mode_on();
                    }
                }
            }
        }
    }
}
