-- House seats are sold by the venue's staff: a staff hold may take a HOUSE seat, and the seat
-- keeps its mark while held or sold, so that on release, expiry or refund it is a house seat
-- again (never on public sale). KILLED seats are still only ever free.
-- (Added with the column, the old check was named after the table: it names two columns.)
alter table show_seat drop constraint show_seat_check;
alter table show_seat add constraint show_seat_blocked_check
    check (blocked is null or blocked = 'HOUSE' or (blocked = 'KILLED' and status = 'AVAILABLE'));
