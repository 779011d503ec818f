use crate::domain::StaffMember;
use crate::error::InventoryError;
use leptos::prelude::*;

/// The signed-in staff member: any role.
#[server(endpoint = "staff_me", input = server_fn::codec::Json)]
pub async fn staff_me() -> Result<StaffMember, InventoryError> {
    use crate::domain::StaffRole;
    use crate::engine::{require_staff, respond};
    respond(
        require_staff(&StaffRole::ALL)
            .await
            .map(|actor| actor.member),
    )
}
