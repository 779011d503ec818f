-- The waiting room's bot friction and fairness at the opening: whether everyone who joined
-- before sales open is drawn in a random order when they open, and the proof of work (in bits,
-- 0: none) a new place costs.
alter table showtime add column room_shuffle boolean not null default false;
alter table showtime add column room_proof_bits integer not null default 0
    check (room_proof_bits between 0 and 24);
