-- The waiting room of one showtime, every operation in one script so that each runs atomically
-- (on Redis Cluster too: every key carries the showtime's hash tag). ARGV[1] names the
-- operation, ARGV[2] is the time in ms (0: Redis's own clock, the one every instance shares).
--
-- KEYS: 1 seq (places numbered so far), 2 served (every place numbered up to it has left the
-- queue), 3 wait (zset ticket -> number), 4 seen (zset ticket -> last sign of life, ms),
-- 5 rec (hash ticket -> "number|customer|address|next poll ms|hold id|rank by arrival in the
-- opening draw|once admitted, the latest its admission may end, ms"), 6 who (hash customer
-- -> ticket), 7 addr (hash address -> places waiting), 8 active (zset ticket -> deadline ms:
-- admitted, or holding until the hold's expiry), 9 seats (hash ticket -> seats held in all),
-- 10 holds (hash hold id -> ticket, or '-': the hold ended before it was bound), 11 admits (zset number -> admission time, last 5 min),
-- 12 stats (hash: admitted, expired, abandoned, and the opening draw's seed, entrants and
-- time), 13 epoch (bumped by a reset and by the draw), 14 pace (when the next admission may
-- come, ms: admissions are spread evenly over the minute), 15 proofs (zset proof-of-work
-- challenge -> until when it is remembered as used, ms: a proof makes one place).
--
-- Place answers are {{code, ticket, number, served, deadline ms or -1, now, epoch, extra},
-- {rank by arrival in the draw (0: none), draw seed ('': none), entrants, drawn at ms}}: code 0 ok,
-- 1 room full, 2 address at its cap, 3 no such place, 4 asked too soon (extra: ms to wait),
-- 5 a new place needs a proof of work.
local K = {
  seq = KEYS[1], served = KEYS[2], wait = KEYS[3], seen = KEYS[4], rec = KEYS[5],
  who = KEYS[6], addr = KEYS[7], active = KEYS[8], seats = KEYS[9], holds = KEYS[10],
  admits = KEYS[11], stats = KEYS[12], epoch = KEYS[13], pace = KEYS[14], proofs = KEYS[15],
}
local op = ARGV[1]
local now = tonumber(ARGV[2])
if now == 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function fields(rec)
  local f = {}
  for part in string.gmatch(rec .. '|', '([^|]*)|') do f[#f + 1] = part end
  return f
end

local function epoch()
  return tonumber(redis.call('GET', K.epoch) or '0')
end

local function refused(code)
  return {{code, '', 0, 0, -1, now, epoch(), 0}, {0, '', 0, 0}}
end

local function place(code, ticket, extra)
  local rec = ticket and ticket ~= '' and redis.call('HGET', K.rec, ticket)
  if not rec then return refused(3) end
  local f = fields(rec)
  local deadline = redis.call('ZSCORE', K.active, ticket)
  local draw = redis.call('HMGET', K.stats, 'seed', 'entrants', 'drawn')
  return {{code, ticket, tonumber(f[1]), tonumber(redis.call('GET', K.served) or '0'),
           deadline and tonumber(deadline) or -1, now, epoch(), extra or 0},
          {tonumber(f[6] or '') or 0, draw[1] or '', tonumber(draw[2] or '0'), tonumber(draw[3] or '0')}}
end

local function save(ticket, f)
  for i = 1, 7 do f[i] = f[i] or '' end
  redis.call('HSET', K.rec, ticket, table.concat(f, '|', 1, 7))
end

-- The opening draw: every waiting place (in order of arrival) is given one of the numbers
-- they hold between them, in the order a Fisher-Yates shuffle from `seed` makes (step i
-- swaps with x mod (i + 1), x the first of SHA-1("seed:i:attempt")'s leading 13 hexadecimal
-- digits below the largest multiple of i + 1 under 2^52: every order equally likely; the
-- server's draw.rs does the same).
local function draw(seed)
  local waiting = redis.call('ZRANGE', K.wait, 0, -1, 'WITHSCORES')
  local tickets, numbers = {}, {}
  for i = 1, #waiting, 2 do
    tickets[#tickets + 1] = waiting[i]
    numbers[#numbers + 1] = tonumber(waiting[i + 1])
  end
  local n = #tickets
  local rank = {}
  for k = 1, n do rank[tickets[k]] = k end
  for i = n - 1, 1, -1 do
    local m = i + 1
    local limit = math.floor(4503599627370496 / m) * m
    local attempt, x = 0, limit
    while x >= limit do
      x = tonumber(string.sub(redis.sha1hex(seed .. ':' .. i .. ':' .. attempt), 1, 13), 16)
      attempt = attempt + 1
    end
    local j = x % m
    tickets[i + 1], tickets[j + 1] = tickets[j + 1], tickets[i + 1]
  end
  for k = 1, n do
    local t = tickets[k]
    redis.call('ZADD', K.wait, numbers[k], t)
    local f = fields(redis.call('HGET', K.rec, t))
    f[1] = tostring(numbers[k])
    f[6] = tostring(rank[t])
    save(t, f)
  end
  redis.call('HSET', K.stats, 'seed', seed, 'entrants', n, 'drawn', now)
  redis.call('INCR', K.epoch)
end

-- A place leaves the queue (admitted or gone): it no longer counts for its address.
local function leave_queue(ticket, f)
  redis.call('ZREM', K.wait, ticket)
  redis.call('ZREM', K.seen, ticket)
  if f[3] ~= nil and f[3] ~= '' then
    if redis.call('HINCRBY', K.addr, f[3], -1) <= 0 then redis.call('HDEL', K.addr, f[3]) end
  end
end

-- A place is over (its admission ended, or it was given up): nothing of it is kept.
local function forget(ticket)
  local rec = redis.call('HGET', K.rec, ticket)
  if rec then
    local f = fields(rec)
    if redis.call('HGET', K.who, f[2]) == ticket then redis.call('HDEL', K.who, f[2]) end
    if f[5] ~= nil and f[5] ~= '' then redis.call('HDEL', K.holds, f[5]) end
    redis.call('HDEL', K.rec, ticket)
  end
  redis.call('HDEL', K.seats, ticket)
  redis.call('ZREM', K.active, ticket)
end

local function ticket_of(ticket, customer)
  if ticket ~= '' then return ticket end
  return redis.call('HGET', K.who, customer) or ''
end

if op == 'join' then
  -- ARGV: 3 new ticket, 4 customer, 5 address, 6 room cap, 7 places per address, 8 '1': a
  -- new place needs a proof of work, and none was given, 9 the challenge a valid proof solved
  -- ('': none), 10 until when it is remembered as used (ms)
  local customer, addr = ARGV[4], ARGV[5]
  local existing = redis.call('HGET', K.who, customer)
  if existing and redis.call('HEXISTS', K.rec, existing) == 1 then
    return place(0, existing)
  end
  if ARGV[8] == '1' then return refused(5) end
  -- A proof makes one place: used before, it proves nothing.
  if ARGV[9] ~= '' and redis.call('ZSCORE', K.proofs, ARGV[9]) then return refused(5) end
  if redis.call('ZCARD', K.wait) >= tonumber(ARGV[6]) then return refused(1) end
  if addr ~= '' and tonumber(redis.call('HGET', K.addr, addr) or '0') >= tonumber(ARGV[7]) then
    return refused(2)
  end
  local ticket = ARGV[3]
  local seq = redis.call('INCR', K.seq)
  redis.call('ZADD', K.wait, seq, ticket)
  redis.call('ZADD', K.seen, now, ticket)
  redis.call('HSET', K.rec, ticket, seq .. '|' .. customer .. '|' .. addr .. '|0||')
  redis.call('HSET', K.who, customer, ticket)
  if ARGV[9] ~= '' then redis.call('ZADD', K.proofs, tonumber(ARGV[10]), ARGV[9]) end
  if addr ~= '' then redis.call('HINCRBY', K.addr, addr, 1) end
  return place(0, ticket)
elseif op == 'poll' then
  -- ARGV: 3 ticket ('' : the customer's), 4 customer, 5 least ms between polls
  local ticket = ticket_of(ARGV[3], ARGV[4])
  local rec = ticket ~= '' and redis.call('HGET', K.rec, ticket)
  if not rec then return refused(3) end
  local f = fields(rec)
  -- A ticket is its customer's: someone else's tells nothing and changes nothing.
  if f[2] ~= ARGV[4] then return refused(3) end
  local next_poll = tonumber(f[4]) or 0
  -- Only waiting places are paced: an admitted shopper's pages may ask at once.
  if now < next_poll and not redis.call('ZSCORE', K.active, ticket) then
    return place(4, ticket, next_poll - now)
  end
  f[4] = tostring(now + tonumber(ARGV[5]))
  save(ticket, f)
  redis.call('ZADD', K.seen, 'XX', now, ticket)
  return place(0, ticket)
elseif op == 'touch' then
  -- ARGV: 3.. tickets whose pages are connected
  for i = 3, #ARGV do redis.call('ZADD', K.seen, 'XX', now, ARGV[i]) end
  return #ARGV - 2
elseif op == 'admit' then
  -- ARGV: 3 max inside, 4 admissions a minute, 5 paused (1), 6 grace ms, 7 admission ms,
  --       8 most places given up handled per call, 9 the longest an admission lives (ms),
  --       10 the opening draw's seed ('': the room does not shuffle, or sales have not opened)
  local max_active, per_minute = tonumber(ARGV[3]), tonumber(ARGV[4])
  local grace, window, most = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
  -- A room nobody stepped for a while (Redis, or every server, was away): nobody could show
  -- they were still there, nor use an admission. Deadlines move on by the gap, and nobody is
  -- given up until a grace period has passed.
  -- Not so after the room was turned off ('off', below): its admissions ended meanwhile.
  local last = tonumber(redis.call('HGET', K.stats, 'step') or '0')
  local was_off = redis.call('HDEL', K.stats, 'off') == 1
  if not was_off and last > 0 and now - last > 5000 then
    local gap = now - last
    local inside = redis.call('ZRANGE', K.active, 0, -1, 'WITHSCORES')
    for i = 1, #inside, 2 do
      redis.call('ZADD', K.active, tonumber(inside[i + 1]) + gap, inside[i])
      -- The admission's cap moves on with it.
      local rec = redis.call('HGET', K.rec, inside[i])
      if rec then
        local f = fields(rec)
        if tonumber(f[7] or '') then
          f[7] = tostring(tonumber(f[7]) + gap)
          save(inside[i], f)
        end
      end
    end
    redis.call('HSET', K.stats, 'quiet', now + grace)
  end
  redis.call('HSET', K.stats, 'step', now)
  redis.call('ZREMRANGEBYSCORE', K.proofs, '-inf', now)
  local ended = redis.call('ZRANGEBYSCORE', K.active, '-inf', now, 'LIMIT', 0, most)
  for _, t in ipairs(ended) do forget(t) end
  local gone = 0
  local give_up = {}
  if now >= tonumber(redis.call('HGET', K.stats, 'quiet') or '0') then
    give_up = redis.call('ZRANGEBYSCORE', K.seen, '-inf', '(' .. (now - grace), 'LIMIT', 0, most)
  end
  for _, t in ipairs(give_up) do
    local rec = redis.call('HGET', K.rec, t)
    leave_queue(t, rec and fields(rec) or {})
    forget(t)
    gone = gone + 1
  end
  -- Sales have opened on a room that shuffles: the draw, once, before anyone is let in.
  if ARGV[10] ~= '' and not redis.call('HGET', K.stats, 'seed')
     and tonumber(redis.call('HGET', K.stats, 'admitted') or '0') == 0 then
    draw(ARGV[10])
  end
  redis.call('ZREMRANGEBYSCORE', K.admits, '-inf', now - 300000)
  local budget = math.min(max_active - redis.call('ZCARD', K.active),
                          per_minute - redis.call('ZCOUNT', K.admits, '(' .. (now - 60000), '+inf'))
  if ARGV[5] == '1' then budget = 0 end
  local served = tonumber(redis.call('GET', K.served) or '0')
  local admitted = 0
  -- One admission every 60 s / rate: an idle room catches up one second's worth at most.
  local interval = 60000 / per_minute
  local pace = math.max(tonumber(redis.call('GET', K.pace) or '0'), now - 1000)
  while budget > 0 and pace <= now do
    local first = redis.call('ZRANGE', K.wait, 0, 0, 'WITHSCORES')
    if #first == 0 then break end
    local t, seq = first[1], tonumber(first[2])
    local rec = redis.call('HGET', K.rec, t)
    local f = rec and fields(rec) or {}
    leave_queue(t, f)
    if rec then
      f[7] = tostring(now + tonumber(ARGV[9]))
      save(t, f)
    end
    served = seq
    redis.call('ZADD', K.active, now + window, t)
    redis.call('ZADD', K.admits, now, seq)
    budget = budget - 1
    admitted = admitted + 1
    pace = pace + interval
  end
  redis.call('SET', K.pace, string.format('%.3f', pace))
  -- A place given up makes every place numbered before the next one's served, too.
  local first = redis.call('ZRANGE', K.wait, 0, 0, 'WITHSCORES')
  if #first > 0 then
    served = math.max(served, tonumber(first[2]) - 1)
  else
    served = math.max(served, tonumber(redis.call('GET', K.seq) or '0'))
  end
  redis.call('SET', K.served, served)
  if admitted > 0 then redis.call('HINCRBY', K.stats, 'admitted', admitted) end
  if #ended > 0 then redis.call('HINCRBY', K.stats, 'expired', #ended) end
  if gone > 0 then redis.call('HINCRBY', K.stats, 'abandoned', gone) end
  -- A room nobody steps any more (turned off, its sale over) is gone from Redis after a day.
  for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], 86400000) end
  return {admitted, #ended, gone, served, now}
elseif op == 'view' then
  -- ARGV: 3 grace ms. {{waiting, served, inside, now, epoch, admissions in 5 min, oldest of
  -- them (ms, or -1), admitted, expired, abandoned, entrants, drawn at}, draw seed ('': none)}
  local oldest = redis.call('ZRANGEBYSCORE', K.admits, now - 300000, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  local stats = redis.call('HMGET', K.stats, 'admitted', 'expired', 'abandoned', 'seed', 'entrants', 'drawn')
  return {{redis.call('ZCOUNT', K.seen, now - tonumber(ARGV[3]), '+inf'),
          tonumber(redis.call('GET', K.served) or '0'), redis.call('ZCARD', K.active), now, epoch(),
          redis.call('ZCOUNT', K.admits, now - 300000, '+inf'), #oldest > 0 and tonumber(oldest[2]) or -1,
          tonumber(stats[1] or '0'), tonumber(stats[2] or '0'), tonumber(stats[3] or '0'),
          tonumber(stats[5] or '0'), tonumber(stats[6] or '0')}, stats[4] or ''}
elseif op == 'reserve' then
  -- ARGV: 3 ticket ('': the customer's), 4 customer, 5 seats, 6 seats per admission.
  -- {0, seats now} | {1, 0} not admitted | {2, seats so far} too many seats
  local ticket = ticket_of(ARGV[3], ARGV[4])
  local rec = ticket ~= '' and redis.call('HGET', K.rec, ticket)
  if not rec or fields(rec)[2] ~= ARGV[4] then return {1, 0, ''} end
  local deadline = redis.call('ZSCORE', K.active, ticket)
  if not deadline or tonumber(deadline) <= now then return {1, 0, ''} end
  local used = tonumber(redis.call('HGET', K.seats, ticket) or '0')
  if used + tonumber(ARGV[5]) > tonumber(ARGV[6]) then return {2, used, ticket} end
  return {0, redis.call('HINCRBY', K.seats, ticket, ARGV[5]), ticket}
elseif op == 'unreserve' then
  -- ARGV: 3 ticket, 4 seats (a hold that failed gives them back)
  if redis.call('HEXISTS', K.rec, ARGV[3]) == 1 then
    redis.call('HINCRBY', K.seats, ARGV[3], -tonumber(ARGV[4]))
  end
  return 0
elseif op == 'bind' then
  -- ARGV: 3 ticket, 4 hold id, 5 the hold's expiry (ms): the admission lives as long as it
  local ticket = ARGV[3]
  -- The hold ended before it was bound (a bind tried again once Redis was back): nothing to bind.
  if redis.call('HGET', K.holds, ARGV[4]) == '-' then return 1 end
  local rec = redis.call('HGET', K.rec, ticket)
  if not rec or not redis.call('ZSCORE', K.active, ticket) then return 0 end
  local f = fields(rec)
  if f[5] ~= nil and f[5] ~= '' then redis.call('HDEL', K.holds, f[5]) end
  f[5] = ARGV[4]
  save(ticket, f)
  redis.call('HSET', K.holds, ARGV[4], ticket)
  -- As long as the hold, never past the admission's cap.
  local until_ms = tonumber(ARGV[5])
  local cap = tonumber(f[7] or '')
  if cap and cap < until_ms then until_ms = cap end
  redis.call('ZADD', K.active, 'XX', until_ms, ticket)
  return 1
elseif op == 'ended' then
  -- ARGV: 3 hold id, 4 ms the admission is kept for a new hold (0: it ends now)
  local ticket = redis.call('HGET', K.holds, ARGV[3])
  -- Not bound (yet): a bind that comes later finds it ended ('-') and binds nothing.
  if not ticket or ticket == '-' then
    -- (Only in a room that exists: a showtime that never had one keeps no key for its holds.)
    if redis.call('EXISTS', K.stats) == 1 then
      redis.call('HSET', K.holds, ARGV[3], '-')
      redis.call('PEXPIRE', K.holds, 86400000)
    end
    return 0
  end
  redis.call('HDEL', K.holds, ARGV[3])
  local rec = redis.call('HGET', K.rec, ticket)
  if rec then
    local f = fields(rec)
    f[5] = ''
    save(ticket, f)
  end
  local deadline = tonumber(redis.call('ZSCORE', K.active, ticket) or '-1')
  local until_ms = now + tonumber(ARGV[4])
  if deadline > until_ms then redis.call('ZADD', K.active, 'XX', until_ms, ticket) end
  return 1
elseif op == 'off' then
  -- The room was turned off: its next step is no outage's (a room never stepped is left alone)
  if redis.call('EXISTS', K.stats) == 1 then redis.call('HSET', K.stats, 'off', 1) end
  return 0
elseif op == 'known' then
  -- ARGV: 3 ticket. 1 when it is a place of the room (waiting or admitted), else 0
  return redis.call('HEXISTS', K.rec, ARGV[3])
elseif op == 'reset' then
  redis.call('DEL', K.seq, K.served, K.wait, K.seen, K.rec, K.who, K.addr, K.active, K.seats,
             K.holds, K.admits, K.stats, K.pace, K.proofs)
  return redis.call('INCR', K.epoch)
end
return redis.error_reply('unknown waiting-room operation ' .. tostring(op))
