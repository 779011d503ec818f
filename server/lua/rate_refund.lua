-- Gives one attempt back to a rate limit (rate_limit.lua's GCRA key): the attempt turned out not
-- to be one the limit is for (a right password). The theoretical arrival time moves back one
-- interval, never before now.
-- KEYS[1]: the limit's key; ARGV[1]: the emission interval in ms.
-- Returns 1 when there was a count to give back, 0 when there was none.
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) * 1000 + math.floor(tonumber(now_parts[2]) / 1000)
local tat = tonumber(redis.call('GET', KEYS[1]))
if not tat then
  return 0
end
tat = tat - tonumber(ARGV[1])
if tat <= now then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], tat, 'PX', tat - now)
end
return 1
