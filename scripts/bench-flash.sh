#!/usr/bin/env bash
# The flash-sale benchmark (see BENCHMARKS.md): one 300-seat showtime, 2,000 customers (each a
# signed session cookie) hammering POST /showtimes/{id}/holds with wrk for 30 s against one
# release server on a throwaway PostgreSQL and Redis, seat gate on, rate limit off (it would
# answer most of these retries with 429 before the gate sees them), lone-seat rule off (random
# pairs would leave single seats, answered 422 before the gate: that rule's cost is not the
# gate's). Reports holds/s,
# rejections/s, p50/p99 latency and hold statements (UPDATEs) per hold and per seat sold; then
# the same load without Redis for contrast; then redis-benchmark calling the same gate script
# with EVALSHA (reported); then the server's own floor: the same customers and connections for
# the same time sending a hold the server refuses with 400 before any work (no seats), ending
# with `ratio=<gate rejections/s ÷ the floor's 400s/s>`.
# Options: BENCH_SECONDS (30), BENCH_CUSTOMERS (2000), BENCH_BASELINE_SECONDS (10; 0 skips).
# BENCH_SMOKE=1: debug build, 2 s with 50 customers, 1 s of redis-benchmark.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
command -v wrk >/dev/null || apt_install wrk
command -v redis-benchmark >/dev/null || apt_install redis-tools
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
bench_build -p server --bin server

SECS="$(bench_option BENCH_SECONDS 30 2)"
CUSTOMERS="$(bench_option BENCH_CUSTOMERS 2000 50)"
BASELINE_SECS="$(bench_option BENCH_BASELINE_SECONDS 10 1)"
SECRET="flash-sale benchmark session secret, not for production"
DIR="$(mktemp -d /tmp/seats-flash-bench.XXXXXX)"
CLEANUP+=("rm -rf $DIR")
start_throwaway_postgres "-c max_connections=200 -c shared_buffers=256MB"
start_throwaway_redis
REDIS_PORT="${THROWAWAY_REDIS_URL##*:}"

# Signed session cookies, as the server would issue them (HMAC-SHA256 of the customer id).
python3 - "$SECRET" "$CUSTOMERS" > "$DIR/cookies.lua" <<'PY'
import hmac, hashlib, sys, uuid
secret, n = sys.argv[1].encode(), int(sys.argv[2])
print("cookies = {")
for _ in range(n):
    u = uuid.uuid4()
    print(f'  "{u}.{hmac.new(secret, u.bytes, hashlib.sha256).hexdigest()}",')
print("}")
PY
cat "$DIR/cookies.lua" - > "$DIR/holds.lua" <<'LUA'
-- Each request: one customer's cookie (round robin) and two adjacent seats in a random row
-- (EMPTY set: no seats at all, which the server refuses with 400 before any work).
local counter = 0
local threads = {}
function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end
function init(args)
  math.randomseed(os.time() * 1000 + id)
  counter = id * 7919
  s201, s409, s429, other = 0, 0, 0, 0
