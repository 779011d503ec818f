use crate::domain::Shift;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Closes the clerk's open shift (or, for a supervisor, shift `shift_id`) with the cash counted.
#[server(endpoint = "close_shift", input = server_fn::codec::Json)]
pub async fn close_shift(
    shift_id: Option<i64>,
    counted: crate::domain::Won,
) -> Result<Shift, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            inventory()?.close_shift(&actor, shift_id, counted).await
        }
        .await,
    )
}
