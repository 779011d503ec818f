use crate::error::InventoryError;
use leptos::prelude::*;
use uuid::Uuid;

/// Releases the current customer's hold at once. As `DELETE /holds/{id}`: an id that is not a
/// UUID is a 400, a UUID that no hold can have a 404.
#[server(endpoint = "cancel_hold", input = server_fn::codec::Json)]
pub async fn cancel_hold(hold_id: Uuid) -> Result<(), InventoryError> {
    use crate::domain::HoldId;
    use crate::engine::{current_customer, inventory, respond};
    respond(
        async {
            let hold = HoldId::from_uuid(hold_id).ok_or(InventoryError::HoldNotFound)?;
            inventory()?.cancel_hold(hold, current_customer()?).await
        }
        .await,
    )
}
