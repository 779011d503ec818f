use crate::error::InventoryError;
use leptos::prelude::*;

/// Locks the caller's staff session (a kiosk left alone): until their PIN unlocks it
/// (`staff_unlock`), every staff action answers 423 `STAFF_SESSION_LOCKED`. Any role.
#[server(endpoint = "staff_lock", input = server_fn::codec::Json)]
pub async fn staff_lock() -> Result<(), InventoryError> {
    use crate::engine::{respond, staff_gate};
    respond(async { staff_gate()?.staff_lock().await }.await)
}
