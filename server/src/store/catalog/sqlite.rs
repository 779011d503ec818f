use super::*;
use crate::store::sqlite::append_event;

/// A catalog transaction on SQLite.
struct SqliteCatalog<'a>(sqlx::Transaction<'a, sqlx::Sqlite>);

impl CatalogSteps for SqliteCatalog<'_> {
    async fn insert_hall_seats(&mut self, id: i64, seats: &[LayoutSeat]) -> Result<(), StoreError> {
        // No arrays here: one statement per seat, in the same transaction.
        for s in seats {
            sqlx::query(
            "insert into hall_seat (hall_id, seat_code, row_label, seat_number, grid_x, grid_y, category,
                                    accessible, companion)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(id)
        .bind(s.code.as_str())
        .bind(&s.row)
        .bind(s.number)
        .bind(s.x)
        .bind(s.y)
        .bind(&s.category)
        .bind(s.wheelchair)
        .bind(s.companion)
        .execute(&mut *self.0)
        .await?;
        }
        Ok(())
    }

    catalog_steps!(seat_lock: "", booking_lock: "");
}

#[async_trait::async_trait]
impl Catalog for SqliteStore {
    async fn list_showtimes(
        &self,
        now: Now,
        since: DateTime<Utc>,
    ) -> Result<Vec<ShowtimeSummary>, StoreError> {
        let rows: Vec<ListedShowtime> = sqlx::query_as(
            "select st.id, st.movie_title, st.hall_id, h.name as hall_name, st.starts_at,
                    coalesce(st.sales_close_at, st.starts_at) > $1
                        and coalesce(st.sales_open_at <= $1, 1)
                        and st.cancelled_at is null as sales_open,
                    st.cancelled_at is not null as cancelled,
                    st.hot_sale as waiting_room,
                    case when st.sales_open_at > $1 then st.sales_open_at end as sales_opens_at,
                    count(ss.seat_code) as seats_total,
                    coalesce(sum(ss.blocked is null and (ss.status = 'AVAILABLE'
                                 or (ss.status = 'HELD' and ss.hold_expires_at < $1))), 0)
                        as seats_available
               from showtime st
               join hall h on h.id = st.hall_id
               left join show_seat ss on ss.showtime_id = st.id
              where st.starts_at >= $2
              group by st.id
              order by st.starts_at, st.id",
        )
        .bind(At::or_now(now))
        .bind(At(since))
        .fetch_all(&self.read)
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
                    case when status = 'BOOKED' or (status = 'HELD' and hold_expires_at >= $2)
                         then status else coalesce(blocked, 'AVAILABLE') end as status,
                    version
               from show_seat where showtime_id = $1",
        )
        .bind(showtime.get())
        .bind(At::or_now(now))
        .fetch_all(&self.read)
        .await?;
        seat_states(rows)
    }

    async fn create_hall(&self, hall: &NewHall) -> Result<Option<i64>, StoreError> {
        changes::create_hall(
            SqliteCatalog(self.write.begin_with("BEGIN IMMEDIATE").await?),
            hall,
        )
        .await
    }

    async fn add_showtime(&self, showtime: &NewShowtime) -> Result<ShowtimeId, StoreError> {
        changes::add_showtime(
            SqliteCatalog(self.write.begin_with("BEGIN IMMEDIATE").await?),
            showtime,
        )
        .await
    }

    async fn block_seats(
        &self,
        showtime: ShowtimeId,
        seats: &[String],
        blocked: Option<&str>,
        now: Now,
    ) -> Result<BlockOutcome, StoreError> {
        let tx = SqliteCatalog(self.write.begin_with("BEGIN IMMEDIATE").await?);
        changes::block_seats(tx, showtime, seats, blocked, At::or_now(now)).await
    }

    async fn is_cancelled(&self, showtime: ShowtimeId) -> Result<bool, StoreError> {
        let query = sqlx::query_scalar(IS_CANCELLED).bind(showtime.get());
        Ok(query.fetch_one(&self.read).await?)
    }

    async fn room_settings(
        &self,
        showtime: ShowtimeId,
    ) -> Result<Option<WaitingRoomSettings>, StoreError> {
        let row: Option<RoomRow> = sqlx::query_as(ROOM_SETTINGS)
            .bind(showtime.get())
            .fetch_optional(&self.read)
            .await?;
        Ok(row.map(|r| r.settings().1))
    }

    async fn open_rooms(&self) -> Result<Vec<(ShowtimeId, WaitingRoomSettings)>, StoreError> {
        let rows: Vec<RoomRow> = sqlx::query_as(OPEN_ROOMS).fetch_all(&self.read).await?;
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
            .execute(&self.write)
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
            .execute(&self.write)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn cancel_showtime(
        &self,
        showtime: ShowtimeId,
        at: DateTime<Utc>,
    ) -> Result<Option<Cancellation>, StoreError> {
        let tx = SqliteCatalog(self.write.begin_with("BEGIN IMMEDIATE").await?);
        changes::cancel_showtime(tx, showtime, At(at)).await
    }

    async fn hall_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("select count(*) from hall")
            .fetch_one(&self.read)
            .await?)
    }
}
