//! What the showtime list and the seat map read, and each showtime's waiting-room settings.

use super::*;

/// A showtime's waiting-room columns.
const ROOM_COLUMNS: &str = "select id, hot_sale, room_paused, room_max_active,
            room_admit_per_minute, room_message, room_shuffle, room_proof_bits
       from showtime";

impl Store {
    /// Showtimes starting at `since` or later, in time order, each saying whether its sales are
    /// open at `now`.
    pub async fn list_showtimes(
        &self,
        now: Now,
        since: DateTime<Utc>,
    ) -> Result<Vec<ShowtimeSummary>, StoreError> {
        let list = "select st.id, st.movie_title, st.hall_id, h.name as hall_name, st.starts_at,
                    st.duration_minutes,
                    coalesce(st.sales_close_at, st.starts_at) > coalesce($1, current_timestamp)
                        and coalesce(st.sales_open_at <= coalesce($1, current_timestamp), true)
                        and st.cancelled_at is null as sales_open,
                    st.cancelled_at is not null as cancelled,
                    st.hot_sale as waiting_room,
                    case when st.sales_open_at > coalesce($1, current_timestamp)
                         then st.sales_open_at end as sales_opens_at,
                    count(ss.seat_code) as seats_total,
                    coalesce(sum(case when ss.blocked is null and (ss.status = 'AVAILABLE'
                         or (ss.status = 'HELD'
                             and ss.hold_expires_at < coalesce($1, current_timestamp)))
                         then 1 else 0 end), 0) as seats_available
               from showtime st
               join hall h on h.id = st.hall_id
               left join show_seat ss on ss.showtime_id = st.id
              where st.starts_at >= $2
              group by st.id, h.name, st.cancelled_at, st.hot_sale, st.duration_minutes
              order by st.starts_at, st.id";
        let rows: Vec<ListedShowtime> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(list)
                .bind(Moment(now))
                .bind(At(since))
                .fetch_all(c)
                .await?
        });
        Ok(rows.into_iter().map(ShowtimeSummary::from).collect())
    }

    /// Each seat's state, a hold that lapsed at `now` read as free.
    pub async fn seat_states(
        &self,
        showtime: ShowtimeId,
        now: Now,
    ) -> Result<Vec<SeatState>, StoreError> {
        let states = "select seat_code,
                    case when status = 'BOOKED'
                              or (status = 'HELD'
                                  and hold_expires_at >= coalesce($2, current_timestamp))
                         then status else coalesce(blocked, 'AVAILABLE') end as status,
                    version
               from show_seat where showtime_id = $1";
        let rows: Vec<StateRow> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(states)
                .bind(showtime.get())
                .bind(Moment(now))
                .fetch_all(c)
                .await?
        });
        seat_states(rows)
    }

    pub async fn hall_count(&self) -> Result<i64, StoreError> {
        let count = "select count(*) from hall";
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(count).fetch_one(c).await?
        }))
    }

    /// Whether the showtime was cancelled (false for an unknown one).
    pub async fn is_cancelled(&self, showtime: ShowtimeId) -> Result<bool, StoreError> {
        let cancelled =
            "select count(*) > 0 from showtime where id = $1 and cancelled_at is not null";
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(cancelled).bind(showtime.get()).fetch_one(c).await?
        }))
    }

    /// The showtime's waiting-room settings (`None`: no such showtime).
    pub async fn room_settings(
        &self,
        showtime: ShowtimeId,
    ) -> Result<Option<WaitingRoomSettings>, StoreError> {
        let settings = format!("{ROOM_COLUMNS} where id = $1");
        let row: Option<RoomRow> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(&settings).bind(showtime.get()).fetch_optional(c).await?
        });
        Ok(row.map(|r| r.settings().1))
    }

    /// The showtimes whose waiting room is on (hot, not cancelled), with their settings.
    pub async fn open_rooms(&self) -> Result<Vec<(ShowtimeId, WaitingRoomSettings)>, StoreError> {
        let open = format!("{ROOM_COLUMNS} where hot_sale and cancelled_at is null");
        let rows: Vec<RoomRow> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(&open).fetch_all(c).await?
        });
        Ok(rows.into_iter().map(RoomRow::settings).collect())
    }

    /// Sets the showtime's waiting-room settings (an operator's change, at `at_ms`); false: no
    /// such showtime.
    pub async fn set_room_settings(
        &self,
        showtime: ShowtimeId,
        settings: &WaitingRoomSettings,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        let set = "update showtime set hot_sale = $2, room_paused = $3, room_max_active = $4,
                          room_admit_per_minute = $5, room_message = $6, room_shuffle = $7,
                          room_proof_bits = $8, room_set_ms = $9
                    where id = $1";
        let done = on!(&mut self.writer().await?, c => {
            sqlx::query(set)
                .bind(showtime.get())
                .bind(settings.on)
                .bind(settings.paused)
                .bind(settings.max_active as i32)
                .bind(settings.admit_per_minute as i32)
                .bind(&settings.message)
                .bind(settings.shuffle)
                .bind(i32::from(settings.proof_bits))
                .bind(at_ms)
                .execute(c)
                .await?
                .rows_affected()
        });
        Ok(done == 1)
    }

    /// Turns the showtime's room on by itself (its other settings as they are), unless it is on
    /// already or an operator set it at `since_ms` or later (their change stands); whether it
    /// did.
    pub async fn switch_room_on(
        &self,
        showtime: ShowtimeId,
        since_ms: i64,
    ) -> Result<bool, StoreError> {
        let switch = "update showtime set hot_sale = true
                       where id = $1 and not hot_sale and cancelled_at is null
                         and coalesce(room_set_ms, 0) < $2";
        let done = on!(&mut self.writer().await?, c => {
            sqlx::query(switch)
                .bind(showtime.get())
                .bind(since_ms)
                .execute(c)
                .await?
                .rows_affected()
        });
        Ok(done == 1)
    }
}

/// A showtime as `list_showtimes` reads it.
#[derive(sqlx::FromRow)]
struct ListedShowtime {
    #[sqlx(try_from = "i64")]
    id: ShowtimeId,
    movie_title: String,
    hall_id: i64,
    hall_name: String,
    starts_at: At,
    duration_minutes: i32,
    sales_open: bool,
    sales_opens_at: Option<At>,
    cancelled: bool,
    waiting_room: bool,
    seats_total: i64,
    seats_available: i64,
}

impl From<ListedShowtime> for ShowtimeSummary {
    fn from(row: ListedShowtime) -> Self {
        Self {
            id: row.id,
            movie_title: row.movie_title,
            hall_id: row.hall_id,
            hall_name: row.hall_name,
            starts_at: row.starts_at.0,
            ends_at: row.starts_at.0 + chrono::TimeDelta::minutes(i64::from(row.duration_minutes)),
            seats_total: row.seats_total,
            seats_available: row.seats_available,
            sales_open: row.sales_open,
            sales_opens_at: row.sales_opens_at.map(|at| at.0),
            cancelled: row.cancelled,
            waiting_room: row.waiting_room,
        }
    }
}
