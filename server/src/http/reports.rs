//! `/reports`: the operator's reports, behind the operator's password (`operator::require`).

use super::error::ApiError;
use super::AppState;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/reports/sales", get(sales_report))
        .route_layer(axum::middleware::from_fn(super::operator::require))
}

/// `GET /reports/sales`: the sales figures per day and showtime.
async fn sales_report(State(state): State<AppState>) -> Response {
    use app::engine::Inventory;
    match state.engine.sales().await {
        Ok(rows) => axum::Json(rows).into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}
