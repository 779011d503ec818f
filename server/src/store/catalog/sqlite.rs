use super::*;
use crate::store::sqlite::{from_millis, millis, now_ms};

#[async_trait::async_trait]
impl Catalog for SqliteStore {
    async fn list_showtimes(
        &self,
        now: Now,
        since: DateTime<Utc>,
    ) -> Result<Vec<ShowtimeSummary>, StoreError> {
        type Row = (i64, String, i64, String, i64, bool, i64, i64);
        let rows = sqlx::query_as::<_, Row>(
            r#"
            select st.id, st.movie_title, st.hall_id, h.name, st.starts_at, st.starts_at > $1,
                   count(ss.seat_code),
                   coalesce(sum(ss.status = 'AVAILABLE' or (ss.status = 'HELD' and ss.hold_expires_at < $1)), 0)
              from showtime st
              join hall h on h.id = st.hall_id
              left join show_seat ss on ss.showtime_id = st.id
             where st.starts_at >= $2
             group by st.id
             order by st.starts_at, st.id
            "#,
        )
        .bind(now_ms(now))
        .bind(millis(since))
        .fetch_all(&self.read)
        .await?;
        rows.into_iter()
            .map(
                |(id, movie_title, hall_id, hall_name, starts, open, total, available)| {
                    Ok(ShowtimeSummary {
                        id: ShowtimeId(id),
                        movie_title,
                        hall_id,
                        hall_name,
                        starts_at: from_millis(starts)?,
                        seats_total: total,
                        seats_available: available,
                        sales_open: open,
                    })
                },
            )
            .collect()
    }

    async fn layout(&self, showtime: ShowtimeId) -> Result<Option<Layout>, StoreError> {
        let Some((hall_id, movie_title, hall_name, starts)) =
            sqlx::query_as::<_, (i64, String, String, i64)>(
                "select st.hall_id, st.movie_title, h.name, st.starts_at
               from showtime st join hall h on h.id = st.hall_id where st.id = $1",
            )
            .bind(showtime.0)
            .fetch_optional(&self.read)
            .await?
        else {
            return Ok(None);
        };
        let categories = sqlx::query_as::<_, (String, String, i64)>(
            "select code, name, price_krw from price_category where hall_id = $1 order by price_krw, code",
        )
        .bind(hall_id)
        .fetch_all(&self.read)
        .await?
        .into_iter()
        .map(|(code, name, price)| PriceCategory { code, name, price })
        .collect();
        let seats = sqlx::query_as::<_, (String, String, i32, i32, i32, String, bool)>(
            "select seat_code, row_label, seat_number, grid_x, grid_y, category, accessible
               from hall_seat where hall_id = $1 order by grid_y, grid_x",
        )
        .bind(hall_id)
        .fetch_all(&self.read)
        .await?;
        Ok(Some(Layout {
            showtime_id: showtime,
            movie_title,
            hall_name,
            starts_at: from_millis(starts)?,
            categories,
            seats: layout_seats(seats)?,
        }))
    }

    async fn seat_states(
        &self,
        showtime: ShowtimeId,
        now: Now,
    ) -> Result<Vec<SeatState>, StoreError> {
        let rows = sqlx::query_as::<_, (String, String, i64)>(
            "select seat_code,
                    case when status = 'HELD' and hold_expires_at < $2 then 'AVAILABLE' else status end,
                    version
               from show_seat where showtime_id = $1",
        )
        .bind(showtime.0)
        .bind(now_ms(now))
        .fetch_all(&self.read)
        .await?;
        rows.into_iter()
            .map(|(code, status, version)| {
                Ok(SeatState {
                    code,
                    status: parse_status(&status)?,
                    version,
                })
            })
            .collect()
    }

    async fn create_hall(&self, hall: &NewHall) -> Result<Option<i64>, StoreError> {
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let id: Option<i64> = sqlx::query_scalar(
            "insert into hall (name) values ($1) on conflict (name) do nothing returning id",
        )
        .bind(&hall.name)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(id) = id else { return Ok(None) };
        for c in &hall.categories {
            sqlx::query("insert into price_category (hall_id, code, name, price_krw) values ($1, $2, $3, $4)")
                .bind(id)
                .bind(&c.code)
                .bind(&c.name)
                .bind(c.price)
                .execute(&mut *tx)
                .await?;
        }
        for s in &hall.seats {
            sqlx::query(
                "insert into hall_seat (hall_id, seat_code, row_label, seat_number, grid_x, grid_y, category, accessible)
                 values ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(id)
            .bind(s.code.as_str())
            .bind(&s.row)
            .bind(s.number)
            .bind(s.x)
            .bind(s.y)
            .bind(&s.category)
            .bind(s.accessible)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(Some(id))
    }

    async fn create_showtime(
        &self,
        hall_id: i64,
        movie_title: &str,
        starts_at: DateTime<Utc>,
    ) -> Result<ShowtimeId, StoreError> {
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let id: i64 = sqlx::query_scalar(
            "insert into showtime (hall_id, movie_title, starts_at) values ($1, $2, $3) returning id",
        )
        .bind(hall_id)
        .bind(movie_title)
        .bind(millis(starts_at))
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("insert into show_seat (showtime_id, seat_code) select $1, seat_code from hall_seat where hall_id = $2")
            .bind(id)
            .bind(hall_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(ShowtimeId(id))
    }

    async fn hall_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("select count(*) from hall")
            .fetch_one(&self.read)
            .await?)
    }
}
