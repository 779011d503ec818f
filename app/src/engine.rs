//! What the server functions need from the inventory engine, in the domain's own words. `app`
//! declares it; `server` implements it and hands it to Leptos through context, and its REST
//! handlers call the same implementation, so browser and API clients share one code path.

use crate::domain::{
    BookingId, BookingView, Checkout, CustomerId, Hold, HoldId, SalesFigure, SeatMap,
    SeatSelection, ShowtimeId, ShowtimeSummary, Ticket,
};
use crate::error::InventoryError;
use std::net::IpAddr;
use std::sync::Arc;

#[async_trait::async_trait]
pub trait Inventory: Send + Sync + 'static {
    async fn list_showtimes(&self) -> Result<Vec<ShowtimeSummary>, InventoryError>;
    /// Every seat of the showtime with its effective status.
    async fn seat_map(&self, showtime: ShowtimeId) -> Result<SeatMap, InventoryError>;
    /// Holds all the seats or none of them, for a request from `client_addr` (counted by the
    /// per-address limits; `None` for callers that are not a client request).
    async fn hold_from(
        &self,
        showtime: ShowtimeId,
        seats: &SeatSelection,
        customer: CustomerId,
        client_addr: Option<IpAddr>,
    ) -> Result<Hold, InventoryError>;
    /// Holds all the seats or none of them, with no client address.
    async fn hold(
        &self,
        showtime: ShowtimeId,
        seats: &SeatSelection,
        customer: CustomerId,
    ) -> Result<Hold, InventoryError> {
        self.hold_from(showtime, seats, customer, None).await
    }
    /// Releases a hold at once; only its customer may.
    async fn cancel(&self, hold: HoldId, customer: CustomerId) -> Result<(), InventoryError>;
    /// The customer's live hold in this showtime, if any (the newest when there are several).
    async fn current_hold(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
    ) -> Result<Option<Hold>, InventoryError>;
    /// Starts (or finds again) the payment of the hold; only its customer may.
    async fn checkout(
        &self,
        hold: HoldId,
        customer: CustomerId,
    ) -> Result<Checkout, InventoryError>;
    /// The customer's own booking.
    async fn booking(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<BookingView, InventoryError>;
    /// The customer's bookings, newest first.
    async fn bookings(&self, customer: CustomerId) -> Result<Vec<BookingView>, InventoryError>;
    /// The ticket of the customer's confirmed booking.
    async fn ticket(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<Ticket, InventoryError>;
    /// Sales figures per showtime and day, newest day first (operators only: callers check
    /// [`require_operator`] or the server's operator layer first).
    async fn sales(&self) -> Result<Vec<SalesFigure>, InventoryError>;
}

/// Whether the current request carries the operator's credentials. Checked only where an
/// operator's action asks (so a wrong password counts as a guess only there); the server's
/// middleware puts one in every request as [`OperatorAccess`].
#[async_trait::async_trait]
pub trait OperatorCheck: Send + Sync + 'static {
    /// `Ok` for the operator; else `OperatorOnly` (no or wrong credentials), `OperatorPagesOff`
    /// (no operator password configured) or `RateLimited` (too many wrong guesses).
    async fn admit(&self) -> Result<(), InventoryError>;
}

/// The request extension carrying the operator check of the request.
#[derive(Clone)]
pub struct OperatorAccess(pub Arc<dyn OperatorCheck>);

/// Refuses the current request unless it carries the operator's credentials: the first line
/// of every operator server function.
pub async fn require_operator() -> Result<(), InventoryError> {
    let access = leptos::prelude::use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<OperatorAccess>().cloned())
        .ok_or(InventoryError::Unavailable)?;
    access.0.admit().await
}

/// The engine as Leptos context carries it.
#[derive(Clone)]
pub struct InventoryHandle(pub Arc<dyn Inventory>);

/// The customer of the current request (the session middleware puts it in the request).
pub fn current_customer() -> Result<CustomerId, InventoryError> {
    leptos::prelude::use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<CustomerId>().copied())
        .ok_or(InventoryError::Unavailable)
}

/// The address a request came from (the peer, or the forwarded address a trusted proxy gave);
/// the server's middleware puts it in every request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

/// The client address of the current request, if the server recorded one.
pub fn current_client_addr() -> Option<IpAddr> {
    leptos::prelude::use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<ClientAddr>().map(|a| a.0))
}

/// Passes a server function's result through, answering an error with its own HTTP status
/// (409, 404, …) instead of the 500 Leptos uses for every server-function error.
pub fn respond<T>(result: Result<T, InventoryError>) -> Result<T, InventoryError> {
    if let Err(e) = &result {
        if let Some(options) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>() {
            options.set_status(
                http::StatusCode::from_u16(e.status()).unwrap_or(http::StatusCode::BAD_REQUEST),
            );
            if let Some(seconds) = e.retry_after() {
                options.insert_header(http::header::RETRY_AFTER, http::HeaderValue::from(seconds));
            }
        }
    }
    result
}

/// The engine from the Leptos context of the current request.
pub fn inventory() -> Result<Arc<dyn Inventory>, InventoryError> {
    leptos::prelude::use_context::<InventoryHandle>()
        .map(|h| h.0)
        .ok_or(InventoryError::Unavailable)
}
