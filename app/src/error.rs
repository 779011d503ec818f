//! The error type of the inventory, shared by the engine, the REST API (which maps it to HTTP
//! status codes in `server`) and the server functions (which send it to the browser as JSON, so
//! the UI can match on it).

use crate::domain::{SelectionError, ShowtimeId};
use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::Serialize;

mod reason;
mod wire;

pub use reason::{said, Reason};

/// On the wire (server functions, hydrated resources) `{"kind": "<variant>", "detail": <its
/// data>}`, `detail` left out for a variant without data. Read by hand (see [`wire`]), `kind`
/// first as it is written: serde's derived reader for this layout buffers the data whenever it
/// could come first, which cost every page bundle tens of kilobytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", content = "detail")]
pub enum InventoryError {
    #[error("showtime {0} does not exist")]
    ShowtimeNotFound(ShowtimeId),
    #[error("no such hold")]
    HoldNotFound,
    #[error("this hold belongs to another customer")]
    NotYourHold,
    #[error("no such booking")]
    BookingNotFound,
    #[error("this booking belongs to another customer")]
    NotYourBooking,
    /// Found by its number and address, the booking is this session's to see; cancelling it takes
    /// the link e-mailed to its address (or the session that bought it).
    #[error("to cancel, open the link e-mailed to the booking's address (POST /bookings/{{id}}/send-link sends it again)")]
    CancelNeedsLink,
    #[error("the ticket is issued once the booking is confirmed")]
    TicketNotReady,
    /// The booking was refunded: its ticket admits nobody, and is shown no more.
    #[error("this booking was refunded: its ticket admits nobody")]
    TicketRefunded,
    #[error("{0}")]
    InvalidRequest(String),
    /// A request a person can put right, with every reason (said in their language by the
    /// pages, in English by the REST API).
    #[error("{}", said(.0, crate::i18n::Lang::En))]
    Invalid(Vec<Reason>),
    #[error("seats not in this showtime: {}", .0.join(", "))]
    UnknownSeats(Vec<String>),
    #[error("seats no longer available: {}", .0.join(", "))]
    SeatsUnavailable(Vec<String>),
    #[error("the hold has expired or its seats are no longer held by it")]
    HoldLapsed,
    /// The selection would leave these seats alone, and another of the same size would not.
    #[error("this selection would leave {} alone, and nobody buys a single seat between taken ones: choose seats next to it or at the end of the row", .0.join(", "))]
    LoneSeat(Vec<String>),
    /// Companion seats are for the companions of wheelchair users: held with a wheelchair place
    /// (this many per place at most).
    #[error("companion seats are held together with a wheelchair place ({0} per place at most)")]
    CompanionNeedsWheelchair(usize),
    /// Best available found no seats for the request; the reason says why.
    #[error("{0}")]
    NoBlock(Reason),
    /// Too little of the hold is left to pay within it.
    #[error("only {0} s of this hold are left, too little to pay safely; hold the seats again")]
    TooLittleTime(i64),
    /// The showtime has started (or its sales window is closed): no holds, checkouts or
    /// confirmations.
    #[error("sales for this showtime have closed")]
    SalesClosed,
    /// The showtime was cancelled: nothing of it is sold any more.
    #[error("this showtime was cancelled")]
    ShowtimeCancelled,
    /// The showtime's sales window has not opened yet; it opens at this time (RFC 3339).
    #[error("sales for this showtime open at {0}")]
    SalesNotOpen(String),
    /// The customer (or their network) let go of some of these seats moments ago: others have
    /// their turn at them first, for this many more seconds.
    #[error("you let these seats go a moment ago: others have their turn first; choose other seats or try these again in {} min", .0.div_ceil(60))]
    RecentlyReleased(u64),
    /// The customer already has a live hold in this showtime.
    #[error("you already hold seats for this showtime: pay for them or cancel that hold first")]
    HoldLimit,
    /// Live holds from the client's address already hold as many seats as allowed.
    #[error("too many seats of this showtime are held from your network; try again when some are released")]
    AddressLimit,
    /// A payment of this booking was received and is being confirmed: no new payment session.
    #[error("a payment for this booking was received and is being confirmed")]
    PaymentReceived,
    /// A staff action without a live staff session (never signed in, signed out, idle too long,
    /// past its lifetime, or the account was disabled).
    #[error("this is for the venue's staff: sign in at /staff/sign-in")]
    StaffSignInRequired,
    /// A staff action the signed-in member's role may not use.
    #[error("your staff role may not do this")]
    StaffForbidden,
    /// A sign-in with a wrong name or password (which of the two is not said).
    #[error("wrong name or password")]
    SignInFailed,
    /// The staff session is locked (a kiosk left alone): the member's PIN unlocks it.
    #[error("this session is locked: unlock it with your PIN, or sign out")]
    StaffSessionLocked,
    /// A wrong PIN (it counts towards the account's lockout).
    #[error("wrong PIN")]
    WrongPin,
    /// A counter sale, refund or hold without an open shift of the clerk's.
    #[error("open a shift at your register first")]
    NoOpenShift,
    /// The shift was closed (by its clerk or a supervisor): it takes no more sales.
    #[error("this shift is closed: it takes no more sales")]
    ShiftClosed,
    /// The clerk or the register has an open shift already.
    #[error("{0}")]
    ShiftAlreadyOpen(Reason),
    /// A refund or a complimentary sale needs a supervisor: their session, or their name and PIN.
    #[error("a supervisor must approve this (their name and PIN)")]
    ApprovalRequired,
    /// The booking cannot be refunded at the counter; the reason says why.
    #[error("{0}")]
    NotRefundable(Reason),
    /// The ticket types asked for do not fit the seats (counts, a type not sold, changed).
    #[error("{0}")]
    TicketTypes(Reason),
    #[error("no such API token (or it is revoked already)")]
    ApiTokenNotFound,
    #[error("no such hall")]
    HallNotFound,
    /// A hall of this name exists (a changed layout is a new hall, under a new name).
    #[error("there is already a hall named {0:?}")]
    HallNameTaken(String),
    /// Too many failed tries of this account (or PIN) from here: the next try is not checked
    /// for this many more seconds.
    #[error("too many failed tries; try again in {} or ask an operator", wait_text(*.0))]
    SignInLocked(u64),
    /// Staff may not sign in from the client's address (`STAFF_SIGN_IN_FROM`).
    #[error("staff sign-in is not allowed from this network")]
    SignInNotAllowedHere,
    /// A supervisor's approval was refused: an unknown or disabled supervisor, no PIN set, a
    /// wrong PIN, or too many wrong PINs lately. The answer is the same for each, so it tells
    /// nothing about the PIN.
    #[error("the supervisor's name or PIN was not accepted (after several wrong PINs, approvals wait a while)")]
    ApprovalRefused,
    /// Too many hold attempts: the customer may try again after this many seconds.
    #[error("too many attempts; try again in {0} s")]
    RateLimited(u64),
    /// The showtime's sale has a waiting room: a customer holds once admitted by it, with the
    /// admission (the session's in the browser; header `Admission-Token` in the REST API).
    #[error("this sale has a waiting room: join the queue at /showtimes/{0}/queue and hold once you are admitted")]
    QueueRequired(ShowtimeId),
    /// The admission has held this many seats already (holds, cancels and holds again together).
    #[error("one admission holds at most 8 seats in all; this one has held {0}")]
    AdmissionSeatLimit(u32),
    /// The waiting room's state cannot be reached: holds of its showtime wait rather than let an
    /// unguarded crowd in.
    #[error("the waiting room is unavailable for a moment; please try again")]
    QueueUnavailable,
    /// The waiting room holds as many people as it may: try again later.
    #[error("the waiting room is full; please try again in a minute")]
    QueueFull,
    /// Too many places in this queue come from the client's address.
    #[error("too many places in this queue come from your network")]
    QueueAddressLimit,
    /// The room asks a proof of work for a new place: SHA-256 of `"{challenge}:{nonce}"` must
    /// start with `bits` zero bits. Sent again (with a new challenge) for a proof that fails.
    #[error("this waiting room asks for a proof of work: find a nonce for which SHA-256 of \"{challenge}:<nonce>\" starts with {bits} zero bits, and join again with it")]
    ProofRequired { challenge: String, bits: u8 },
    /// No such place in the queue (it was given up, its admission ended, or the room was reset).
    #[error("you have no place in this queue (it ended or was given up): join it again")]
    QueuePlaceNotFound,
    /// The showtime has no waiting room now: hold directly.
    #[error("this showtime has no waiting room now: hold seats directly")]
    NoWaitingRoom,
    /// Something failed inside the server; the details are logged there, never sent out.
    #[error("the service is temporarily unavailable, please try again")]
    Unavailable,
    /// The request or response could not be carried (network, encoding).
    #[error("request failed: {0}")]
    Transport(String),
}

