-- The operator console: a showtime's running time, its sales window and the hot-sale flag, its own
-- prices, cancellation; companion seats; locked staff sessions.
-- sales_open_at: holds are refused before it (null: open from the moment it is scheduled).
-- sales_close_at: holds, checkouts and confirmations are refused from it on (null: the start).
-- hot_sale: a showtime expected to sell out at once (the waiting room's cue).
-- Existing showtimes keep their behaviour: open since scheduled, closing at the start.
alter table showtime add column duration_minutes integer not null default 120
    check (duration_minutes between 1 and 1440);
alter table showtime add column sales_open_at timestamptz;
alter table showtime add column sales_close_at timestamptz;
alter table showtime add column hot_sale boolean not null default false;
alter table showtime add constraint showtime_sales_window check (
    (sales_close_at is null or sales_close_at <= starts_at)
    and (sales_open_at is null or sales_open_at < coalesce(sales_close_at, starts_at))
);

-- A showtime's own price of a category of its hall (none: the hall's price). Fixed when the
-- showtime is scheduled; a booking keeps the amount it was sold for in any case.
create table showtime_price (
    showtime_id bigint not null references showtime (id),
    category    text not null,
    price_krw   bigint not null check (price_krw >= 0),
    primary key (showtime_id, category)
);

-- A cancelled showtime sells nothing more; its paid bookings are refunded.
alter table showtime add column cancelled_at timestamptz;

-- A seat for the companion of a wheelchair user (set in the hall's layout).
alter table hall_seat add column companion boolean not null default false;

-- A staff session locked (a kiosk left alone): nothing is done with it until the member's PIN
-- unlocks it.
alter table staff_session add column locked_at timestamptz;

-- Sales figures by channel too: online (the web and the API), box office, complimentary.
-- Everything counted so far was sold online.
alter table sales_daily add column channel varchar(16) not null default 'online'
    check (channel in ('online', 'box_office', 'complimentary'));
alter table sales_daily drop constraint sales_daily_pkey;
alter table sales_daily add primary key (showtime_id, day, channel);
