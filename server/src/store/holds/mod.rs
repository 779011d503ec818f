//! Holds: the one conditional write that holds all of a request's seats or none, cancel, the
//! fenced confirm, the sweeper, and what checkout asks of a hold. Every statement names the
//! showtime (the shard key).

pub(in crate::store) mod postgres;
pub(in crate::store) mod sqlite;

use super::*;

#[derive(Debug, Clone)]
pub struct HoldRequest<'a> {
    pub showtime: ShowtimeId,
    /// Sorted, distinct, 1–8 codes (a `SeatSelection`).
    pub seats: &'a [SeatCode],
    pub hold_id: HoldId,
    pub customer: CustomerId,
    pub ttl: Duration,
    /// The client's address, recorded with the hold and counted by
    /// [`HoldLimits::seats_per_address`]; `None` (internal callers) is not counted.
    pub client_addr: Option<std::net::IpAddr>,
    pub limits: HoldLimits,
    /// A staff hold: it may take house seats (which stay house seats while held or sold).
    pub house_ok: bool,
}

/// Caps a hold must respect, checked by the hold statement itself against the holds that are
/// live at its time (`None`: no cap).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HoldLimits {
    /// Live holds one customer may have in one showtime.
    pub holds_per_customer: Option<u32>,
    /// Seats that live holds from one client address may hold in one showtime.
    pub seats_per_address: Option<u32>,
    /// Once a customer — or their address — let seats go twice (cancelled or lapsed, not sold)
    /// within this long, they may not hold any of those seats again until this long after the
    /// last time. Once or twice is changing one's mind; again and again keeps seats off sale.
    pub cooldown: Option<Duration>,
}

