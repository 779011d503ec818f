-- Seat rules.
-- accessible_release_at: from then on the showtime's unsold wheelchair places and companion seats
-- are ordinary seats (best available may give them; companion seats need no wheelchair place).
-- Null: they never are.
alter table showtime add column accessible_release_at timestamptz;

-- A seat an operator took off public sale for one showtime: 'HOUSE' (only staff may sell it) or
-- 'KILLED' (nobody may: a broken seat, a camera position). Null: on sale as its status says.
-- Only a free seat is blocked, and the hold statement never takes a blocked one, so a blocked
-- seat's status stays 'AVAILABLE'.
alter table show_seat add column blocked varchar(8)
    check (blocked is null or (blocked in ('HOUSE', 'KILLED') and status = 'AVAILABLE'));

-- The seat best available aims for (the hall's best view); null: the middle of the hall.
alter table hall add column best_seat varchar(8);
