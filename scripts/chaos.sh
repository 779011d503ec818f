#!/usr/bin/env bash
# The chaos run (see docs/chaos.md): starts the reference deployment (scripts/cluster.sh) on its
# own ports, drives a sale through its balancer (`chaos load`: customers holding, cancelling,
# paying and declining on the sandbox's page, cancelling bookings; the quieter showtime's customers
# queueing in its waiting room first; a clerk selling at the counter; live seat maps open), and
# injects faults one after another with recovery time between. Then it lets the system settle
# and runs the invariant checker (`chaos check`), and writes a Markdown report.
#
#   scripts/chaos.sh                      the run; fails when an invariant does not hold
#   CHAOS_CONTROL=1 scripts/chaos.sh      the control: guarantees broken on purpose (the
#                                         database frees two booked seats every 2 s, as a broken
#                                         release statement would, and the waiting room lets in
#                                         ten times its max_active); fails unless the checker fails
#
# Settings: CHAOS_REPORT (default target/chaos-report.md, or chaos-control.md), CHAOS_WINDOW
# (seconds each fault lasts where the fault has no length of its own, 20), CHAOS_RECOVERY
# (seconds between faults, 20), CHAOS_REDIS_DOWN (30), CHAOS_BROKER_FROZEN (60),
# CHAOS_GATEWAY_DOWN (60), CHAOS_CUSTOMERS (24), CHAOS_VIEWERS (12), CLUSTER_BUILD (release or
# debug; debug with CLUSTER_SITE set reuses the tests' site).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

CONTROL="${CHAOS_CONTROL:-0}"
export CLUSTER_DIR="${CLUSTER_DIR:-/tmp/seats-chaos}" CLUSTER_PORT="${CLUSTER_PORT:-8090}"
export CLUSTER_BASE="${CLUSTER_BASE:-18100}"
if [ "$CONTROL" = 1 ]; then default_report=chaos-control.md; else default_report=chaos-report.md; fi
REPORT="${CHAOS_REPORT:-$ROOT/target/$default_report}"
WINDOW="${CHAOS_WINDOW:-20}"
RECOVERY="${CHAOS_RECOVERY:-20}"
REDIS_DOWN="${CHAOS_REDIS_DOWN:-30}"
BROKER_FROZEN="${CHAOS_BROKER_FROZEN:-60}"
GATEWAY_DOWN="${CHAOS_GATEWAY_DOWN:-60}"
CLUSTER="$ROOT/scripts/cluster.sh"
OUT="$(mktemp -d /tmp/seats-chaos-run.XXXXXX)"
# CHAOS_KEEP=1: the cluster and the run's files stay for a look (scripts/cluster.sh stop after).
[ "${CHAOS_KEEP:-0}" = 1 ] || CLEANUP+=("$CLUSTER stop" "rm -rf $OUT")

command -v faketime >/dev/null || apt_install faketime
if [ "${CLUSTER_BUILD:-release}" = release ]; then
  cargo build --release -p bench --bin chaos
  BIN="$CARGO_TARGET_DIR/release"
else
  cargo build -p bench --bin chaos
  BIN="$CARGO_TARGET_DIR/debug"
fi

# Holds of 4 minutes (a checkout needs 3 left), so that walked-away holds come back during the
# run; a lost callback is reconciled with the gateway after 20 s; every customer comes from
# 127.0.0.1.
HOLD_TTL_SECONDS="${HOLD_TTL_SECONDS:-240}" SWEEP_INTERVAL_SECONDS=1 HELD_SEATS_PER_ADDRESS=0 \
  HOLD_RATE_PER_ADDRESS=0 HOLD_RATE_PER_MINUTE=0 CHECKOUT_RATE_PER_ADDRESS=0 CHECKOUT_RATE_PER_MINUTE=0 \
  RECONCILE_AFTER_SECONDS=20 RECONCILE_INTERVAL_SECONDS=5 MAIL_POLL_SECONDS=1 \
  MAX_CONNECTIONS_PER_ADDRESS=100000 MAX_LIVE_VIEWERS_PER_ADDRESS=100000 MAX_QUEUE_PAGES_PER_ADDRESS=100000 \
  WAITING_ROOM_PLACES_PER_ADDRESS=100000 WAITING_ROOM_POLL_SECONDS=1 \
  "$CLUSTER" start
