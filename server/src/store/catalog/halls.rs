//! Halls and showtimes as the operator's console sees them: a hall imported, halls listed with
//! their seat counts and read back whole for export, showtimes with their seats sold, held and
//! free.

use super::*;
use app::domain::{HallSummary, ShowtimeCounts};

/// A stored hall: its name, price categories and seats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredHall {
    pub name: String,
    pub categories: Vec<PriceCategory>,
    pub seats: Vec<PlacedSeat>,
    pub best_seat: Option<String>,
}

/// A hall's categories at its own prices.
pub(super) const CATEGORIES: &str =
    "select code, name, price_krw from price_category where hall_id = $1 order by price_krw, code";
/// A hall's default prices of ticket types besides adult.
pub(super) const HALL_TICKET_PRICES: &str =
    "select category, ticket_type, price_krw from category_ticket_price where hall_id = $1";
pub(super) const HALL_SEATS: &str =
    "select seat_code, row_label, seat_number, grid_x, grid_y, category, accessible, companion
       from hall_seat where hall_id = $1 order by grid_y, grid_x";
const SHOWTIME_COUNTS: &str = "select st.id, st.movie_title, h.name as hall_name, st.starts_at,
            st.duration_minutes, st.sales_open_at,
            coalesce(st.sales_close_at, st.starts_at) as sales_close_at, st.hot_sale,
            st.cancelled_at is not null as cancelled,
            (select count(*) from payment p join booking b on b.id = p.booking_id
              where b.showtime_id = st.id and p.status = 'PAID' and p.outcome = 'REFUND')
                as refunds_due,
            (select count(*) from payment p join booking b on b.id = p.booking_id
              where b.showtime_id = st.id and p.status = 'REFUNDED') as refunded,
            sum(case when ss.status = 'BOOKED' then 1 else 0 end) as sold,
            sum(case when ss.status = 'HELD' and ss.hold_expires_at > $1 then 1 else 0 end) as held,
            sum(case when ss.blocked is not null then 1 else 0 end) as off_sale,
            (select count(*) from seat_check_in c where c.showtime_id = st.id) as checked_in,
            count(*) as seats
     from showtime st join hall h on h.id = st.hall_id
          join show_seat ss on ss.showtime_id = st.id
     where st.starts_at >= $2
     group by st.id, st.movie_title, h.name, st.starts_at, st.duration_minutes,
              st.sales_open_at, st.sales_close_at, st.hot_sale, st.cancelled_at
     order by st.starts_at, st.id";

#[derive(sqlx::FromRow)]
pub(super) struct CountsRow {
    id: i64,
    movie_title: String,
    hall_name: String,
    starts_at: At,
    duration_minutes: i32,
    sales_open_at: Option<At>,
    sales_close_at: At,
    hot_sale: bool,
    cancelled: bool,
    refunds_due: i64,
    refunded: i64,
    sold: i64,
    held: i64,
    off_sale: i64,
    checked_in: i64,
    seats: i64,
}

#[derive(sqlx::FromRow)]
pub(super) struct HallRow {
    id: i64,
    name: String,
    seats: i64,
}

/// A stored hall from its rows.
pub(super) fn stored_hall(
    (name, best_seat): (String, Option<String>),
    categories: Vec<CategoryRow>,
    seats: Vec<SeatRow>,
) -> Result<StoredHall, StoreError> {
    Ok(StoredHall {
        name,
        best_seat,
        categories: categories.into_iter().map(CategoryRow::category).collect(),
        seats: seats
            .into_iter()
            .map(PlacedSeat::try_from)
            .collect::<Result<_, StoreError>>()?,
    })
}

impl Store {
    /// Makes a hall with its categories and seats unless one of that name exists; `None` when
    /// it existed.
    pub async fn import_hall(&self, hall: &NewHall) -> Result<Option<i64>, StoreError> {
        let mut tx = self.begin().await?;
        let Some(id) = insert_hall(&mut tx, hall).await? else {
            return Ok(None);
        };
        for category in &hall.categories {
            insert_category(&mut tx, id, category).await?;
        }
        insert_hall_seats(&mut tx, id, &hall.seats).await?;
        tx.commit().await?;
        Ok(Some(id))
    }