impl InventoryError {
    /// The HTTP status this error is answered with, by the REST API and server functions alike.
    pub fn status(&self) -> u16 {
        match self {
            Self::ShowtimeNotFound(_)
            | Self::HoldNotFound
            | Self::BookingNotFound
            | Self::ApiTokenNotFound
            | Self::HallNotFound
            | Self::QueuePlaceNotFound => 404,
            Self::NotYourHold
            | Self::NotYourBooking
            | Self::CancelNeedsLink
            | Self::StaffForbidden
            | Self::ApprovalRequired
            | Self::ApprovalRefused
            | Self::SignInNotAllowedHere
            | Self::QueueRequired(_)
            | Self::ProofRequired { .. } => 403,
            Self::StaffSignInRequired | Self::SignInFailed | Self::WrongPin => 401,
            Self::StaffSessionLocked => 423,
            Self::InvalidRequest(_)
            | Self::Invalid(_)
            | Self::UnknownSeats(_)
            | Self::Transport(_) => 400,
            Self::LoneSeat(_) | Self::CompanionNeedsWheelchair(_) | Self::TicketTypes(_) => 422,
            Self::SeatsUnavailable(_)
            | Self::HoldLapsed
            | Self::NoBlock(_)
            | Self::TooLittleTime(_)
            | Self::TicketNotReady
            | Self::TicketRefunded
            | Self::SalesClosed
            | Self::SalesNotOpen(_)
            | Self::ShowtimeCancelled
            | Self::HoldLimit
            | Self::RecentlyReleased(_)
            | Self::AddressLimit
            | Self::PaymentReceived
            | Self::HallNameTaken(_)
            | Self::NoOpenShift
            | Self::ShiftClosed
            | Self::ShiftAlreadyOpen(_)
            | Self::NotRefundable(_)
            | Self::AdmissionSeatLimit(_)
            | Self::NoWaitingRoom => 409,
            Self::RateLimited(_) | Self::SignInLocked(_) | Self::QueueAddressLimit => 429,
            Self::Unavailable | Self::QueueUnavailable | Self::QueueFull => 503,
        }
    }

