use crate::domain::StaffMember;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Signs a staff member in: checks the name and password and sets the staff session cookie.
/// Open to anyone (it is the way in); failures count towards the lockouts.
#[server(endpoint = "staff_sign_in", input = server_fn::codec::Json)]
pub async fn staff_sign_in(name: String, password: String) -> Result<StaffMember, InventoryError> {
    use crate::engine::{respond, set_response_cookie, staff_gate};
    respond(
        async {
            let (member, cookie) = staff_gate()?.staff_sign_in(&name, &password).await?;
            set_response_cookie(&cookie);
            Ok(member)
        }
        .await,
    )
}
