use crate::domain::BookingFound;
use crate::error::InventoryError;
use leptos::prelude::*;

/// The console's booking search (operators and supervisors): a booking by its id, its number,
/// a ticket's code, a sold seat (`25 G7`) or the customer's e-mail address (the newest, with the
/// numbers of the others; audited), with its payments and events. An empty query
/// finds nothing (`null`): the page asks it to know the member may search.
#[server(endpoint = "find_booking", input = server_fn::codec::Json)]
pub async fn find_booking(query: String) -> Result<Option<BookingFound>, InventoryError> {
    use crate::domain::APPROVER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&APPROVER_ROLES).await?;
            if query.trim().is_empty() {
                return Ok(None);
            }
            inventory()?.find_booking(&query, &actor).await.map(Some)
        }
        .await,
    )
}
