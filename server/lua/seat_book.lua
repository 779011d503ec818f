-- After the database confirmed a booking: its seats stay filtered for good (no TTL), so the
-- gate turns away every later attempt at a sold seat without database work.
-- KEYS: seat keys of one showtime; ARGV[1]: the booking id. Returns how many keys were set.
for _, key in ipairs(KEYS) do
  redis.call('SET', key, 'booked:' .. ARGV[1])
end
return #KEYS
