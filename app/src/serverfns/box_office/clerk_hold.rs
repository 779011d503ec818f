use crate::domain::{BestAvailable, Hold, SeatSelection, ShowtimeId};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Holds the clerk's pick for the sale: `seats`, or the best `best.count`.
#[server(endpoint = "clerk_hold", input = server_fn::codec::Json)]
pub async fn clerk_hold(
    showtime_id: ShowtimeId,
    seats: Option<SeatSelection>,
    best: Option<BestAvailable>,
) -> Result<Hold, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            inventory()?
                .clerk_hold(&actor, showtime_id, seats.as_ref(), best.as_ref())
                .await
        }
        .await,
    )
}
