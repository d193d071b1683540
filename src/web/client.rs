//! `TokenpadClient` (and `PresaleWatch`) for JavaScript: the client's logic
//! (`crate::client`) over `fetch`, its answers handed over as plain objects.

use super::{clear_timeout, console_error, invalid, js_error, js_message, set_timeout, to_js};
use crate::client::{Client, ClientConfig, ClientError, HttpResponse, Transport, TransportError};
use js_sys::{Function, Promise, Reflect};
use serde::Serialize;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, spawn_local, JsFuture};

/// `fetch` (the global one: browsers, workers, Node 18+) through gloo-net, with an
/// `AbortController` for the timeout.
pub struct FetchTransport;

impl Transport for FetchTransport {
    fn get(
        &self,
        url: &str,
        timeout_ms: u32,
    ) -> impl Future<Output = Result<HttpResponse, TransportError>> {
        let url = url.to_string();
        async move {
            let controller = web_sys::AbortController::new()
                .map_err(|e| TransportError::Network(js_message(&e)))?;
            let signal = controller.signal();
            let abort = Closure::once(move || controller.abort());
            let ms = i32::try_from(timeout_ms).unwrap_or(i32::MAX);
            let timer = set_timeout(abort.as_ref().unchecked_ref(), ms);
            let result = async {
                let res = gloo_net::http::Request::get(&url)
                    .cache(web_sys::RequestCache::NoStore)
                    .abort_signal(Some(&signal))
                    .send()
                    .await?;
                let status = res.status();
                let body = res.text().await?;
                Ok::<_, gloo_net::Error>(HttpResponse { status, body })
            }
            .await;
            clear_timeout(&timer);
            drop(abort);
            match result {
                Ok(r) => Ok(r),
                Err(_) if signal.aborted() => Err(TransportError::Timeout),
                Err(e) => Err(TransportError::Network(e.to_string())),
            }
        }
    }
}

/// Reads tokenpad with a public key. Refuses a secret key.
#[wasm_bindgen]
pub struct TokenpadClient {
    inner: Rc<Client<FetchTransport>>,
}

fn option_string(options: &JsValue, key: &str) -> Result<Option<String>, JsValue> {
    let v = Reflect::get(options, &key.into()).unwrap_or(JsValue::UNDEFINED);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_string()
        .map(Some)
        .ok_or_else(|| invalid("invalid_options", format!("{key} must be a string")))
}

