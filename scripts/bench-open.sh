#!/usr/bin/env bash
# The open-loop benchmark (see BENCHMARKS.md): hold requests as customers send them — at a
# constant arrival rate, whether or not earlier ones were answered — against one release server
# on a throwaway PostgreSQL and Redis (seat gate on; rate limits, the address caps and the
# lone-seat rule off, as in bench-flash.sh). First the peak: wrk, 64 connections, 10 s of holds of
# two adjacent random seats. Then `open-loop` (bench/src/bin/open_loop.rs) at 50, 80 and 100 % of
# that peak, 10 s each: p50, p99, p99.9 of the holds, latency counted from each request's due
# time. As the baseline at the same arrival rate, 80 % of the peak of requests the server refuses
# with 400 before any work (no seats): its floor. Then a burst on a fresh showtime: 5,000
# customers within one second, each asking for one random seat of the 300: when the last seat
# was held (after the first request), and the hold statements per hold. Ends with
# `ratio=<the floor's p99 ÷ the holds' p99, both at 80 % of the peak>` (1.00: a hold's tail is
# the server's cheapest answer's).
# Options: BENCH_SECONDS (10), BENCH_BURST (5000). BENCH_SMOKE=1: a debug build, 1 s each, a
# burst of 500.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
command -v wrk >/dev/null || apt_install wrk
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
bench_build -p server -p bench --bin server --bin open-loop
SECS="$(bench_option BENCH_SECONDS 10 1)"
BURST="$(bench_option BENCH_BURST 5000 500)"
DIR="$(mktemp -d /tmp/seats-open-bench.XXXXXX)"
CLEANUP+=("rm -rf $DIR")
start_throwaway_postgres "-c max_connections=200 -c shared_buffers=256MB"
start_throwaway_redis

# Starts a server on a fresh database; sets PORT, SERVER, DB_URL and ID (the 300-seat showtime).
serve() {
  local db="open_$(date +%s%N)"
  psql "$THROWAWAY_PG_URL" -qc "create database $db"
  DB_URL="${THROWAWAY_PG_URL%/*}/$db"
  PORT="$(free_port)"
  DATABASE_URL="$DB_URL" REDIS_URL="$THROWAWAY_REDIS_URL" REDIS_KEY_PREFIX="$db:" LEPTOS_SITE_ADDR="127.0.0.1:$PORT" \
    DATA_DIR="$DIR/data" SESSION_SECRET="open-loop benchmark session secret, not for production" \
    PAYMENT_WEBHOOK_SECRET="open-loop benchmark webhook secret" TICKET_KEYS="b1:open-loop benchmark ticket signing key not for production" \
    HOLD_RATE_PER_MINUTE=0 HOLD_RATE_PER_ADDRESS=0 HELD_SEATS_PER_ADDRESS=0 MAX_CONNECTIONS_PER_ADDRESS=10000 \
    LONE_SEAT_RULE=off HOLD_COOLDOWN_SECONDS=0 RUST_LOG=warn "$BIN/server" &
  SERVER=$!
  CLEANUP+=("kill $SERVER")
  for _ in $(seq 1 150); do curl -fs "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.2; done
  ID="$(curl -fs "http://127.0.0.1:$PORT/showtimes" | python3 -c 'import json,sys; print(next(s["id"] for s in json.load(sys.stdin) if s["seatsTotal"]==300 and s["salesOpen"] and not s.get("waitingRoom")))')"
}
stop() { kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; }
# open-loop at $1 requests/s for $2 s; $3: pair, one or none (no seats: 400). Prints RESULT.
open() {
  local seats="$3" path="/showtimes/$ID/holds"
  BENCH_BASE="http://127.0.0.1:$PORT" BENCH_PATH="$path" BENCH_RATE="$1" BENCH_SECONDS="$2" \
    BENCH_SEATS="$seats" BENCH_CONNECTIONS="${BENCH_CONNECTIONS:-256}" "$BIN/open-loop"
}
metric() { curl -fs "http://127.0.0.1:$PORT/metrics" | awk -v m="$1" '$1 == m {print $2}'; }

serve
cat > "$DIR/pair.lua" <<'LUA'
local n = 0
function request()
  n = n + 1
  local row = string.char(65 + n % 15)
  local seat = math.random(19)
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" },
    string.format('{"seats":["%s%d","%s%d"]}', row, seat, row, seat + 1))
end
LUA
PEAK="$(wrk -t2 -c64 -d"${SECS}s" -s "$DIR/pair.lua" "http://127.0.0.1:$PORT/showtimes/$ID/holds" | awk '/Requests\/sec/ {print int($2)}')"
echo "holds of two adjacent random seats, one 300-seat showtime (every answer counted: 201, or 409 once the seats are gone)"
echo "peak (wrk -t2 -c64, ${SECS} s, closed loop): $PEAK requests/s"
report() {
  python3 - "$1" "$2" <<'PY'
import sys
what, line = sys.argv[1], sys.argv[2]
f = dict(kv.split("=") for kv in line.split()[1:])
codes = ", ".join(f"{k[1:]}: {v}" for k, v in f.items() if k.startswith("s") and k[1:].isdigit())
print(f"  {what}: {f['achieved']} answered/s of {int(f['sent'])/float(f['seconds']):.0f} due/s ({codes}; errors {f['errors']}); "
      f"p50 {float(f['p50_ms']):.2f} ms, p99 {float(f['p99_ms']):.2f} ms, p99.9 {float(f['p999_ms']):.2f} ms, max {float(f['max_ms']):.1f} ms")
PY
}
for pct in 50 80 100; do
  rate=$((PEAK * pct / 100))
  result="$(open "$rate" "$SECS" pair)"
  report "open loop at $pct % of the peak ($rate/s)" "$result"
  [ "$pct" = 80 ] && HOLD_P99="$(sed 's/.*p99_ms=\([0-9.]*\).*/\1/' <<<"$result")"
done
result="$(open $((PEAK * 80 / 100)) "$SECS" none)"
report "the floor (no seats: 400 before any work) at 80 % of the peak ($((PEAK * 80 / 100))/s)" "$result"
FLOOR_P99="$(sed 's/.*p99_ms=\([0-9.]*\).*/\1/' <<<"$result")"
stop

serve
before="$(metric seats_hold_db_statements_total)"
result="$(BENCH_CONNECTIONS=512 open "$BURST" 1 one)"
after="$(metric seats_hold_db_statements_total)"
held="$(psql "$DB_URL" -Atc "select count(*) from show_seat where showtime_id = $ID and status = 'HELD'")"
python3 - "$result" "$BURST" "$held" "$before" "$after" <<'PY'
import sys
f = dict(kv.split("=") for kv in sys.argv[1].split()[1:])
burst, held, statements = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[5]) - float(sys.argv[4])
holds = int(f.get("s201", 0))
print(f"burst: {burst} customers within 1 s, one random seat each (512 connections): {holds} holds, {held} of 300 seats held, "
      f"the last hold answered {f['last_201_ms']} ms after the first request was due; p50 {float(f['p50_ms']):.2f} ms, "
      f"p99 {float(f['p99_ms']):.2f} ms; hold statements reaching PostgreSQL: {statements:.0f} = {statements/max(holds,1):.2f} per hold")
PY
stop
python3 -c "print(f'holds p99 {float(\"$HOLD_P99\"):.2f} ms, the floor p99 {float(\"$FLOOR_P99\"):.2f} ms, both at 80 % of the peak'); print(f'ratio={float(\"$FLOOR_P99\")/float(\"$HOLD_P99\"):.2f}')"
