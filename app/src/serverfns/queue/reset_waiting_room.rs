use crate::domain::{ShowtimeId, WaitingRoomView};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Empties the showtime's waiting room: every place and admission ends, and those waiting join
/// again (at the back, in the order they come back). Operators only; audited.
#[server(endpoint = "reset_waiting_room", input = server_fn::codec::Json)]
pub async fn reset_waiting_room(
    showtime_id: ShowtimeId,
) -> Result<WaitingRoomView, InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&[]).await?;
            inventory()?.reset_waiting_room(showtime_id, &actor).await
        }
        .await,
    )
}
