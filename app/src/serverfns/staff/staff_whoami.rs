use crate::domain::StaffMember;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Who is signed in, if anyone: what the staff pages' header shows. Unlike `staff_me` it never
/// answers an error for "nobody" (nor sets the page's status: the sign-in page under this
/// header is a 200).
#[server(endpoint = "staff_whoami", input = server_fn::codec::Json)]
pub async fn staff_whoami() -> Result<Option<StaffMember>, InventoryError> {
    use crate::domain::StaffRole;
    use crate::engine::require_staff;
    Ok(require_staff(&StaffRole::ALL)
        .await
        .ok()
        .map(|actor| actor.member))
}
