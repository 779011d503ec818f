//! The sandbox's hosted payment page, where a person pays or declines, and the signed callbacks
//! that follow (late, repeated or lost as the session's faults say).

use super::{current, Sandbox, CALLBACK_ATTEMPTS};
use crate::payments::gateway::{CallbackEvent, Faults, Session, SessionStatus};
use crate::payments::signature;
use app::format::thousands;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use chrono::Utc;
use std::time::Duration;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

fn page_html(session: &Session, return_url: &str) -> String {
    let body = match session.status {
        SessionStatus::Open => format!(
            r#"<p>Pay before {expires} (UTC).</p>
<form method="post" action="/pay/{id}/pay"><button type="submit" data-test="sandbox-pay">Pay {amount} {currency}</button></form>
<form method="post" action="/pay/{id}/decline"><button type="submit" class="decline" data-test="sandbox-decline">Decline</button></form>"#,
            expires = session.expires_at.format("%Y-%m-%d %H:%M:%S"),
            id = escape(&session.session_id),
            amount = thousands(session.amount.get()),
            currency = escape(&session.currency),
        ),
        status => format!(
            r#"<p data-test="sandbox-status">This payment is {status:?}.</p><p><a href="{back}">Back to the shop</a></p>"#,
            back = escape(return_url),
        ),
    };
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Payment sandbox</title>
<style>body{{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}}
.amount{{font-size:2rem;font-weight:700}}button{{font-size:1.1rem;padding:.8rem 1.4rem;margin:.4rem 0;min-width:12rem;cursor:pointer}}
.decline{{background:#eee}}.note{{color:#666;font-size:.85rem}}</style></head>
<body><h1>Payment sandbox</h1>
<p class="note">A test gateway: no real money moves.</p>
<p>Order <strong>{reference}</strong></p>
<p class="amount" data-test="sandbox-amount">{amount} {currency}</p>
{body}
</body></html>"#,
        reference = escape(&session.merchant_reference),
        amount = thousands(session.amount.get()),
        currency = escape(&session.currency),
    )
}

pub(super) async fn page(State(sandbox): State<Sandbox>, Path(id): Path<String>) -> Response {
    let books = sandbox.books.lock().expect("books");
    match books.sessions.get(&id) {
        Some(record) => {
            Html(page_html(&current(record), &record.request.return_url)).into_response()
        }
        None => (
            StatusCode::NOT_FOUND,
            Html("<p>No such payment session.</p>"),
        )
            .into_response(),
    }
}

pub(super) async fn pay(state: State<Sandbox>, id: Path<String>) -> Response {
    complete(state, id, true).await
}

pub(super) async fn decline(state: State<Sandbox>, id: Path<String>) -> Response {
    complete(state, id, false).await
}

/// The customer paid or declined on the hosted page: record it, send the callback, and send the
/// customer back to the shop.
async fn complete(State(sandbox): State<Sandbox>, Path(id): Path<String>, paid: bool) -> Response {
    let (event, callback_url, return_url, faults) = {
        let mut books = sandbox.books.lock().expect("books");
        let Some(record) = books.sessions.get_mut(&id) else {
            return (
                StatusCode::NOT_FOUND,
                Html("<p>No such payment session.</p>".to_string()),
            )
                .into_response();
        };
        let session = current(record);
        if session.status != SessionStatus::Open {
            // Already finished or expired: say so; nothing changes.
            return (
                StatusCode::CONFLICT,
                Html(page_html(&session, &record.request.return_url)),
            )
                .into_response();
        }
        let payment_id = paid.then(|| format!("pay_{}", uuid::Uuid::new_v4().simple()));
        record.session.status = if paid {
            SessionStatus::Paid
        } else {
            SessionStatus::Declined
        };
        record.session.payment_id = payment_id.clone();
        let event = CallbackEvent {
            event_id: format!("evt_{}", uuid::Uuid::new_v4().simple()),
            kind: if paid {
                "payment.succeeded"
            } else {
                "payment.declined"
            }
            .into(),
            session_id: id.clone(),
            payment_id: payment_id.clone(),
            merchant_reference: record.session.merchant_reference.clone(),
            amount: record.session.amount,
            currency: record.session.currency.clone(),
            status: record.session.status,
            occurred_at: Utc::now(),
        };
        let out = (
            event,
            record.request.callback_url.clone(),
            record.request.return_url.clone(),
            record.faults,
        );
        if let Some(payment_id) = payment_id {
            books.payments.insert(payment_id, id.clone());
        }
        out
    };
    if !faults.drop_callback {
        tokio::spawn(deliver(sandbox.clone(), callback_url, event, faults));
    }
    let status = if paid { "paid" } else { "declined" };
    let separator = if return_url.contains('?') { '&' } else { '?' };
    Redirect::to(&format!(
        "{return_url}{separator}sessionId={id}&status={status}"
    ))
    .into_response()
}

/// Sends a callback (twice at once when the session says so), retrying each delivery that does
/// not get a 2xx answer.
async fn deliver(sandbox: Sandbox, url: String, event: CallbackEvent, faults: Faults) {
    tokio::time::sleep(Duration::from_secs(faults.callback_delay_seconds)).await;
    let body = serde_json::to_vec(&event).expect("events serialise");
    let once = deliver_once(&sandbox, &url, &body, &event.event_id);
    if faults.duplicate_callback {
        tokio::join!(once, deliver_once(&sandbox, &url, &body, &event.event_id));
    } else {
        once.await;
    }
}

async fn deliver_once(sandbox: &Sandbox, url: &str, body: &[u8], event_id: &str) {
    let mut pause = Duration::from_millis(500);
    for attempt in 1..=CALLBACK_ATTEMPTS {
        let signature =
            signature::sign(&sandbox.config.webhook_secret, Utc::now().timestamp(), body);
        let sent = sandbox
            .http
            .post(url)
            .header(header::CONTENT_TYPE, "application/json")
            .header(signature::HEADER, signature)
            .body(body.to_vec())
            .send()
            .await;
        match sent {
            Ok(r) if r.status().is_success() => return,
            Ok(r) => tracing::warn!(event_id, attempt, status = %r.status(), "callback refused"),
            Err(e) => tracing::warn!(event_id, attempt, error = %e, "callback not delivered"),
        }
        tokio::time::sleep(pause).await;
        pause *= 2;
    }
    tracing::error!(
        event_id,
        "callback given up after {CALLBACK_ATTEMPTS} attempts"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_grouped_and_text_is_escaped_on_the_page() {
        assert_eq!(thousands(39000), "39,000");
        assert_eq!(
            escape(r#"<b>"x" & 'y'</b>"#),
            "&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;"
        );
    }
}