set -a
source "$CLUSTER_DIR/cluster.env"
set +a
PSQL=("$(pg_bin)/psql" -qAt "$DATABASE_DIRECT_URL")
# The clerk who sells at the counter during the run (`server staff add`, as an operator would).
export CHAOS_CLERK_PASSWORD="chaos clerk password $RANDOM$RANDOM"
SERVER_BIN="$CARGO_TARGET_DIR/${CLUSTER_BUILD:-release}/server"
printf '%s\n' "$CHAOS_CLERK_PASSWORD" | DATABASE_URL="$DATABASE_DIRECT_URL" RUST_LOG=error \
  "$SERVER_BIN" staff add chaos-clerk --role clerk >/dev/null
SANDBOX="$PAYMENT_GATEWAY_URL"

now() { date +%s; }
WINDOWS="$OUT/windows.tsv"
# A fault: $1 names it; it started at $2 and was over (recovered) at $3.
window() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$WINDOWS"; log "fault: $1 ($(($3 - $2)) s)"; }
# The sandbox's faults for every new session from now on (duplicate, late or lost callbacks).
gateway_faults() { curl -fsS -X PUT -H 'content-type: application/json' -d "$1" "$SANDBOX/v1/faults" >/dev/null; }
server_of_pid() {
  local n
  for n in 1 2 3; do
    [ "$(cat "$CLUSTER_DIR/pids/server$n.pid")" = "$1" ] && { echo "server$n"; return; }
  done
}

log "the sale starts (customers ${CHAOS_CUSTOMERS:-24}, viewers ${CHAOS_VIEWERS:-12})"
CHAOS_URL="$PUBLIC_URL" "$BIN/chaos" load "$OUT" >"$OUT/load.log" 2>&1 &
LOAD=$!
CLEANUP+=("kill $LOAD")
if [ "$CONTROL" = 1 ]; then
  log "control: the database frees two booked seats every 2 s"
  (
    while [ ! -f "$OUT/stop" ]; do
      "${PSQL[@]}" -c "update show_seat set status = 'AVAILABLE', booking_id = null, hold_id = null,
        customer_id = null, hold_expires_at = null, version = version + 1
        where (showtime_id, seat_code) in (select showtime_id, seat_code from show_seat
          where status = 'BOOKED' order by random() limit 2)" >/dev/null 2>&1 || true
      sleep 2
    done
  ) &
  CLEANUP+=("kill $!")
  log "control: the waiting room lets in ten times its max_active (behind the checker's back)"
  until [ -s "$OUT/room.txt" ]; do sleep 1; done
  read -r ROOM MAX_ACTIVE <"$OUT/room.txt"
  "${PSQL[@]}" -c "update showtime set room_max_active = $((MAX_ACTIVE * 10)) where id = $ROOM" >/dev/null
fi
sleep "$RECOVERY"
BUSY="$(head -1 "$OUT/showtimes.txt")"

# 1. An instance killed with SIGKILL, then started again.
gateway_faults '{"duplicateCallback": true}'
t=$(now); "$CLUSTER" kill server2 KILL; sleep "$WINDOW"; "$CLUSTER" revive server2
window "kill -9 of an instance (server2); callbacks duplicated" "$t" "$(now)"; sleep "$RECOVERY"

# 2. PostgreSQL restarted (fast shutdown: every connection cut).
gateway_faults '{"callbackDelaySeconds": 5}'
t=$(now); "$CLUSTER" kill postgres; sleep 5; "$CLUSTER" revive postgres
window "PostgreSQL restarted; callbacks 5 s late" "$t" "$(now)"; sleep "$RECOVERY"

# 3. PgBouncer restarted.
t=$(now); "$CLUSTER" kill pgbouncer INT; sleep 5; "$CLUSTER" revive pgbouncer
window "PgBouncer restarted" "$t" "$(now)"; sleep "$RECOVERY"

