//! The catalog's transactions on showtimes — scheduling one, taking seats off public sale,
//! cancelling one — each with its statements beside it (a hall's is in `halls.rs`).

use super::*;
use app::domain::Won;

impl Store {
    /// Schedules a showtime (checked by the caller) with its prices and one seat per seat of
    /// its hall.
    pub async fn schedule_showtime(&self, new: &NewShowtime) -> Result<ShowtimeId, StoreError> {
        let mut tx = self.begin().await?;
        let id = insert_showtime(&mut tx, new).await?;
        for (category, price) in &new.prices {
            insert_price(&mut tx, id, category, *price).await?;
        }
        insert_ticket_prices(&mut tx, new, id).await?;
        insert_show_seats(&mut tx, id, new.hall_id).await?;
        tx.commit().await?;
        stored_showtime(id)
    }

    /// A showtime on sale from now until its start, of the default running time.
    pub async fn create_showtime(
        &self,
        hall_id: i64,
        movie_title: &str,
        starts_at: DateTime<Utc>,
    ) -> Result<ShowtimeId, StoreError> {
        self.schedule_showtime(&NewShowtime::on_sale(hall_id, movie_title, starts_at))
            .await
    }

    /// Takes free seats of a showtime off public sale (`blocked`: `HOUSE` or `KILLED`), or puts
    /// them back on sale (`None`): all of them, or none when one is held or sold.
    pub async fn block_seats(
        &self,
        showtime: ShowtimeId,
        seats: &[SeatCode],
        blocked: Option<&str>,
        now: Now,
    ) -> Result<BlockOutcome, StoreError> {
        let now = At::or_now(now);
        let mut tx = self.begin().await?;
        let mut taken = Vec::new();
        for code in seats {
            if !seat_free(&mut tx, showtime, code.as_str(), now).await? {
                taken.push(code.clone());
            }
        }
        if !taken.is_empty() {
            tx.rollback().await?;
            return Ok(BlockOutcome::NotFree(taken));
        }
        let mut changes = Vec::with_capacity(seats.len());
        for code in seats {
            let version = set_blocked(&mut tx, showtime, code.as_str(), blocked).await?;
            changes.push((code.clone(), version));
        }
        tx.commit().await?;
        Ok(BlockOutcome::Changed(changes))
    }

    /// In one transaction, cancels a showtime at `at`: its row first (settlements of its
    /// payments wait for this, or this for them), its held seats freed, each online payment
    /// still CONFIRMED marked for refund with its `RefundDue` (a counter refund of the same
    /// payment may have taken it first: then nothing more is owed), and its cash and card
    /// counter sales owed back at the counter with their `RefundOwed`. No hold, checkout or
    /// confirmation from then on. `None`: no such showtime; cancelled already: nothing changes.
    pub async fn cancel_showtime(
        &self,
        showtime: ShowtimeId,
        at: DateTime<Utc>,
    ) -> Result<Option<Cancellation>, StoreError> {
        let at = At(at);
        let mut tx = self.begin().await?;
        if !mark_cancelled(&mut tx, showtime, at).await? {
            let known = showtime_exists(&mut tx, showtime).await?;
            return Ok(known.then(Cancellation::default));
        }
        let freed = release_held(&mut tx, showtime).await?;
        let mut refunds = 0;
        for sale in &paid_sales(&mut tx, showtime).await? {
            if mark_refund(&mut tx, &sale.provider_payment_id).await? {
                tx.append_event(&sale.refund_due(showtime)).await?;
                refunds += 1;
            }
        }
        let owed = owed_sales(&mut tx, showtime).await?;
        for sale in &owed {
            owe_refund(&mut tx, sale, showtime, at).await?;
            tx.append_event(&sale.refund_owed(showtime)).await?;
        }
        tx.commit().await?;
        Ok(Some(Cancellation {
            cancelled_now: true,
            released: released(freed)?,
            owed_at_counter: owed.len(),
            refunds,
        }))
    }
}

