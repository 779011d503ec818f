use crate::domain::{QueueProof, StaffMember};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Signs a staff member in: checks the name and password and sets the staff session cookie
/// (and the browser's device cookie). Open to anyone (it is the way in); tries past the free
/// ones from a browser the member never signed in from answer `ProofRequired` until they come
/// with a proof of work (the sign-in page solves it by itself).
#[server(endpoint = "staff_sign_in", input = server_fn::codec::Json)]
pub async fn staff_sign_in(
    name: String,
    password: String,
    #[server(default)] proof: Option<QueueProof>,
) -> Result<StaffMember, InventoryError> {
    use crate::engine::{respond, set_response_cookie, staff_gate};
    respond(
        async {
            let (member, cookies) = staff_gate()?.staff_sign_in(&name, &password, proof).await?;
            for cookie in &cookies {
                set_response_cookie(cookie);
            }
            Ok(member)
        }
        .await,
    )
}
