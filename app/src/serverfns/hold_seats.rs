use crate::domain::Hold;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Holds the seats for the current customer: all of them or none.
#[server(endpoint = "hold_seats", input = server_fn::codec::Json)]
pub async fn hold_seats(showtime_id: i64, seats: Vec<String>) -> Result<Hold, InventoryError> {
    crate::engine::respond(hold_seats_inner(showtime_id, seats).await)
}

#[cfg(feature = "ssr")]
async fn hold_seats_inner(showtime_id: i64, seats: Vec<String>) -> Result<Hold, InventoryError> {
    use crate::domain::{SeatSelection, ShowtimeId};
    let showtime = ShowtimeId::parse(&showtime_id.to_string())
        .ok_or(InventoryError::ShowtimeNotFound(ShowtimeId(showtime_id)))?;
    let selection = SeatSelection::parse(&seats)?;
    let customer = crate::engine::current_customer()?;
    crate::engine::inventory()?
        .hold_from(
            showtime,
            &selection,
            customer,
            crate::engine::current_client_addr(),
        )
        .await
}
