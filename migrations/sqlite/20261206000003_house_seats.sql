-- House seats are sold by the venue's staff (see the PostgreSQL migration of the same name).
-- SQLite cannot change a check constraint in place: the table is made again with the new one.
create table show_seat_new (
    showtime_id     integer not null references showtime (id),
    seat_code       text not null,
    status          text not null default 'AVAILABLE',
    hold_id         blob,
    customer_id     blob,
    hold_expires_at integer,
    booking_id      blob,
    version         integer not null default 0,
    blocked         text
        check (blocked is null or blocked = 'HOUSE' or (blocked = 'KILLED' and status = 'AVAILABLE')),
    primary key (showtime_id, seat_code),
    check (
        (status = 'AVAILABLE' and hold_id is null and customer_id is null
            and hold_expires_at is null and booking_id is null)
        or (status = 'HELD' and hold_id is not null and customer_id is not null
            and hold_expires_at is not null and booking_id is null)
        or (status = 'BOOKED' and booking_id is not null and hold_expires_at is null)
    )
) without rowid;
insert into show_seat_new (showtime_id, seat_code, status, hold_id, customer_id,
                           hold_expires_at, booking_id, version, blocked)
select showtime_id, seat_code, status, hold_id, customer_id, hold_expires_at, booking_id,
       version, blocked
  from show_seat;
drop table show_seat;
alter table show_seat_new rename to show_seat;
create index show_seat_hold on show_seat (showtime_id, hold_id);
create index show_seat_expiry on show_seat (status, hold_expires_at);
