//! The webhook sender: one signed POST of an event to an endpoint, with a timeout, and what
//! came back. Redirects are not followed (a 3xx is an answer that is not a 2xx: retried).
//! The endpoint's URL and secret never appear in what this returns or logs.

use futures_util::future::{select, Either};
use tokenpad_core::model::time::Millis;
use tokenpad_core::model::webhook::{Attempt, KEPT_BODY};
use worker::{
    AbortController, Delay, Fetch, Headers, Method, Request, RequestInit, RequestRedirect,
};

/// What one delivery sends.
pub struct Outgoing<'a> {
    pub url: &'a str,
    /// The event as JSON text: exactly the bytes signed.
    pub body: &'a str,
    /// `t=<unix seconds>,v1=<hex>`.
    pub signature: String,
    pub event_id: &'a str,
    pub event_type: &'a str,
    pub delivery_id: &'a str,
}

/// The start of `text`, at most `max` bytes, cut at a character boundary.
fn prefix(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default().to_string()
}

fn failed(at: Millis, started: u64, why: &str) -> Attempt {
    Attempt {
        at,
        duration_ms: elapsed(started),
        status: None,
        error: Some(why.to_string()),
        body: None,
    }
}

fn elapsed(started: u64) -> u64 {
    crate::clock::now_ms().saturating_sub(started)
}

/// Sends one delivery; `at` is when (service time), for the attempt's record. Never fails:
/// every outcome is an attempt (a status, or why there is none).
pub async fn send(out: &Outgoing<'_>, at: Millis, timeout_ms: u64) -> Attempt {
    let started = crate::clock::now_ms();
    let headers = Headers::new();
    let set = [
        ("content-type", "application/json"),
        ("user-agent", "tokenpad-webhooks/1"),
        ("tokenpad-signature", out.signature.as_str()),
        ("tokenpad-event-id", out.event_id),
        ("tokenpad-event-type", out.event_type),
        ("tokenpad-delivery-id", out.delivery_id),
    ];
    for (name, value) in set {
        if headers.set(name, value).is_err() {
            return failed(at, started, "could not build the request");
        }
    }
    let mut init = RequestInit::new();
    init.with_method(Method::Post)
        .with_headers(headers)
        .with_redirect(RequestRedirect::Manual)
        .with_body(Some(out.body.into()));
    let Ok(req) = Request::new_with_init(out.url, &init) else {
        return failed(at, started, "the URL is not usable");
    };
    let controller = AbortController::default();
    let signal = controller.signal();
    let exchange = async {
        let mut resp = Fetch::Request(req).send_with_signal(&signal).await?;
        let status = resp.status_code();
        // The answer's text, as far as it goes (a receiver may answer anything).
        let text = resp.text().await.unwrap_or_default();
        Ok::<_, worker::Error>((status, text))
    };
    let timer = Delay::from(std::time::Duration::from_millis(timeout_ms));
    let outcome = select(Box::pin(exchange), Box::pin(timer)).await;
    match outcome {
        Either::Left((Ok((status, text)), _)) => Attempt {
            at,
            duration_ms: elapsed(started),
            status: Some(status),
            error: None,
            body: (!text.is_empty()).then(|| prefix(&text, KEPT_BODY)),
        },
        Either::Left((Err(_), _)) => failed(at, started, "network error"),
        Either::Right(((), _)) => {
            controller.abort();
            failed(
                at,
                started,
                &format!("timeout: no answer within {timeout_ms} ms"),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::prefix;

    #[test]
    fn prefixes_cut_at_character_boundaries() {
        assert_eq!(prefix("héllo", 2), "h");
        assert_eq!(prefix("héllo", 3), "hé");
        assert_eq!(prefix("abc", 10), "abc");
    }
}
