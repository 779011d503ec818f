//! A booking's e-mailed link, and sending it again.
//!
//! `GET /bookings/{id}/open?key=…` is what the e-mail links to: it attaches nothing (a plain
//! visit, a preview, a foreign page's `<img>` cannot hand a booking to a session); a browser gets
//! a page with one button that `POST`s the same address, and that attaches the booking to the
//! session with the right to cancel it — the opener proved the mailbox. The link works until
//! the showtime has ended. `POST /bookings/{id}/send-link` e-mails it again to the booking's
//! address, once in 10 minutes.

use super::bookings::booking_id;
use super::error::ApiError;
use super::AppState;
use crate::engine::LinkState;
use app::domain::{BookingId, CustomerId};
use app::engine::Bookings;
use app::i18n::{translate, Lang};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::OpenApi;

/// This module's part of the OpenAPI description.
#[derive(OpenApi)]
#[openapi(paths(link_page, open_link, send_link))]
pub struct Api;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/bookings/{id}/open", get(link_page).post(open_link))
        .route("/bookings/{id}/send-link", post(send_link))
}

#[derive(Deserialize)]
struct LinkQuery {
    #[serde(default)]
    key: String,
}

/// `GET /bookings/{id}/open` for a client that is not a browser: what confirming does.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LinkAnswer {
    booking_id: uuid::Uuid,
    /// The booking's number (the first 8 hexadecimal digits of its id).
    reference: String,
    /// `POST` this same address to open the booking in this session.
    confirm: String,
}

/// `POST /bookings/{id}/send-link`: where the link went.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LinkSent {
    /// The booking's address, masked (`k***@example.com`).
    sent_to: String,
}

fn expired() -> Response {
    (
        StatusCode::GONE,
        Json(serde_json::json!({
            "error": "this link has expired: its showtime has ended",
            "code": "LINK_EXPIRED",
        })),
    )
        .into_response()
}

/// The language of the page: the site's cookie, else the browser's.
fn lang_of(headers: &HeaderMap) -> Lang {
    let header = |name| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    };
    Lang::from_cookie_header(header(header::COOKIE))
        .or_else(|| Lang::from_accept_language(header(header::ACCEPT_LANGUAGE)))
        .unwrap_or_default()
}

/// The page a browser sees: the booking's number and one button that confirms.
fn confirm_page(lang: Lang, reference: &str, action: &str) -> Response {
    let t = |key: &str| translate(lang, key, &[("reference", reference.to_string())]);
    let html = format!(
        "<!DOCTYPE html><html lang=\"{lang}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title></head><body><main>\
         <h1>{title}</h1><p>{text}</p>\
         <form method=\"post\" action=\"{action}\">\
         <button type=\"submit\" data-test=\"open-booking\">{button}</button></form>\
         </main></body></html>",
        lang = lang.code(),
        title = escape(&t("booking_link.title")),
        text = escape(&t("booking_link.confirm")),
        button = escape(&t("booking_link.button")),
        action = escape(action),
    );
    let mut page = Html(html).into_response();
    page.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        header::HeaderValue::from_static(
            "default-src 'none'; form-action 'self'; frame-ancestors 'none'",
        ),
    );
    page
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn wants_page(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"))
}

/// The link in a booking's e-mail: attaches nothing. A browser gets a page whose button
/// confirms (`POST` the same address); another client learns the same.
#[utoipa::path(get, path = "/bookings/{id}/open", tag = "bookings",
    params(("id" = uuid::Uuid, Path, description = "The booking (`bookingId`)"),
        ("key" = Option<String>, Query, description = "The key the e-mail's link carries")),
    responses((status = 200, description = "A browser: the page that confirms; another client: what to `POST`", body = LinkAnswer),
        (status = 400, description = "Not a UUID", body = super::error::ErrorBody),
        (status = 404, description = "`BOOKING_NOT_FOUND`: a wrong or missing key, or no such booking", body = super::error::ErrorBody),
        (status = 410, description = "`LINK_EXPIRED`: the showtime has ended", body = super::error::ErrorBody)))]
async fn link_page(
    State(state): State<AppState>,
    Path(raw): Path<String>,
    Query(LinkQuery { key }): Query<LinkQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let booking = BookingId(booking_id(&raw)?);
    if state.engine.booking_link(booking, &key).await? == LinkState::Expired {
        return Ok(expired());
    }
    let action = format!("/bookings/{}/open?key={key}", booking.0);
    let reference = booking.reference();
    if wants_page(&headers) {
        return Ok(confirm_page(lang_of(&headers), &reference, &action));
    }
    Ok(Json(LinkAnswer {
        booking_id: booking.0,
        reference,
        confirm: action,
    })
    .into_response())
}

/// Confirms a booking's link: this session may see the booking and cancel it as its buyer may
/// (it proved the mailbox), and is sent to its page.
#[utoipa::path(post, path = "/bookings/{id}/open", tag = "bookings",
    params(("id" = uuid::Uuid, Path, description = "The booking (`bookingId`)"),
        ("key" = Option<String>, Query, description = "The key the e-mail's link carries")),
    responses((status = 303, description = "To the booking's page, which this session now sees and may cancel",
            headers(("Location" = String, description = "`/my-bookings/{id}`"))),
        (status = 400, description = "Not a UUID", body = super::error::ErrorBody),
        (status = 403, description = "`CROSS_SITE_REQUEST`: from a page of another site", body = super::error::ErrorBody),
        (status = 404, description = "`BOOKING_NOT_FOUND`: a wrong or missing key, or no such booking", body = super::error::ErrorBody),
        (status = 410, description = "`LINK_EXPIRED`: the showtime has ended", body = super::error::ErrorBody)))]
async fn open_link(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    Path(raw): Path<String>,
    Query(LinkQuery { key }): Query<LinkQuery>,
) -> Result<Response, ApiError> {
    let booking = BookingId(booking_id(&raw)?);
    match state
        .engine
        .open_booking_link(booking, &key, customer)
        .await?
    {
        LinkState::Expired => Ok(expired()),
        LinkState::Live(_) => {
            Ok(Redirect::to(&format!("/my-bookings/{}", booking.0)).into_response())
        }
    }
}

/// E-mails the booking's link again to its address (once in 10 minutes), for a session that
/// may see the booking.
#[utoipa::path(post, path = "/bookings/{id}/send-link", tag = "bookings",
    params(("id" = uuid::Uuid, Path, description = "The booking (`bookingId`)")),
    responses((status = 202, description = "Queued: the address it goes to, masked", body = LinkSent),
        (status = 400, description = "Not a UUID; or the booking has no address or does not stand", body = super::error::ErrorBody),
        (status = 403, description = "`NOT_YOUR_BOOKING`", body = super::error::ErrorBody),
        (status = 404, description = "No such booking", body = super::error::ErrorBody),
        (status = 429, description = "`RATE_LIMITED`: sent within the last 10 minutes", body = super::error::ErrorBody, headers(("Retry-After" = u64)))))]
async fn send_link(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    Path(raw): Path<String>,
) -> Result<Response, ApiError> {
    let booking = BookingId(booking_id(&raw)?);
    let sent_to = state.engine.send_booking_link(booking, customer).await?;
    Ok((StatusCode::ACCEPTED, Json(LinkSent { sent_to })).into_response())
}
