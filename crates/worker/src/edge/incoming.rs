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

    /// Nothing, when the request says its body is JSON (`Content-Type: application/json` or a
    /// `+json` type, any case, any parameters); else 415 `unsupported_media_type`.
    pub fn json_media(&self) -> tokenpad_core::Result<()> {
        let content_type = self.header("content-type").unwrap_or_default();
        let media = content_type.split(';').next().unwrap_or_default().trim();
        let media = media.to_ascii_lowercase();
        if media == "application/json" || media.ends_with("+json") {
            Ok(())
        } else {
            Err(tokenpad_core::Error::new(
                tokenpad_core::ErrorCode::UnsupportedMediaType,
                "Send the body as JSON with Content-Type: application/json",
            ))
        }
    }

    /// A header's value as sent, empty included.
    pub fn header_sent(&self, name: &str) -> Option<String> {
        self.1.get(name).ok().flatten()
    }

    /// The body's length as its `Content-Length` declares it, whatever its size (past 2^32 and
    /// 2^64 included: saturated, never wrapped or dropped), when it is one.
    pub fn declared_length(&self) -> Option<u64> {
        self.header("content-length")
            .and_then(|v| declared_length(&v))
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

/// A `Content-Length` value's length in bytes: digits only (RFC 9110), read at any size; a
/// value past `u64::MAX` is `u64::MAX`. Anything else is not a length (`None`).
fn declared_length(value: &str) -> Option<u64> {
    let digits = value.trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Only digits: the one failure left is a value too large for 64 bits.
    Some(digits.parse::<u64>().unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::declared_length;

    #[test]
    fn a_declared_length_is_read_at_any_size() {
        let cases: [(&str, Option<u64>); 10] = [
            ("0", Some(0)),
            ("65536", Some(65_536)),
            (" 65537 ", Some(65_537)),
            ("4294967295", Some(4_294_967_295)),
            ("4294967296", Some(4_294_967_296)),
            ("18446744073709551615", Some(u64::MAX)),
            ("18446744073709551616", Some(u64::MAX)),
            ("99999999999999999999999999999999", Some(u64::MAX)),
            ("-1", None),
            ("12a", None),
        ];
        for (value, length) in cases {
            assert_eq!(declared_length(value), length, "{value:?}");
        }
        assert_eq!(
            declared_length("0000000000000000000000000065537"),
            Some(65_537)
        );
    }
}
