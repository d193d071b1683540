//! How the edge calls the object (`hop::merchant`): by RPC on its stub (`answerFramed`), the
//! typed call as JSON text in, the client's HTTP response out as data (`http::Answer`), as
//! text too: its head in JSON, a newline, its body as it is (`Answer::framed`). The RPC skips
//! a Request, its body stream and the fetch machinery around them: measured locally, a call to
//! an object that does nothing served 294-340 req/s by fetch and 873-972 by RPC, at a third of
//! the CPU per request. The answer as data rather than a `Response` spares a body streamed
//! across and two Response objects; as one string rather than a JavaScript object it crosses
//! between wasm and JavaScript once on each side, where building the object field by field
//! (serde-wasm-bindgen) and reading it back took some 55 crossings a holder read (counted on a
//! scratch build; CPU did not change measurably). Framed rather than one JSON document, the
//! body is not escaped into a string and back out of it.
//!
//! An edge of an older version may still call during a deployment: the object answers the
//! same call sent with `fetch` (`DurableObject::fetch`, which the live channel's upgrade
//! needs anyway), the earliest hop. `answerText` (the answer as one JSON document) served
//! the edge of the release before last during its deploy and is gone: the last release's
//! edge, the oldest one left, calls `answerFramed`.
//! The runtime offers RPC only on classes deriving from its `DurableObject`;
//! `crates/worker/entry.mjs` makes the exported classes do so.

use super::{lost, MerchantObject};
use crate::hop::{self, MerchantCall};
use crate::http::Answer;
use tokenpad_core::Result;
use worker::wasm_bindgen::prelude::*;

#[wasm_bindgen(wasm_bindgen = ::worker::wasm_bindgen, wasm_bindgen_futures = ::worker::wasm_bindgen_futures)]
impl MerchantObject {
    /// `stub.answerFramed(json)`: a `MerchantCall`, answered as an `Answer` framed
    /// (`http::Answer::framed`: its head in JSON, a newline, its body as it is). A rejected
    /// promise is what a lost or failed call looks like to the edge (a 503 `unavailable`).
    #[wasm_bindgen(js_name = answerFramed)]
    pub async fn answer_framed(&self, call: String) -> std::result::Result<String, JsValue> {
        let answer = self.answer(hop::parse::<MerchantCall>(&call)).await?;
        answer.framed().map_err(|e| JsValue::from(e.to_string()))
    }
}

impl MerchantObject {
    /// A call, by RPC or by `fetch`: its answer, or (test faults) no answer at all.
    pub(super) async fn answer(&self, call: Result<MerchantCall>) -> worker::Result<Answer> {
        // Test faults: this API call's or clock move's answer may be lost, before or after it
        // ran.
        let lose = match &call {
            Ok(MerchantCall::Api(_) | MerchantCall::Advance { .. }) => self.faults.lose_answer(),
            _ => None,
        };
        if lose == Some(false) {
            return Err(lost(false));
        }
        let (before, recalled) = (self.watch.statements.get(), self.watch.recalled.get());
        let outcome = match call {
            Ok(call) => self.handle(call).await,
            Err(e) => Err(e),
        };
        if lose == Some(true) {
            return Err(lost(true));
        }
        let answer = outcome.unwrap_or_else(|e| Answer::error(&e));
        // Local runs and tests: how many SQL statements ran while the call did (docs/performance.md,
        // "SQL statements per request"; tests/http/hot_state.test.mjs holds a warm holder read to none),
        // and how many reads were answered with the text kept from their last answer.
        // Calls that overlap it at an await count too: exact for one call at a time.
        Ok(if self.faults.count_statements {
            let ran = self.watch.statements.get().saturating_sub(before);
            let kept = self.watch.recalled.get().saturating_sub(recalled);
            answer
                .with_header("x-sql-statements", ran.to_string())
                .with_header("x-kept-texts", kept.to_string())
        } else {
            answer
        })
    }
}
