//! `/reports`: the operator's reports, for a signed-in operator or an API client with a
//! bearer token an operator created (`Authorization: Bearer <token>`).

use super::error::ApiError;
use super::AppState;
use app::engine::StaffAccess;
use app::error::InventoryError;
use axum::extract::State;
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};

pub fn routes() -> Router<AppState> {
    Router::new().route("/reports/sales", get(sales_report))
}

/// `GET /reports/sales`: the sales figures per day and showtime.
async fn sales_report(
    State(state): State<AppState>,
    Extension(access): Extension<StaffAccess>,
    headers: HeaderMap,
) -> Response {
    use app::engine::Inventory;
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
        None => super::staff::require(&access, &[]).await.map(drop),
    };
    if let Err(e) = admitted {
        let mut response = ApiError::from(e).into_response();
        if response.status() == axum::http::StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"Seats reports\""),
            );
        }
        return response;
    }
    match state.engine.sales().await {
        Ok(rows) => axum::Json(rows).into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}
