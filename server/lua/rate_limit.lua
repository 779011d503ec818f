-- Per-customer rate limit on hold attempts, GCRA (generic cell rate algorithm): one key per
-- customer holding the "theoretical arrival time" (TAT) in milliseconds of the server's clock.
-- KEYS[1]: rate:{customerId}
-- ARGV[1]: emission interval in ms (60000 / attempts per minute); ARGV[2]: burst (attempts
--          allowed back to back, = attempts per minute).
-- Returns {1, 0} when the attempt is allowed, {0, ms until the next one is} when not.
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) * 1000 + math.floor(tonumber(now_parts[2]) / 1000)
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then
  tat = now
end
local allowed_at = tat - (burst - 1) * interval
if now < allowed_at then
  return {0, allowed_at - now}
end
tat = tat + interval
redis.call('SET', KEYS[1], tat, 'PX', tat - now)
return {1, 0}
