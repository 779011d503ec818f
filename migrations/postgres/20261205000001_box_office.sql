-- The box office and the door.
-- A shift: one clerk at one register, from opening (with the cash float in the drawer) to
-- closing (with the cash counted). One open shift per clerk and one per register.
create table shift (
    id          bigserial primary key,
    clerk_id    bigint not null references staff_user (id),
    register    text not null,
    float_krw   bigint not null check (float_krw >= 0),
    opened_at   timestamptz not null,
    closed_at   timestamptz,
    counted_krw bigint check (counted_krw >= 0),
    closed_by   bigint references staff_user (id)
);
create unique index shift_open_clerk on shift (clerk_id) where closed_at is null;
create unique index shift_open_register on shift (register) where closed_at is null;

-- A sale at the counter: its booking (CONFIRMED in the same transaction), the shift it was made
-- in, and how it was paid: 'cash' (the amount tendered), 'card' (an external terminal's
-- reference) or 'comp' (complimentary: price 0, approved by a supervisor).
create table counter_sale (
    booking_id     uuid primary key references booking (id),
    shift_id       bigint not null references shift (id),
    tender         varchar(8) not null check (tender in ('cash', 'card', 'comp')),
    amount_krw     bigint not null check (amount_krw >= 0),
    -- The seats sold (the booking's seats may change later: refunds, exchanges).
    seat_count     integer not null check (seat_count > 0),
    tendered_krw   bigint,
    card_reference text,
    approved_by    bigint references staff_user (id),
    created_at     timestamptz not null
);
create index counter_sale_shift on counter_sale (shift_id);

-- Seats given back at the counter: a whole booking or some of its seats (their seats went back
-- on sale; the booking keeps the others, and its amount less the refund). Cash sales are refunded
-- from the shift's drawer ('cash'), card sales on the terminal ('card'), online sales through the
-- gateway ('gateway', whole bookings only); comps give nothing back ('comp'). A booking with no
-- seat left is refunded (refunded_at).
alter table booking add column refunded_at timestamptz;
create table counter_refund (
    id          bigserial primary key,
    booking_id  uuid not null references booking (id),
    shift_id    bigint not null references shift (id),
    seats       text[] not null,
    method      varchar(8) not null check (method in ('cash', 'card', 'gateway', 'comp')),
    amount_krw  bigint not null check (amount_krw >= 0),
    approved_by bigint not null references staff_user (id),
    created_at  timestamptz not null
);
create index counter_refund_shift on counter_refund (shift_id);

-- Tickets scanned at the door: one row per booking, so a second scan (from any door, at the
-- same moment or later) finds the first one's time and gate and checks in nothing.
create table check_in (
    booking_id    uuid primary key,
    showtime_id   bigint not null,
    gate          text not null,
    staff_id      bigint references staff_user (id),
    checked_in_at timestamptz not null
);
create index check_in_showtime on check_in (showtime_id);

-- Tickets printed at the counter: print n of a booking (0: the first; then reprints, a
-- supervisor's), once each: two prints at the same moment cannot both be the first.
create table ticket_print (
    booking_id  uuid not null references booking (id),
    n           integer not null check (n >= 0),
    staff_id    bigint not null references staff_user (id),
    approved_by bigint references staff_user (id),
    printed_at  timestamptz not null,
    primary key (booking_id, n)
);
