use crate::domain::HoldId;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Releases the current customer's hold at once.
#[server(endpoint = "cancel_hold", input = server_fn::codec::Json)]
pub async fn cancel_hold(hold_id: HoldId) -> Result<(), InventoryError> {
    use crate::engine::{current_customer, inventory, respond};
    respond(async { inventory()?.cancel(hold_id, current_customer()?).await }.await)
}
