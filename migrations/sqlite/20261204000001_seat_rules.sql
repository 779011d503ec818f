-- Seat rules (see migrations/postgres): when accessible seats become ordinary seats, and seats
-- taken off public sale ('HOUSE': staff only; 'KILLED': nobody). Instants are milliseconds since
-- the epoch, as elsewhere in this dialect.
alter table showtime add column accessible_release_at integer;

alter table show_seat add column blocked text
    check (blocked is null or (blocked in ('HOUSE', 'KILLED') and status = 'AVAILABLE'));

alter table hall add column best_seat text;
