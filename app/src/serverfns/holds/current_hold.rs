use crate::domain::{Hold, ShowtimeId};
use crate::error::InventoryError;
use leptos::prelude::*;

/// The current customer's live hold in the showtime, so a reload shows it again.
#[server(endpoint = "current_hold", input = server_fn::codec::Json)]
pub async fn current_hold(showtime_id: ShowtimeId) -> Result<Option<Hold>, InventoryError> {
    use crate::engine::{current_customer, inventory, respond};
    respond(
        async {
            inventory()?
                .current_hold(showtime_id, current_customer()?)
                .await
        }
        .await,
    )
}
