use crate::domain::{QueuePlace, ShowtimeId};
use crate::error::InventoryError;
use leptos::prelude::*;

/// The current customer's place in the showtime's queue; `None` when it has no waiting room
/// now (then seats are held directly).
#[server(endpoint = "queue_status", input = server_fn::codec::Json)]
pub async fn queue_status(showtime_id: ShowtimeId) -> Result<Option<QueuePlace>, InventoryError> {
    use crate::engine::{current_customer, inventory, respond};
    respond(
        async {
            inventory()?
                .queue_place(showtime_id, None, current_customer()?)
                .await
        }
        .await,
    )
}
