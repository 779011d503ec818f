//! Reading an [`InventoryError`] back. The code that depends on the deserializer (one copy per
//! reader the bundle uses) is only the map's two keys and the data's seven shapes; which variant
//! a name is, is plain code, once.

use super::{InventoryError as E, Reason};
use crate::domain::ShowtimeId;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// The data a variant carries.
enum Data {
    None,
    Text(String),
    Texts(Vec<String>),
    Signed(i64),
    Unsigned(u64),
    Reason(Reason),
    Reasons(Vec<Reason>),
    Proof(Proof),
}

#[derive(Deserialize)]
struct Proof {
    challenge: String,
    bits: u8,
}

/// The shape of a variant's data, by its name (`None`: no such variant).
fn shape(kind: &str) -> Option<Data> {
    Some(match kind {
        "InvalidRequest" | "SalesNotOpen" | "HallNameTaken" | "Transport" => {
            Data::Text(String::new())
        }
        "UnknownSeats" | "SeatsUnavailable" | "LoneSeat" => Data::Texts(Vec::new()),
        "ShowtimeNotFound" | "QueueRequired" | "TooLittleTime" => Data::Signed(0),
        "CompanionNeedsWheelchair"
        | "RecentlyReleased"
        | "SignInLocked"
        | "RateLimited"
        | "AdmissionSeatLimit" => Data::Unsigned(0),
        "NoBlock" | "ShiftAlreadyOpen" | "NotRefundable" | "TicketTypes" => {
            Data::Reason(Reason::new("", &[]))
        }
        "Invalid" => Data::Reasons(Vec::new()),
        "ProofRequired" => Data::Proof(Proof {
            challenge: String::new(),
            bits: 0,
        }),
        _ => {
            named(kind, Data::None)?;
            Data::None
        }
    })
}

/// The variant `kind` with its data (`None`: no such variant, or not with this data).
fn named(kind: &str, data: Data) -> Option<E> {
    let number = |data: &Data| match data {
        Data::Signed(n) => Some(*n),
        _ => None,
    };
    let unsigned = |data: &Data| match data {
        Data::Unsigned(n) => Some(*n),
        _ => None,
    };
    Some(match (kind, data) {
        ("InvalidRequest", Data::Text(t)) => E::InvalidRequest(t),
        ("SalesNotOpen", Data::Text(t)) => E::SalesNotOpen(t),
        ("HallNameTaken", Data::Text(t)) => E::HallNameTaken(t),
        ("Transport", Data::Text(t)) => E::Transport(t),
        ("UnknownSeats", Data::Texts(t)) => E::UnknownSeats(t),
        ("SeatsUnavailable", Data::Texts(t)) => E::SeatsUnavailable(t),
        ("LoneSeat", Data::Texts(t)) => E::LoneSeat(t),
        ("NoBlock", Data::Reason(r)) => E::NoBlock(r),
        ("ShiftAlreadyOpen", Data::Reason(r)) => E::ShiftAlreadyOpen(r),
        ("NotRefundable", Data::Reason(r)) => E::NotRefundable(r),
        ("TicketTypes", Data::Reason(r)) => E::TicketTypes(r),
        ("Invalid", Data::Reasons(r)) => E::Invalid(r),
        ("ProofRequired", Data::Proof(p)) => E::ProofRequired {
            challenge: p.challenge,
            bits: p.bits,
        },
        ("ShowtimeNotFound", d) => E::ShowtimeNotFound(ShowtimeId::try_from(number(&d)?).ok()?),
        ("QueueRequired", d) => E::QueueRequired(ShowtimeId::try_from(number(&d)?).ok()?),
        ("CompanionNeedsWheelchair", d) => {
            E::CompanionNeedsWheelchair(usize::try_from(unsigned(&d)?).ok()?)
        }
        ("TooLittleTime", d) => E::TooLittleTime(number(&d)?),
        ("RecentlyReleased", d) => E::RecentlyReleased(unsigned(&d)?),
        ("SignInLocked", d) => E::SignInLocked(unsigned(&d)?),
        ("RateLimited", d) => E::RateLimited(unsigned(&d)?),
        ("AdmissionSeatLimit", d) => E::AdmissionSeatLimit(u32::try_from(unsigned(&d)?).ok()?),
        (kind, Data::None) => match kind {
            "HoldNotFound" => E::HoldNotFound,
            "NotYourHold" => E::NotYourHold,
            "BookingNotFound" => E::BookingNotFound,
            "NotYourBooking" => E::NotYourBooking,
            "CancelNeedsLink" => E::CancelNeedsLink,
            "TicketNotReady" => E::TicketNotReady,
            "TicketRefunded" => E::TicketRefunded,
            "HoldLapsed" => E::HoldLapsed,
            "SalesClosed" => E::SalesClosed,
            "ShowtimeCancelled" => E::ShowtimeCancelled,
            "HoldLimit" => E::HoldLimit,
            "AddressLimit" => E::AddressLimit,
            "PaymentReceived" => E::PaymentReceived,
            "StaffSignInRequired" => E::StaffSignInRequired,
            "StaffForbidden" => E::StaffForbidden,
            "SignInFailed" => E::SignInFailed,
            "StaffSessionLocked" => E::StaffSessionLocked,
            "WrongPin" => E::WrongPin,
            "NoOpenShift" => E::NoOpenShift,
            "ShiftClosed" => E::ShiftClosed,
            "ApprovalRequired" => E::ApprovalRequired,
            "ApiTokenNotFound" => E::ApiTokenNotFound,
            "HallNotFound" => E::HallNotFound,
            "SignInNotAllowedHere" => E::SignInNotAllowedHere,
            "ApprovalRefused" => E::ApprovalRefused,
            "QueueUnavailable" => E::QueueUnavailable,
            "QueueFull" => E::QueueFull,
            "QueueAddressLimit" => E::QueueAddressLimit,
            "QueuePlaceNotFound" => E::QueuePlaceNotFound,
            "NoWaitingRoom" => E::NoWaitingRoom,
            "Unavailable" => E::Unavailable,
            _ => return None,
        },
        _ => return None,
    })
}

