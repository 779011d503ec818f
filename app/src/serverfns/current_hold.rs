use crate::domain::Hold;
use crate::error::InventoryError;
use leptos::prelude::*;

/// The current customer's live hold in the showtime, so a reload shows it again.
#[server(endpoint = "current_hold", input = server_fn::codec::Json)]
pub async fn current_hold(showtime_id: i64) -> Result<Option<Hold>, InventoryError> {
    crate::engine::respond(current_hold_inner(showtime_id).await)
}

#[cfg(feature = "ssr")]
async fn current_hold_inner(showtime_id: i64) -> Result<Option<Hold>, InventoryError> {
    use crate::domain::ShowtimeId;
    let Some(showtime) = ShowtimeId::parse(&showtime_id.to_string()) else {
        return Ok(None);
    };
    let customer = crate::engine::current_customer()?;
    crate::engine::inventory()?
        .current_hold(showtime, customer)
        .await
}
