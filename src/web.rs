//! The wasm exports the package's JavaScript layer (`src/js/`) is built on (wasm32 only): the
//! service's answers read exactly (`readAnswer`), the view models with `Intl` formatting
//! (js-sys), and exact formatting. HTTP, retries, errors as a class, live updates and the
//! service clock are JavaScript (`src/js/`), where they cost the page less than in wasm. The
//! public TypeScript declarations are there too; these exports are internal.

use crate::client::{ClientError, HttpResponse};
use crate::decimal::Dec;
use crate::format::{format_dec, FormatOptions, Formats, Formatter, Grouping, PlainGrouping};
use crate::wire::{self, HolderFull, Token};
use crate::{time, view};
use js_sys::{Array, BigInt, Function, Object, Reflect};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

// ---------------------------------------------------------------------------------------
// Errors and conversions

/// A JavaScript `Error` named `TokenpadError` with `code`, `status` and (when the service sent
/// them) `details`. The JavaScript layer turns it into an instance of its `TokenpadError` class.
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

/// Plain objects, amounts as decimal strings (`wire::to_js_json`), `None` as `null`. Crosses
/// the boundary as JSON text: one `JSON.parse` is faster than building the object field by
/// field, and it keeps a single (serde_json) copy of every shape's code in the wasm.
fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsValue> {
    let text = wire::to_js_json(v).map_err(|e| invalid("internal_error", e))?;
    js_sys::JSON::parse(&text).map_err(|e| invalid("internal_error", js_message(&e)))
}

/// An object given back by JavaScript (amounts as strings or numbers) as JSON text, through
/// `JSON.stringify`, which writes a number as the shortest decimal that round-trips.
fn json_of(v: &JsValue, what: &str) -> Result<String, JsValue> {
    let text = js_sys::JSON::stringify(v).map_err(|e| bad_input(what, js_message(&e)))?;
    text.as_string()
        .ok_or_else(|| bad_input(what, "nothing to read".into()))
}

fn bad_input(what: &str, why: String) -> JsValue {
    invalid("invalid_input", format!("not a valid {what}: {why}"))
}

/// A service object given back by JavaScript, read as its wire type.
fn from_js<T: DeserializeOwned>(v: &JsValue, what: &str) -> Result<T, JsValue> {
    wire::from_str(&json_of(v, what)?).map_err(|e| bad_input(what, e))
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
    Ok(tokenpad_core::model::amount::format_units(units, decimals))
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
    let (presale, merchant) =
        wire::read_presale(&json_of(&presale, "Presale")?).map_err(|e| bad_input("Presale", e))?;
    let (formats, g) = format_options(options)?;
    let f = Formatter {
        formats,
        grouping: g.as_ref(),
    };
    to_js(&view::presale_progress(
        &presale,
        &merchant,
        now_or(now_ms)?,
        &f,
    ))
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

/// Reads an answer of the service: a 2xx body as the wire type `kind` names (`token`,
/// `holder`, `balance`, `presale`), exactly, with every amount as a decimal string; anything
/// else as the service's error (thrown: `code`, `status`, `message`, `details`), or a generic
/// one (`http_error`, `invalid_response`).
#[wasm_bindgen(js_name = readAnswer)]
pub fn read_answer(kind: &str, status: u16, body: String) -> Result<JsValue, JsValue> {
    let res = HttpResponse { status, body };
    match kind {
        "token" => answer::<Token>(res),
        "holder" => answer::<HolderFull>(res),
        "balance" => answer::<wire::TokenBalance>(res),
        "presale" => answer::<wire::Presale>(res),
        other => Err(invalid(
            "invalid_input",
            format!("unknown answer kind {other:?}"),
        )),
    }
}

fn answer<M: DeserializeOwned + Serialize>(res: HttpResponse) -> Result<JsValue, JsValue> {
    let m: M = crate::client::read_answer(res).map_err(|e| js_error(&e))?;
    to_js(&m)
}
