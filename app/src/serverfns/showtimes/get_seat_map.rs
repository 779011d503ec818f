use crate::domain::{SeatMap, ShowtimeId};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Every seat of the showtime with its status now.
#[server(endpoint = "get_seat_map", input = server_fn::codec::Json)]
pub async fn get_seat_map(showtime_id: ShowtimeId) -> Result<SeatMap, InventoryError> {
    use crate::engine::{inventory, respond};
    respond(async { inventory()?.get_seat_map(showtime_id).await }.await)
}
