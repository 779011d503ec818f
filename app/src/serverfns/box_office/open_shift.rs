use crate::domain::Shift;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Opens a shift at `register` with `float` won in the drawer.
#[server(endpoint = "open_shift", input = server_fn::codec::Json)]
pub async fn open_shift(
    register: String,
    float: crate::domain::Won,
) -> Result<Shift, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            inventory()?.open_shift(&actor, &register, float).await
        }
        .await,
    )
}
