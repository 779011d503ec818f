-- The browser a staff session was opened in (a random id the browser keeps in a signed cookie):
-- a member's tries from a browser she signed in from before are counted apart from strangers'
-- (who never have it), so no stranger's wrong passwords slow her there.
alter table staff_session add column device text;
create index staff_session_device on staff_session (staff_id, device);
