//! The request as the runtime hands it to the edge. Making a `worker::Request` of it reads
//! the request's `cf` object (a copy of the runtime's request properties into JS) and
//! reparses its URL with the `url` crate: about 6 % of a holder read's time in
//! `./scripts/bench.sh --profile holder`, for parts the edge never reads. The edge reads the
//! runtime's request directly; `into_worker` makes a `worker::Request` only where one is
//! handed on (a WebSocket upgrade, to its relay).

use worker::wasm_bindgen_futures::JsFuture;
use worker::{js_sys, web_sys};

/// The request, and its headers fetched once (each `headers()` crosses into JavaScript, and
/// a request reads half a dozen).
pub struct Incoming(web_sys::Request, web_sys::Headers);

impl Incoming {
    pub fn new(req: web_sys::Request) -> Incoming {
        let headers = req.headers();
        Incoming(req, headers)
    }

    /// The method, upper case.
    pub fn method(&self) -> String {
        self.0.method().to_ascii_uppercase()
    }

    /// The URL as the runtime serialized it.
    pub fn url(&self) -> String {
        self.0.url()
    }

    /// A header's value; an empty one counts as absent.
    pub fn header(&self, name: &str) -> Option<String> {
        crate::http::header_in(&self.1, name)
    }

    /// A header's value as sent, empty included.
    pub fn header_sent(&self, name: &str) -> Option<String> {
        self.1.get(name).ok().flatten()
    }

    /// The whole body (the caller checks its size first).
    pub async fn bytes(&self) -> worker::Result<Vec<u8>> {
        let buffer = JsFuture::from(self.0.array_buffer()?).await?;
        Ok(js_sys::Uint8Array::new(&buffer).to_vec())
    }

    /// The request as workers-rs's type, to hand it on.
    pub fn into_worker(self) -> worker::Request {
        worker::Request::from(self.0)
    }
}