    /// Every hall with its number of seats, by name.
    pub async fn halls(&self) -> Result<Vec<HallSummary>, StoreError> {
        let halls = "select h.id, h.name, count(s.seat_code) as seats
                       from hall h left join hall_seat s on s.hall_id = h.id
                      group by h.id, h.name order by h.name";
        let rows: Vec<HallRow> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(halls).fetch_all(c).await?
        });
        Ok(rows
            .into_iter()
            .map(|r| HallSummary {
                id: r.id,
                name: r.name,
                seats: r.seats,
            })
            .collect())
    }

    /// The hall's name, categories and seats; `None` when there is no such hall.
    pub async fn stored_hall(&self, hall_id: i64) -> Result<Option<StoredHall>, StoreError> {
        let name = "select name, best_seat from hall where id = $1";
        let read = on!(&mut self.reader().await?, c => {
            let name: Option<(String, Option<String>)> =
                sqlx::query_as(name).bind(hall_id).fetch_optional(&mut *c).await?;
            match name {
                None => None,
                Some(name) => Some((
                    name,
                    sqlx::query_as(CATEGORIES).bind(hall_id).fetch_all(&mut *c).await?,
                    sqlx::query_as(HALL_TICKET_PRICES).bind(hall_id).fetch_all(&mut *c).await?,
                    sqlx::query_as(HALL_SEATS).bind(hall_id).fetch_all(&mut *c).await?,
                )),
            }
        });
        let Some((name, categories, prices, seats)) = read else {
            return Ok(None);
        };
        let mut hall = stored_hall(name, categories, seats)?;
        priced(&mut hall.categories, prices);
        Ok(Some(hall))
    }

    /// Showtimes starting at `since` or later, in time order, with their seats sold, held (a
    /// hold still live at `now`), off sale (house or killed) and free.
    pub async fn showtime_counts(
        &self,
        now: At,
        since: At,
    ) -> Result<Vec<ShowtimeCounts>, StoreError> {
        let rows: Vec<CountsRow> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(SHOWTIME_COUNTS).bind(now).bind(since).fetch_all(c).await?
        });
        Ok(rows
            .into_iter()
            .map(|r| ShowtimeCounts {
                id: r.id,
                movie_title: r.movie_title,
                hall_name: r.hall_name,
                starts_at: r.starts_at.0,
                duration_minutes: r.duration_minutes,
                sales: app::domain::SalesWindow {
                    opens_at: r.sales_open_at.map(|at| at.0),
                    closes_at: r.sales_close_at.0,
                },
                hot_sale: r.hot_sale,
                cancelled: r.cancelled,
                started: r.starts_at.0 <= now.0,
                ended: r.starts_at.0 + chrono::Duration::minutes(i64::from(r.duration_minutes))
                    <= now.0,
                refunds_due: r.refunds_due,
                refunded: r.refunded,
                sold: r.sold,
                held: r.held,
                off_sale: r.off_sale,
                checked_in: r.checked_in,
                free: r.seats - r.sold - r.held - r.off_sale,
            })
            .collect())
    }
}

/// Inserts a hall; its id, or `None` when a hall has its name.
async fn insert_hall(tx: &mut Tx, hall: &NewHall) -> Result<Option<i64>, StoreError> {
    let insert = "insert into hall (name, best_seat) values ($1, $2)
                  on conflict do nothing returning id";
    Ok(on!(tx, c => {
        sqlx::query_scalar(insert)
            .bind(&hall.name)
            .bind(&hall.best_seat)
            .fetch_optional(c)
            .await?
    }))
}

/// A hall's price category with its default prices of ticket types besides adult.
async fn insert_category(
    tx: &mut Tx,
    hall: i64,
    category: &PriceCategory,
) -> Result<(), StoreError> {
    let insert = "insert into price_category (hall_id, code, name, price_krw)
                  values ($1, $2, $3, $4)";
    let insert_price = "insert into category_ticket_price (hall_id, category, ticket_type,
                                                           price_krw)
                        values ($1, $2, $3, $4)";
    on!(tx, c => {
        sqlx::query(insert)
            .bind(hall)
            .bind(&category.code)
            .bind(&category.name)
            .bind(category.price)
            .execute(&mut *c)
            .await?;
        for (ticket_type, price) in category.ticket_prices.iter() {
            sqlx::query(insert_price)
                .bind(hall)
                .bind(&category.code)
                .bind(ticket_type.as_str())
                .bind(price)
                .execute(&mut *c)
                .await?;
        }
    });
    Ok(())
}

/// Inserts the hall's seats: in one statement from arrays on PostgreSQL, one statement per seat
/// on SQLite (no arrays there), in the same transaction.
async fn insert_hall_seats(tx: &mut Tx, hall: i64, seats: &[LayoutSeat]) -> Result<(), StoreError> {
    match tx {
        Dialect::Postgres(tx) => {
            let col = |f: fn(&LayoutSeat) -> String| seats.iter().map(f).collect::<Vec<_>>();
            let num = |f: fn(&LayoutSeat) -> i32| seats.iter().map(f).collect::<Vec<_>>();
            sqlx::query(
                "insert into hall_seat (hall_id, seat_code, row_label, seat_number, grid_x,
                                        grid_y, category, accessible, companion)
                 select $1, * from unnest($2::text[], $3::text[], $4::int[], $5::int[],
                                          $6::int[], $7::text[], $8::bool[], $9::bool[])",
            )
            .bind(hall)
            .bind(col(|s| s.code.to_string()))
            .bind(col(|s| s.row.clone()))
            .bind(num(|s| s.number))
            .bind(num(|s| s.x))
            .bind(num(|s| s.y))
            .bind(col(|s| s.category.clone()))
            .bind(seats.iter().map(|s| s.wheelchair).collect::<Vec<_>>())
            .bind(seats.iter().map(|s| s.companion).collect::<Vec<_>>())
            .execute(&mut **tx)
            .await?;
        }
        Dialect::Sqlite(tx) => {
            for s in seats {
                sqlx::query(
                    "insert into hall_seat (hall_id, seat_code, row_label, seat_number, grid_x,
                                            grid_y, category, accessible, companion)
                     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                )
                .bind(hall)
                .bind(s.code.as_str())
                .bind(&s.row)
                .bind(s.number)
                .bind(s.x)
                .bind(s.y)
                .bind(&s.category)
                .bind(s.wheelchair)
                .bind(s.companion)
                .execute(&mut **tx)
                .await?;
            }
        }
    }
    Ok(())
}
