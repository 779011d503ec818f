//! The catalog's rows and outcomes, and how rows become the domain's values.

use super::*;
use app::domain::Won;

/// What taking seats off public sale (or putting them back) did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockOutcome {
    /// Every seat changed: its code and new version.
    Changed(Vec<(SeatCode, i64)>),
    /// Nothing changed: these seats are held or sold.
    NotFree(Vec<SeatCode>),
}

/// What cancelling a showtime did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cancellation {
    /// False when it was cancelled already (nothing more was done).
    pub cancelled_now: bool,
    /// Seats of live holds, free again.
    pub released: Vec<SeatChange>,
    /// Refunds asked for: one `RefundDue` per payment of a confirmed booking.
    pub refunds: usize,
    /// Counter sales (cash, card) now owed back at the counter.
    pub owed_at_counter: usize,
}

/// A counter sale a cancellation owes back.
#[derive(sqlx::FromRow)]
pub(super) struct OwedSale {
    pub(super) booking_id: uuid::Uuid,
    pub(super) method: String,
    pub(super) amount: Won,
    pub(super) shift_id: i64,
    pub(super) seats: SeatList,
}

impl OwedSale {
    pub(super) fn refund_owed(&self, showtime: ShowtimeId) -> Envelope {
        Envelope::new(
            self.booking_id,
            BookingEvent::RefundOwed {
                showtime_id: showtime,
                method: self.method.clone(),
                amount: self.amount,
                seats: self.seats.texts(),
            },
        )
    }
}

/// `PAID_SALES`.
#[derive(sqlx::FromRow)]
pub(super) struct PaidSale {
    pub(super) provider_payment_id: String,
    pub(super) booking_id: uuid::Uuid,
    pub(super) paid: Won,
    pub(super) seats: SeatList,
}

impl PaidSale {
    pub(super) fn refund_due(&self, showtime: ShowtimeId) -> Envelope {
        Envelope::new(
            self.booking_id,
            BookingEvent::RefundDue {
                showtime_id: showtime,
                payment_id: self.provider_payment_id.clone(),
                amount: self.paid,
                reason: "the showtime was cancelled".into(),
                seats: self.seats.texts(),
            },
        )
    }
}

/// `CATEGORIES`.
#[derive(sqlx::FromRow)]
pub(super) struct CategoryRow {
    pub(super) code: String,
    pub(super) name: String,
    pub(super) price_krw: Won,
}

impl CategoryRow {
    pub(super) fn category(self) -> PriceCategory {
        PriceCategory {
            code: self.code,
            name: self.name,
            price: self.price_krw,
            ticket_prices: Default::default(),
        }
    }
}

/// Puts each `(category, ticket type, price)` row (`SHOWTIME_TICKET_PRICES`,
/// `HALL_TICKET_PRICES`) in its category; a type this build does not know is left out.
pub(super) fn priced(categories: &mut [PriceCategory], rows: Vec<(String, String, Won)>) {
    for (category, ticket_type, price) in rows {
        let known = app::domain::TicketType::parse(&ticket_type);
        let category = categories.iter_mut().find(|c| c.code == category);
        if let (Some(ticket_type), Some(category)) = (known, category) {
            category.ticket_prices.set(ticket_type, price);
        }
    }
}

/// `HALL_SEATS`.
#[derive(sqlx::FromRow)]
pub(super) struct SeatRow {
    pub(super) seat_code: String,
    pub(super) row_label: String,
    pub(super) seat_number: i32,
    pub(super) grid_x: i32,
    pub(super) grid_y: i32,
    pub(super) category: String,
    pub(super) accessible: bool,
    pub(super) companion: bool,
}

impl TryFrom<SeatRow> for PlacedSeat {
    type Error = StoreError;

    fn try_from(s: SeatRow) -> Result<Self, StoreError> {
        Ok(PlacedSeat {
            code: SeatCode::parse(&s.seat_code).map_err(|e| StoreError::Corrupt(e.to_string()))?,
            row: s.row_label,
            number: s.seat_number,
            x: s.grid_x,
            y: s.grid_y,
            category: s.category,
            wheelchair: s.accessible,
            companion: s.companion,
        })
    }
}

/// A seat's state with lazy expiry applied, as both dialects select it.
#[derive(sqlx::FromRow)]
pub(super) struct StateRow {
    pub(super) seat_code: String,
    pub(super) status: String,
    pub(super) version: i64,
}

pub(super) fn seat_states(rows: Vec<StateRow>) -> Result<Vec<SeatState>, StoreError> {
    rows.into_iter()
        .map(|r| {
            Ok(SeatState {
                code: r.seat_code,
                status: parse_status(&r.status)?,
                version: r.version,
            })
        })
        .collect()
}

/// A showtime's waiting-room settings, as both dialects select them.
#[derive(sqlx::FromRow)]
pub(super) struct RoomRow {
    #[sqlx(try_from = "i64")]
    pub(super) id: ShowtimeId,
    pub(super) hot_sale: bool,
    pub(super) room_paused: bool,
    pub(super) room_max_active: i32,
    pub(super) room_admit_per_minute: i32,
    pub(super) room_message: String,
    pub(super) room_shuffle: bool,
    pub(super) room_proof_bits: i32,
}

impl RoomRow {
    pub(super) fn settings(self) -> (ShowtimeId, WaitingRoomSettings) {
        (
            self.id,
            WaitingRoomSettings {
                on: self.hot_sale,
                paused: self.room_paused,
                max_active: self.room_max_active.max(1) as u32,
                admit_per_minute: self.room_admit_per_minute.max(1) as u32,
                message: self.room_message,
                shuffle: self.room_shuffle,
                proof_bits: self.room_proof_bits.clamp(0, 24) as u8,
            },
        )
    }
}
