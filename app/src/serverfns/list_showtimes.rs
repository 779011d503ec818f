use crate::domain::ShowtimeSummary;
use crate::error::InventoryError;
use leptos::prelude::*;

#[server(endpoint = "list_showtimes", input = server_fn::codec::Json)]
pub async fn list_showtimes() -> Result<Vec<ShowtimeSummary>, InventoryError> {
    crate::engine::respond(list_showtimes_inner().await)
}

#[cfg(feature = "ssr")]
async fn list_showtimes_inner() -> Result<Vec<ShowtimeSummary>, InventoryError> {
    crate::engine::inventory()?.list_showtimes().await
}
