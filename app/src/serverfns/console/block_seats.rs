use crate::domain::{SeatBlock, SeatChange, ShowtimeId};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Takes free seats of a showtime off public sale — `house` (only staff may sell them) or
/// `killed` (nobody may) — or puts them back (`onSale`): all of them, or none when one is held
/// or sold (409 naming it). Operators only; live seat maps show the change at once.
#[server(endpoint = "block_seats", input = server_fn::codec::Json)]
pub async fn block_seats(
    showtime_id: ShowtimeId,
    seats: Vec<String>,
    block: SeatBlock,
) -> Result<Vec<SeatChange>, InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&[]).await?;
            inventory()?
                .block_seats(showtime_id, &seats, block, &actor)
                .await
        }
        .await,
    )
}
