//! The account API (`/account/...`, docs/accounts.md), served at the edge across the account's
//! Durable Object (`objects::account`) and the merchants' objects. Browser-only and
//! same-origin: a POST must carry the service's own Origin (or, with none,
//! `Sec-Fetch-Site: same-origin`) and a JSON body; no CORS. The login cookie is
//! `__Host-tp_login`, HttpOnly, Secure, SameSite=Lax; its value names its account's object
//! (`ops::accounts::link`) and is kept there only as a hash.

use super::incoming::Incoming;
use super::target::Target as Url;
use super::{admin, guard, overview};
use crate::config;
use crate::hop::account::{
    self as hop_account, AccountCall, InviteRecorded, LiveSession, LoggedIn, MembersCall, Target,
};
use crate::hop::{self, MerchantCall};
use crate::http;
use serde::Serialize;
use serde_json::Value;
use tokenpad_core::model::account::{check_password, normalize_email, INVITE_TTL};
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::model::time::{Millis, Timestamp};
use tokenpad_core::ops::accounts::{link, password};
use tokenpad_core::wire::account::{
    self as wire, Accepted, Account, AccountMerchant, AccountMerchantCreated, CreateMerchant,
    Credentials, DashboardToken, EmailOnly, InviteRequest, LinkToken, Mailbox, Members,
    RemoveMember, ResetConfirm, ResetRequest,
};
use tokenpad_core::wire::decode;
use tokenpad_core::wire::routes::Matched;
use tokenpad_core::{Error, ErrorCode, Result};
use worker::{Env, Response};

/// The login cookie's name.
pub const COOKIE: &str = "__Host-tp_login";

fn internal(e: worker::Error) -> Error {
    Error::internal(e.to_string())
}

fn invalid_link() -> Error {
    Error::new(
        ErrorCode::InvalidLink,
        "This link is not valid: it is unknown, expired or already used",
    )
}

/// The service clock: real time, plus the time-travel offset in local runs.
async fn now(env: &Env) -> Result<Millis> {
    let real = crate::clock::now_ms();
    if !config::flag(env, "ALLOW_TIME_TRAVEL") {
        return Ok(real);
    }
    let reg = hop::registry(env, &crate::hop::RegistryCall::List).await?;
    Ok(real.saturating_add(reg.offset_ms))
}

/// A POST from another origin (a form or a script on another site): 403
/// `cross_origin_request`. The request's own origin is the one allowed.
fn same_origin(req: &Incoming, url: &Url) -> Result<()> {
    let ok = match req.header("origin") {
        Some(origin) => origin.trim_end_matches('/') == url.origin(),
        None => req.header("sec-fetch-site").as_deref() == Some("same-origin"),
    };
    if ok {
        Ok(())
    } else {
        Err(Error::new(
            ErrorCode::CrossOriginRequest,
            "The account API answers only the service's own pages: this request came from another origin",
        ))
    }
}

/// The login cookie the request carries, if any.
fn cookie(req: &Incoming) -> Option<String> {
    let header = req.header("cookie")?;
    header.split(';').find_map(|part| {
        let (name, value) = part.trim().split_once('=')?;
        (name == COOKIE && !value.is_empty()).then(|| value.to_string())
    })
}

fn set_cookie(value: &str, max_age: u64) -> String {
    format!("{COOKIE}={value}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age={max_age}")
}

fn answer<T: Serialize>(status: u16, body: &T) -> Result<Response> {
    http::json(status, body).map_err(internal)
}

fn with_cookie(resp: Response, value: &str, max_age: u64) -> Result<Response> {
    let line = set_cookie(value, max_age);
    http::edit_headers(resp, |h| h.set("set-cookie", &line)).map_err(internal)
}

fn no_content() -> Result<Response> {
    Ok(Response::empty().map_err(internal)?.with_status(204))
}

/// The live login session of the request's cookie, or 401 `not_logged_in`.
async fn session(req: &Incoming, env: &Env, now: Millis) -> Result<(String, LiveSession)> {
    let cookie = cookie(req).ok_or_else(not_logged_in)?;
    let object = link::object_of(&cookie)
        .ok_or_else(not_logged_in)?
        .to_string();
    let live: LiveSession = hop_account::account(
        env,
        Target::Id(&object),
        now,
        AccountCall::Session {
            cookie: cookie.clone(),
        },
    )
    .await
    .map_err(|e| match e.code {
        ErrorCode::InvalidLink => not_logged_in(),
        _ => e,
    })?;
    Ok((cookie, live))
}

fn not_logged_in() -> Error {
    Error::new(
        ErrorCode::NotLoggedIn,
        "Log in first: this request has no live login session",
    )
}

fn merchant_param(matched: &Matched) -> Result<MerchantId> {
    let id = matched.params.first().map(String::as_str).unwrap_or("");
    MerchantId::parse(id).map_err(|_| Error::new(ErrorCode::MerchantNotFound, "No such merchant"))
}

