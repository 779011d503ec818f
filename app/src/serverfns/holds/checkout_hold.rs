use crate::domain::{Checkout, MailLanguage};
use crate::error::InventoryError;
use leptos::prelude::*;
use uuid::Uuid;

/// Starts the payment of the current customer's hold (the same engine call as
/// `POST /holds/{id}/checkout`; repeating it finds the same payment session). As there, a UUID
/// that no hold can have is a 404. The pages ask for the address the ticket goes to (the REST
/// API may leave it out) and send the page's language, and the seats of each ticket type (none:
/// every seat adult).
#[server(endpoint = "checkout_hold", input = server_fn::codec::Json)]
pub async fn checkout_hold(
    hold_id: Uuid,
    email: String,
    language: MailLanguage,
    #[server(default)] ticket_types: crate::domain::TicketCounts,
) -> Result<Checkout, InventoryError> {
    use crate::domain::{CheckoutDetails, Email, HoldId};
    use crate::engine::{current_client_addr, current_customer, inventory, respond};
    respond(
        async {
            let hold = HoldId::from_uuid(hold_id).ok_or(InventoryError::HoldNotFound)?;
            let email = Email::parse(&email).map_err(|r| InventoryError::Invalid(vec![r]))?;
            email
                .deliverable()
                .map_err(|r| InventoryError::Invalid(vec![r]))?;
            let details = CheckoutDetails {
                email: Some(email),
                language: Some(language),
                ticket_types,
            };
            inventory()?
                .checkout_hold(hold, current_customer()?, details, current_client_addr())
                .await
        }
        .await,
    )
}
