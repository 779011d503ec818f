#!/usr/bin/env bash
# The waiting-room benchmark (see BENCHMARKS.md): one release server on a throwaway PostgreSQL
# and Redis, the 300-seat showtime's room on. 140 shoppers join first, then BENCH_PLACES
# (100,000) more places behind them, of which BENCH_PAGES (15,000) keep a waiting page's
# WebSocket open; then admissions run for BENCH_SECONDS (20 s): shoppers hold two seats each
# once admitted, after choosing for a random time up to BENCH_THINK_MS (2,000; 0: at once;
# BENCH_PICK=best: the best two available), admitted pages that never hold lapse after 3 s so the queue keeps moving
# (at most 200 inside, 6,000 a minute). Reports joins/s, the frame's fan-out latency, the
# server's RSS (settled: the least of a reading a second for BENCH_SETTLE_SECONDS, 12) and CPU per admission, the admitted shoppers' hold latency, seats held/s and hold
# statements per seat held (room-bench).
# This machine allows 20,000 open files per process (hard limit): the pages are capped below it.
# BENCH_SMOKE=1: debug builds, 300 places, 100 pages, 10 shoppers, 4 s.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
ulimit -n "$(ulimit -Hn)"
export BENCH_PLACES="$(bench_option BENCH_PLACES 100000 300)"
export BENCH_PAGES="$(bench_option BENCH_PAGES 15000 100)"
export BENCH_SHOPPERS="$(bench_option BENCH_SHOPPERS 140 10)"
export BENCH_SECONDS="$(bench_option BENCH_SECONDS 20 4)"
export BENCH_SETTLE_SECONDS="$(bench_option BENCH_SETTLE_SECONDS 12 1)"
bench_build -p server -p bench --bin server --bin room-bench

DIR="$(mktemp -d /tmp/seats-room-bench.XXXXXX)"
CLEANUP+=("rm -rf $DIR")
start_throwaway_postgres "-c max_connections=200 -c shared_buffers=256MB"
start_throwaway_redis
db="room_$(date +%s%N)"
psql "$THROWAWAY_PG_URL" -qc "create database $db"
PORT="$(free_port)"
PASSWORD="waiting-room benchmark operator password"
DATABASE_URL="${THROWAWAY_PG_URL%/*}/$db" REDIS_URL="$THROWAWAY_REDIS_URL" LEPTOS_SITE_ADDR="127.0.0.1:$PORT" \
  DATA_DIR="$DIR/data" SESSION_SECRET="waiting-room benchmark session secret" \
  PAYMENT_WEBHOOK_SECRET="waiting-room benchmark webhook secret" \
  TICKET_KEYS="b1:waiting-room benchmark ticket signing key" OPERATOR_PASSWORD="$PASSWORD" \
  HOLD_RATE_PER_MINUTE=0 HOLD_RATE_PER_ADDRESS=0 HELD_SEATS_PER_ADDRESS=0 LONE_SEAT_RULE=off \
  MAX_CONNECTIONS=19000 MAX_CONNECTIONS_PER_ADDRESS=19000 CONNECTION_RESERVE=1000 \
  MAX_QUEUE_PAGES=18000 MAX_QUEUE_PAGES_PER_ADDRESS=18000 \
  WAITING_ROOM_PLACES_PER_ADDRESS=1000000 WAITING_ROOM_MAX_WAITING=1000000 \
  WAITING_ROOM_ADMISSION_SECONDS=3 WAITING_ROOM_POLL_SECONDS=1 RUST_LOG=warn "$BIN/server" &
SERVER=$!
CLEANUP+=("kill $SERVER")
for _ in $(seq 1 150); do curl -fs "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.2; done

BENCH_BASE="http://127.0.0.1:$PORT" BENCH_SERVER_PID=$SERVER BENCH_OPERATOR_PASSWORD="$PASSWORD" "$BIN/room-bench"
