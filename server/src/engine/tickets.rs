//! Ticket codes: `SEATS2-<key id>-<booking id, 32 hex>-<tag>`, where the tag is the first 16
//! bytes (hex) of an HMAC-SHA256 under the named key of the key id and the booking id. Anyone can
//! read a code; only a holder of the key can make one that verifies. Ticket keys are their own
//! (`TICKET_KEYS`), not derived from any other secret, and carry an id: the first key signs,
//! every listed key verifies, so keys can be replaced without voiding the tickets already sold.
//!
//! Each seat has its own ticket too: `SEATS3-<key id>-<booking id>-<seat>-<tag>`, the tag over
//! the key id, the booking and the seat, so a party's tickets are checked in one by one; the
//! booking's own code admits every seat not in yet.
//!
//! Tickets sold before key ids existed read `SEATS1-<booking>-<tag>`, signed under a key derived
//! from the session secret; they still verify while that secret is unchanged.

use super::Engine;
use app::domain::{BookingId, BookingView, SeatTicket};
use app::error::InventoryError;
use hmac::{Hmac, Mac};

const PREFIX: &str = "SEATS2";
const SEAT_PREFIX: &str = "SEATS3";
const LEGACY_PREFIX: &str = "SEATS1";
/// What a booking link's tag is made over first (so it is never a ticket's tag).
const LINK_PREFIX: &str = "SEATSLINK";

/// What a verified code names: a booking, and the seat when it is one seat's ticket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketRef {
    pub booking: BookingId,
    pub seat: Option<String>,
}

#[derive(Clone)]
pub struct TicketKeys {
    /// `(id, key)`; the first signs.
    keys: Vec<(String, Vec<u8>)>,
    /// Checks `SEATS1` codes (derived from the session secret).
    legacy: Option<Vec<u8>>,
}

impl TicketKeys {
    /// `keys` must not be empty; the first signs new tickets.
    pub fn new(keys: Vec<(String, Vec<u8>)>) -> Self {
        assert!(!keys.is_empty(), "at least one ticket key");
        Self { keys, legacy: None }
    }

    /// Also accepts `SEATS1` codes, which were signed under a key derived from `session_secret`.
    pub fn with_legacy(mut self, session_secret: &[u8]) -> Self {
        let mut mac = Hmac::<sha2::Sha256>::new_from_slice(session_secret).expect("any key length");
        mac.update(b"seats ticket key v1");
        self.legacy = Some(mac.finalize().into_bytes().to_vec());
        self
    }

    /// A random key that lives as long as the process (tests, tools).
    pub fn random() -> Self {
        Self::new(vec![("r".into(), rand::random::<[u8; 32]>().to_vec())])
    }

    fn tag(id: &str, key: &[u8], booking: BookingId) -> String {
        let mut mac = Hmac::<sha2::Sha256>::new_from_slice(key).expect("any key length");
        mac.update(PREFIX.as_bytes());
        mac.update(id.as_bytes());
        mac.update(b"-");
        mac.update(booking.0.as_bytes());
        hex::encode(&mac.finalize().into_bytes()[..16])
    }

    fn link_tag(id: &str, key: &[u8], booking: BookingId) -> String {
        let mut mac = Hmac::<sha2::Sha256>::new_from_slice(key).expect("any key length");
        mac.update(LINK_PREFIX.as_bytes());
        mac.update(id.as_bytes());
        mac.update(b"-");
        mac.update(booking.0.as_bytes());
        hex::encode(&mac.finalize().into_bytes()[..16])
    }

    /// The key of a link that opens `booking` on any device: `<key id>.<tag>`.
    pub fn sign_link(&self, booking: BookingId) -> String {
        let (id, key) = &self.keys[0];
        format!("{id}.{}", Self::link_tag(id, key, booking))
    }

    /// Whether `given` is the key of a link to `booking` that one of our keys signed.
    pub fn verify_link(&self, booking: BookingId, given: &str) -> bool {
        let Some((id, tag)) = given.rsplit_once('.') else {
            return false;
        };
        self.keys
            .iter()
            .find(|(k, _)| k == id)
            .is_some_and(|(_, key)| same(&Self::link_tag(id, key, booking), tag))
    }

