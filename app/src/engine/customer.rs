//! The customer's use cases: the programme, holds, checkout and bookings. Each trait is
//! implemented by the engine module of the same name; each method has the name of the server
//! function that calls it.

use crate::domain::{
    BestAvailable, BookingId, BookingLookup, BookingView, Checkout, CheckoutDetails, CustomerId,
    Hold, HoldId, SeatMap, SeatSelection, ShowtimeId, ShowtimeSummary, Ticket,
};
use crate::error::InventoryError;
use std::net::IpAddr;

/// Who a hold is for. A customer's hold is counted by the per-customer and per-address limits
/// and lasts the customers' hold time; a clerk's (the sale at the counter) may take house seats,
/// is not rate-limited and lasts while the sale is at the counter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    Customer {
        id: CustomerId,
        /// The request's client address, when it is a client's request.
        address: Option<IpAddr>,
        /// What shows that the waiting room admitted the customer (while it is on).
        admission: AdmissionProof,
    },
    Clerk {
        staff_id: i64,
    },
}

/// How a customer's hold shows the waiting room's admission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdmissionProof {
    /// Nothing (a REST hold without `Admission-Token`).
    None,
    /// The session's own admission (the browser's server functions).
    Session,
    /// A signed admission token (`Admission-Token`).
    Token(String),
}

impl Holder {
    /// A customer's hold, from `address`.
    pub fn customer(id: CustomerId, address: Option<IpAddr>) -> Self {
        Self::Customer {
            id,
            address,
            admission: AdmissionProof::None,
        }
    }

    /// The same customer's hold, admitted (or not) by `proof`.
    pub fn admitted_by(self, proof: AdmissionProof) -> Self {
        match self {
            Self::Customer { id, address, .. } => Self::Customer {
                id,
                address,
                admission: proof,
            },
            clerk => clerk,
        }
    }

    /// What shows the waiting room's admission (none for a clerk: staff never queue).
    pub fn admission(&self) -> Option<&AdmissionProof> {
        match self {
            Self::Customer { admission, .. } => Some(admission),
            Self::Clerk { .. } => None,
        }
    }

    /// The customer id the hold carries (a clerk's: [`CustomerId::of_clerk`]).
    pub fn customer_id(&self) -> CustomerId {
        match *self {
            Self::Customer { id, .. } => id,
            Self::Clerk { staff_id } => CustomerId::of_clerk(staff_id),
        }
    }

    /// The client address a customer's hold is counted by (none for a clerk's).
    pub fn address(&self) -> Option<IpAddr> {
        match *self {
            Self::Customer { address, .. } => address,
            Self::Clerk { .. } => None,
        }
    }

    pub fn is_clerk(&self) -> bool {
        matches!(self, Self::Clerk { .. })
    }
}

/// What is on and what is free.
#[async_trait::async_trait]
pub trait Showtimes: Send + Sync + 'static {
    async fn list_showtimes(&self) -> Result<Vec<ShowtimeSummary>, InventoryError>;
    /// Every seat of the showtime with its effective status.
    async fn get_seat_map(&self, showtime: ShowtimeId) -> Result<SeatMap, InventoryError>;
}

/// Holding seats and letting them go.
#[async_trait::async_trait]
pub trait Holds: Send + Sync + 'static {
    /// Holds all the seats or none of them.
    async fn hold_seats(
        &self,
        showtime: ShowtimeId,
        seats: &SeatSelection,
        holder: Holder,
    ) -> Result<Hold, InventoryError>;
    /// Picks and holds the best seats for the request in one decision (see `seat_rules`).
    async fn hold_best(
        &self,
        showtime: ShowtimeId,
        request: &BestAvailable,
        holder: Holder,
    ) -> Result<Hold, InventoryError>;
    /// Releases a hold at once; only its customer may.
    async fn cancel_hold(&self, hold: HoldId, customer: CustomerId) -> Result<(), InventoryError>;
    /// The customer's live hold in this showtime, if any (the newest when there are several).
    async fn current_hold(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
    ) -> Result<Option<Hold>, InventoryError>;
}

/// Paying for a hold.
#[async_trait::async_trait]
pub trait Checkouts: Send + Sync + 'static {
    /// Starts (or finds again) the payment of the hold; only its customer may, within the
    /// checkout rate limits (per customer, and per `client_addr` when given). `details` says
    /// where the ticket goes and in which language.
    async fn checkout_hold(
        &self,
        hold: HoldId,
        customer: CustomerId,
        details: CheckoutDetails,
        client_addr: Option<IpAddr>,
    ) -> Result<Checkout, InventoryError>;
}

/// The customer's bookings and tickets.
#[async_trait::async_trait]
pub trait Bookings: Send + Sync + 'static {
    /// The customer's own booking.
    async fn get_booking(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<BookingView, InventoryError>;
    /// The ticket of the customer's confirmed booking.
    async fn get_ticket(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<Ticket, InventoryError>;
    /// The customer cancels their own online booking (or one whose e-mailed link they opened),
    /// until `CUSTOMER_CANCEL_UNTIL_MINUTES` before the start (by the database's clock): every
    /// seat back on sale, the payment refunded through the gateway. A counter sale, a used
    /// ticket, or too late: refused, saying why; a booking only found by its number and address:
    /// `CancelNeedsLink`.
    async fn cancel_booking(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<BookingView, InventoryError>;
    /// E-mails the booking's message again (with its link, which proves the mailbox and lets
    /// the session that opens it cancel) to the address it was booked with, for a session that
    /// may see the booking; once in 10 minutes per booking. The address, masked.
    async fn send_booking_link(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<String, InventoryError>;
    /// The customer's bookings, newest first (those they found again too).
    async fn my_bookings(&self, customer: CustomerId) -> Result<Vec<BookingView>, InventoryError>;
    /// A booking found again by its reference and the address given at checkout, on any
    /// device: from then on `customer` sees it as their own. Rate-limited per client address
    /// and per reference; a wrong pair answers as an unknown booking does (404).
    async fn lookup_booking(
        &self,
        lookup: BookingLookup,
        customer: CustomerId,
        client_addr: Option<IpAddr>,
    ) -> Result<BookingView, InventoryError>;
}