#[wasm_bindgen]
impl TokenpadClient {
    /// `new TokenpadClient({ baseUrl, publicKey, timeoutMs })`. Throws a `TokenpadError` with
    /// code `secret_key_refused` for a secret key (`sk_...`), `invalid_options` for a bad
    /// `baseUrl` or `timeoutMs` (default 10000).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "TokenpadClientOptions")] options: JsValue,
    ) -> Result<TokenpadClient, JsValue> {
        if !options.is_object() {
            return Err(invalid(
                "invalid_options",
                "options must be an object: { baseUrl, publicKey, timeoutMs? }".into(),
            ));
        }
        let public_key = option_string(&options, "publicKey")?;
        let base_url = option_string(&options, "baseUrl")?.unwrap_or_default();
        let timeout = Reflect::get(&options, &"timeoutMs".into()).unwrap_or(JsValue::UNDEFINED);
        let timeout_ms = match timeout.as_f64() {
            Some(t) => Some(t),
            None if timeout.is_undefined() || timeout.is_null() => None,
            None => {
                return Err(invalid(
                    "invalid_options",
                    "timeoutMs must be a number".into(),
                ))
            }
        };
        let config = ClientConfig::new(&base_url, public_key.as_deref(), timeout_ms)
            .map_err(|e| js_error(&e))?;
        Ok(TokenpadClient {
            inner: Rc::new(Client::new(config, FetchTransport)),
        })
    }

    /// The base URL, without a trailing slash.
    #[wasm_bindgen(getter, js_name = baseUrl)]
    pub fn base_url(&self) -> String {
        self.inner.config.base_url.clone()
    }

    /// Milliseconds each request may take.
    #[wasm_bindgen(getter, js_name = timeoutMs)]
    pub fn timeout_ms(&self) -> u32 {
        self.inner.config.timeout_ms
    }

    /// `GET /token/:address`: the token with its supply figures and top holders.
    #[wasm_bindgen(js_name = getToken, unchecked_return_type = "Promise<Token>")]
    pub fn get_token(&self, address: String) -> Promise {
        let c = self.inner.clone();
        promise(async move { c.get_token(&address).await })
    }

    /// `GET /holder/:userId`: the holder's tokens, locks and presale positions.
    #[wasm_bindgen(js_name = getHolder, unchecked_return_type = "Promise<HolderFull>")]
    pub fn get_holder(&self, #[wasm_bindgen(js_name = "userId")] user_id: String) -> Promise {
        let c = self.inner.clone();
        promise(async move { c.get_holder(&user_id).await })
    }

    /// `GET /holder/:userIdOrAddress/token/:tokenAddress`: one balance.
    #[wasm_bindgen(
        js_name = getHolderTokenBalance,
        unchecked_return_type = "Promise<TokenBalance>"
    )]
    pub fn get_holder_token_balance(
        &self,
        #[wasm_bindgen(js_name = "userIdOrAddress")] user_id_or_address: String,
        #[wasm_bindgen(js_name = "tokenAddress")] token_address: String,
    ) -> Promise {
        let c = self.inner.clone();
        promise(async move {
            c.get_holder_token_balance(&user_id_or_address, &token_address)
                .await
        })
    }

    /// `GET /token/presales/:presaleId`: the public form of the presale.
    #[wasm_bindgen(js_name = getPresale, unchecked_return_type = "Promise<Presale>")]
    pub fn get_presale(
        &self,
        #[wasm_bindgen(js_name = "presaleId")] presale_id: String,
    ) -> Promise {
        let c = self.inner.clone();
        promise(async move { c.get_presale(&presale_id).await })
    }

    /// Reads the presale now and then every `intervalMs` (default 5000, at least 250) after
    /// the previous read finished, calling `callback(presale, null)` or `callback(null,
    /// error)` each time, until `stop()` is called on the returned handle. Keep the handle:
    /// polling goes on until `stop()`, even if the handle itself is garbage-collected.
    #[wasm_bindgen(js_name = watchPresale)]
    pub fn watch_presale(
        &self,
        #[wasm_bindgen(js_name = "presaleId")] presale_id: String,
        #[wasm_bindgen(
            unchecked_param_type = "(presale: Presale | null, error: TokenpadError | null) => void"
        )]
        callback: Function,
        #[wasm_bindgen(js_name = "intervalMs")] interval_ms: Option<f64>,
    ) -> PresaleWatch {
        let interval = interval_ms
            .filter(|v| v.is_finite())
            .unwrap_or(5000.0)
            .clamp(250.0, f64::from(i32::MAX)) as i32;
        let state = Rc::new(WatchState::default());
        let client = self.inner.clone();
        let st = state.clone();
        spawn_local(async move {
            loop {
                if st.stopped.get() {
                    break;
                }
                let result = client.get_presale(&presale_id).await;
                if st.stopped.get() {
                    break;
                }
                let (value, error) = match result.map_err(|e| js_error(&e)).and_then(|p| to_js(&p))
                {
                    Ok(v) => (v, JsValue::NULL),
                    Err(e) => (JsValue::NULL, e),
                };
                if let Err(thrown) = callback.call2(&JsValue::NULL, &value, &error) {
                    console_error("tokenpad: the watchPresale callback threw", &thrown);
                }
                if st.stopped.get() {
                    break;
                }
                st.sleep(interval).await;
            }
            st.stopped.set(true);
        });
        PresaleWatch { state }
    }
}

/// Runs a client call as a `Promise` of the plain JavaScript object, or of a thrown
/// `TokenpadError`.
fn promise<M, F>(f: F) -> Promise
where
    M: Serialize,
    F: Future<Output = Result<M, ClientError>> + 'static,
{
    future_to_promise(async move {
        let m = f.await.map_err(|e| js_error(&e))?;
        to_js(&m)
    })
}

#[derive(Default)]
struct WatchState {
    stopped: Cell<bool>,
    timer: RefCell<Option<JsValue>>,
    wake: RefCell<Option<Function>>,
}

impl WatchState {
    /// Waits `ms`, or until `stop()` wakes it early.
    async fn sleep(&self, ms: i32) {
        let promise = Promise::new(&mut |resolve, _reject| {
            *self.timer.borrow_mut() = Some(set_timeout(&resolve, ms));
            *self.wake.borrow_mut() = Some(resolve);
        });
        let _ = JsFuture::from(promise).await;
        self.timer.borrow_mut().take();
        self.wake.borrow_mut().take();
    }
}

/// The handle `watchPresale` returns.
#[wasm_bindgen]
pub struct PresaleWatch {
    state: Rc<WatchState>,
}

#[wasm_bindgen]
impl PresaleWatch {
    /// Stops polling: no callback runs after this returns. Idempotent.
    pub fn stop(&self) {
        self.state.stopped.set(true);
        if let Some(timer) = self.state.timer.borrow_mut().take() {
            clear_timeout(&timer);
        }
        let wake = self.state.wake.borrow_mut().take();
        if let Some(wake) = wake {
            let _ = wake.call0(&JsValue::UNDEFINED);
        }
    }

    /// False once stopped.
    #[wasm_bindgen(getter)]
    pub fn active(&self) -> bool {
        !self.state.stopped.get()
    }
}
