use crate::domain::{ShowtimeId, WaitingRoomView};
use crate::error::InventoryError;
use leptos::prelude::*;

/// The showtime's waiting room: its settings and figures. Operators only.
#[server(endpoint = "waiting_room", input = server_fn::codec::Json)]
pub async fn waiting_room(showtime_id: ShowtimeId) -> Result<WaitingRoomView, InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            require_staff(&[]).await?;
            inventory()?.waiting_room(showtime_id).await
        }
        .await,
    )
}