/// Why a hold was refused before any seat was looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldRefusal {
    /// The showtime's sales have closed (it has started, or its sales window has ended).
    SalesClosed,
    /// The showtime's sales window has not opened yet.
    SalesNotOpen,
    /// The showtime is cancelled.
    Cancelled,
    /// The customer already has as many live holds in this showtime as allowed.
    HoldLimit,
    /// Live holds from the client's address already hold as many seats as allowed.
    AddressLimit,
    /// The customer (or their address) let go of some of these seats moments ago: not before
    /// this time.
    Cooldown(DateTime<Utc>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HoldOutcome {
    Held {
        expires_at: DateTime<Utc>,
        changes: Vec<SeatChange>,
    },
    /// Nothing was changed. `unavailable` are seats someone else has; `unknown` are codes the
    /// showtime does not have.
    Rejected {
        unavailable: Vec<SeatCode>,
        unknown: Vec<SeatCode>,
    },
    /// Nothing was changed, whatever the seats (see [`HoldRefusal`]).
    Refused(HoldRefusal),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveHold {
    pub hold_id: HoldId,
    pub expires_at: DateTime<Utc>,
    pub seats: Vec<SeatCode>,
}

/// Builds an [`ActiveHold`] from a stored hold id, expiry and seat codes.
pub(crate) fn active_hold(
    hold: uuid::Uuid,
    expires_at: DateTime<Utc>,
    seats: Vec<String>,
) -> Result<ActiveHold, StoreError> {
    let hold_id = HoldId::from_uuid(hold)
        .ok_or_else(|| StoreError::Corrupt(format!("bad hold id {hold}")))?;
    let mut seats = seats
        .iter()
        .map(|c| SeatCode::parse(c).map_err(|e| StoreError::Corrupt(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    seats.sort();
    Ok(ActiveHold {
        hold_id,
        expires_at,
        seats,
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CancelOutcome {
    Released(Vec<SeatChange>),
    /// No such hold, or it no longer holds any seat (cancelled, expired and taken, booked).
    NotFound,
    NotOwner,
}

/// Seats released by one sweep of one showtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Released {
    pub showtime: ShowtimeId,
    pub changes: Vec<SeatChange>,
}

/// A hold as checkout sees it: still its customer's, every seat still held, not expired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveHold {
    pub seats: Vec<SeatCode>,
    pub expires_at: DateTime<Utc>,
    /// The time of the check on the one clock (the database's, unless injected).
    pub now: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HoldCheck {
    Live(LiveHold),
    NotFound,
    NotOwner,
    /// Expired, or some of its seats are no longer held by it.
    Lapsed,
}

/// Why a cancel that released nothing was refused: the hold's recorded owner decides between
/// 403 (someone else's) and 404 (unknown, or no longer holding seats).
pub(crate) fn cancel_refusal(owner: Option<uuid::Uuid>, customer: CustomerId) -> CancelOutcome {
    match owner {
        Some(owner) if owner != customer.0 => CancelOutcome::NotOwner,
        _ => CancelOutcome::NotFound,
    }
}

/// Splits the requested codes into those a rejected hold found taken and those that do not exist.
pub(crate) fn rejection(requested: &[SeatCode], found: Vec<(String, bool)>) -> HoldOutcome {
    // Each found row names one of the requested codes (the statement looked only for those).
    let unavailable = found
        .iter()
        .filter(|(_, free)| !free)
        .filter_map(|(c, _)| requested.iter().find(|r| r.as_str() == c).cloned())
        .collect();
    let unknown = requested
        .iter()
        .filter(|r| !found.iter().any(|(c, _)| c == r.as_str()))
        .cloned()
        .collect();
    HoldOutcome::Rejected {
        unavailable,
        unknown,
    }
}

/// [`HoldCheck`] from the hold's recorded `(owner, seat count)` and the seats it still holds
/// live, with the latest expiry among them.
pub(crate) fn hold_check(
    customer: CustomerId,
    recorded: Option<(uuid::Uuid, i64)>,
    held: Vec<(String, DateTime<Utc>)>,
    now: DateTime<Utc>,
) -> Result<HoldCheck, StoreError> {
    let Some((owner, count)) = recorded else {
        return Ok(HoldCheck::NotFound);
    };
    if owner != customer.0 {
        return Ok(HoldCheck::NotOwner);
    }
    if held.len() as i64 != count || held.is_empty() {
        return Ok(HoldCheck::Lapsed);
    }
    let expires_at = held.iter().map(|(_, e)| *e).min().expect("not empty");
    let mut seats = held
        .into_iter()
        .map(|(c, _)| SeatCode::parse(&c).map_err(|e| StoreError::Corrupt(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    seats.sort();
    Ok(HoldCheck::Live(LiveHold {
        seats,
        expires_at,
        now,
    }))
}

impl Store {
    /// All requested seats become HELD by one conditional write, or none does (each dialect
    /// has its own: `HOLD_SQL` on PostgreSQL, a `BEGIN IMMEDIATE` transaction on SQLite).
    pub async fn hold_seats(
        &self,
        req: HoldRequest<'_>,
        now: Now,
    ) -> Result<HoldOutcome, StoreError> {
        match &self.db {
            Dialect::Postgres(pg) => pg.hold(req, now).await,
            Dialect::Sqlite(lite) => lite.hold(req, now).await,
        }
    }

    /// Frees the seats of `customer`'s hold (its cool-down starts); 403 or 404 otherwise.
    pub async fn cancel_hold(
        &self,
        hold: HoldId,
        customer: CustomerId,
    ) -> Result<CancelOutcome, StoreError> {
        match &self.db {
            Dialect::Postgres(pg) => pg.cancel(hold, customer).await,
            Dialect::Sqlite(lite) => lite.cancel(hold, customer).await,
        }
    }

    /// The customer's newest hold in the showtime that still holds seats and has not expired.
    pub async fn active_hold(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
        now: Now,
    ) -> Result<Option<ActiveHold>, StoreError> {
        match &self.db {
            Dialect::Postgres(pg) => pg.active_hold(showtime, customer, now).await,
            Dialect::Sqlite(lite) => lite.active_hold(showtime, customer, now).await,
        }
    }

    /// HELD → BOOKED, fenced by hold id, status and expiry in the same statement; every seat of
    /// the hold moves or none does. `None` when the hold has lapsed.
    pub async fn confirm(
        &self,
        hold: HoldId,
        booking: BookingId,
        now: Now,
    ) -> Result<Option<Vec<SeatChange>>, StoreError> {
        match &self.db {
            Dialect::Postgres(pg) => pg.confirm(hold, booking, now).await,
            Dialect::Sqlite(lite) => lite.confirm(hold, booking, now).await,
        }
    }

    /// Releases expired holds, and every hold of a cancelled showtime. Idempotent; safe when
    /// several processes sweep at once.
    pub async fn sweep(&self, now: Now) -> Result<Vec<Released>, StoreError> {
        match &self.db {
            Dialect::Postgres(pg) => pg.sweep(now).await,
            Dialect::Sqlite(lite) => lite.sweep(now).await,
        }
    }

    /// Whether `customer` may check out `hold` now (and what it holds until when).
    pub async fn check_hold(
        &self,
        hold: HoldId,
        customer: CustomerId,
        now: Now,
    ) -> Result<HoldCheck, StoreError> {
        match &self.db {
            Dialect::Postgres(pg) => pg.check_hold(hold, customer, now).await,
            Dialect::Sqlite(lite) => lite.check_hold(hold, customer, now).await,
        }
    }

    /// Deletes seat holds whose time ended more than `retention` before `now`, in batches; how
    /// many.
    pub async fn purge_holds(
        &self,
        now: Now,
        retention: chrono::Duration,
    ) -> Result<u64, StoreError> {
        match &self.db {
            Dialect::Postgres(pg) => pg.purge_holds(now, retention).await,
            Dialect::Sqlite(lite) => lite.purge_holds(now, retention).await,
        }
    }
}
