use crate::domain::{ShowtimeCancelled, ShowtimeId};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Cancels a showtime: no more sales, live holds released, every paid booking refunded through
/// the gateway (once). Operators only; cancelling again answers `already: true`.
#[server(endpoint = "cancel_showtime", input = server_fn::codec::Json)]
pub async fn cancel_showtime(showtime_id: ShowtimeId) -> Result<ShowtimeCancelled, InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&[]).await?;
            inventory()?.cancel_showtime(showtime_id, &actor).await
        }
        .await,
    )
}