/// Inserts a showtime's row; its id.
async fn insert_showtime(tx: &mut Tx, new: &NewShowtime) -> Result<i64, StoreError> {
    let insert = "insert into showtime (hall_id, movie_title, starts_at, duration_minutes,
                                        sales_open_at, sales_close_at, hot_sale,
                                        accessible_release_at)
                  values ($1, $2, $3, $4, $5, $6, $7, $8) returning id";
    Ok(on!(tx, c => {
        sqlx::query_scalar(insert)
            .bind(new.hall_id)
            .bind(new.title.trim())
            .bind(At(new.starts_at))
            .bind(new.duration_minutes)
            .bind(new.sales_open_at.map(At))
            .bind(new.sales_close_at.map(At))
            .bind(new.hot_sale)
            .bind(new.accessible_release_at.map(At))
            .fetch_one(c)
            .await?
    }))
}

/// The showtime's own price of a category.
async fn insert_price(
    tx: &mut Tx,
    showtime: i64,
    category: &str,
    price: Won,
) -> Result<(), StoreError> {
    let insert =
        "insert into showtime_price (showtime_id, category, price_krw) values ($1, $2, $3)";
    on!(tx, c => {
        sqlx::query(insert).bind(showtime).bind(category).bind(price).execute(c).await?;
    });
    Ok(())
}

/// The showtime's prices of the ticket types it sells besides adult: its own, else its hall's
/// defaults.
async fn insert_ticket_prices(
    tx: &mut Tx,
    new: &NewShowtime,
    showtime: i64,
) -> Result<(), StoreError> {
    let (categories, defaults): (Vec<CategoryRow>, Vec<(String, String, Won)>) = on!(tx, c => {
        let categories = sqlx::query_as(CATEGORIES).bind(new.hall_id).fetch_all(&mut *c).await?;
        let defaults = sqlx::query_as(HALL_TICKET_PRICES).bind(new.hall_id).fetch_all(&mut *c).await?;
        (categories, defaults)
    });
    let mut categories: Vec<PriceCategory> =
        categories.into_iter().map(CategoryRow::category).collect();
    priced(&mut categories, defaults);
    // The engine refused a schedule whose table is incomplete; here it is the table.
    let table = new
        .ticket_price_table(&categories)
        .map_err(|r| StoreError::Corrupt(format!("ticket prices: {r}")))?;
    let insert = "insert into showtime_ticket_price (showtime_id, category, ticket_type, price_krw)
                  values ($1, $2, $3, $4)";
    for (category, ticket_type, price) in table {
        on!(&mut *tx, c => {
            sqlx::query(insert)
                .bind(showtime)
                .bind(category)
                .bind(ticket_type.as_str())
                .bind(price)
                .execute(c)
                .await?;
        });
    }
    Ok(())
}

/// The showtime's seats, one per seat of its hall.
async fn insert_show_seats(tx: &mut Tx, showtime: i64, hall: i64) -> Result<(), StoreError> {
    let insert = "insert into show_seat (showtime_id, seat_code)
                  select $1, seat_code from hall_seat where hall_id = $2";
    on!(tx, c => {
        sqlx::query(insert).bind(showtime).bind(hall).execute(c).await?;
    });
    Ok(())
}

/// Whether seat `code` is free at `now` (its row locked, on PostgreSQL).
async fn seat_free(
    tx: &mut Tx,
    showtime: ShowtimeId,
    code: &str,
    now: At,
) -> Result<bool, StoreError> {
    let free = format!(
        "select status = 'AVAILABLE' or (status = 'HELD' and hold_expires_at < $3)
           from show_seat where showtime_id = $1 and seat_code = $2 {}",
        tx.row_lock("for update")
    );
    let free: Option<bool> = on!(tx, c => {
        sqlx::query_scalar(&free)
            .bind(showtime.get())
            .bind(code)
            .bind(now)
            .fetch_optional(c)
            .await?
    });
    Ok(free == Some(true))
}

/// Puts a free seat on (`None`) or off (`Some(house | killed)`) public sale; its version.
async fn set_blocked(
    tx: &mut Tx,
    showtime: ShowtimeId,
    code: &str,
    blocked: Option<&str>,
) -> Result<i64, StoreError> {
    let set = "update show_seat
                  set status = 'AVAILABLE', hold_id = null, customer_id = null,
                      hold_expires_at = null, blocked = $3, version = version + 1
                where showtime_id = $1 and seat_code = $2
            returning version";
    Ok(on!(tx, c => {
        sqlx::query_scalar(set)
            .bind(showtime.get())
            .bind(code)
            .bind(blocked)
            .fetch_one(c)
            .await?
    }))
}

