use crate::error::InventoryError;
use leptos::prelude::*;

/// Unlocks the caller's locked staff session with their PIN: 401 `WRONG_PIN`; the failure that
/// locks the account (as failed sign-ins do) also ends the session (429 `SIGN_IN_LOCKED`).
#[server(endpoint = "staff_unlock", input = server_fn::codec::Json)]
pub async fn staff_unlock(pin: String) -> Result<(), InventoryError> {
    use crate::engine::{respond, staff_gate};
    respond(async { staff_gate()?.staff_unlock(&pin).await }.await)
}