/// Serves an account route.
pub async fn serve(
    req: &Incoming,
    env: &Env,
    method: &str,
    url: &Url,
    matched: &Matched,
    body: &Value,
) -> Result<Response> {
    if method == "POST" {
        same_origin(req, url)?;
        req.json_media()?;
    }
    let now = now(env).await?;
    let origin = overview::base_url(env, url);
    let route = matched.route;
    if route == wire::DEV_MAILBOX {
        if !config::flag(env, "LOCAL_MAILBOX") {
            return Err(Error::new(
                ErrorCode::NotFound,
                "No route matches this path",
            ));
        }
        return mailbox(env, url, now).await;
    }
    if !wire::needs_login(route) {
        return signed_out(req, env, route, body, &origin, now).await;
    }
    let (cookie, live) = session(req, env, now).await?;
    let object = link::object_of(&cookie).unwrap_or_default().to_string();
    match route {
        wire::GET_ACCOUNT => answer(
            200,
            &Account {
                email: live.email,
                merchants: live.merchants,
            },
        ),
        wire::LOGOUT | wire::LOGOUT_ALL => {
            let call = if route == wire::LOGOUT {
                AccountCall::Logout { cookie }
            } else {
                AccountCall::LogoutAll { cookie }
            };
            hop_account::account::<Value>(env, Target::Id(&object), now, call).await?;
            with_cookie(no_content()?, "", 0)
        }
        wire::CREATE_MERCHANT => {
            let req: CreateMerchant = decode::body(body)?;
            let created =
                admin::make_merchant(env, req.name.into_string(), Some(live.email.clone())).await?;
            let merchant = AccountMerchant {
                merchant_id: created.id.clone(),
                name: created.name.clone(),
                role: tokenpad_core::model::account::Role::Owner,
            };
            let joined = AccountCall::Joined {
                merchant: merchant.clone(),
            };
            hop_account::account::<Value>(env, Target::Id(&object), now, joined).await?;
            answer(
                201,
                &AccountMerchantCreated {
                    merchant,
                    merchant_address: created.merchant_address,
                    secret_key: created.secret_key.unwrap_or_default(),
                    public_key: created.public_key.unwrap_or_default(),
                },
            )
        }
        wire::DASHBOARD_TOKEN => {
            let id = merchant_param(matched)?;
            let call = MerchantCall::Members(MembersCall::Token {
                email: live.email,
                session: live.session,
            });
            let token: DashboardToken = hop::merchant_typed(env, &id, &call).await?;
            answer(200, &token)
        }
        wire::MEMBERS => {
            let id = merchant_param(matched)?;
            let call = MerchantCall::Members(MembersCall::List { email: live.email });
            let members: Members = hop::merchant_typed(env, &id, &call).await?;
            answer(200, &members)
        }
        wire::INVITE => {
            let id = merchant_param(matched)?;
            let req: InviteRequest = decode::body(body)?;
            let email = normalize_email(&req.email)?;
            let call = MerchantCall::Members(MembersCall::Invite {
                by: live.email.clone(),
                email: email.clone(),
                role: req.role,
            });
            let recorded: InviteRecorded = hop::merchant_typed(env, &id, &call).await?;
            let invited = AccountCall::Invited {
                email: email.clone(),
                merchant_id: id,
                merchant_name: recorded.merchant_name,
                role: req.role,
                by: live.email,
                origin,
            };
            hop_account::account::<Value>(env, Target::Email(&email), now, invited).await?;
            answer(
                201,
                &wire::Invite {
                    email,
                    role: req.role,
                    expires_at: Timestamp::at(now.saturating_add(INVITE_TTL)),
                },
            )
        }
        wire::REMOVE_MEMBER => {
            let id = merchant_param(matched)?;
            let req: RemoveMember = decode::body(body)?;
            let email = normalize_email(&req.email)?;
            let call = MerchantCall::Members(MembersCall::Remove {
                by: live.email,
                email: email.clone(),
            });
            let members: Members = hop::merchant_typed(env, &id, &call).await?;
            // The account's own list follows; the merchant's table already decides.
            let left = AccountCall::Left { merchant_id: id };
            if let Err(e) =
                hop_account::account::<Value>(env, Target::Email(&email), now, left).await
            {
                worker::console_error!(
                    "member removed, its account's list not updated: {}",
                    e.message
                );
            }
            answer(200, &members)
        }
        wire::ACCEPT_INVITE => {
            let req: LinkToken = decode::body(body)?;
            let invitee = link::object_of(&req.token)
                .ok_or_else(invalid_link)?
                .to_string();
            let accept = AccountCall::AcceptInvite {
                token: req.token,
                email: live.email.clone(),
            };
            let accepted: hop_account::Accepted =
                hop_account::account(env, Target::Id(&invitee), now, accept).await?;
            let call = MerchantCall::Members(MembersCall::Accept {
                email: live.email,
                role: accepted.role,
            });
            let merchant: AccountMerchant =
                hop::merchant_typed(env, &accepted.merchant_id, &call).await?;
            let joined = AccountCall::Joined {
                merchant: merchant.clone(),
            };
            hop_account::account::<Value>(env, Target::Id(&object), now, joined).await?;
            answer(200, &merchant)
        }
        _ => Err(Error::new(
            ErrorCode::NotFound,
            "No route matches this path",
        )),
    }
}

