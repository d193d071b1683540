//! The JavaScript face of the library (wasm32 only): `TokenpadClient` over `fetch` (gloo-net),
//! the view models with `Intl` formatting (js-sys), and the TypeScript declarations of every
//! object they take and return (`tokenpad.d.ts`, appended to the generated `.d.ts`).

use crate::client::{Client, ClientConfig, ClientError, HttpResponse, Transport, TransportError};
use crate::decimal::Dec;
use crate::format::{format_dec, FormatOptions, Formats, Formatter, Grouping, PlainGrouping};
use crate::json::{self, FromJson};
use crate::model::{HolderFull, Presale, Token};
use crate::{time, view};
use js_sys::{Array, BigInt, Function, Object, Promise, Reflect};
use serde::Serialize;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, spawn_local, JsFuture};

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = include_str!("tokenpad.d.ts");

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: i32) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str, error: &JsValue);
}

// ---------------------------------------------------------------------------------------
// Errors and conversions

/// A JavaScript `Error` named `TokenpadError` with `code`, `status` and (when the service sent
/// them) `details`.
fn js_error(e: &ClientError) -> JsValue {
    let err = js_sys::Error::new(&e.message);
    err.set_name("TokenpadError");
    let _ = Reflect::set(&err, &"code".into(), &e.code.as_str().into());
    let _ = Reflect::set(&err, &"status".into(), &JsValue::from(e.status));
    if let Some(details) = &e.details {
        if let Ok(v) = js_sys::JSON::parse(&details.to_string()) {
            let _ = Reflect::set(&err, &"details".into(), &v);
        }
    }
    err.into()
}

fn invalid(code: &str, message: String) -> JsValue {
    js_error(&ClientError::new(code, 0, message))
}

/// Plain objects, amounts as decimal strings, `None` as `null`. Crosses the boundary as JSON
/// text: one `JSON.parse` is faster than building the object field by field, and it keeps a
/// single (serde_json) copy of every shape's code in the wasm.
fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(v).map_err(|e| invalid("internal_error", e.to_string()))?;
    js_sys::JSON::parse(&text).map_err(|e| invalid("internal_error", js_message(&e)))
}

/// A service object given back by JavaScript (amounts as strings or numbers), read through
/// `JSON.stringify`, which writes a number as the shortest decimal that round-trips.
fn from_js<T: FromJson>(v: &JsValue, what: &str) -> Result<T, JsValue> {
    let bad = |why: String| invalid("invalid_input", format!("not a valid {what}: {why}"));
    let text = js_sys::JSON::stringify(v).map_err(|e| bad(js_message(&e)))?;
    let text = text
        .as_string()
        .ok_or_else(|| bad("nothing to read".into()))?;
    json::from_str(&text).map_err(bad)
}

fn js_message(v: &JsValue) -> String {
    v.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| v.as_string())
        .unwrap_or_default()
}

fn now_or(now_ms: Option<f64>) -> Result<i64, JsValue> {
    let now = now_ms.unwrap_or_else(js_sys::Date::now);
    if !now.is_finite() {
        return Err(invalid(
            "invalid_input",
            "nowMs must be a finite number of milliseconds".into(),
        ));
    }
    Ok(now as i64)
}

// ---------------------------------------------------------------------------------------
// Intl

/// Writes digits the way `Intl.NumberFormat` does for a locale: the integer part through
/// `format(BigInt)` (exact at any size), the fraction with the locale's separator and digits.
struct IntlGrouping {
    format: Function,
    decimal: String,
    digits: Vec<String>,
}

impl IntlGrouping {
    fn new(locale: Option<&str>) -> Result<IntlGrouping, JsValue> {
        let intl = Reflect::get(&js_sys::global(), &"Intl".into())?;
        let ctor: Function = Reflect::get(&intl, &"NumberFormat".into())?.dyn_into()?;
        let locales = match locale {
            Some(l) => Array::of1(&l.into()),
            None => Array::new(),
        };
        let make = |fraction_digits: u32| -> Result<js_sys::Intl::NumberFormat, JsValue> {
            let opts = Object::new();
            Reflect::set(&opts, &"useGrouping".into(), &true.into())?;
            Reflect::set(
                &opts,
                &"minimumFractionDigits".into(),
                &fraction_digits.into(),
            )?;
            Reflect::set(
                &opts,
                &"maximumFractionDigits".into(),
                &fraction_digits.into(),
            )?;
            // Reflect.construct throws (a caught Err) on a malformed locale, where
            // `new Intl.NumberFormat` from Rust would unwind through the wasm.
            Ok(Reflect::construct(&ctor, &Array::of2(&locales, &opts))?.unchecked_into())
        };
        let whole = make(0)?;
        let format = whole.format();
        let mut decimal = ".".to_string();
        let parts = make(1)?.format_to_parts(1.5);
        for part in parts.iter() {
            if Reflect::get(&part, &"type".into())?.as_string().as_deref() == Some("decimal") {
                decimal = Reflect::get(&part, &"value".into())?
                    .as_string()
                    .unwrap_or(decimal);
            }
        }
        let mut digits = Vec::with_capacity(10);
        for d in 0..10u64 {
            let s = format.call1(&JsValue::UNDEFINED, &BigInt::from(d).into())?;
            digits.push(s.as_string().unwrap_or_else(|| d.to_string()));
        }
        Ok(IntlGrouping {
            format,
            decimal,
            digits,
        })
    }
}

