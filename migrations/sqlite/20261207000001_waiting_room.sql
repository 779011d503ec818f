-- The waiting room of a hot sale (hot_sale is its switch): how many shoppers are inside at
-- once, how many are let in a minute, whether admissions are paused, and a message to the room.
-- The queue itself lives in the process (or in Redis): it is not kept here.
alter table showtime add column room_paused integer not null default 0 check (room_paused in (0, 1));
alter table showtime add column room_max_active integer not null default 100
    check (room_max_active between 1 and 100000);
alter table showtime add column room_admit_per_minute integer not null default 100
    check (room_admit_per_minute between 1 and 100000);
alter table showtime add column room_message text not null default '';
