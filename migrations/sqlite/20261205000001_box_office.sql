-- The box office and the door (see migrations/postgres). Instants are milliseconds since the epoch.
-- A shift: one clerk at one register, from opening (with the cash float in the drawer) to
-- closing (with the cash counted). One open shift per clerk and one per register.
create table shift (
    id          integer primary key autoincrement,
    clerk_id    integer not null references staff_user (id),
    register    text not null,
    float_krw   integer not null check (float_krw >= 0),
    opened_at   integer not null,
    closed_at   integer,
    counted_krw integer check (counted_krw >= 0),
    closed_by   integer references staff_user (id)
);
create unique index shift_open_clerk on shift (clerk_id) where closed_at is null;
create unique index shift_open_register on shift (register) where closed_at is null;

-- A sale at the counter: its booking (CONFIRMED in the same transaction), the shift it was made
-- in, and how it was paid: 'cash' (the amount tendered), 'card' (an external terminal's
-- reference) or 'comp' (complimentary: price 0, approved by a supervisor).
create table counter_sale (
    booking_id     blob primary key references booking (id),
    shift_id       integer not null references shift (id),
    tender         text not null check (tender in ('cash', 'card', 'comp')),
    amount_krw     integer not null check (amount_krw >= 0),
    seat_count     integer not null check (seat_count > 0),
    tendered_krw   integer,
    card_reference text,
    approved_by    integer references staff_user (id),
    created_at     integer not null
);
create index counter_sale_shift on counter_sale (shift_id);

-- Seats given back at the counter (see migrations/postgres); seat lists as JSON.
alter table booking add column refunded_at integer;
create table counter_refund (
    id          integer primary key autoincrement,
    booking_id  blob not null references booking (id),
    shift_id    integer not null references shift (id),
    seats       text not null,
    method      text not null check (method in ('cash', 'card', 'gateway', 'comp')),
    amount_krw  integer not null check (amount_krw >= 0),
    approved_by integer not null references staff_user (id),
    created_at  integer not null
);
create index counter_refund_shift on counter_refund (shift_id);

-- Tickets scanned at the door: one row per booking, so a second scan (from any door, at the
-- same moment or later) finds the first one's time and gate and checks in nothing.
create table check_in (
    booking_id    blob primary key,
    showtime_id   integer not null,
    gate          text not null,
    staff_id      integer references staff_user (id),
    checked_in_at integer not null
);
create index check_in_showtime on check_in (showtime_id);

-- Tickets printed at the counter: print n of a booking, once each (see migrations/postgres).
create table ticket_print (
    booking_id  blob not null references booking (id),
    n           integer not null check (n >= 0),
    staff_id    integer not null references staff_user (id),
    approved_by integer references staff_user (id),
    printed_at  integer not null,
    primary key (booking_id, n)
);