    /// A stable machine-readable name for clients.
    pub fn code(&self) -> &'static str {
        match self {
            Self::ShowtimeNotFound(_) => "SHOWTIME_NOT_FOUND",
            Self::HoldNotFound => "HOLD_NOT_FOUND",
            Self::NotYourHold => "NOT_YOUR_HOLD",
            Self::BookingNotFound => "BOOKING_NOT_FOUND",
            Self::NotYourBooking => "NOT_YOUR_BOOKING",
            Self::CancelNeedsLink => "CANCEL_NEEDS_LINK",
            Self::TicketNotReady => "TICKET_NOT_READY",
            Self::TicketRefunded => "TICKET_REFUNDED",
            Self::InvalidRequest(_) | Self::Invalid(_) => "INVALID_REQUEST",
            Self::UnknownSeats(_) => "UNKNOWN_SEATS",
            Self::SeatsUnavailable(_) => "SEATS_UNAVAILABLE",
            Self::HoldLapsed => "HOLD_LAPSED",
            Self::LoneSeat(_) => "LONE_SEAT",
            Self::CompanionNeedsWheelchair(_) => "COMPANION_NEEDS_WHEELCHAIR",
            Self::NoBlock(_) => "NO_BLOCK",
            Self::TooLittleTime(_) => "TOO_LITTLE_TIME",
            Self::SalesClosed => "SALES_CLOSED",
            Self::SalesNotOpen(_) => "SALES_NOT_OPEN",
            Self::ShowtimeCancelled => "SHOWTIME_CANCELLED",
            Self::HoldLimit => "HOLD_LIMIT",
            Self::RecentlyReleased(_) => "RECENTLY_RELEASED",
            Self::AddressLimit => "ADDRESS_HOLD_LIMIT",
            Self::PaymentReceived => "PAYMENT_RECEIVED",
            Self::StaffSignInRequired => "STAFF_SIGN_IN_REQUIRED",
            Self::StaffForbidden => "STAFF_FORBIDDEN",
            Self::SignInFailed => "SIGN_IN_FAILED",
            Self::StaffSessionLocked => "STAFF_SESSION_LOCKED",
            Self::WrongPin => "WRONG_PIN",
            Self::ApiTokenNotFound => "API_TOKEN_NOT_FOUND",
            Self::NoOpenShift => "NO_OPEN_SHIFT",
            Self::ShiftClosed => "SHIFT_CLOSED",
            Self::ShiftAlreadyOpen(_) => "SHIFT_ALREADY_OPEN",
            Self::ApprovalRequired => "SUPERVISOR_APPROVAL_REQUIRED",
            Self::NotRefundable(_) => "NOT_REFUNDABLE",
            Self::TicketTypes(_) => "TICKET_TYPES",
            Self::HallNotFound => "HALL_NOT_FOUND",
            Self::HallNameTaken(_) => "HALL_NAME_TAKEN",
            Self::SignInLocked(_) => "SIGN_IN_LOCKED",
            Self::SignInNotAllowedHere => "SIGN_IN_NOT_ALLOWED_HERE",
            Self::ApprovalRefused => "APPROVAL_REFUSED",
            Self::RateLimited(_) => "RATE_LIMITED",
            Self::QueueRequired(_) => "QUEUE_REQUIRED",
            Self::AdmissionSeatLimit(_) => "ADMISSION_SEAT_LIMIT",
            Self::QueueUnavailable => "QUEUE_UNAVAILABLE",
            Self::QueueFull => "QUEUE_FULL",
            Self::QueueAddressLimit => "QUEUE_ADDRESS_LIMIT",
            Self::QueuePlaceNotFound => "QUEUE_PLACE_NOT_FOUND",
            Self::ProofRequired { .. } => "PROOF_REQUIRED",
            Self::NoWaitingRoom => "NO_WAITING_ROOM",
            Self::Unavailable => "UNAVAILABLE",
            Self::Transport(_) => "BAD_REQUEST",
        }
    }

    /// Seconds until the request may be repeated (`Retry-After`), when the error says so.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            Self::RateLimited(seconds)
            | Self::SignInLocked(seconds)
            | Self::RecentlyReleased(seconds) => Some(*seconds),
            Self::QueueUnavailable => Some(5),
            Self::QueueFull | Self::QueueAddressLimit => Some(60),
            _ => None,
        }
    }

    /// The waiting room to join, when the error says a customer must queue first: its API
    /// (`POST` to join) and its page.
    pub fn queue(&self) -> Option<(String, String)> {
        match self {
            Self::QueueRequired(showtime) => Some((
                format!("/showtimes/{showtime}/queue"),
                format!("/showtimes/{showtime}/waiting-room"),
            )),
            _ => None,
        }
    }

    /// The seats the error is about, when seats are the problem.
    pub fn seats(&self) -> Option<&[String]> {
        match self {
            Self::UnknownSeats(seats) | Self::SeatsUnavailable(seats) | Self::LoneSeat(seats) => {
                Some(seats)
            }
            _ => None,
        }
    }
}

