use crate::error::InventoryError;
use leptos::prelude::*;

/// Ends the caller's staff session (if any) and clears its cookie. Open to anyone: it acts
/// only on the caller's own session.
#[server(endpoint = "staff_sign_out", input = server_fn::codec::Json)]
pub async fn staff_sign_out() -> Result<(), InventoryError> {
    use crate::engine::{respond, set_response_cookie, staff_gate};
    respond(
        async {
            let cookie = staff_gate()?.staff_sign_out().await?;
            set_response_cookie(&cookie);
            Ok(())
        }
        .await,
    )
}
