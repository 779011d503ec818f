//! `/bookings`: the customer's own bookings, and `/tickets/{code}`: what a door scanner learns
//! from a ticket's QR code.

use super::error::ApiError;
use super::AppState;
use app::domain::{BookingId, CustomerId};
use app::error::InventoryError;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/bookings", get(bookings))
        .route("/bookings/{id}", get(booking))
        .route("/tickets/{code}", get(ticket))
}

/// `GET /bookings/{id}`: the customer's own booking with its payments.
async fn booking(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    Path(raw): Path<String>,
) -> Result<Response, ApiError> {
    let id = uuid::Uuid::try_parse(&raw)
        .map_err(|_| ApiError::BadRequest(format!("booking id must be a UUID, not {raw:?}")))?;
    let view = state
        .engine
        .customer_booking(BookingId(id), customer)
        .await?;
    Ok(axum::Json(view).into_response())
}

/// `GET /bookings`: the customer's bookings, newest first.
async fn bookings(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
) -> Result<Response, ApiError> {
    Ok(axum::Json(state.engine.customer_bookings(customer).await?).into_response())
}

/// `GET /tickets/{code}`: what a door scanner learns from a ticket's QR code. A code this server
/// did not sign is 404 `{valid: false}`.
async fn ticket(State(state): State<AppState>, Path(code): Path<String>) -> Response {
    match state.engine.ticket_booking(&code).await {
        Ok(view) => {
            let mut body = serde_json::to_value(&view).expect("bookings serialise");
            body["valid"] = serde_json::Value::Bool(true);
            axum::Json(body).into_response()
        }
        Err(InventoryError::BookingNotFound) => (
            StatusCode::NOT_FOUND,
            axum::Json(serde_json::json!({
                "valid": false, "error": "not a ticket of ours", "code": "INVALID_TICKET"
            })),
        )
            .into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}
