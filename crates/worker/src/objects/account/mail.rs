//! An account object's mail: the outbox (a row written in the transaction of the change that
//! mails), drained by the alarm to MAIL_PROVIDER_URL (`POST {from, to, subject, text}` with
//! `Authorization: Bearer MAIL_PROVIDER_KEY`) when it is set, else into the local mailbox kept
//! here (`GET /admin/mailbox?to=`, and `GET /account/dev-mailbox?to=` in local runs). A mail
//! the provider refuses is retried with a growing delay (10 s to an hour), never lost. The
//! mails themselves: `ops::accounts::mails`.

use super::AccountObject;
use crate::adapters::accounts::{db, int, millis};
use crate::config;
use serde::Deserialize;
use serde_json::json;
use tokenpad_core::model::time::{Millis, Timestamp};
use tokenpad_core::wire::account::{MailMessage, Mailbox};
use tokenpad_core::{Error, Result};

#[derive(Deserialize)]
struct OutboxRow {
    id: i64,
    to_addr: String,
    subject: String,
    text: String,
    links: String,
    attempts: i64,
}

#[derive(Deserialize)]
struct MailRow {
    to_addr: String,
    subject: String,
    text: String,
    links: String,
    sent_at: i64,
}

fn now_real() -> Millis {
    crate::clock::now_ms()
}

impl AccountObject {
    /// Points the alarm at the outbox's next mail, if there is one and no alarm is set.
    pub(super) async fn wake_mail(&self) {
        let next = (|| -> Result<Option<i64>> {
            #[derive(Deserialize)]
            struct Next {
                next_at: Option<i64>,
            }
            let rows: Vec<Next> = self
                .sql()?
                .exec("SELECT MIN(next_at) AS next_at FROM outbox", None)
                .and_then(|c| c.to_array())
                .map_err(db)?;
            Ok(rows.first().and_then(|r| r.next_at))
        })();
        let Ok(Some(at)) = next else { return };
        let storage = self.state.storage();
        if matches!(storage.get_alarm().await, Ok(Some(_))) {
            return;
        }
        let at = millis(at).max(now_real()).max(1);
        let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(at as f64));
        if let Err(e) = storage.set_alarm(worker::ScheduledTime::new(date)).await {
            worker::console_error!("account mail alarm: {e}");
        }
    }

    /// Sends every mail that is due; reschedules the alarm for what is left.
    pub(super) async fn drain(&self) -> Result<()> {
        let sql = self.sql()?;
        let now = now_real();
        let rows: Vec<OutboxRow> = sql
            .exec(
                "SELECT id, to_addr, subject, text, links, attempts FROM outbox WHERE next_at <= ? ORDER BY id LIMIT 20",
                vec![int(now)],
            )
            .and_then(|c| c.to_array())
            .map_err(db)?;
        let provider = config::string(&self.env, "MAIL_PROVIDER_URL").filter(|u| !u.is_empty());
        for row in rows {
            let sent = match &provider {
                Some(url) => self.send(url, &row).await,
                None => sql
                    .exec(
                        "INSERT INTO mailbox (to_addr, subject, text, links, sent_at) VALUES (?, ?, ?, ?, ?)",
                        vec![
                            row.to_addr.clone().into(),
                            row.subject.clone().into(),
                            row.text.clone().into(),
                            row.links.clone().into(),
                            int(now),
                        ],
                    )
                    .map(|_| ())
                    .map_err(db),
            };
            match sent {
                Ok(()) => {
                    sql.exec("DELETE FROM outbox WHERE id = ?", vec![row.id.into()])
                        .map_err(db)?;
                }
                Err(e) => {
                    worker::console_error!("account mail not sent: {}", e.message);
                    let delay = 10_000u64
                        .saturating_mul(1 << row.attempts.clamp(0, 9))
                        .min(3_600_000);
                    sql.exec(
                        "UPDATE outbox SET attempts = attempts + 1, next_at = ? WHERE id = ?",
                        vec![int(now + delay), row.id.into()],
                    )
                    .map_err(db)?;
                }
            }
        }
        self.wake_mail().await;
        Ok(())
    }

    /// One mail to the provider. Its answer's text is never logged (it may echo the mail).
    async fn send(&self, url: &str, row: &OutboxRow) -> Result<()> {
        let from = config::string(&self.env, "MAIL_FROM")
            .unwrap_or_else(|| "tokenpad <no-reply@tokenpad.invalid>".into());
        let body =
            json!({ "from": from, "to": row.to_addr, "subject": row.subject, "text": row.text });
        let headers = worker::Headers::new();
        let set = |k: &str, v: &str| {
            headers
                .set(k, v)
                .map_err(|e| Error::internal(e.to_string()))
        };
        set("content-type", "application/json")?;
        if let Some(key) = config::string(&self.env, "MAIL_PROVIDER_KEY") {
            set("authorization", &format!("Bearer {key}"))?;
        }
        let mut init = worker::RequestInit::new();
        init.with_method(worker::Method::Post)
            .with_headers(headers)
            .with_body(Some(wasm_bindgen::JsValue::from_str(&body.to_string())));
        let req = worker::Request::new_with_init(url, &init)
            .map_err(|e| Error::internal(e.to_string()))?;
        let resp = worker::Fetch::Request(req)
            .send()
            .await
            .map_err(|e| Error::internal(format!("mail provider: {e}")))?;
        if (200..300).contains(&resp.status_code()) {
            Ok(())
        } else {
            Err(Error::internal(format!(
                "mail provider answered {}",
                resp.status_code()
            )))
        }
    }

    /// The local mailbox's mails to `to`, newest first.
    pub(super) fn mailbox(&self, to: &str) -> Result<Mailbox> {
        let rows: Vec<MailRow> = self
            .sql()?
            .exec(
                "SELECT to_addr, subject, text, links, sent_at FROM mailbox WHERE to_addr = ? ORDER BY id DESC LIMIT 50",
                vec![to.into()],
            )
            .and_then(|c| c.to_array())
            .map_err(db)?;
        Ok(Mailbox {
            messages: rows
                .into_iter()
                .map(|r| MailMessage {
                    to: r.to_addr,
                    subject: r.subject,
                    text: r.text,
                    links: serde_json::from_str(&r.links).unwrap_or_default(),
                    sent_at: Timestamp::at(millis(r.sent_at)),
                })
                .collect(),
        })
    }
}
