//! The catalog's statements, the same text in both dialects.

pub(super) const SHOWTIME_HEAD: &str =
    "select st.hall_id, st.movie_title, h.name as hall_name, st.starts_at,
                                      st.sales_open_at, st.duration_minutes,
                                      coalesce(st.sales_close_at, st.starts_at) as sales_close_at,
                                      st.accessible_release_at, h.best_seat
                               from showtime st join hall h on h.id = st.hall_id where st.id = $1";
pub(super) const CATEGORIES: &str =
    "select code, name, price_krw from price_category where hall_id = $1 order by price_krw, code";
pub(super) const HALL_SEATS: &str =
    "select seat_code, row_label, seat_number, grid_x, grid_y, category, accessible, companion
                            from hall_seat where hall_id = $1 order by grid_y, grid_x";
/// A showtime's categories at its own prices (the hall's where it has none).
pub(super) const SHOWTIME_CATEGORIES: &str =
    "select c.code, c.name, coalesce(p.price_krw, c.price_krw) as price_krw
       from showtime st join price_category c on c.hall_id = st.hall_id
       left join showtime_price p on p.showtime_id = st.id and p.category = c.code
      where st.id = $1 order by price_krw, c.code";
/// A showtime's prices of the ticket types it sells besides adult.
pub(super) const SHOWTIME_TICKET_PRICES: &str =
    "select category, ticket_type, price_krw from showtime_ticket_price where showtime_id = $1";
/// A hall's default prices of ticket types besides adult.
pub(super) const HALL_TICKET_PRICES: &str =
    "select category, ticket_type, price_krw from category_ticket_price where hall_id = $1";
pub(super) const NEW_HALL_TICKET_PRICE: &str =
    "insert into category_ticket_price (hall_id, category, ticket_type, price_krw)
     values ($1, $2, $3, $4)";
pub(super) const NEW_TICKET_PRICE: &str =
    "insert into showtime_ticket_price (showtime_id, category, ticket_type, price_krw)
     values ($1, $2, $3, $4)";
pub(super) const NEW_PRICE: &str =
    "insert into showtime_price (showtime_id, category, price_krw) values ($1, $2, $3)";
pub(super) const NEW_CATEGORY: &str =
    "insert into price_category (hall_id, code, name, price_krw) values ($1, $2, $3, $4)";
pub(super) const NEW_SHOWTIME: &str =
    "insert into showtime (hall_id, movie_title, starts_at, duration_minutes,
                                                 sales_open_at, sales_close_at, hot_sale,
                                                 accessible_release_at)
                           values ($1, $2, $3, $4, $5, $6, $7, $8) returning id";
pub(super) const NEW_SHOW_SEATS: &str = "insert into show_seat (showtime_id, seat_code)
                              select $1, seat_code from hall_seat where hall_id = $2";

pub(super) const IS_CANCELLED: &str =
    "select count(*) > 0 from showtime where id = $1 and cancelled_at is not null";
pub(super) const MARK_CANCELLED: &str =
    "update showtime set cancelled_at = $2 where id = $1 and cancelled_at is null returning id";
pub(super) const RELEASE_HELD: &str = "update show_seat
        set status = 'AVAILABLE', hold_id = null, customer_id = null, hold_expires_at = null,
            version = version + 1
      where showtime_id = $1 and status = 'HELD'
  returning seat_code, version, blocked";
/// The payments that paid for the showtime's confirmed bookings (a payment refunded or due to
/// be has another outcome).
pub(super) const PAID_SALES: &str = "select p.provider_payment_id, p.booking_id,
            coalesce(p.paid_amount, p.amount_krw) as paid
       from payment p join booking b on b.id = p.booking_id
      where b.showtime_id = $1 and p.status = 'PAID' and p.outcome = 'CONFIRMED'
      order by p.provider_payment_id";
pub(super) const OUTCOME_REFUND: &str = "update payment set outcome = 'REFUND'
     where provider_payment_id = $1 and outcome = 'CONFIRMED'";
pub(super) const OWE_REFUND: &str =
    "insert into counter_refund_owed (booking_id, showtime_id, sale_shift, method,
                                                      amount_krw, owed_at)
     values ($1, $2, $3, $4, $5, $6) on conflict (booking_id) do nothing";

/// A showtime's waiting-room settings (both dialects).
pub(super) const ROOM_SETTINGS: &str =
    "select id, hot_sale, room_paused, room_max_active, room_admit_per_minute, room_message,
            room_shuffle, room_proof_bits
       from showtime where id = $1";

/// The showtimes whose waiting room is on (hot, not cancelled).
pub(super) const OPEN_ROOMS: &str =
    "select id, hot_sale, room_paused, room_max_active, room_admit_per_minute, room_message,
            room_shuffle, room_proof_bits
       from showtime where hot_sale and cancelled_at is null";

/// Sets a showtime's waiting-room settings (an operator's change, at $9 ms).
pub(super) const SET_ROOM_SETTINGS: &str =
    "update showtime set hot_sale = $2, room_paused = $3, room_max_active = $4,
            room_admit_per_minute = $5, room_message = $6, room_shuffle = $7,
            room_proof_bits = $8, room_set_ms = $9
      where id = $1";

/// Turns a showtime's room on by itself, its other settings as they are: not a room already on,
/// nor one an operator set since $2 ms (their change stands).
pub(super) const SWITCH_ROOM_ON: &str = "update showtime set hot_sale = true
      where id = $1 and not hot_sale and cancelled_at is null
        and coalesce(room_set_ms, 0) < $2";
