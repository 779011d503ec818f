use crate::domain::SeatMap;
use crate::error::InventoryError;
use leptos::prelude::*;

#[server(endpoint = "get_seat_map", input = server_fn::codec::Json)]
pub async fn get_seat_map(showtime_id: i64) -> Result<SeatMap, InventoryError> {
    crate::engine::respond(get_seat_map_inner(showtime_id).await)
}

#[cfg(feature = "ssr")]
async fn get_seat_map_inner(showtime_id: i64) -> Result<SeatMap, InventoryError> {
    use crate::domain::ShowtimeId;
    let showtime = ShowtimeId::parse(&showtime_id.to_string())
        .ok_or(InventoryError::ShowtimeNotFound(ShowtimeId(showtime_id)))?;
    crate::engine::inventory()?.seat_map(showtime).await
}
