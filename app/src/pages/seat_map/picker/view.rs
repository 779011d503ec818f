//! What the customer is told, and how each seat looks to them.

use super::*;

/// Something to tell the customer.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    Limit,
    Conflict(Vec<String>),
    /// Seats this customer had selected that someone else just took (live map).
    TakenLive(Vec<String>),
    NotAvailable(String),
    HoldFirst,
    Expired,
    Cancelled,
    /// Too many hold attempts: the customer may try again at `Picker::retry_at_ms`.
    RateLimited,
    /// Back from the payment page without paying; the hold is still there.
    PaymentDeclined,
    Error(InventoryError),
}

/// How one seat looks to this customer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatView {
    Free,
    Selected,
    Mine,
    Taken,
    Booked,
    /// Off sale for this showtime (house or killed).
    Blocked,
    /// Free, but the current selection would leave it alone.
    Stranded,
}

impl SeatView {
    /// Its name (the `data-view` of the seat's button).
    pub fn name(self) -> &'static str {
        match self {
            Self::Stranded => "stranded",
            other => other.class(),
        }
    }

    pub fn class(self) -> &'static str {
        match self {
            Self::Free => "free",
            Self::Selected => "selected",
            Self::Mine => "mine",
            Self::Taken => "taken",
            Self::Booked => "booked",
            Self::Blocked => "blocked",
            Self::Stranded => "free stranded",
        }
    }
}