    fn seat_tag(id: &str, key: &[u8], booking: BookingId, seat: &str) -> String {
        let mut mac = Hmac::<sha2::Sha256>::new_from_slice(key).expect("any key length");
        mac.update(SEAT_PREFIX.as_bytes());
        mac.update(id.as_bytes());
        mac.update(b"-");
        mac.update(booking.0.as_bytes());
        mac.update(b"-");
        mac.update(seat.as_bytes());
        hex::encode(&mac.finalize().into_bytes()[..16])
    }

    /// The ticket code of one seat of a booking.
    pub fn sign_seat(&self, booking: BookingId, seat: &str) -> String {
        let (id, key) = &self.keys[0];
        format!(
            "{SEAT_PREFIX}-{id}-{}-{seat}-{}",
            booking.0.simple(),
            Self::seat_tag(id, key, booking, seat)
        )
    }

    /// What a code names, if one of our keys signed it: a booking's code or a seat's.
    pub fn verify_ref(&self, code: &str) -> Option<TicketRef> {
        let code = code.trim();
        if let Some(rest) = code.strip_prefix(SEAT_PREFIX) {
            let mut parts = rest.split('-');
            let (Some(""), Some(id), Some(booking), Some(seat), Some(tag), None) = (
                parts.next(),
                parts.next(),
                parts.next(),
                parts.next(),
                parts.next(),
                parts.next(),
            ) else {
                return None;
            };
            let (_, key) = self.keys.iter().find(|(k, _)| k == id)?;
            let booking = BookingId(uuid::Uuid::try_parse(booking).ok()?);
            let seat = app::domain::SeatCode::parse(seat).ok()?.to_string();
            return same(&Self::seat_tag(id, key, booking, &seat), tag).then_some(TicketRef {
                booking,
                seat: Some(seat),
            });
        }
        self.verify(code).map(|booking| TicketRef {
            booking,
            seat: None,
        })
    }

    pub fn sign(&self, booking: BookingId) -> String {
        let (id, key) = &self.keys[0];
        format!(
            "{PREFIX}-{id}-{}-{}",
            booking.0.simple(),
            Self::tag(id, key, booking)
        )
    }

    /// The booking a code names, if one of our keys signed it.
    pub fn verify(&self, code: &str) -> Option<BookingId> {
        if let Some(rest) = code.trim().strip_prefix(LEGACY_PREFIX) {
            return self.verify_legacy(rest);
        }
        let mut parts = code.trim().split('-');
        let (Some(PREFIX), Some(id), Some(booking), Some(tag), None) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return None;
        };
        let (_, key) = self.keys.iter().find(|(k, _)| k == id)?;
        let booking = BookingId(uuid::Uuid::try_parse(booking).ok()?);
        same(&Self::tag(id, key, booking), tag).then_some(booking)
    }

    /// `-<booking>-<tag>` after `SEATS1`.
    fn verify_legacy(&self, rest: &str) -> Option<BookingId> {
        let key = self.legacy.as_ref()?;
        let mut parts = rest.split('-');
        let (Some(""), Some(booking), Some(tag), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return None;
        };
        let booking = BookingId(uuid::Uuid::try_parse(booking).ok()?);
        let mut mac = Hmac::<sha2::Sha256>::new_from_slice(key).expect("any key length");
        mac.update(booking.0.as_bytes());
        let expected = hex::encode(&mac.finalize().into_bytes()[..16]);
        same(&expected, tag).then_some(booking)
    }
}

/// A ticket code's QR code as SVG, at least `size` pixels square.
pub(super) fn qr_svg(code: &str, size: u32) -> Result<String, InventoryError> {
    let qr = qrcode::QrCode::new(code.as_bytes()).map_err(|e| {
        tracing::error!(error = %e, "QR code not made");
        InventoryError::Unavailable
    })?;
    Ok(qr
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(size, size)
        .quiet_zone(true)
        .build())
}