# 4. The Redis master of the busiest showtime's slot killed (its keys carry {showtime}).
gateway_faults '{"dropCallback": true}'
slot="$(redis-cli -p $((CLUSTER_BASE + 10)) cluster keyslot "$BUSY")"
port="$(redis-cli -p $((CLUSTER_BASE + 10)) cluster nodes | awk -v s="$slot" '
  /master/ { for (i = 9; i <= NF; i++) { split($i, r, "-"); if (r[2] == "") r[2] = r[1];
    if (s >= r[1] && s <= r[2]) { split($2, a, "[:@]"); print a[2] } } }')"
node="redis$((port - CLUSTER_BASE - 9))"
t=$(now); "$CLUSTER" kill "$node" KILL; sleep "$WINDOW"; "$CLUSTER" revive "$node"
window "Redis master of slot $slot (showtime $BUSY, $node) killed; callbacks lost" "$t" "$(now)"
sleep "$RECOVERY"
gateway_faults '{}'

# 5. All of Redis stopped.
t=$(now)
for n in 1 2 3; do "$CLUSTER" kill "redis$n"; done
sleep "$REDIS_DOWN"
for n in 1 2 3; do "$CLUSTER" revive "redis$n"; done
window "all of Redis stopped" "$t" "$(now)"; sleep "$RECOVERY"

# 6. The broker frozen.
t=$(now); kill -STOP "$(cat "$CLUSTER_DIR/pids/broker.pid")"; sleep "$BROKER_FROZEN"
kill -CONT "$(cat "$CLUSTER_DIR/pids/broker.pid")"
window "the broker frozen (SIGSTOP)" "$t" "$(now)"; sleep "$RECOVERY"

# 7. The instance holding the relay's lease killed (its owner names its process).
owner="$("${PSQL[@]}" -c "select owner from relay_lease where expires_at > now() limit 1")"
relay="$(server_of_pid "$(echo "$owner" | awk '{print $2}')")"
relay="${relay:-server1}"
t=$(now); "$CLUSTER" kill "$relay" KILL; sleep "$WINDOW"; "$CLUSTER" revive "$relay"
window "the relay's instance ($relay) killed" "$t" "$(now)"; sleep "$RECOVERY"

# 8. The payment gateway unreachable (frozen: connections hang, nothing answers).
t=$(now); kill -STOP "$(cat "$CLUSTER_DIR/pids/sandbox.pid")"; sleep "$GATEWAY_DOWN"
kill -CONT "$(cat "$CLUSTER_DIR/pids/sandbox.pid")"
window "the payment gateway unreachable" "$t" "$(now)"; sleep "$RECOVERY"

# 9. One instance's clock five minutes fast (holds and confirmations go by the database's).
t=$(now); "$CLUSTER" kill server3
LD_PRELOAD="$(dpkg -L libfaketime | grep 'libfaketime.so.1$' | head -1)" FAKETIME="+300s" \
  DONT_FAKE_MONOTONIC=1 "$CLUSTER" revive server3
sleep "$WINDOW"; "$CLUSTER" kill server3; "$CLUSTER" revive server3
window "server3's clock 5 minutes fast" "$t" "$(now)"; sleep "$RECOVERY"

log "the sale stops; waiting for the system to settle"
touch "$OUT/stop"
wait "$LOAD" || { tail -20 "$OUT/load.log" >&2; exit 1; }
# Lost callbacks are reconciled after 20 s; then the outbox and the mail queue drain.
sleep 30
for _ in $(seq 1 60); do
  left="$("${PSQL[@]}" -c "select (select count(*) from outbox where published_at is null
      and event_type in ('BookingConfirmed','BookingFailed','RefundIssued','SeatsExchanged','RefundOwed'))
    + (select count(*) from outgoing_mail where status = 'queued')
    + (select count(*) from payment where status = 'PENDING' and created_at < now() - interval '10 minutes')")"
  [ "$left" = 0 ] && break
  sleep 2
done
# And until every consumer group has read the topic to its end (a group whose partition was
# left unread reads it once one of its members rejoins: at least a minute, see operating.md).
for _ in $(seq 1 36); do
  CHAOS_BROKERS="$KAFKA_BROKERS" "$BIN/chaos" settled "$OUT" >/dev/null 2>&1 && break
  sleep 5
done