impl InventoryError {
    /// A request refused for one reason a person can put right.
    pub fn invalid(key: &str, args: &[(&str, String)]) -> Self {
        Self::Invalid(vec![Reason::new(key, args)])
    }
}

/// A wait in seconds as a person reads it: "40 s", "3 min".
fn wait_text(seconds: u64) -> String {
    match seconds {
        0..=90 => format!("{seconds} s"),
        _ => format!("{} min", seconds.div_ceil(60)),
    }
}

impl From<SelectionError> for InventoryError {
    fn from(e: SelectionError) -> Self {
        Self::InvalidRequest(e.to_string())
    }
}

impl FromServerFnError for InventoryError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        Self::Transport(value.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::{InventoryError as E, Reason};
    use crate::domain::ShowtimeId;

    /// Every variant, each at its own place (a new variant does not compile until it has one).
    fn place(e: &E) -> usize {
        match e {
            E::ShowtimeNotFound(_) => 0,
            E::HoldNotFound => 1,
            E::NotYourHold => 2,
            E::BookingNotFound => 3,
            E::NotYourBooking => 4,
            E::CancelNeedsLink => 5,
            E::TicketNotReady => 6,
            E::TicketRefunded => 7,
            E::InvalidRequest(_) => 8,
            E::Invalid(_) => 9,
            E::UnknownSeats(_) => 10,
            E::SeatsUnavailable(_) => 11,
            E::HoldLapsed => 12,
            E::LoneSeat(_) => 13,
            E::CompanionNeedsWheelchair(_) => 14,
            E::NoBlock(_) => 15,
            E::TooLittleTime(_) => 16,
            E::SalesClosed => 17,
            E::ShowtimeCancelled => 18,
            E::SalesNotOpen(_) => 19,
            E::RecentlyReleased(_) => 20,
            E::HoldLimit => 21,
            E::AddressLimit => 22,
            E::PaymentReceived => 23,
            E::StaffSignInRequired => 24,
            E::StaffForbidden => 25,
            E::SignInFailed => 26,
            E::StaffSessionLocked => 27,
            E::WrongPin => 28,
            E::NoOpenShift => 29,
            E::ShiftClosed => 30,
            E::ShiftAlreadyOpen(_) => 31,
            E::ApprovalRequired => 32,
            E::NotRefundable(_) => 33,
            E::TicketTypes(_) => 34,
            E::ApiTokenNotFound => 35,
            E::HallNotFound => 36,
            E::HallNameTaken(_) => 37,
            E::SignInLocked(_) => 38,
            E::SignInNotAllowedHere => 39,
            E::ApprovalRefused => 40,
            E::RateLimited(_) => 41,
            E::QueueRequired(_) => 42,
            E::AdmissionSeatLimit(_) => 43,
            E::QueueUnavailable => 44,
            E::QueueFull => 45,
            E::QueueAddressLimit => 46,
            E::ProofRequired { .. } => 47,
            E::QueuePlaceNotFound => 48,
            E::NoWaitingRoom => 49,
            E::Unavailable => 50,
            E::Transport(_) => 51,
        }
    }

    fn every_variant() -> Vec<E> {
        let showtime = ShowtimeId::try_from(13).unwrap();
        let seats = || vec!["A-1".to_string(), "A-2".to_string()];
        let reason = || Reason::new("invalid.email_long", &[("max", "254".to_string())]);
        vec![
            E::ShowtimeNotFound(showtime),
            E::HoldNotFound,
            E::NotYourHold,
            E::BookingNotFound,
            E::NotYourBooking,
            E::CancelNeedsLink,
            E::TicketNotReady,
            E::TicketRefunded,
            E::InvalidRequest("bad \"seat\" ✓".into()),
            E::Invalid(vec![reason(), Reason::new("invalid.email", &[])]),
            E::UnknownSeats(seats()),
            E::SeatsUnavailable(seats()),
            E::HoldLapsed,
            E::LoneSeat(seats()),
            E::CompanionNeedsWheelchair(2),
            E::NoBlock(reason()),
            E::TooLittleTime(-3),
            E::SalesClosed,
            E::ShowtimeCancelled,
            E::SalesNotOpen("2026-12-24T19:00:00+09:00".into()),
            E::RecentlyReleased(180),
            E::HoldLimit,
            E::AddressLimit,
            E::PaymentReceived,
            E::StaffSignInRequired,
            E::StaffForbidden,
            E::SignInFailed,
            E::StaffSessionLocked,
            E::WrongPin,
            E::NoOpenShift,
            E::ShiftClosed,
            E::ShiftAlreadyOpen(reason()),
            E::ApprovalRequired,
            E::NotRefundable(reason()),
            E::TicketTypes(reason()),
            E::ApiTokenNotFound,
            E::HallNotFound,
            E::HallNameTaken("Hall 1".into()),
            E::SignInLocked(u64::MAX),
            E::SignInNotAllowedHere,
            E::ApprovalRefused,
            E::RateLimited(1),
            E::QueueRequired(showtime),
            E::AdmissionSeatLimit(8),
            E::QueueUnavailable,
            E::QueueFull,
            E::QueueAddressLimit,
            E::ProofRequired {
                challenge: "c0ffee".into(),
                bits: 18,
            },
            E::QueuePlaceNotFound,
            E::NoWaitingRoom,
            E::Unavailable,
            E::Transport("connection reset".into()),
        ]
    }

    #[test]
    fn every_error_reads_back_as_it_was_written() {
        let all = every_variant();
        let places: std::collections::BTreeSet<usize> = all.iter().map(place).collect();
        assert_eq!(places, (0..=51).collect(), "every variant, once");
        for e in all {
            let json = serde_json::to_string(&e).unwrap();
            assert_eq!(serde_json::from_str::<E>(&json).unwrap(), e, "{json}");
            assert_eq!(
                serde_json::from_slice::<E>(json.as_bytes()).unwrap(),
                e,
                "{json}"
            );
        }
    }

    #[test]
    fn an_error_that_is_not_one_is_refused_saying_why() {
        for (json, why) in [
            (r#"{"kind":"NoSuchThing"}"#, "unknown variant `NoSuchThing`"),
            (
                r#"{"kind":"InvalidRequest"}"#,
                "no detail, or not a valid one, for InvalidRequest",
            ),
            (
                r#"{"kind":"RateLimited","detail":-1}"#,
                "invalid value: integer `-1`",
            ),
            (
                r#"{"kind":"ShowtimeNotFound","detail":0}"#,
                "no detail, or not a valid one",
            ),
            (
                r#"{"kind":"LoneSeat","detail":"A-1"}"#,
                "invalid type: string",
            ),
            (r#"{"kind":"HoldNotFound","detail":{"x":[1]}}"#, ""),
            (
                r#"{"detail":"x","kind":"InvalidRequest"}"#,
                "missing field `kind`",
            ),
            (r#"{}"#, "missing field `kind`"),
            (r#""HoldNotFound""#, "invalid type: string"),
        ] {
            match serde_json::from_str::<E>(json) {
                Ok(e) if why.is_empty() => assert_eq!(e, E::HoldNotFound),
                Ok(e) => panic!("{json} read as {e:?}"),
                Err(err) => assert!(err.to_string().contains(why), "{json}: {err}"),
            }
        }
    }
}
