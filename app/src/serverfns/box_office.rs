//! The box office kiosk's and the door's server functions (one family, one file): each checks
//! the member's role first, then calls the box office desk.

use crate::domain::{
    Approval, BestAvailable, CheckIn, CounterExchange, CounterExchangeRequest, CounterRefund,
    CounterRefundRequest, CounterSale, CounterSaleRequest, Hold, PrintedTicket, ScanAt,
    SeatSelection, Shift, ShowtimeId,
};
use crate::error::InventoryError;
use leptos::prelude::*;

/// The signed-in clerk's open shift, if any.
#[server(endpoint = "box_office_shift", input = server_fn::codec::Json)]
pub async fn box_office_shift() -> Result<Option<Shift>, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{box_office, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            box_office()?.current_shift(&actor).await
        }
        .await,
    )
}

/// Opens a shift at `register` with `float` won in the drawer.
#[server(endpoint = "open_shift", input = server_fn::codec::Json)]
pub async fn open_shift(register: String, float: i64) -> Result<Shift, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{box_office, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            box_office()?.open_shift(&actor, &register, float).await
        }
        .await,
    )
}

/// Closes the clerk's open shift (or, for a supervisor, shift `shift_id`) with the cash counted.
#[server(endpoint = "close_shift", input = server_fn::codec::Json)]
pub async fn close_shift(shift_id: Option<i64>, counted: i64) -> Result<Shift, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{box_office, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            box_office()?.close_shift(&actor, shift_id, counted).await
        }
        .await,
    )
}

/// Recent shifts with their figures (operators and supervisors).
#[server(endpoint = "shifts_report", input = server_fn::codec::Json)]
pub async fn shifts_report() -> Result<Vec<Shift>, InventoryError> {
    use crate::domain::APPROVER_ROLES;
    use crate::engine::{box_office, require_staff, respond};
    respond(
        async {
            require_staff(&APPROVER_ROLES).await?;
            box_office()?.shifts().await
        }
        .await,
    )
}

/// Counter sales of cancelled showtimes owed back at the counter: supervisors (and operators).
#[server(endpoint = "refunds_owed", input = server_fn::codec::Json)]
pub async fn refunds_owed() -> Result<Vec<crate::domain::OwedRefund>, InventoryError> {
    use crate::domain::APPROVER_ROLES;
    use crate::engine::{box_office, require_staff, respond};
    respond(
        async {
            require_staff(&APPROVER_ROLES).await?;
            box_office()?.refunds_owed().await
        }
        .await,
    )
}

/// Holds the clerk's pick for the sale: `seats`, or the best `best.count`.
#[server(endpoint = "clerk_hold", input = server_fn::codec::Json)]
pub async fn clerk_hold(
    showtime_id: ShowtimeId,
    seats: Option<SeatSelection>,
    best: Option<BestAvailable>,
) -> Result<Hold, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{box_office, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            box_office()?
                .clerk_hold(&actor, showtime_id, seats.as_ref(), best.as_ref())
                .await
        }
        .await,
    )
}

/// Releases the clerk's picks (the sale was cancelled).
#[server(endpoint = "clerk_release", input = server_fn::codec::Json)]
pub async fn clerk_release() -> Result<usize, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{box_office, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            box_office()?.clerk_release(&actor).await
        }
        .await,
    )
}

/// Sells the clerk's hold: cash, card or complimentary.
#[server(endpoint = "sell_at_counter", input = server_fn::codec::Json)]
pub async fn sell_at_counter(sale: CounterSaleRequest) -> Result<CounterSale, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{box_office, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            box_office()?.counter_sale(&actor, &sale).await
        }
        .await,
    )
}

/// Refunds a whole booking at the counter, with a supervisor's approval.
#[server(endpoint = "refund_at_counter", input = server_fn::codec::Json)]
pub async fn refund_at_counter(
    refund: CounterRefundRequest,
) -> Result<CounterRefund, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{box_office, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            box_office()?.counter_refund(&actor, &refund).await
        }
        .await,
    )
}

/// Exchanges seats of a booking for the clerk's hold (same showtime, same price categories).
#[server(endpoint = "exchange_at_counter", input = server_fn::codec::Json)]
pub async fn exchange_at_counter(
    exchange: CounterExchangeRequest,
) -> Result<CounterExchange, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{box_office, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            box_office()?.counter_exchange(&actor, &exchange).await
        }
        .await,
    )
}

/// A booking's ticket to print; printing it again is a reprint, approved by a supervisor.
#[server(endpoint = "print_ticket", input = server_fn::codec::Json)]
pub async fn print_ticket(
    booking: String,
    approval: Option<Approval>,
) -> Result<PrintedTicket, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{box_office, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            box_office()?
                .print_ticket(&actor, &booking, approval.as_ref())
                .await
        }
        .await,
    )
}

/// Checks a ticket in at the door.
#[server(endpoint = "check_in_ticket", input = server_fn::codec::Json)]
pub async fn check_in_ticket(code: String, at: ScanAt) -> Result<CheckIn, InventoryError> {
    use crate::domain::DOOR_ROLES;
    use crate::engine::{box_office, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&DOOR_ROLES).await?;
            box_office()?.check_in(&actor, &code, &at).await
        }
        .await,
    )
}