/// Reads `detail` in the shape its `kind` has.
struct Detail(Data);

impl<'de> DeserializeSeed<'de> for Detail {
    type Value = Data;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Data, D::Error> {
        Ok(match self.0 {
            Data::None => {
                de::IgnoredAny::deserialize(d)?;
                Data::None
            }
            Data::Text(_) => Data::Text(String::deserialize(d)?),
            Data::Texts(_) => Data::Texts(Vec::deserialize(d)?),
            Data::Signed(_) => Data::Signed(i64::deserialize(d)?),
            Data::Unsigned(_) => Data::Unsigned(u64::deserialize(d)?),
            Data::Reason(_) => Data::Reason(Reason::deserialize(d)?),
            Data::Reasons(_) => Data::Reasons(Vec::deserialize(d)?),
            Data::Proof(_) => Data::Proof(Proof::deserialize(d)?),
        })
    }
}

struct ErrorVisitor;

impl<'de> Visitor<'de> for ErrorVisitor {
    type Value = E;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an error: {\"kind\": …, \"detail\": …}, kind first")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<E, A::Error> {
        let unknown = |kind: &str| de::Error::unknown_variant(kind, &[]);
        if map.next_key::<String>()?.as_deref() != Some("kind") {
            return Err(de::Error::missing_field("kind"));
        }
        let kind = map.next_value::<String>()?;
        let mut shape = Some(shape(&kind).ok_or_else(|| unknown(&kind))?);
        let mut data = Data::None;
        while let Some(key) = map.next_key::<String>()? {
            match shape.take_if(|_| key == "detail") {
                Some(shape) => data = map.next_value_seed(Detail(shape))?,
                None => drop(map.next_value::<de::IgnoredAny>()?),
            }
        }
        named(&kind, data)
            .ok_or_else(|| de::Error::custom(format!("no detail, or not a valid one, for {kind}")))
    }
}

impl<'de> Deserialize<'de> for E {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ErrorVisitor)
    }
}