log "checking the invariants"
set +e
CHAOS_DATABASE_URL="$DATABASE_DIRECT_URL" CHAOS_BROKERS="$KAFKA_BROKERS" CHAOS_SANDBOX_URL="$SANDBOX" \
  CHAOS_MAILDIR="$CLUSTER_DIR/smtp" "$BIN/chaos" check "$OUT" >"$OUT/invariants.md" 2>"$OUT/check.log"
held=$?
set -e
[ -s "$OUT/invariants.md" ] || { cat "$OUT/check.log" >&2; exit 1; }

# Answers per fault window (from its start to the end of its recovery).
windows_table() {
  echo "| fault | seconds | answers | 2xx | 4xx | 5xx | no answer |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' -v rec="$RECOVERY" 'NR == FNR { if (FNR > 1) { n[$1 " " $2] += $3 } ; next }
    { name = $1; from = $2; to = $3 + rec; c2 = c4 = c5 = ce = 0
      for (k in n) { split(k, p, " "); if (p[1] >= from && p[1] < to) {
        if (p[2] == "2xx") c2 += n[k]; else if (p[2] == "4xx") c4 += n[k];
        else if (p[2] == "5xx") c5 += n[k]; else ce += n[k] } }
      printf "| %s | %d | %d | %d | %d | %d | %d |\n", name, to - from, c2 + c4 + c5 + ce, c2, c4, c5, ce }' \
    "$OUT/requests.tsv" "$WINDOWS"
}
mkdir -p "$(dirname "$REPORT")"
{
  if [ "$CONTROL" = 1 ]; then echo "# Chaos run: the control ($(date -u +%F))"; else echo "# Chaos run ($(date -u +%F))"; fi
  echo
  echo "The reference deployment (scripts/cluster.sh: three instances behind HAProxy, PgBouncer in"
  echo "transaction mode, a 3-master Redis Cluster, tansu, the payment sandbox, an SMTP sink),"
  echo "${CHAOS_CUSTOMERS:-24} customers and ${CHAOS_VIEWERS:-12} live seat maps through the balancer,"
  echo "showtimes $(paste -sd, "$OUT/showtimes.txt"). Holds of ${HOLD_TTL_SECONDS:-240} s."
  echo "A clerk sold pairs at the counter for cash; showtime $(cut -f1 "$OUT/room.txt" 2>/dev/null) had its waiting"
  echo "room on (max_active $(cut -f2 "$OUT/room.txt" 2>/dev/null)), so its customers queued before holding."
  [ "$CONTROL" = 1 ] && echo "**Control**: the database freed two booked seats every 2 s (a broken release), and the room let in ten times its max_active."
  echo
  echo "## Answers by fault window (each from the fault's start to the end of its ${RECOVERY} s recovery)"
  echo
  windows_table
  echo
  awk -F'\t' 'FNR > 1 { n[$2] += $3 } END { printf "Whole run: %d answers; 2xx %d, 4xx %d, 5xx %d, no answer %d.\n", n["2xx"] + n["4xx"] + n["5xx"] + n["error"], n["2xx"], n["4xx"], n["5xx"], n["error"] }' "$OUT/requests.tsv"
  echo
  echo "## 5xx and unanswered requests, by request and answer"
  echo
  echo '```'
  cut -f2,3 "$OUT/5xx.tsv" | sed 's/[0-9a-f]\{8\}-[0-9a-f-]\{27\}/{id}/g' | sort | uniq -c | sort -rn | head -30
  echo '```'
  echo
  echo "## Every answer other than 2xx, by request, status and code"
  echo
  echo '```'
  sort -rn "$OUT/refusals.tsv"
  echo '```'
  echo
  echo "## Invariants (after the sale stopped and the system settled)"
  echo
  cat "$OUT/invariants.md"
  echo
  if [ $held = 0 ]; then echo "Every invariant held."; else echo "**An invariant did not hold.**"; fi
} >"$REPORT"
cat "$REPORT"
cp "$OUT"/*.tsv "$(dirname "$REPORT")/" 2>/dev/null || true
if [ "$CONTROL" = 1 ]; then
  [ $held != 0 ] || { log "the control's broken guarantee went unnoticed: the checker proves nothing"; exit 1; }
  log "the control failed the checker, as it must"
else
  [ $held = 0 ] || { log "an invariant did not hold (see $REPORT)"; exit 1; }
  log "every invariant held (report: $REPORT)"
fi
