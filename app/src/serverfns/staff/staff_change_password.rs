use crate::error::InventoryError;
use leptos::prelude::*;

/// Changes the caller's password (any role), checking the current one first (counted like a
/// sign-in); the caller's other sessions end, this one stays.
#[server(endpoint = "staff_change_password", input = server_fn::codec::Json)]
pub async fn staff_change_password(current: String, new: String) -> Result<(), InventoryError> {
    use crate::engine::{respond, staff_gate};
    respond(async { staff_gate()?.staff_change_password(&current, &new).await }.await)
}
