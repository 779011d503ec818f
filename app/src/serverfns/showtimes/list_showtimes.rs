use crate::domain::ShowtimeSummary;
use crate::error::InventoryError;
use leptos::prelude::*;

/// The programme: every showtime on sale or still to come.
#[server(endpoint = "list_showtimes", input = server_fn::codec::Json)]
pub async fn list_showtimes() -> Result<Vec<ShowtimeSummary>, InventoryError> {
    use crate::engine::{inventory, respond};
    respond(async { inventory()?.list_showtimes().await }.await)
}
