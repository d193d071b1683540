//! The object's side of `GET /live` (the channel itself is `objects/live.rs`): a client's
//! socket is accepted once its credential checked as every request's does (a key, or a
//! holder's session token), and the alarm is pointed at its session's expiry when that comes
//! before the alarm's time, so the socket is closed when the session ends.

use super::{caller, MerchantObject};
use crate::hop::Credential;
use crate::http;
use crate::objects::live;
use tokenpad_core::{Error, Result};
use worker::{Request, Response};

impl MerchantObject {
    /// A client's WebSocket for live updates, or the refusal as JSON, before any upgrade.
    pub(super) async fn live(&self, req: &Request) -> worker::Result<Response> {
        match self.accept_socket(req) {
            Ok(response) => {
                self.wake_for_sockets().await;
                Ok(response)
            }
            Err(e) => http::error(&e),
        }
    }

    fn accept_socket(&self, req: &Request) -> Result<Response> {
        let store = self.store()?;
        let url = req.url().map_err(|e| Error::internal(e.to_string()))?;
        let credential = Credential::of_upgrade(url.query_pairs(), |h| http::header(req, h))?;
        let merchant = self
            .hot_merchant(&store)?
            .ok_or_else(|| caller::unknown(&credential))?;
        let caller = self.caller(&store, &merchant, &credential)?;
        let client = tokenpad_core::ratelimit::client_address(
            http::header(req, "cf-connecting-ip").as_deref(),
        );
        self.charge(&caller, &client)?;
        live::accept(&self.state, &store, req, self.now()?, &caller)
    }

    /// The alarm must wake the object when a socket's session expires, if that is before the
    /// alarm's time (`live::next_expiry` is also one of the alarm's wakes).
    async fn wake_for_sockets(&self) {
        let Ok(now) = self.now() else { return };
        let Some(at) = live::next_expiry(&self.state, now) else {
            return;
        };
        if self.alarm_stale.get() || self.alarm_at.get().is_none_or(|a| at < a) {
            if let Err(e) = self.sync_alarm().await {
                worker::console_error!("alarm for a live socket's expiry: {e}");
            }
        }
    }
}
