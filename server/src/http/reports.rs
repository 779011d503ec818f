//! `/reports`: the operator's reports, for a signed-in operator or an API client with a
//! bearer token an operator created (`Authorization: Bearer <token>`).

use super::error::ApiError;
use super::AppState;
use app::domain::SalesFigure;
use app::engine::{Console, StaffAccess};
use app::error::InventoryError;
use axum::extract::State;
use axum::http::header::{AUTHORIZATION, CONTENT_DISPOSITION, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};
use utoipa::OpenApi;

/// This module's part of the OpenAPI description.
#[derive(OpenApi)]
#[openapi(paths(sales_report, sales_csv))]
pub struct Api;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/reports/sales", get(sales_report))
        .route("/reports/sales.csv", get(sales_csv))
}

/// The sales figures for a signed-in operator or a live API token; else the error answer.
async fn sales(
    state: &AppState,
    access: &StaffAccess,
    headers: &HeaderMap,
) -> Result<Vec<SalesFigure>, Response> {
    let bearer = headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let admitted = match bearer {
        Some(secret) => match state.engine.api_token_admits(secret.trim()).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(InventoryError::StaffSignInRequired),
            Err(e) => Err(e),
        },
        None => access.require(&[]).await.map(drop),
    };
    let refused = |e: InventoryError| {
        let mut response = ApiError::from(e).into_response();
        if response.status() == axum::http::StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"Seats reports\""),
            );
        }
        response
    };
    admitted.map_err(refused)?;
    state
        .engine
        .sales_figures()
        .await
        .map_err(|e| ApiError::from(e).into_response())
}

/// `GET /reports/sales`: the sales figures per day and showtime, as JSON.
#[utoipa::path(get, path = "/reports/sales", tag = "reports",
    security(("staff_session" = []), ("staff_token" = [])),
    responses((status = 200, description = "Per day, channel and showtime, newest day first", body = [app::domain::SalesFigure]),
        (status = 401, description = "`STAFF_SIGN_IN_REQUIRED`", body = super::error::ErrorBody, headers(("WWW-Authenticate" = String))),
        (status = 403, description = "`STAFF_FORBIDDEN`", body = super::error::ErrorBody),
        (status = 423, description = "`STAFF_SESSION_LOCKED`", body = super::error::ErrorBody)))]
async fn sales_report(
    State(state): State<AppState>,
    Extension(access): Extension<StaffAccess>,
    headers: HeaderMap,
) -> Response {
    match sales(&state, &access, &headers).await {
        Ok(rows) => axum::Json(rows).into_response(),
        Err(refused) => refused,
    }
}

/// `GET /reports/sales.csv`: the same figures as CSV (RFC 4180), for spreadsheets.
#[utoipa::path(get, path = "/reports/sales.csv", tag = "reports",
    security(("staff_session" = []), ("staff_token" = [])),
    responses((status = 200, description = "The figures as CSV", content_type = "text/csv", body = String,
            headers(("Content-Disposition" = String))),
        (status = 401, description = "`STAFF_SIGN_IN_REQUIRED`", body = super::error::ErrorBody, headers(("WWW-Authenticate" = String))),
        (status = 403, description = "`STAFF_FORBIDDEN`", body = super::error::ErrorBody),
        (status = 423, description = "`STAFF_SESSION_LOCKED`", body = super::error::ErrorBody)))]
async fn sales_csv(
    State(state): State<AppState>,
    Extension(access): Extension<StaffAccess>,
    headers: HeaderMap,
) -> Response {
    match sales(&state, &access, &headers).await {
        Ok(rows) => (
            [
                (CONTENT_TYPE, "text/csv; charset=utf-8"),
                (CONTENT_DISPOSITION, "attachment; filename=\"sales.csv\""),
            ],
            csv(&rows),
        )
            .into_response(),
        Err(refused) => refused,
    }
}

const CSV_HEADER: &str =
    "day,channel,showtime_id,title,starts_at,bookings,seats,revenue_krw,refunds,refunded_krw,\
adult_seats,youth_seats,senior_seats,disabled_seats";

/// The figures as CSV lines, a header first.
fn csv(rows: &[SalesFigure]) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push_str("\r\n");
    for r in rows {
        let line = [
            field(&r.day),
            r.channel.as_str().to_string(),
            r.showtime_id.to_string(),
            field(&r.movie_title),
            r.starts_at.to_rfc3339(),
            r.bookings.to_string(),
            r.seats.to_string(),
            r.revenue.to_string(),
            r.refunds.to_string(),
            r.refunded.to_string(),
            r.adult_seats.to_string(),
            r.youth_seats.to_string(),
            r.senior_seats.to_string(),
            r.disabled_seats.to_string(),
        ];
        out.push_str(&line.join(","));
        out.push_str("\r\n");
    }
    out
}

/// A text field: quoted when it holds a comma, quote or line break (quotes doubled); a
/// leading `=`, `+`, `-` or `@` is prefixed with `'` so a spreadsheet never runs it as a formula.
fn field(text: &str) -> String {
    let text = if text.starts_with(['=', '+', '-', '@']) {
        format!("'{text}")
    } else {
        text.to_string()
    };
    if text.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_and_never_formulas() {
        assert_eq!(field("Sea of Stars"), "Sea of Stars");
        assert_eq!(field("Live, Loud"), "\"Live, Loud\"");
        assert_eq!(field("The \"Encore\""), "\"The \"\"Encore\"\"\"");
        assert_eq!(field("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(field("-1,2"), "\"'-1,2\"");
        let row = SalesFigure {
            day: "2026-12-01".into(),
            channel: app::domain::SalesChannel::BoxOffice,
            showtime_id: app::domain::ShowtimeId::try_from(7).unwrap(),
            movie_title: "Live, Loud".into(),
            starts_at: chrono::DateTime::from_timestamp(1_796_000_000, 0).unwrap(),
            bookings: 2,
            seats: 3,
            adult_seats: 2,
            youth_seats: 0,
            senior_seats: 1,
            disabled_seats: 0,
            revenue: app::domain::Won::new(36_000),
            refunds: 1,
            refunded: app::domain::Won::new(12_000),
        };
        let text = csv(&[row]);
        let lines: Vec<&str> = text.split("\r\n").collect();
        assert_eq!(lines[0], CSV_HEADER);
        let starts = chrono::DateTime::from_timestamp(1_796_000_000, 0)
            .unwrap()
            .to_rfc3339();
        assert_eq!(
            lines[1],
            format!("2026-12-01,box_office,7,\"Live, Loud\",{starts},2,3,36000,1,12000,2,0,1,0")
        );
        assert_eq!(lines[2], "", "every line ends with CRLF");
    }
}
