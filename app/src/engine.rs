//! What the server functions need from the inventory engine, in the domain's own words. `app`
//! declares it; `server` implements it and hands it to Leptos through context, and its REST
//! handlers call the same implementation, so browser and API clients share one code path.

use crate::domain::{
    ApiToken, AuditEntry, BestAvailable, BookingId, BookingView, Checkout, CustomerId, HallPlan,
    HallSummary, Hold, HoldId, NewApiToken, SalesFigure, SeatMap, SeatSelection, ShowtimeCounts,
    ShowtimeId, ShowtimeSummary, StaffMember, StaffRole, Ticket,
};
use crate::domain::{
    Approval, CheckIn, CounterExchange, CounterExchangeRequest, CounterRefund,
    CounterRefundRequest, CounterSale, CounterSaleRequest, PrintedTicket, ScanAt, Shift,
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
    /// Picks and holds the best seats for the request in one decision (see `seat_rules`).
    async fn hold_best(
        &self,
        showtime: ShowtimeId,
        request: &BestAvailable,
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
    /// [`require_staff`] first, as for every method below).
    async fn sales(&self) -> Result<Vec<SalesFigure>, InventoryError>;
    /// The newest lines of the staff audit log, newest first.
    async fn audit_log(&self) -> Result<Vec<AuditEntry>, InventoryError>;
    /// Every API token, newest first.
    async fn api_tokens(&self) -> Result<Vec<ApiToken>, InventoryError>;
    /// A new API token named `name` (its secret is in the answer, and nowhere else).
    async fn create_api_token(&self, name: &str, by: &Actor)
        -> Result<NewApiToken, InventoryError>;
    async fn revoke_api_token(&self, id: i64, by: &Actor) -> Result<(), InventoryError>;
    /// Makes a hall from its plan (checked first: everything wrong is said at once).
    async fn import_hall(&self, plan: &HallPlan, by: &Actor)
        -> Result<HallSummary, InventoryError>;
    /// Every hall, by name.
    async fn halls(&self) -> Result<Vec<HallSummary>, InventoryError>;
    /// A hall's plan, to export (and import elsewhere).
    async fn hall_plan(&self, hall_id: i64) -> Result<HallPlan, InventoryError>;
    /// Showtimes from a day ago on, with their seats sold, held and free.
    async fn showtime_counts(&self) -> Result<Vec<ShowtimeCounts>, InventoryError>;
    /// Schedules a showtime (in the future, in an existing hall, with a sensible sales window).
    async fn schedule_showtime(
        &self,
        showtime: &crate::domain::NewShowtime,
        by: &Actor,
    ) -> Result<ShowtimeId, InventoryError>;
    /// Sets the acting member's kiosk PIN (4 to 8 digits), after checking their password.
    async fn set_staff_pin(
        &self,
        by: &Actor,
        password: &str,
        pin: &str,
    ) -> Result<(), InventoryError>;
    /// Sets (or with `None` removes) another member's PIN (an operator's reset).
    async fn reset_staff_pin(
        &self,
        member: &str,
        pin: Option<&str>,
        by: &Actor,
    ) -> Result<(), InventoryError>;
    /// Every staff account (name, role, whether it has a PIN, disabled or not).
    async fn staff_accounts(&self) -> Result<Vec<crate::domain::StaffAccountView>, InventoryError>;
    /// Cancels a showtime and refunds its paid bookings (once; again changes nothing).
    async fn cancel_showtime(
        &self,
        showtime: ShowtimeId,
        by: &Actor,
    ) -> Result<crate::domain::ShowtimeCancelled, InventoryError>;
    /// Takes free seats of a showtime off public sale, or puts them back (operators only).
    async fn block_seats(
        &self,
        showtime: ShowtimeId,
        seats: &[String],
        block: crate::domain::SeatBlock,
        by: &Actor,
    ) -> Result<Vec<crate::domain::SeatChange>, InventoryError>;
}

/// The box office and the door (callers check [`require_staff`] with
/// `COUNTER_ROLES` or `DOOR_ROLES` first; `by` is who acts).
#[async_trait::async_trait]
pub trait BoxOfficeDesk: Send + Sync + 'static {
    /// The acting member's open shift, if any.
    async fn current_shift(&self, by: &Actor) -> Result<Option<Shift>, InventoryError>;
    async fn open_shift(
        &self,
        by: &Actor,
        register: &str,
        float: i64,
    ) -> Result<Shift, InventoryError>;
    /// Closes the member's open shift, or (a supervisor) shift `shift`, with the cash counted.
    async fn close_shift(
        &self,
        by: &Actor,
        shift: Option<i64>,
        counted: i64,
    ) -> Result<Shift, InventoryError>;
    /// Recent shifts, newest first.
    async fn shifts(&self) -> Result<Vec<Shift>, InventoryError>;
    /// Counter sales of cancelled showtimes owed back and not given back yet, oldest first.
    async fn refunds_owed(&self) -> Result<Vec<crate::domain::OwedRefund>, InventoryError>;
    /// Holds the clerk's pick (the seats, or the best available) for the sale at the counter,
    /// releasing what they held before.
    async fn clerk_hold(
        &self,
        by: &Actor,
        showtime: ShowtimeId,
        seats: Option<&SeatSelection>,
        best: Option<&BestAvailable>,
    ) -> Result<Hold, InventoryError>;
    /// Releases the clerk's picks; how many holds.
    async fn clerk_release(&self, by: &Actor) -> Result<usize, InventoryError>;
    async fn counter_sale(
        &self,
        by: &Actor,
        sale: &CounterSaleRequest,
    ) -> Result<CounterSale, InventoryError>;
    async fn counter_refund(
        &self,
        by: &Actor,
        refund: &CounterRefundRequest,
    ) -> Result<CounterRefund, InventoryError>;
    async fn counter_exchange(
        &self,
        by: &Actor,
        exchange: &CounterExchangeRequest,
    ) -> Result<CounterExchange, InventoryError>;
    /// A booking's ticket to print (a second print is a supervisor's reprint).
    async fn print_ticket(
        &self,
        by: &Actor,
        booking: &str,
        approval: Option<&Approval>,
    ) -> Result<PrintedTicket, InventoryError>;
    async fn check_in(
        &self,
        by: &Actor,
        code: &str,
        at: &ScanAt,
    ) -> Result<CheckIn, InventoryError>;
}

