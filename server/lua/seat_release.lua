-- Compare-and-delete: removes each seat key that still carries this hold's id, and no other
-- (another hold may own the key by now). Used when the database refused a hold the gate let
-- through, and when a hold is cancelled or has expired.
-- KEYS: seat keys of one showtime; ARGV[1]: the hold id. Returns how many keys were deleted.
local deleted = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('DEL', key)
    deleted = deleted + 1
  end
end
return deleted