/// Marks the showtime cancelled at `at`; false when it was already (or does not exist).
async fn mark_cancelled(tx: &mut Tx, showtime: ShowtimeId, at: At) -> Result<bool, StoreError> {
    let mark = "update showtime set cancelled_at = $2
                 where id = $1 and cancelled_at is null returning id";
    let marked: Option<i64> = on!(tx, c => {
        sqlx::query_scalar(mark).bind(showtime.get()).bind(at).fetch_optional(c).await?
    });
    Ok(marked.is_some())
}

async fn showtime_exists(tx: &mut Tx, showtime: ShowtimeId) -> Result<bool, StoreError> {
    let known = "select id from showtime where id = $1";
    let known: Option<i64> = on!(tx, c => {
        sqlx::query_scalar(known).bind(showtime.get()).fetch_optional(c).await?
    });
    Ok(known.is_some())
}

/// Frees every seat held in the showtime: `(code, version, blocked)` of each.
async fn release_held(
    tx: &mut Tx,
    showtime: ShowtimeId,
) -> Result<Vec<(String, i64, Option<String>)>, StoreError> {
    let release = "update show_seat
                      set status = 'AVAILABLE', hold_id = null, customer_id = null,
                          hold_expires_at = null, version = version + 1
                    where showtime_id = $1 and status = 'HELD'
                returning seat_code, version, blocked";
    Ok(on!(tx, c => {
        sqlx::query_as(release).bind(showtime.get()).fetch_all(c).await?
    }))
}

/// The payments that paid for the showtime's confirmed bookings (a payment refunded or due to
/// be has another outcome).
async fn paid_sales(tx: &mut Tx, showtime: ShowtimeId) -> Result<Vec<PaidSale>, StoreError> {
    let paid = "select p.provider_payment_id, p.booking_id,
                       coalesce(p.paid_amount, p.amount_krw) as paid, b.seats
                  from payment p join booking b on b.id = p.booking_id
                 where b.showtime_id = $1 and p.status = 'PAID' and p.outcome = 'CONFIRMED'
                 order by p.provider_payment_id";
    Ok(on!(tx, c => {
        sqlx::query_as(paid).bind(showtime.get()).fetch_all(c).await?
    }))
}

/// CONFIRMED → REFUND for the payment; false when it is not CONFIRMED any more.
async fn mark_refund(tx: &mut Tx, payment_id: &str) -> Result<bool, StoreError> {
    let mark = "update payment set outcome = 'REFUND'
                 where provider_payment_id = $1 and outcome = 'CONFIRMED'";
    let marked = on!(tx, c => {
        sqlx::query(mark).bind(payment_id).execute(c).await?.rows_affected()
    });
    Ok(marked == 1)
}

/// The showtime's cash and card sales at the counter not refunded (their bookings locked, on
/// PostgreSQL).
async fn owed_sales(tx: &mut Tx, showtime: ShowtimeId) -> Result<Vec<OwedSale>, StoreError> {
    let owed = format!(
        "select b.id as booking_id, cs.tender as method, b.amount_krw as amount, cs.shift_id,
                b.seats
           from booking b join counter_sale cs on cs.booking_id = b.id
          where b.showtime_id = $1 and b.status = 'CONFIRMED' and b.refunded_at is null
            and cs.tender in ('cash', 'card') and b.amount_krw > 0
          order by b.id {}",
        tx.row_lock("for update of b")
    );
    Ok(on!(tx, c => {
        sqlx::query_as(&owed).bind(showtime.get()).fetch_all(c).await?
    }))
}

/// Records a counter sale as owed back at the counter.
async fn owe_refund(
    tx: &mut Tx,
    sale: &OwedSale,
    showtime: ShowtimeId,
    at: At,
) -> Result<(), StoreError> {
    let owe = "insert into counter_refund_owed (booking_id, showtime_id, sale_shift, method,
                                                amount_krw, owed_at)
               values ($1, $2, $3, $4, $5, $6) on conflict (booking_id) do nothing";
    on!(tx, c => {
        sqlx::query(owe)
            .bind(sale.booking_id)
            .bind(showtime.get())
            .bind(sale.shift_id)
            .bind(&sale.method)
            .bind(sale.amount)
            .bind(at)
            .execute(c)
            .await?;
    });
    Ok(())
}
