use crate::domain::Shift;
use crate::error::InventoryError;
use leptos::prelude::*;

/// The signed-in clerk's open shift, if any.
#[server(endpoint = "box_office_shift", input = server_fn::codec::Json)]
pub async fn box_office_shift() -> Result<Option<Shift>, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            inventory()?.box_office_shift(&actor).await
        }
        .await,
    )
}
