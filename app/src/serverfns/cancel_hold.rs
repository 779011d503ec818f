use crate::error::InventoryError;
use leptos::prelude::*;

/// Releases the current customer's hold at once.
#[server(endpoint = "cancel_hold", input = server_fn::codec::Json)]
pub async fn cancel_hold(hold_id: String) -> Result<(), InventoryError> {
    crate::engine::respond(cancel_hold_inner(hold_id).await)
}

#[cfg(feature = "ssr")]
async fn cancel_hold_inner(hold_id: String) -> Result<(), InventoryError> {
    use crate::domain::HoldId;
    let hold = HoldId::parse(&hold_id).ok_or(InventoryError::HoldNotFound)?;
    let customer = crate::engine::current_customer()?;
    crate::engine::inventory()?.cancel(hold, customer).await
}
