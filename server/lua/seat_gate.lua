-- The seat gate: a first filter in front of the database's conditional UPDATE (which decides).
-- KEYS: the requested seats' keys, seat:{showtimeId}:<code>; the {showtimeId} hash tag puts a
--       showtime's keys in one cluster slot, so one script may touch them all.
-- ARGV[1]: the new hold's id; ARGV[2]: the hold's length in milliseconds.
-- If any key exists, nothing is written and the 1-based positions of the existing keys are
-- returned. Otherwise every key is set to the hold id with the hold's TTL and {} is returned.
local taken = {}
for i, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then
    taken[#taken + 1] = i
  end
end
if #taken == 0 then
  for _, key in ipairs(KEYS) do
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
  end
end
return taken