/// Compares two tags without an early exit on the first differing byte.
fn same(expected: &str, given: &str) -> bool {
    expected.len() == given.len()
        && expected
            .bytes()
            .zip(given.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

impl Engine {
    /// Signs tickets with the first of `keys` and checks them with any (see [`TicketKeys`]).
    pub fn with_ticket_keys(mut self, keys: TicketKeys) -> Self {
        self.ticket_keys = keys;
        self
    }

    /// The signed code of a booking's ticket.
    pub fn ticket_code(&self, booking: BookingId) -> String {
        self.ticket_keys.sign(booking)
    }

    /// The ticket code of one seat of a booking.
    pub fn seat_ticket_code(&self, booking: BookingId, seat: &str) -> String {
        self.ticket_keys.sign_seat(booking, seat)
    }

    /// The booking a ticket code names (the booking's or one of its seats'), if its signature is
    /// ours.
    pub fn verify_ticket(&self, code: &str) -> Option<BookingId> {
        self.ticket_keys.verify_ref(code).map(|r| r.booking)
    }

    /// What a ticket code names, if its signature is ours.
    pub fn verify_ticket_ref(&self, code: &str) -> Option<TicketRef> {
        self.ticket_keys.verify_ref(code)
    }

    /// Each seat's own ticket of a booking, with its QR code.
    pub(super) fn seat_tickets(
        &self,
        booking: BookingId,
        seats: &[String],
        size: u32,
    ) -> Result<Vec<SeatTicket>, InventoryError> {
        seats
            .iter()
            .map(|seat| {
                let code = self.seat_ticket_code(booking, seat);
                Ok(SeatTicket {
                    seat: seat.clone(),
                    qr_svg: qr_svg(&code, size)?,
                    code,
                })
            })
            .collect()
    }

    /// What a ticket scanner is told about a code, when the code is ours: the booking, and the
    /// ticket's state now — `VALID`, `CHECKED_IN` (its seat, or for the booking's code every
    /// seat, is in), `REFUNDED` (the booking, or this seat of it, was given back), `EXCHANGED`
    /// (this seat was exchanged for another) or `CANCELLED` (its showtime).
    pub async fn ticket_booking(
        &self,
        code: &str,
    ) -> Result<(BookingView, TicketState), InventoryError> {
        let ticket = self
            .verify_ticket_ref(code)
            .ok_or(InventoryError::BookingNotFound)?;
        let record = self.booking_record(ticket.booking).await?;
        let mut view = self.booking_view(record).await?;
        // Whoever holds a ticket (a friend given one seat's) learns nothing of the address the
        // booking was made with: with the reference, it opens the whole booking.
        view.email = None;
        // A code that verifies but was never issued (no confirmed booking behind it) is unknown.
        if view.ticket_issued_at.is_none() && view.refunded_at.is_none() && !view.showtime_cancelled
        {
            return Err(InventoryError::BookingNotFound);
        }
        let inside = crate::store::seat_texts(&self.store.seats_checked_in(ticket.booking).await?);
        let left = ticket.seat.as_ref().filter(|s| !view.seats.contains(s));
        let state = if view.showtime_cancelled {
            "CANCELLED"
        } else if view.refunded_at.is_some() {
            "REFUNDED"
        } else if let Some(seat) = left {
            self.seat_left(ticket.booking, seat).await?.as_str()
        } else if match &ticket.seat {
            Some(seat) => inside.contains(seat),
            None => view.seats.iter().all(|s| inside.contains(s)),
        } {
            "CHECKED_IN"
        } else {
            "VALID"
        };
        Ok((
            view,
            TicketState {
                state,
                seat: ticket.seat,
                checked_in: inside,
            },
        ))
    }
}

/// A ticket's state for the scanner (`GET /tickets/{code}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketState {
    /// `VALID`, `CHECKED_IN`, `REFUNDED`, `EXCHANGED` or `CANCELLED`.
    pub state: &'static str,
    /// The seat of a seat's ticket.
    pub seat: Option<String>,
    /// The booking's seats that are in.
    pub checked_in: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(list: &[(&str, &str)]) -> TicketKeys {
        TicketKeys::new(
            list.iter()
                .map(|(id, k)| (id.to_string(), k.as_bytes().to_vec()))
                .collect(),
        )
    }

    #[test]
    fn a_code_names_its_key_and_survives_a_rotation_while_the_old_key_is_listed() {
        let booking = BookingId(uuid::Uuid::new_v4());
        let old = keys(&[("k1", "first key")]);
        let code = old.sign(booking);
        assert!(code.starts_with("SEATS2-k1-"), "{code}");
        assert_eq!(old.verify(&code), Some(booking));
        // Rotated: k2 signs, k1 still checks.
        let rotated = keys(&[("k2", "second key"), ("k1", "first key")]);
        assert_eq!(rotated.verify(&code), Some(booking));
        assert!(rotated.sign(booking).starts_with("SEATS2-k2-"));
        // Retired: k1's tickets no longer verify.
        assert_eq!(keys(&[("k2", "second key")]).verify(&code), None);
        // Another secret under the same id does not verify either.
        assert_eq!(keys(&[("k1", "another key")]).verify(&code), None);
    }

    #[test]
    fn a_booking_link_opens_only_its_booking_and_is_never_a_ticket() {
        let booking = BookingId(uuid::Uuid::new_v4());
        let other = BookingId(uuid::Uuid::new_v4());
        let keys = keys(&[("k1", "first key")]);
        let link = keys.sign_link(booking);
        assert!(link.starts_with("k1."), "{link}");
        assert!(keys.verify_link(booking, &link));
        assert!(!keys.verify_link(other, &link));
        assert!(!keys.verify_link(booking, &link.replace("k1.", "k2.")));
        assert!(!keys.verify_link(booking, "k1."));
        assert!(!keys.verify_link(booking, ""));
        // Its tag is made under another prefix than the ticket's.
        assert!(!keys
            .sign(booking)
            .ends_with(link.split_once('.').unwrap().1));
    }

    #[test]
    fn codes_signed_before_key_ids_verify_while_the_session_secret_is_unchanged() {
        let booking = BookingId(uuid::Uuid::new_v4());
        // A SEATS1 code as it was made: HMAC under HMAC(session secret, "seats ticket key v1").
        let session = b"the session secret of the old days, 32+ chars";
        let mut derive = Hmac::<sha2::Sha256>::new_from_slice(session).unwrap();
        derive.update(b"seats ticket key v1");
        let key = derive.finalize().into_bytes();
        let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
        mac.update(booking.0.as_bytes());
        let tag = hex::encode(&mac.finalize().into_bytes()[..16]);
        let code = format!("SEATS1-{}-{tag}", booking.0.simple());
        let ring = keys(&[("k1", "first key")]);
        assert_eq!(ring.verify(&code), None, "no legacy key given");
        assert_eq!(
            ring.clone().with_legacy(session).verify(&code),
            Some(booking)
        );
        assert_eq!(
            ring.with_legacy(b"another session secret").verify(&code),
            None
        );
    }

    #[test]
    fn each_seat_has_its_own_code_that_names_the_booking_and_the_seat() {
        let ring = keys(&[("k1", "first key")]);
        let booking = BookingId(uuid::Uuid::new_v4());
        let f5 = ring.sign_seat(booking, "F5");
        assert!(f5.starts_with("SEATS3-k1-"), "{f5}");
        assert_eq!(
            ring.verify_ref(&f5),
            Some(TicketRef {
                booking,
                seat: Some("F5".into())
            })
        );
        assert_ne!(f5, ring.sign_seat(booking, "F6"));
        assert_eq!(
            ring.verify_ref(&f5.replace("-F5-", "-F6-")),
            None,
            "another seat"
        );
        assert_eq!(
            ring.verify_ref(&ring.sign(booking)),
            Some(TicketRef {
                booking,
                seat: None
            }),
            "the booking's code still verifies"
        );
        assert_eq!(keys(&[("k1", "another key")]).verify_ref(&f5), None);
    }

    #[test]
    fn a_forged_or_altered_code_does_not_verify() {
        let ring = keys(&[("k1", "first key")]);
        let booking = BookingId(uuid::Uuid::new_v4());
        let code = ring.sign(booking);
        let other = BookingId(uuid::Uuid::new_v4());
        let swapped = code.replace(
            &booking.0.simple().to_string(),
            &other.0.simple().to_string(),
        );
        assert_eq!(ring.verify(&swapped), None);
        let renamed = code.replacen("-k1-", "-k9-", 1);
        assert_eq!(ring.verify(&renamed), None);
        for bad in ["", "SEATS2", "SEATS1-abc-def", &format!("{code}-x")] {
            assert_eq!(ring.verify(bad), None, "{bad}");
        }
    }
}