end
function request()
  counter = counter + 1
  local cookie = cookies[(counter % #cookies) + 1]
  local row = string.char(64 + math.random(15))
  local seat = math.random(19)
  local body = string.format('{"seats":["%s%d","%s%d"]}', row, seat, row, seat + 1)
  if EMPTY then body = '{"seats":[]}' end
  return wrk.format("POST", nil, {
    ["Content-Type"] = "application/json",
    ["Cookie"] = "seats_session=" .. cookie,
  }, body)
end
function response(status, headers, body)
  if status == 201 or (EMPTY and status == 400) then s201 = s201 + 1
  elseif status == 409 then s409 = s409 + 1
  elseif status == 429 then s429 = s429 + 1
  else other = other + 1 end
end
function done(summary, latency, requests)
  local t = { s201 = 0, s409 = 0, s429 = 0, other = 0 }
  for _, thread in ipairs(threads) do
    for k, _ in pairs(t) do t[k] = t[k] + thread:get(k) end
  end
  local secs = summary.duration / 1e6
  io.write(string.format("RESULT requests=%d seconds=%.2f held=%d rejected=%d limited=%d other=%d socket_errors=%d p50_ms=%.2f p99_ms=%.2f\n",
    summary.requests, secs, t.s201, t.s409, t.s429, t.other,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
LUA

{ echo "EMPTY = true"; cat "$DIR/holds.lua"; } > "$DIR/floor.lua"

# Runs the server with $1 as REDIS_URL for $2 seconds of load; prints its figures. $3 "floor":
# the holds without seats, only their answers/s (in /tmp/seats-flash-floor).
run() {
  local redis_url="$1" secs="$2" mode="${3:-}" db port server script="$DIR/holds.lua"
  [ "$mode" = floor ] && script="$DIR/floor.lua"
  db="flash_$(date +%s%N)"
  psql "$THROWAWAY_PG_URL" -qc "create database $db"
  port="$(free_port)"
  DATABASE_URL="${THROWAWAY_PG_URL%/*}/$db" REDIS_URL="$redis_url" LEPTOS_SITE_ADDR="127.0.0.1:$port" \
    DATA_DIR="$DIR/data" SESSION_SECRET="$SECRET" HOLD_RATE_PER_MINUTE=0 HOLD_TTL_SECONDS=600 \
    PAYMENT_WEBHOOK_SECRET="flash-sale benchmark webhook secret" \
    TICKET_KEYS="b1:flash-sale benchmark ticket signing key" \
    HOLD_RATE_PER_ADDRESS=0 HELD_SEATS_PER_ADDRESS=0 MAX_CONNECTIONS_PER_ADDRESS=10000 \
    LONE_SEAT_RULE=off RUST_LOG=warn "$BIN/server" &
  server=$!
  for _ in $(seq 1 150); do curl -fs "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.2; done
  ID="$(curl -fs "http://127.0.0.1:$port/showtimes" | python3 -c 'import json,sys; print(next(s["id"] for s in json.load(sys.stdin) if s["seatsTotal"]==300 and s["salesOpen"]))')"
  local result
  result="$(wrk -t2 -c"$CUSTOMERS" -d"${secs}s" --timeout 10s -s "$script" "http://127.0.0.1:$port/showtimes/$ID/holds" | grep '^RESULT')"
  curl -fs "http://127.0.0.1:$port/metrics" > "$DIR/metrics"
  kill "$server"; wait "$server" 2>/dev/null || true
  if [ "$mode" = floor ]; then
    python3 - "$result" <<'PY'
import sys
f = dict(kv.split("=") for kv in sys.argv[1].split()[1:])
secs, refused = float(f["seconds"]), int(f["held"])
print(f"  requests {f['requests']} in {secs:.1f} s: {refused/secs:,.0f} answered 400/s, other {f['other']}, "
      f"socket errors {f['socket_errors']}; latency p50 {float(f['p50_ms']):.2f} ms, p99 {float(f['p99_ms']):.2f} ms")
open("/tmp/seats-flash-floor", "w").write(f"{refused/secs}\n")
PY
    return
  fi
  local sold
  sold="$(psql "${THROWAWAY_PG_URL%/*}/$db" -Atc "select count(*) from show_seat where showtime_id = $ID and status = 'HELD'")"
  local rows_updated
  rows_updated="$(psql "${THROWAWAY_PG_URL%/*}/$db" -Atc "select n_tup_upd from pg_stat_user_tables where relname = 'show_seat'")"
  python3 - "$result" "$DIR/metrics" "$sold" "$rows_updated" <<'PY'
import sys
fields = dict(kv.split("=") for kv in sys.argv[1].split()[1:])
metrics = {l.split()[0]: float(l.split()[1]) for l in open(sys.argv[2]) if l and not l.startswith("#")}
secs, sold = float(fields["seconds"]), int(sys.argv[3])
held, rejected = int(fields["held"]), int(fields["rejected"])
statements = metrics["seats_hold_db_statements_total"]
gate_rejected = metrics["seats_hold_gate_rejected_total"]
print(f"  requests {fields['requests']} in {secs:.1f} s: {int(fields['requests'])/secs:,.0f} req/s; "
      f"holds {held/secs:,.1f}/s ({held} holds, {sold} seats sold), rejections (409) {rejected/secs:,.0f}/s, "
      f"429 {fields['limited']}, other {fields['other']}, socket errors {fields['socket_errors']}; "
      f"the server counted {gate_rejected:,.0f} refusals by the gate (in-flight ones included)")
print(f"  latency p50 {float(fields['p50_ms']):.2f} ms, p99 {float(fields['p99_ms']):.2f} ms")
print(f"  hold statements (UPDATEs) reaching PostgreSQL: {statements:,.0f} = {statements/max(held,1):.2f} per hold, "
      f"{statements/max(sold,1):.2f} per seat sold; rows PostgreSQL updated in show_seat: {sys.argv[4]}")
with open("/tmp/seats-flash-last", "w") as f:
    # Rejections as the clients saw them in the measured window; with the gate, every 409 that
    # did not come from a hold statement came from the gate.
    f.write(f"{(rejected - max(statements - held, 0))/secs}\n")
PY
}

echo "flash sale: one 300-seat showtime, $CUSTOMERS customers (wrk -t2 -c$CUSTOMERS), holds of 2 adjacent seats, 10-minute holds"
echo "with the Redis seat gate, ${SECS} s:"
run "$THROWAWAY_REDIS_URL" "$SECS"
GATE_RPS="$(cat /tmp/seats-flash-last)"
if [ "$BASELINE_SECS" != "0" ]; then
  echo "without Redis (every attempt reaches PostgreSQL), ${BASELINE_SECS} s:"
  run "" "$BASELINE_SECS"
fi

# The same gate script straight from redis-benchmark: a rejection (both keys exist), as most
# HTTP attempts above were.
SHA="$(redis-cli -p "$REDIS_PORT" SCRIPT LOAD "$(cat server/lua/seat_gate.lua)")"
redis-cli -p "$REDIS_PORT" SET 'seat:{1}:A1' held PX 600000 >/dev/null
redis-cli -p "$REDIS_PORT" SET 'seat:{1}:A2' held PX 600000 >/dev/null
EVALSHA_RPS="$(redis-benchmark -p "$REDIS_PORT" -c 50 -n 1000000 -q EVALSHA "$SHA" 2 'seat:{1}:A1' 'seat:{1}:A2' bench 600000 \
  | tr '\r' '\n' | python3 -c 'import re,sys; print(re.findall(r"([0-9.]+) requests per second", sys.stdin.read())[-1])')"
echo "redis-benchmark -c 50 -n 1000000 EVALSHA <seat_gate.lua> (a rejection): ${EVALSHA_RPS} calls/s"
python3 -c "print(f'  gate rejections through HTTP ÷ redis-benchmark EVALSHA: {float(\"$GATE_RPS\")/float(\"$EVALSHA_RPS\"):.2f}')"

# The server's own floor: the cheapest answer it gives to the same load (no seats: refused with
# 400 by the request's own check, before the gate, Redis or the database).
echo "the server's floor: the same $CUSTOMERS customers and connections, holds without seats (400), ${SECS} s:"
run "$THROWAWAY_REDIS_URL" "$SECS" floor
FLOOR_RPS="$(cat /tmp/seats-flash-floor)"
python3 -c "print(f'gate rejections {float(\"$GATE_RPS\"):,.0f}/s ÷ the floor {float(\"$FLOOR_RPS\"):,.0f}/s'); print(f'ratio={float(\"$GATE_RPS\")/float(\"$FLOOR_RPS\"):.2f}')"
