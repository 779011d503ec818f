-- The embedded store: the same model as migrations/postgres, in SQLite's types. Times are
-- milliseconds since the Unix epoch (INTEGER), UUIDs are 16-byte BLOBs, lists are JSON text.
-- Writes are serialised by SQLite's single writer (the server also keeps one write connection).

create table hall (
    id         integer primary key,
    name       text not null unique,
    created_at integer not null default (unixepoch() * 1000)
);

create table price_category (
    hall_id   integer not null references hall (id),
    code      text not null,
    name      text not null,
    price_krw integer not null check (price_krw >= 0),
    primary key (hall_id, code)
);

create table hall_seat (
    hall_id     integer not null references hall (id),
    seat_code   text not null check (length(seat_code) <= 8),
    row_label   text not null,
    seat_number integer not null,
    grid_x      integer not null,
    grid_y      integer not null,
    category    text not null,
    accessible  integer not null default 0,
    primary key (hall_id, seat_code),
    unique (hall_id, grid_x, grid_y),
    foreign key (hall_id, category) references price_category (hall_id, code)
);

create table showtime (
    id          integer primary key,
    hall_id     integer not null references hall (id),
    movie_title text not null,
    starts_at   integer not null,
    created_at  integer not null default (unixepoch() * 1000)
);
create index showtime_starts_at on showtime (starts_at);

create table show_seat (
    showtime_id     integer not null references showtime (id),
    seat_code       text not null,
    status          text not null default 'AVAILABLE',
    hold_id         blob,
    customer_id     blob,
    hold_expires_at integer,
    booking_id      blob,
    version         integer not null default 0,
    primary key (showtime_id, seat_code),
    check (
        (status = 'AVAILABLE' and hold_id is null and customer_id is null
            and hold_expires_at is null and booking_id is null)
        or (status = 'HELD' and hold_id is not null and customer_id is not null
            and hold_expires_at is not null and booking_id is null)
        or (status = 'BOOKED' and booking_id is not null and hold_expires_at is null)
    )
) without rowid;
create index show_seat_hold on show_seat (showtime_id, hold_id);
create index show_seat_expiry on show_seat (status, hold_expires_at);

create table seat_hold (
    showtime_id integer not null references showtime (id),
    hold_id     blob not null,
    customer_id blob not null,
    seats       text not null, -- JSON array of seat codes
    seat_count  integer not null check (seat_count between 1 and 8),
    expires_at  integer not null,
    created_at  integer not null default (unixepoch() * 1000),
    primary key (showtime_id, hold_id)
);
create index seat_hold_customer on seat_hold (customer_id, showtime_id);