/// The routes with no login: sign up, verify, log in, the password reset.
async fn signed_out(
    req: &Incoming,
    env: &Env,
    route: tokenpad_core::wire::Route,
    body: &Value,
    origin: &str,
    now: Millis,
) -> Result<Response> {
    match route {
        wire::SIGNUP => {
            let c: Credentials = decode::body(body)?;
            let email = normalize_email(&c.email)?;
            check_password(&c.password)?;
            let call = AccountCall::Signup {
                email: email.clone(),
                password: c.password,
                origin: origin.to_string(),
            };
            hop_account::account::<Value>(env, Target::Email(&email), now, call).await?;
            answer(
                202,
                &Accepted {
                    status: "verification_sent".into(),
                },
            )
        }
        wire::VERIFY => {
            let t: LinkToken = decode::body(body)?;
            let object = link::object_of(&t.token)
                .ok_or_else(invalid_link)?
                .to_string();
            let call = AccountCall::Verify { token: t.token };
            let done: EmailOnly = hop_account::account(env, Target::Id(&object), now, call).await?;
            answer(200, &done)
        }
        wire::LOGIN => login(req, env, body, now).await,
        wire::RESET => {
            let r: ResetRequest = decode::body(body)?;
            let email = normalize_email(&r.email)?;
            let call = AccountCall::Reset {
                origin: origin.to_string(),
            };
            hop_account::account::<Value>(env, Target::Email(&email), now, call).await?;
            answer(
                202,
                &Accepted {
                    status: "reset_sent".into(),
                },
            )
        }
        wire::RESET_CONFIRM => {
            let r: ResetConfirm = decode::body(body)?;
            check_password(&r.password)?;
            let object = link::object_of(&r.token)
                .ok_or_else(invalid_link)?
                .to_string();
            let call = AccountCall::ResetConfirm {
                token: r.token,
                password: r.password,
            };
            let done: EmailOnly = hop_account::account(env, Target::Id(&object), now, call).await?;
            with_cookie(answer(200, &done)?, "", 0)
        }
        _ => Err(Error::new(
            ErrorCode::NotFound,
            "No route matches this path",
        )),
    }
}

/// A login, throttled per client address (an object of its own) and per account (in the
/// account's object). A malformed email or an over-long password is refused as a wrong
/// password is, after the same work.
async fn login(req: &Incoming, env: &Env, body: &Value, now: Millis) -> Result<Response> {
    let c: Credentials = decode::body(body)?;
    let client = guard::client(req);
    hop_account::account::<Value>(
        env,
        Target::Client(&client),
        now,
        AccountCall::ThrottleCheck,
    )
    .await?;
    let email = normalize_email(&c.email)
        .ok()
        .filter(|_| c.password.len() <= 128);
    let outcome = match email {
        Some(email) => {
            let call = AccountCall::Login {
                password: c.password,
                old_cookie: cookie(req),
            };
            hop_account::account::<LoggedIn>(env, Target::Email(&email), now, call).await
        }
        None => {
            password::verify(&c.password, &password::dummy());
            Err(Error::new(
                ErrorCode::InvalidCredentials,
                "The email or the password is wrong",
            ))
        }
    };
    match outcome {
        Ok(done) => {
            let resp = answer(
                200,
                &Account {
                    email: done.email,
                    merchants: done.merchants,
                },
            )?;
            with_cookie(resp, &done.cookie, done.max_age_seconds)
        }
        Err(e) => {
            if matches!(
                e.code,
                ErrorCode::InvalidCredentials | ErrorCode::TooManyAttempts
            ) {
                let failed = AccountCall::ThrottleFailed;
                if let Err(err) =
                    hop_account::account::<Value>(env, Target::Client(&client), now, failed).await
                {
                    worker::console_error!("login throttle: {}", err.message);
                }
            }
            Err(e)
        }
    }
}

async fn mailbox(env: &Env, url: &Url, now: Millis) -> Result<Response> {
    let to = url
        .query_pairs()
        .find(|(k, _)| k == "to")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    let to = normalize_email(&to).map_err(|_| Error::field("to", "to must be an email address"))?;
    let call = AccountCall::Mailbox { to: to.clone() };
    let mails: Mailbox = hop_account::account(env, Target::Email(&to), now, call).await?;
    answer(200, &mails)
}

/// `GET /admin/mailbox?to=` (the admin key checked by the caller).
pub async fn admin_mailbox(env: &Env, url: &Url) -> Result<Response> {
    let now = now(env).await?;
    mailbox(env, url, now).await
}
