-- The operator console (see migrations/postgres): showtimes' running time, sales window, hot-sale flag,
-- own prices and cancellation; companion seats; locked staff sessions.
-- Instants are milliseconds since the epoch, as elsewhere in this dialect.
alter table showtime add column duration_minutes integer not null default 120
    check (duration_minutes between 1 and 1440);
alter table showtime add column sales_open_at integer;
alter table showtime add column sales_close_at integer
    check (sales_close_at is null or sales_close_at <= starts_at);
alter table showtime add column hot_sale integer not null default 0 check (hot_sale in (0, 1));

create table showtime_price (
    showtime_id integer not null references showtime (id),
    category    text not null,
    price_krw   integer not null check (price_krw >= 0),
    primary key (showtime_id, category)
);

alter table showtime add column cancelled_at integer;

alter table hall_seat add column companion integer not null default 0 check (companion in (0, 1));

alter table staff_session add column locked_at integer;

-- Sales figures by channel too (a new key: the table is rebuilt, its rows kept as online).
create table sales_daily_by_channel (
    showtime_id     integer not null,
    day             text not null,
    channel         text not null default 'online'
                    check (channel in ('online', 'box_office', 'complimentary')),
    bookings        integer not null default 0,
    seats           integer not null default 0,
    revenue_krw     integer not null default 0,
    refunds         integer not null default 0,
    refunded_krw    integer not null default 0,
    primary key (showtime_id, day, channel)
);
insert into sales_daily_by_channel
    (showtime_id, day, channel, bookings, seats, revenue_krw, refunds, refunded_krw)
    select showtime_id, day, 'online', bookings, seats, revenue_krw, refunds, refunded_krw
      from sales_daily;
drop table sales_daily;
alter table sales_daily_by_channel rename to sales_daily;
