//! A showtime's layout: its hall drawing, prices and title, as the seat map and every sale read
//! it (the engine caches it: it never changes once the showtime is scheduled).

use super::*;

/// A showtime's fixed facts: its hall drawing, prices and title. Never changes once created, so
/// the engine caches it.
#[derive(Debug, Clone)]
pub struct Layout {
    pub showtime_id: ShowtimeId,
    pub movie_title: String,
    pub hall_name: String,
    pub starts_at: DateTime<Utc>,
    /// Its running time.
    pub duration_minutes: i32,
    /// When its seats are on sale (fixed when it is scheduled).
    pub sales: SalesWindow,
    /// From then on its unsold wheelchair places and companion seats are ordinary seats.
    pub accessible_release_at: Option<DateTime<Utc>>,
    /// Where best available aims (its hall's best seat; none: the middle of the hall).
    pub best_seat: Option<String>,
    pub categories: Vec<PriceCategory>,
    pub seats: Vec<LayoutSeat>,
}

impl Layout {
    /// When sales end: holds, checkouts and confirmations are refused from then on (the start,
    /// unless the showtime was scheduled to close earlier).
    pub fn sales_close_at(&self) -> DateTime<Utc> {
        self.sales.closes_at
    }

    /// These seats at the showtime's prices of the ticket types asked for (see
    /// [`app::domain::assign_types`]): the seats in reading order, adults first. Refused when
    /// the counts do not add up to the seats or a type is not sold for the showtime.
    pub fn sell<S: AsRef<str>>(
        &self,
        codes: &[S],
        types: &app::domain::TicketCounts,
    ) -> Result<Vec<app::domain::SoldSeat>, app::error::Reason> {
        let seats = app::seating::reading_order(codes.iter().map(|c| c.as_ref()));
        app::domain::assign_types(&seats, types, |code, ticket_type| {
            let seat = self.seats.iter().find(|s| s.code.as_str() == code)?;
            let category = self.categories.iter().find(|c| c.code == seat.category)?;
            category.price_for(ticket_type)
        })
    }

    /// What these seats cost at the showtime's prices (codes it does not have cost nothing).
    pub fn price_of<S: AsRef<str>>(&self, codes: &[S]) -> Won {
        codes
            .iter()
            .filter_map(|code| self.seats.iter().find(|s| s.code.as_str() == code.as_ref()))
            .filter_map(|seat| self.categories.iter().find(|c| c.code == seat.category))
            .map(|c| c.price)
            .sum()
    }
}

/// A showtime's head: its hall, title, times and where best available aims.
const SHOWTIME_HEAD: &str = "select st.hall_id, st.movie_title, h.name as hall_name, st.starts_at,
            st.sales_open_at, st.duration_minutes,
            coalesce(st.sales_close_at, st.starts_at) as sales_close_at,
            st.accessible_release_at, h.best_seat
       from showtime st join hall h on h.id = st.hall_id where st.id = $1";
/// A showtime's categories at its own prices (the hall's where it has none).
const SHOWTIME_CATEGORIES: &str =
    "select c.code, c.name, coalesce(p.price_krw, c.price_krw) as price_krw
       from showtime st join price_category c on c.hall_id = st.hall_id
       left join showtime_price p on p.showtime_id = st.id and p.category = c.code
      where st.id = $1 order by price_krw, c.code";
/// A showtime's prices of the ticket types it sells besides adult.
const SHOWTIME_TICKET_PRICES: &str =
    "select category, ticket_type, price_krw from showtime_ticket_price where showtime_id = $1";
/// A showtime's head as `SHOWTIME_HEAD` reads it.
#[derive(sqlx::FromRow)]
struct ShowtimeHead {
    hall_id: i64,
    movie_title: String,
    hall_name: String,
    starts_at: At,
    sales_open_at: Option<At>,
    duration_minutes: i32,
    sales_close_at: At,
    accessible_release_at: Option<At>,
    best_seat: Option<String>,
}

impl ShowtimeHead {
    fn layout(
        self,
        showtime: ShowtimeId,
        categories: Vec<CategoryRow>,
        seats: Vec<SeatRow>,
    ) -> Result<Layout, StoreError> {
        Ok(Layout {
            showtime_id: showtime,
            movie_title: self.movie_title,
            hall_name: self.hall_name,
            starts_at: self.starts_at.0,
            duration_minutes: self.duration_minutes,
            sales: SalesWindow {
                opens_at: self.sales_open_at.map(|at| at.0),
                closes_at: self.sales_close_at.0,
            },
            accessible_release_at: self.accessible_release_at.map(|at| at.0),
            best_seat: self.best_seat,
            categories: categories.into_iter().map(CategoryRow::category).collect(),
            seats: seats
                .into_iter()
                .map(PlacedSeat::try_from)
                .collect::<Result<_, StoreError>>()?,
        })
    }
}

impl Store {
    /// A showtime's hall layout (`None`: no such showtime).
    pub async fn layout(&self, showtime: ShowtimeId) -> Result<Option<Layout>, StoreError> {
        let id = showtime.get();
        let read = on!(&mut self.reader().await?, c => {
            let head: Option<ShowtimeHead> =
                sqlx::query_as(SHOWTIME_HEAD).bind(id).fetch_optional(&mut *c).await?;
            match head {
                None => None,
                Some(head) => Some((
                    sqlx::query_as(HALL_SEATS).bind(head.hall_id).fetch_all(&mut *c).await?,
                    head,
                    sqlx::query_as(SHOWTIME_CATEGORIES).bind(id).fetch_all(&mut *c).await?,
                    sqlx::query_as(SHOWTIME_TICKET_PRICES).bind(id).fetch_all(&mut *c).await?,
                )),
            }
        });
        let Some((seats, head, categories, prices)) = read else {
            return Ok(None);
        };
        let mut layout = head.layout(showtime, categories, seats)?;
        priced(&mut layout.categories, prices);
        Ok(Some(layout))
    }
}
