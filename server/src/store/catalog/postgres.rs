use super::*;
use sqlx::Row;

#[async_trait::async_trait]
impl Catalog for PgStore {
    async fn list_showtimes(
        &self,
        now: Now,
        since: DateTime<Utc>,
    ) -> Result<Vec<ShowtimeSummary>, StoreError> {
        let rows = sqlx::query(
            r#"
            select st.id, st.movie_title, st.hall_id, h.name as hall_name, st.starts_at,
                   st.starts_at > coalesce($1, now()) as sales_open,
                   count(ss.seat_code) as seats_total,
                   count(ss.seat_code) filter (
                       where ss.status = 'AVAILABLE'
                          or (ss.status = 'HELD' and ss.hold_expires_at < coalesce($1, now()))
                   ) as seats_available
              from showtime st
              join hall h on h.id = st.hall_id
              left join show_seat ss on ss.showtime_id = st.id
             where st.starts_at >= $2
             group by st.id, h.name
             order by st.starts_at, st.id
            "#,
        )
        .bind(now)
        .bind(since)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|r| {
                Ok(ShowtimeSummary {
                    id: ShowtimeId(r.try_get("id")?),
                    movie_title: r.try_get("movie_title")?,
                    hall_id: r.try_get("hall_id")?,
                    hall_name: r.try_get("hall_name")?,
                    starts_at: r.try_get("starts_at")?,
                    seats_total: r.try_get("seats_total")?,
                    seats_available: r.try_get("seats_available")?,
                    sales_open: r.try_get("sales_open")?,
                })
            })
            .collect()
    }

    async fn layout(&self, showtime: ShowtimeId) -> Result<Option<Layout>, StoreError> {
        let Some(head) = sqlx::query(
            "select st.hall_id, st.movie_title, h.name, st.starts_at
               from showtime st join hall h on h.id = st.hall_id where st.id = $1",
        )
        .bind(showtime.0)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let hall_id: i64 = head.try_get("hall_id")?;
        let categories = sqlx::query_as::<_, (String, String, i64)>(
            "select code, name, price_krw from price_category where hall_id = $1 order by price_krw, code",
        )
        .bind(hall_id)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(|(code, name, price)| PriceCategory { code, name, price })
        .collect();
        let seats = sqlx::query_as::<_, (String, String, i32, i32, i32, String, bool)>(
            "select seat_code, row_label, seat_number, grid_x, grid_y, category, accessible
               from hall_seat where hall_id = $1 order by grid_y, grid_x",
        )
        .bind(hall_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(Some(Layout {
            showtime_id: showtime,
            movie_title: head.try_get(1)?,
            hall_name: head.try_get(2)?,
            starts_at: head.try_get(3)?,
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
                    case when status = 'HELD' and hold_expires_at < coalesce($2, now())
                         then 'AVAILABLE' else status end,
                    version
               from show_seat where showtime_id = $1",
        )
        .bind(showtime.0)
        .bind(now)
        .fetch_all(&self.pool)
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
        let mut tx = self.pool.begin().await?;
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
        let col = |f: fn(&LayoutSeat) -> String| hall.seats.iter().map(f).collect::<Vec<_>>();
        let num = |f: fn(&LayoutSeat) -> i32| hall.seats.iter().map(f).collect::<Vec<_>>();
        sqlx::query(
            "insert into hall_seat (hall_id, seat_code, row_label, seat_number, grid_x, grid_y, category, accessible)
             select $1, * from unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::text[], $8::bool[])",
        )
        .bind(id)
        .bind(col(|s| s.code.to_string()))
        .bind(col(|s| s.row.clone()))
        .bind(num(|s| s.number))
        .bind(num(|s| s.x))
        .bind(num(|s| s.y))
        .bind(col(|s| s.category.clone()))
        .bind(hall.seats.iter().map(|s| s.accessible).collect::<Vec<_>>())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some(id))
    }

    async fn create_showtime(
        &self,
        hall_id: i64,
        movie_title: &str,
        starts_at: DateTime<Utc>,
    ) -> Result<ShowtimeId, StoreError> {
        let mut tx = self.pool.begin().await?;
        let id: i64 = sqlx::query_scalar(
            "insert into showtime (hall_id, movie_title, starts_at) values ($1, $2, $3) returning id",
        )
        .bind(hall_id)
        .bind(movie_title)
        .bind(starts_at)
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
            .fetch_one(&self.pool)
            .await?)
    }
}