impl Grouping for IntlGrouping {
    fn integer(&self, digits: &str) -> String {
        BigInt::new(&JsValue::from_str(digits))
            .ok()
            .and_then(|n| self.format.call1(&JsValue::UNDEFINED, &n.into()).ok())
            .and_then(|s| s.as_string())
            .unwrap_or_else(|| PlainGrouping.integer(digits))
    }

    fn decimal_separator(&self) -> String {
        self.decimal.clone()
    }

    fn fraction(&self, digits: &str) -> String {
        digits
            .bytes()
            .map(|b| {
                self.digits
                    .get(usize::from(b.wrapping_sub(b'0')))
                    .map_or("?", String::as_str)
            })
            .collect()
    }
}

thread_local! {
    /// The last locale's grouping: views are recomputed every second for countdowns, and
    /// building `Intl.NumberFormat`s each time would be wasteful.
    static GROUPING: RefCell<Option<(Option<String>, Rc<IntlGrouping>)>> = const { RefCell::new(None) };
}

fn grouping(locale: Option<&str>) -> Result<Rc<IntlGrouping>, JsValue> {
    let cached = GROUPING.with(|g| {
        g.borrow()
            .as_ref()
            .filter(|(l, _)| l.as_deref() == locale)
            .map(|(_, grouping)| grouping.clone())
    });
    if let Some(g) = cached {
        return Ok(g);
    }
    let g = Rc::new(IntlGrouping::new(locale).map_err(|e| {
        invalid(
            "invalid_options",
            format!("locale {locale:?} is not usable: {}", js_message(&e)),
        )
    })?);
    GROUPING.with(|cell| *cell.borrow_mut() = Some((locale.map(str::to_string), g.clone())));
    Ok(g)
}

fn format_options(options: Option<Object>) -> Result<(Formats, Rc<IntlGrouping>), JsValue> {
    let options: FormatOptions = match options {
        None => FormatOptions::default(),
        Some(o) => from_js(&o, "FormatOptions")?,
    };
    let formats = Formats::from_options(&options).map_err(|why| invalid("invalid_options", why))?;
    Ok((formats, grouping(options.locale.as_deref())?))
}

// ---------------------------------------------------------------------------------------
// Pure functions

/// Formats an exact decimal with the locale's grouping (`Intl.NumberFormat`), rounding only
/// the digits: `formatAmount("1234567.891", { locale: "de-DE", maximumFractionDigits: 2 })`
/// is `"1.234.567,89"`. A string or bigint is exact at any size; a number is read as the
/// shortest decimal that round-trips.
#[wasm_bindgen(js_name = formatAmount)]
pub fn format_amount(
    #[wasm_bindgen(unchecked_param_type = "Decimal | number | bigint")] value: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "FormatOptions")] options: Option<Object>,
) -> Result<String, JsValue> {
    let text = if let Some(s) = value.as_string() {
        s
    } else if value.as_f64().is_some() {
        // JavaScript's own shortest round-trip text (`0.1`, `1e+21`).
        js_sys::JSON::stringify(&value)
            .ok()
            .and_then(|s| s.as_string())
            .unwrap_or_default()
    } else if let Some(b) = value.dyn_ref::<BigInt>() {
        b.to_string(10).map(String::from).unwrap_or_default()
    } else {
        String::new()
    };
    let dec = Dec::parse(text.trim()).ok_or_else(|| {
        invalid(
            "invalid_input",
            format!("{text:?} is not a non-negative decimal number"),
        )
    })?;
    let (formats, g) = format_options(options)?;
    Ok(format_dec(&dec, formats.amount, g.as_ref()))
}

