-- Each seat is checked in on its own (see the PostgreSQL migration of the same name).
create table seat_check_in (
    booking_id    blob not null,
    seat_code     text not null,
    showtime_id   integer not null,
    gate          text not null,
    staff_id      integer references staff_user (id),
    checked_in_at integer not null,
    primary key (booking_id, seat_code)
) without rowid;
create index seat_check_in_showtime on seat_check_in (showtime_id);
insert into seat_check_in (booking_id, seat_code, showtime_id, gate, staff_id, checked_in_at)
select c.booking_id, s.value, c.showtime_id, c.gate, c.staff_id, c.checked_in_at
  from check_in c
  join booking b on b.id = c.booking_id
 cross join json_each(b.seats) s;
-- The old table stays (unused): a build from before this one can still start on the database.
