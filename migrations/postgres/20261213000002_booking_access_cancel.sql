-- Who may cancel a booking: its buyer's session, or a session that proved the mailbox (opened
-- the booking's e-mailed link and confirmed). Finding a booking by its number and address only
-- shows it. Grants made before were by either way: they show, and the link confirms again.
alter table booking_access add column can_cancel boolean not null default false;
