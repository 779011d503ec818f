-- After the database confirmed a booking: its seats stay filtered (the gate turns away every
-- later attempt at a sold seat without database work) until after the show, when nothing can
-- be held any more and the keys expire.
-- KEYS: seat keys of one showtime; ARGV[1]: the booking id; ARGV[2]: when the keys expire
-- (Unix time in milliseconds). Returns how many keys were set.
for _, key in ipairs(KEYS) do
  redis.call('SET', key, 'booked:' .. ARGV[1])
  redis.call('PEXPIREAT', key, ARGV[2])
end
return #KEYS
