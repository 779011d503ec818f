-- When an operator last set a showtime's waiting room (ms since the epoch, the engine's clock):
-- the automatic switch (WAITING_ROOM_AUTO_HOLDS_PER_SECOND) never turns a room on within a
-- minute of an operator's own change.
alter table showtime add column room_set_ms bigint;
