-- The inventory: halls with their seat layouts, showtimes, and show_seat, one row per seat per
-- showtime, which is the only authority on who has a seat.
--
-- Every table below hall/price_category/hall_seat carries showtime_id, the future distribution
-- column if the inventory is ever sharded by showtime: every statement about a seat or a hold
-- names it.

create table hall (
    id         bigint generated always as identity primary key,
    name       text not null unique,
    created_at timestamptz not null default now()
);

-- Prices are per hall and category, in whole won (KRW has no minor unit).
create table price_category (
    hall_id   bigint not null references hall (id),
    code      text not null,
    name      text not null,
    price_krw bigint not null check (price_krw >= 0),
    primary key (hall_id, code)
);

-- The drawing of a hall: where each seat is (grid_x/grid_y; gaps in grid_x are aisles).
create table hall_seat (
    hall_id     bigint not null references hall (id),
    seat_code   varchar(8) not null,
    row_label   text not null,
    seat_number int not null,
    grid_x      int not null,
    grid_y      int not null,
    category    text not null,
    accessible  boolean not null default false,
    primary key (hall_id, seat_code),
    unique (hall_id, grid_x, grid_y),
    foreign key (hall_id, category) references price_category (hall_id, code)
);

create table showtime (
    id          bigint generated always as identity primary key,
    hall_id     bigint not null references hall (id),
    movie_title text not null,
    starts_at   timestamptz not null,
    created_at  timestamptz not null default now()
);
create index showtime_starts_at on showtime (starts_at);

create table show_seat (
    showtime_id     bigint not null references showtime (id),
    seat_code       varchar(8) not null,
    status          varchar(16) not null default 'AVAILABLE',
    hold_id         uuid,
    customer_id     uuid,
    -- A HELD seat whose hold_expires_at has passed counts as AVAILABLE everywhere (lazy expiry).
    hold_expires_at timestamptz,
    booking_id      uuid,
    -- Incremented by every change of this row, so clients can order per-seat events without any
    -- shared counter (no hot row).
    version         bigint not null default 0,
    primary key (showtime_id, seat_code),
    -- The columns must agree with the status; a bug that breaks this fails loudly instead of
    -- leaving a half-held seat.
    constraint show_seat_status_shape check (
        (status = 'AVAILABLE' and hold_id is null and customer_id is null
            and hold_expires_at is null and booking_id is null)
        or (status = 'HELD' and hold_id is not null and customer_id is not null
            and hold_expires_at is not null and booking_id is null)
        or (status = 'BOOKED' and booking_id is not null and hold_expires_at is null)
    )
);
-- A hold's seats, always looked up together with their showtime.
create index show_seat_hold on show_seat (showtime_id, hold_id);
-- The sweeper's scan for expired holds.
create index show_seat_expiry on show_seat (status, hold_expires_at);

-- One row per successful hold, written in the same statement as the seats. It records how many
-- seats the hold took (confirmation must move all of them) and who owns it (cancel answers 403
-- rather than 404 to another customer).
-- No foreign key to showtime here on purpose: checking it would take a share lock on the
-- showtime's row with every hold, making that one row hot during a flash sale. The hold is
-- written by the same statement that updated show_seat rows of that showtime, which proves it.
create table seat_hold (
    showtime_id bigint not null,
    hold_id     uuid not null,
    customer_id uuid not null,
    seats       text[] not null,
    seat_count  int not null check (seat_count between 1 and 8),
    expires_at  timestamptz not null,
    created_at  timestamptz not null default now(),
    primary key (showtime_id, hold_id)
);
create index seat_hold_customer on seat_hold (customer_id, showtime_id);
