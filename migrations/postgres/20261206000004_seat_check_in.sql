-- Each seat has its own ticket and is checked in on its own: a party arriving apart is let in
-- one by one, and the booking's code admits the seats not in yet. One row per seat, inserted
-- once, so a seat is checked in once even from two doors at once. Check-ins made before (one
-- per booking: the whole party) become one row per seat of the booking.
create table seat_check_in (
    booking_id    uuid not null,
    seat_code     varchar(8) not null,
    showtime_id   bigint not null,
    gate          text not null,
    staff_id      bigint references staff_user (id),
    checked_in_at timestamptz not null,
    primary key (booking_id, seat_code)
);
create index seat_check_in_showtime on seat_check_in (showtime_id);
insert into seat_check_in (booking_id, seat_code, showtime_id, gate, staff_id, checked_in_at)
select c.booking_id, s.seat, c.showtime_id, c.gate, c.staff_id, c.checked_in_at
  from check_in c
  join booking b on b.id = c.booking_id
 cross join unnest(b.seats) as s (seat);
-- The old table stays (unused): a build from before this one can still start on the database.
