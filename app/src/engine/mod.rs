//! What the server functions need from the inventory engine, in the domain's own words, one
//! trait per use case. `app` declares them; `server` implements each in the engine module of
//! the same name and hands the engine to Leptos through context as one [`Inventory`], and its
//! REST handlers call the same implementation, so browser and API clients share one code path.
//! An operation has one name from the server function (or REST handler) down to the engine.

mod customer;
mod staff;
mod waiting_room;

pub use customer::{AdmissionProof, Bookings, Checkouts, Holder, Holds, Showtimes};
pub use staff::{Console, Counter, Door, Prints, Returns, Shifts, StaffAccounts, StaffGate};
pub use waiting_room::WaitingRooms;

use crate::domain::{CustomerId, StaffMember, StaffRole};
use crate::error::InventoryError;
use std::net::IpAddr;
use std::sync::Arc;

/// The whole engine as the server functions see it: every use case.
pub trait Inventory:
    Showtimes
    + Holds
    + Checkouts
    + Bookings
    + Console
    + StaffAccounts
    + Shifts
    + Counter
    + Returns
    + Prints
    + Door
    + WaitingRooms
{
}

impl<T> Inventory for T where
    T: Showtimes
        + Holds
        + Checkouts
        + Bookings
        + Console
        + StaffAccounts
        + Shifts
        + Counter
        + Returns
        + Prints
        + Door
        + WaitingRooms
{
}

/// The request extension carrying the request's [`StaffGate`].
#[derive(Clone)]
pub struct StaffAccess(pub Arc<dyn StaffGate>);

impl StaffAccess {
    /// The member of the request's session if their role may use an action open to `allowed`
    /// (an operator may use every action): 401 without a live session, 403 for another role.
    pub async fn require(&self, allowed: &[StaffRole]) -> Result<StaffMember, InventoryError> {
        let member = self.0.staff_me().await?;
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
/// (409, 404, …) instead of the 500 Leptos uses for every server-function error. A page that
/// calls it while it renders (a resource) takes the status only of an error about the page's
/// own subject (no such showtime, booking or hall; a staff page without its session or role): a
/// waiting room's "no place yet" on a hot showtime's page is not the page's 404.
pub fn respond<T>(result: Result<T, InventoryError>) -> Result<T, InventoryError> {
    let called = leptos::prelude::use_context::<http::request::Parts>()
        .is_some_and(|parts| parts.uri.path().starts_with("/api/"));
    let subject = |e: &InventoryError| {
        matches!(
            e,
            InventoryError::ShowtimeNotFound(_)
                | InventoryError::BookingNotFound
                | InventoryError::NotYourBooking
                | InventoryError::HallNotFound
                | InventoryError::StaffSignInRequired
                | InventoryError::StaffForbidden
                | InventoryError::StaffSessionLocked
        )
    };
    if let Some(e) = result.as_ref().err().filter(|e| called || subject(e)) {
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

/// Every use-case trait, for callers that use many (`use app::engine::prelude::*;`).
pub mod prelude {
    pub use super::{
        Bookings, Checkouts, Console, Counter, Door, Holder, Holds, Inventory, Prints, Returns,
        Shifts, Showtimes, StaffAccounts, StaffGate, WaitingRooms,
    };
}
