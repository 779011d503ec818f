use crate::domain::{QueuePlace, QueueProof, ShowtimeId};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Takes the current customer's place in the showtime's queue (the same place again when they
/// have one), with the proof of work the room asks for a new place, if it asks one.
#[server(endpoint = "join_queue", input = server_fn::codec::Json)]
pub async fn join_queue(
    showtime_id: ShowtimeId,
    #[server(default)] proof: Option<QueueProof>,
) -> Result<QueuePlace, InventoryError> {
    use crate::engine::{current_client_addr, current_customer, inventory, respond};
    respond(
        async {
            inventory()?
                .join_queue(
                    showtime_id,
                    current_customer()?,
                    current_client_addr(),
                    proof,
                )
                .await
        }
        .await,
    )
}
