use crate::domain::ShowtimeCounts;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Showtimes from a day ago on, with their seats sold, held and free: operators only.
#[server(endpoint = "showtime_figures", input = server_fn::codec::Json)]
pub async fn showtime_figures() -> Result<Vec<ShowtimeCounts>, InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            require_staff(&[]).await?;
            inventory()?.showtime_figures().await
        }
        .await,
    )
}
