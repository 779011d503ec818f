#!/usr/bin/env bash
# The live-map benchmark (see BENCHMARKS.md). One release server process on the embedded
# store (hold rate limit off: one client makes all the changes). First GET /showtimes/{id}/seats
# from the snapshot against nginx serving the same JSON as a static file, both with wrk. Then
# live-bench: 5,000 WebSocket viewers of one showtime while holds and cancels go through the REST
# API at 10, 20 and 200 changes a second — against the server, and with the same viewers, frames
# and schedule against a reference broadcaster on Node's `ws` package (bench/peer/live-peer.mjs,
# started on the same seat map). Ends with `ratio=<peer p95 ÷ server p95>`, the least over the rates.
# Options: BENCH_VIEWERS (5000), BENCH_RATES (10,20,200), BENCH_SECONDS (10 of changes per rate),
# WRK_SECONDS (10). BENCH_SMOKE=1: debug builds, 50 viewers, 20 changes/s for 1 s, 1 s of wrk.
# One client holds and cancels the same seats again and again, one seat at a time: the lone-seat
# rule and the re-hold cool-down are off for it (they are about customers, not this load).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
command -v wrk >/dev/null || apt_install wrk
command -v nginx >/dev/null || apt_install nginx-light
ensure_peer_packages
export BENCH_VIEWERS="$(bench_option BENCH_VIEWERS 5000 50)"
export BENCH_RATES="$(bench_option BENCH_RATES 10,20,200 20)"
export BENCH_SECONDS="$(bench_option BENCH_SECONDS 10 1)"
export WRK_SECONDS="$(bench_option WRK_SECONDS 10 1)"
bench_build -p server -p bench --bin server --bin live-bench

DIR="$(mktemp -d /tmp/seats-live-bench.XXXXXX)"
CLEANUP+=("rm -rf $DIR")
PORT="$(free_port)"
LEPTOS_SITE_ADDR="127.0.0.1:$PORT" DATA_DIR="$DIR/data" DATABASE_URL="" REDIS_URL="" RUST_LOG=warn HOLD_RATE_PER_MINUTE=0 \
  HOLD_RATE_PER_ADDRESS=0 HELD_SEATS_PER_ADDRESS=0 LONE_SEAT_RULE=off HOLD_COOLDOWN_SECONDS=0 \
  MAX_CONNECTIONS=10000 MAX_CONNECTIONS_PER_ADDRESS=10000 MAX_LIVE_VIEWERS_PER_ADDRESS=10000 \
  "$BIN/server" &
SERVER=$!
CLEANUP+=("kill $SERVER")
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.2; done

# The seat map from the snapshot vs the same bytes from nginx.
ID="$(curl -fs "http://127.0.0.1:$PORT/showtimes" | python3 -c 'import json,sys; print(next(s["id"] for s in json.load(sys.stdin) if s["seatsTotal"]==300))')"
curl -fs "http://127.0.0.1:$PORT/showtimes/$ID/seats" > "$DIR/seats.json"
NPORT="$(free_port)"
cat > "$DIR/nginx.conf" <<CONF
user root;
worker_processes auto;
pid $DIR/nginx.pid;
error_log $DIR/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  server {
    listen 127.0.0.1:$NPORT;
    location / { root $DIR; default_type application/json; }
  }
}
CONF
nginx -c "$DIR/nginx.conf" -p "$DIR"
sleep 0.5
# Stopped by its process id, known now: its own stop command would need the configuration in
# the folder the cleanup removes.
NGINX_PID="$(cat "$DIR/nginx.pid")"
CLEANUP+=("kill $NGINX_PID")
SECS="${WRK_SECONDS:-10}"
rps() { wrk -t2 -c64 -d"${SECS}s" "$1" | awk '/Requests\/sec/ {print $2}'; }
APP="$(rps "http://127.0.0.1:$PORT/showtimes/$ID/seats")"
NGX="$(rps "http://127.0.0.1:$NPORT/seats.json")"
python3 -c "print(f'seat map ($(wc -c < "$DIR/seats.json") bytes), wrk -t2 -c64 -d${SECS}s: server snapshot ${APP} req/s, nginx static ${NGX} req/s (server ÷ nginx = {float(\"$APP\")/float(\"$NGX\"):.2f})')"
kill "$NGINX_PID"

# The live map, against the server and against the peer on the same seat map.
PEER_PORT="$(free_port)"
node "$ROOT/bench/peer/live-peer.mjs" "$PEER_PORT" "$DIR/seats.json" &
PEER=$!
CLEANUP+=("kill $PEER")
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$PEER_PORT/showtimes" >/dev/null && break; sleep 0.1; done
BENCH_BASE="http://127.0.0.1:$PORT" BENCH_SERVER_PID=$SERVER \
  BENCH_PEER_BASE="http://127.0.0.1:$PEER_PORT" BENCH_PEER_PID=$PEER "$BIN/live-bench"
# Nothing of the benchmark keeps running: the cleanup stops the peer and the server.