/// The box office as Leptos context carries it.
#[derive(Clone)]
pub struct BoxOfficeHandle(pub Arc<dyn BoxOfficeDesk>);

/// The box office from the Leptos context of the current request.
pub fn box_office() -> Result<Arc<dyn BoxOfficeDesk>, InventoryError> {
    leptos::prelude::use_context::<BoxOfficeHandle>()
        .map(|h| h.0)
        .ok_or(InventoryError::Unavailable)
}

/// The staff side of one request: who is signed in (from the staff cookie), signing in and
/// out. The server's middleware puts one in every request as [`StaffAccess`]; nothing is looked
/// up until a staff action asks.
#[async_trait::async_trait]
pub trait StaffGate: Send + Sync + 'static {
    /// The member of the request's live staff session; `StaffSignInRequired` without one.
    async fn member(&self) -> Result<StaffMember, InventoryError>;
    /// Checks the name and password (failures count towards the account's and the address's
    /// lockouts); on success the member and the `Set-Cookie` value of the new session.
    async fn sign_in(
        &self,
        name: &str,
        password: &str,
    ) -> Result<(StaffMember, String), InventoryError>;
    /// Ends the request's session, if it has one; the `Set-Cookie` value that clears the cookie.
    async fn sign_out(&self) -> Result<String, InventoryError>;
    /// Locks the request's session: nothing but unlocking or signing out until its member's PIN
    /// unlocks it.
    async fn lock(&self) -> Result<(), InventoryError>;
    /// Unlocks the request's session with its member's PIN (wrong ones slow further tries of
    /// this session, and enough of them end it).
    async fn unlock(&self, pin: &str) -> Result<(), InventoryError>;
    /// Changes the password of the request's member, checking the current one first (counted
    /// like a sign-in); every other session of the member ends.
    async fn change_password(&self, current: &str, new: &str) -> Result<(), InventoryError>;
}

/// The request extension carrying the request's [`StaffGate`].
#[derive(Clone)]
pub struct StaffAccess(pub Arc<dyn StaffGate>);

impl StaffAccess {
    /// The member of the request's session if their role may use an action open to `allowed`
    /// (an operator may use every action): 401 without a live session, 403 for another role.
    pub async fn require(&self, allowed: &[StaffRole]) -> Result<StaffMember, InventoryError> {
        let member = self.0.member().await?;
        if member.role.may(allowed) {
            Ok(member)
        } else {
            Err(InventoryError::StaffForbidden)
        }
    }
}

/// A signed-in staff member acting, and the address they act from (for the audit log).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    pub member: StaffMember,
    pub address: Option<IpAddr>,
}

/// The request's [`StaffAccess`].
fn staff_access() -> Result<StaffAccess, InventoryError> {
    leptos::prelude::use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<StaffAccess>().cloned())
        .ok_or(InventoryError::Unavailable)
}

/// The request's [`StaffGate`].
pub fn staff_gate() -> Result<Arc<dyn StaffGate>, InventoryError> {
    staff_access().map(|access| access.0)
}

/// The staff member making the current request, if their role may use an action open to
/// `allowed` (an operator may use every action): 401 without a live staff session, 403 for
/// another role. The first line of every staff server function.
pub async fn require_staff(allowed: &[StaffRole]) -> Result<Actor, InventoryError> {
    Ok(Actor {
        member: staff_access()?.require(allowed).await?,
        address: current_client_addr(),
    })
}

/// Sets a response header of the current server function (the staff cookie).
pub fn set_response_cookie(cookie: &str) {
    if let (Some(options), Ok(value)) = (
        leptos::prelude::use_context::<leptos_axum::ResponseOptions>(),
        http::HeaderValue::from_str(cookie),
    ) {
        options.append_header(http::header::SET_COOKIE, value);
    }
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
