-- What an audit line says, as facts (a JSON list: the showtime, the seats, the amount, why…)
-- beside the English `detail`, so that the console can say it in the page's language. Lines
-- written before have none, and the console shows their `detail` as it was written.
alter table staff_audit add column facts text;