/// Writes base units as the exact whole-unit decimal: `formatUnits("1500000", 6)` is `"1.5"`.
#[wasm_bindgen(js_name = formatUnits)]
pub fn format_units(
    #[wasm_bindgen(js_name = "baseUnits", unchecked_param_type = "string | bigint")]
    base_units: JsValue,
    decimals: u8,
) -> Result<String, JsValue> {
    let text = match base_units.dyn_ref::<BigInt>() {
        Some(b) => b.to_string(10).map(String::from).unwrap_or_default(),
        None => base_units.as_string().unwrap_or_default(),
    };
    let units: u128 = text.parse().map_err(|_| {
        invalid(
            "invalid_input",
            format!("base units must be a non-negative integer string, not {text:?}"),
        )
    })?;
    Ok(tokenpad_core::money::format_units(units, decimals))
}

/// The time left until `targetMs`, from `nowMs` (default `Date.now()`).
#[wasm_bindgen(unchecked_return_type = "Countdown")]
pub fn countdown(
    #[wasm_bindgen(js_name = "targetMs")] target_ms: f64,
    #[wasm_bindgen(js_name = "nowMs")] now_ms: Option<f64>,
) -> Result<JsValue, JsValue> {
    if !target_ms.is_finite() {
        return Err(invalid(
            "invalid_input",
            "targetMs must be a finite number of milliseconds".into(),
        ));
    }
    to_js(&time::countdown(target_ms as i64, now_or(now_ms)?))
}

/// The holder's portfolio at `nowMs` (default `Date.now()`): rows for active tokens, locks and
/// presale positions, largest value first, with a countdown to each unlock.
#[wasm_bindgen(js_name = holderPortfolio, unchecked_return_type = "Portfolio")]
pub fn holder_portfolio(
    #[wasm_bindgen(unchecked_param_type = "HolderFull")] holder: JsValue,
    #[wasm_bindgen(js_name = "nowMs", unchecked_optional_param_type = "number")] now_ms: Option<
        f64,
    >,
    #[wasm_bindgen(unchecked_optional_param_type = "FormatOptions")] options: Option<Object>,
) -> Result<JsValue, JsValue> {
    let holder: HolderFull = from_js(&holder, "HolderFull")?;
    let (formats, g) = format_options(options)?;
    let f = Formatter {
        formats,
        grouping: g.as_ref(),
    };
    to_js(&view::portfolio(&holder, now_or(now_ms)?, &f))
}

/// The presale's progress at `nowMs` (default `Date.now()`): raised against target, the 70 %
/// launch threshold, status, time to start or end, participants, and the launch's completion
/// step when given the merchant form.
#[wasm_bindgen(js_name = presaleProgress, unchecked_return_type = "PresaleProgress")]
pub fn presale_progress(
    #[wasm_bindgen(unchecked_param_type = "Presale | PresaleMerchant")] presale: JsValue,
    #[wasm_bindgen(js_name = "nowMs", unchecked_optional_param_type = "number")] now_ms: Option<
        f64,
    >,
    #[wasm_bindgen(unchecked_optional_param_type = "FormatOptions")] options: Option<Object>,
) -> Result<JsValue, JsValue> {
    let presale: Presale = from_js(&presale, "Presale")?;
    let (formats, g) = format_options(options)?;
    let f = Formatter {
        formats,
        grouping: g.as_ref(),
    };
    to_js(&view::presale_progress(&presale, now_or(now_ms)?, &f))
}

/// The token's supply: distributed versus remaining app supply, merchant and liquidity
/// supply, price and top holders.
#[wasm_bindgen(js_name = tokenSupply, unchecked_return_type = "TokenSupply")]
pub fn token_supply(
    #[wasm_bindgen(unchecked_param_type = "Token")] token: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "FormatOptions")] options: Option<Object>,
) -> Result<JsValue, JsValue> {
    let token: Token = from_js(&token, "Token")?;
    let (formats, g) = format_options(options)?;
    let f = Formatter {
        formats,
        grouping: g.as_ref(),
    };
    to_js(&view::token_supply(&token, &f))
}

/// True for the errors this library throws (an `Error` with a string `code` and a numeric
/// `status`).
#[wasm_bindgen(js_name = isTokenpadError, unchecked_return_type = "value is TokenpadError")]
pub fn is_tokenpad_error(#[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue) -> bool {
    value.is_instance_of::<js_sys::Error>()
        && Reflect::get(&value, &"code".into()).is_ok_and(|c| c.is_string())
        && Reflect::get(&value, &"status".into()).is_ok_and(|s| s.as_f64().is_some())
}

// ---------------------------------------------------------------------------------------
// The client

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
