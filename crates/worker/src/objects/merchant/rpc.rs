//! How the edge calls the object (`hop::merchant`): by RPC on its stub (`answerCall`), the
//! typed call as JSON text in, the client's HTTP response out as data (`hop::Answer`). The
//! RPC skips a Request, its body stream and the fetch machinery around them: measured
//! locally, a call to an object that does nothing served 294-340 req/s by fetch and 873-972
//! by RPC, at a third of the CPU per request. The answer as data rather than a `Response`
//! spares a body streamed across and two Response objects.
//!
//! An edge of a previous version may still call during a deployment: the object answers the
//! same call sent with `fetch` (`DurableObject::fetch`, which the live channel's upgrade
//! needs anyway) and by `handleCall` (RPC answering a `Response`), the two earlier hops.
//! The runtime offers RPC only on classes deriving from its `DurableObject`;
//! `crates/worker/entry.mjs` makes the exported classes do so.

use super::{lost, MerchantObject};
use crate::hop::{self, Answer, MerchantCall};
use crate::http;
use tokenpad_core::Result;
use worker::wasm_bindgen::prelude::*;
use worker::{web_sys, Response};

#[wasm_bindgen(wasm_bindgen = ::worker::wasm_bindgen, wasm_bindgen_futures = ::worker::wasm_bindgen_futures)]
impl MerchantObject {
    /// `stub.answerCall(json)`: a `MerchantCall`, answered as an `Answer`. A rejected
    /// promise is what a lost or failed call looks like to the edge (a 503 `unavailable`).
    #[wasm_bindgen(js_name = answerCall)]
    pub async fn answer_call(&self, call: String) -> std::result::Result<JsValue, JsValue> {
        let resp = self.answer(hop::parse::<MerchantCall>(&call)).await?;
        let answer = Answer::of(&resp).map_err(|e| JsValue::from(e.to_string()))?;
        serde_wasm_bindgen::to_value(&answer).map_err(JsValue::from)
    }

    /// `stub.handleCall(json)`: the same, answered as `fetch` answers it (the previous
    /// version's edge calls this).
    #[wasm_bindgen(js_name = handleCall)]
    pub async fn handle_call(
        &self,
        call: String,
    ) -> std::result::Result<web_sys::Response, JsValue> {
        match self.answer(hop::parse::<MerchantCall>(&call)).await {
            Ok(resp) => Ok(resp.into()),
            Err(e) => Err(JsValue::from(e)),
        }
    }
}

impl MerchantObject {
    /// A call, by RPC or by `fetch`: its answer, or (test faults) no answer at all.
    pub(super) async fn answer(&self, call: Result<MerchantCall>) -> worker::Result<Response> {
        // Test faults: this API call's answer may be lost, before or after it ran.
        let lose = match &call {
            Ok(MerchantCall::Api(_)) => self.lose_answer(),
            _ => None,
        };
        if lose == Some(false) {
            return Err(lost(false));
        }
        let outcome = match call {
            Ok(call) => self.handle(call).await,
            Err(e) => Err(e),
        };
        if lose == Some(true) {
            return Err(lost(true));
        }
        match outcome {
            Ok(resp) => Ok(resp),
            Err(e) => http::error(&e),
        }
    }
}
