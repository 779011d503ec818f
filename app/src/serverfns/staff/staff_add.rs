use crate::domain::StaffRole;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Adds a staff member with a first password: operators only. Audited.
#[server(endpoint = "staff_add", input = server_fn::codec::Json)]
pub async fn staff_add(
    member: String,
    role: StaffRole,
    password: String,
) -> Result<(), InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&[]).await?;
            inventory()?
                .add_member(&member, role, &password, &actor)
                .await
        }
        .await,
    )
}
