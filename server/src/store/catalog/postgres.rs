use super::*;
use crate::store::postgres::append_event;

/// A catalog transaction on PostgreSQL.
struct PgCatalog<'a>(sqlx::Transaction<'a, sqlx::Postgres>);

impl CatalogSteps for PgCatalog<'_> {
    async fn insert_hall_seats(&mut self, id: i64, seats: &[LayoutSeat]) -> Result<(), StoreError> {
        // All seats in one statement, from arrays.
        let col = |f: fn(&LayoutSeat) -> String| seats.iter().map(f).collect::<Vec<_>>();
        let num = |f: fn(&LayoutSeat) -> i32| seats.iter().map(f).collect::<Vec<_>>();
        sqlx::query(
        "insert into hall_seat (hall_id, seat_code, row_label, seat_number, grid_x, grid_y, category,
                                accessible, companion)
         select $1, * from unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::text[],
                                  $8::bool[], $9::bool[])",
    )
    .bind(id)
    .bind(col(|s| s.code.to_string()))
    .bind(col(|s| s.row.clone()))
    .bind(num(|s| s.number))
    .bind(num(|s| s.x))
    .bind(num(|s| s.y))
    .bind(col(|s| s.category.clone()))
    .bind(seats.iter().map(|s| s.wheelchair).collect::<Vec<_>>())
    .bind(seats.iter().map(|s| s.companion).collect::<Vec<_>>())
    .execute(&mut *self.0)
    .await?;
        Ok(())
    }

    catalog_steps!(seat_lock: "for update", booking_lock: "for update of b");
}

#[async_trait::async_trait]
impl Catalog for PgStore {
    async fn list_showtimes(
        &self,
        now: Now,
        since: DateTime<Utc>,
    ) -> Result<Vec<ShowtimeSummary>, StoreError> {
        let rows: Vec<ListedShowtime> = sqlx::query_as(
            "select st.id, st.movie_title, st.hall_id, h.name as hall_name, st.starts_at,
                    coalesce(st.sales_close_at, st.starts_at) > coalesce($1, now())
                        and coalesce(st.sales_open_at <= coalesce($1, now()), true)
                        and st.cancelled_at is null as sales_open,
                    st.cancelled_at is not null as cancelled,
                    st.hot_sale as waiting_room,
                    case when st.sales_open_at > coalesce($1, now()) then st.sales_open_at end
                        as sales_opens_at,
                    count(ss.seat_code) as seats_total,
                    count(ss.seat_code) filter (
                        where ss.blocked is null and (ss.status = 'AVAILABLE'
                           or (ss.status = 'HELD' and ss.hold_expires_at < coalesce($1, now())))
                    ) as seats_available
               from showtime st
               join hall h on h.id = st.hall_id
               left join show_seat ss on ss.showtime_id = st.id
              where st.starts_at >= $2
              group by st.id, h.name, st.cancelled_at, st.hot_sale
              order by st.starts_at, st.id",
        )
        .bind(now)
        .bind(At(since))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(ShowtimeSummary::from).collect())
    }

    async fn seat_states(
        &self,
        showtime: ShowtimeId,
        now: Now,
    ) -> Result<Vec<SeatState>, StoreError> {
        let rows: Vec<StateRow> = sqlx::query_as(
            "select seat_code,
                    case when status = 'BOOKED'
                              or (status = 'HELD' and hold_expires_at >= coalesce($2, now()))
                         then status else coalesce(blocked, 'AVAILABLE') end as status,
                    version
               from show_seat where showtime_id = $1",
        )
        .bind(showtime.get())
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        seat_states(rows)
    }

    async fn create_hall(&self, hall: &NewHall) -> Result<Option<i64>, StoreError> {
        changes::create_hall(PgCatalog(self.pool.begin().await?), hall).await
    }

    async fn add_showtime(&self, showtime: &NewShowtime) -> Result<ShowtimeId, StoreError> {
        changes::add_showtime(PgCatalog(self.pool.begin().await?), showtime).await
    }

    async fn block_seats(
        &self,
        showtime: ShowtimeId,
        seats: &[String],
        blocked: Option<&str>,
        now: Now,
    ) -> Result<BlockOutcome, StoreError> {
        let tx = PgCatalog(self.pool.begin().await?);
        changes::block_seats(tx, showtime, seats, blocked, At::or_now(now)).await
    }

    async fn is_cancelled(&self, showtime: ShowtimeId) -> Result<bool, StoreError> {
        let query = sqlx::query_scalar(IS_CANCELLED).bind(showtime.get());
        Ok(query.fetch_one(&self.pool).await?)
    }

    async fn room_settings(
        &self,
        showtime: ShowtimeId,
    ) -> Result<Option<WaitingRoomSettings>, StoreError> {
        let row: Option<RoomRow> = sqlx::query_as(ROOM_SETTINGS)
            .bind(showtime.get())
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.settings().1))
    }

    async fn open_rooms(&self) -> Result<Vec<(ShowtimeId, WaitingRoomSettings)>, StoreError> {
        let rows: Vec<RoomRow> = sqlx::query_as(OPEN_ROOMS).fetch_all(&self.pool).await?;
        Ok(rows.into_iter().map(RoomRow::settings).collect())
    }

    async fn set_room_settings(
        &self,
        showtime: ShowtimeId,
        settings: &WaitingRoomSettings,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(SET_ROOM_SETTINGS)
            .bind(showtime.get())
            .bind(settings.on)
            .bind(settings.paused)
            .bind(settings.max_active as i32)
            .bind(settings.admit_per_minute as i32)
            .bind(&settings.message)
            .bind(settings.shuffle)
            .bind(i32::from(settings.proof_bits))
            .bind(at_ms)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn switch_room_on(
        &self,
        showtime: ShowtimeId,
        since_ms: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(SWITCH_ROOM_ON)
            .bind(showtime.get())
            .bind(since_ms)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn cancel_showtime(
        &self,
        showtime: ShowtimeId,
        at: DateTime<Utc>,
    ) -> Result<Option<Cancellation>, StoreError> {
        let tx = PgCatalog(self.pool.begin().await?);
        changes::cancel_showtime(tx, showtime, At(at)).await
    }

    async fn hall_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("select count(*) from hall")
            .fetch_one(&self.pool)
            .await?)
    }
}
