#!/usr/bin/env bash
# The reference deployment on one machine: PostgreSQL behind PgBouncer in transaction mode, a
# 3-master Redis Cluster, a Kafka-compatible broker (tansu), the payment sandbox, an SMTP sink,
# three server instances sharing SESSION_SECRET and TICKET_KEYS, and HAProxy in front of them
# (round-robin per request, WebSocket upgrade, no stickiness) on one public port.
#
#   scripts/cluster.sh start     build (release) and start everything; prints the public address
#   scripts/cluster.sh stop      stop everything and remove its folder
#   scripts/cluster.sh status    what runs, and which instance answered each of six requests
#   scripts/cluster.sh kill NAME / revive NAME   one part (server1..3, postgres, pgbouncer,
#                                redis1..3, broker, sandbox, smtp, balancer), for fault drills
#
# Settings (environment): CLUSTER_DIR (default /tmp/seats-cluster), CLUSTER_PORT (the public
# port, default 8080), CLUSTER_BASE (first internal port, default 18000: PostgreSQL +0,
# PgBouncer +1, Redis +10..+12 and their bus ports +10000, the broker +20, the sandbox +30, SMTP
# +31, the instances +41..+43), CLUSTER_BUILD (release or debug), CLUSTER_SITE (a site already
# built, e.g. the tests'). Every other server setting in the environment (HOLD_TTL_SECONDS, …)
# reaches the three instances; the shared secrets are generated unless given. The servers'
# settings are kept in $CLUSTER_DIR/cluster.env; their logs in $CLUSTER_DIR/logs.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

DIR="${CLUSTER_DIR:-/tmp/seats-cluster}"
PORT="${CLUSTER_PORT:-8080}"
BASE="${CLUSTER_BASE:-18000}"
BUILD="${CLUSTER_BUILD:-release}"
PG_PORT=$BASE
BOUNCER_PORT=$((BASE + 1))
REDIS_PORTS=($((BASE + 10)) $((BASE + 11)) $((BASE + 12)))
BROKER_PORT=$((BASE + 20))
SANDBOX_PORT=$((BASE + 30))
SMTP_PORT=$((BASE + 31))
SERVER_PORTS=($((BASE + 41)) $((BASE + 42)) $((BASE + 43)))
# PostgreSQL and PgBouncer refuse to run as root: they run as `postgres` then (setpriv execs,
# so a signal to the recorded pid reaches PgBouncer itself).
AS_PG=()
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  AS_PG=(setpriv --reuid=postgres --regid=postgres --init-groups)
fi

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Waits until $2 (a command) succeeds, for at most $3 seconds (default 60); $1 names it.
wait_for() {
  local what="$1" check="$2" limit="${3:-60}" i
  for ((i = 0; i < limit * 10; i++)); do
    if eval "$check" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  log "$what did not come up within ${limit}s; its log:"
  tail -n 30 "$DIR/logs/$what.log" >&2 2>/dev/null || true
  return 1
}

# Starts a long-running process detached from this shell, its output in logs/NAME.log.
spawn() {
  local name="$1"
  shift
  setsid "$@" >>"$DIR/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$DIR/pids/$name.pid"
}

pid_of() { cat "$DIR/pids/$1.pid" 2>/dev/null; }
running() { local p; p="$(pid_of "$1")" && [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }

# Stops the process NAME: SIGTERM, then SIGKILL after 10 s ($2 = KILL: at once).
halt() {
  local name="$1" signal="${2:-TERM}" p i
  p="$(pid_of "$name")" || return 0
  kill "-$signal" "$p" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$p" 2>/dev/null || true
  rm -f "$DIR/pids/$name.pid"
}

start_postgres() {
  local bin
  bin="$(pg_bin)"
  if [ ! -d "$DIR/pg/data" ]; then
    mkdir -p "$DIR/pg"
    [ ${#AS_PG[@]} -eq 0 ] || chown postgres "$DIR/pg"
    "${AS_PG[@]}" "$bin/initdb" -D "$DIR/pg/data" -U postgres --auth=trust >/dev/null
  fi
  "${AS_PG[@]}" "$bin/pg_ctl" -D "$DIR/pg/data" -l "$DIR/logs/postgres.log" -w \
    -o "-p $PG_PORT -k $DIR/pg -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
  head -1 "$DIR/pg/data/postmaster.pid" >"$DIR/pids/postgres.pid"
}

stop_postgres() {
  [ -d "$DIR/pg/data" ] || return 0
  "${AS_PG[@]}" "$(pg_bin)/pg_ctl" -D "$DIR/pg/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -f "$DIR/pids/postgres.pid"
}

start_pgbouncer() {
  mkdir -p "$DIR/pgbouncer"
  # Transaction mode: a server connection is lent for one transaction. The driver's named
  # prepared statements are kept per client by PgBouncer (max_prepared_statements, 1.21+).
  cat >"$DIR/pgbouncer/pgbouncer.ini" <<EOF
[databases]
seats = host=127.0.0.1 port=$PG_PORT dbname=seats user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $BOUNCER_PORT
unix_socket_dir =
auth_type = trust
auth_file = $DIR/pgbouncer/users.txt
pool_mode = transaction
max_prepared_statements = 500
default_pool_size = 40
max_client_conn = 2000
ignore_startup_parameters = extra_float_digits
server_reset_query =
server_check_delay = 1
server_login_retry = 1
log_connections = 0
log_disconnections = 0
EOF
  echo '"postgres" ""' >"$DIR/pgbouncer/users.txt"
  spawn pgbouncer "${AS_PG[@]}" "$PGBOUNCER" "$DIR/pgbouncer/pgbouncer.ini"
}

start_redis() {
  local n="$1" port="${REDIS_PORTS[$(($1 - 1))]}"
  mkdir -p "$DIR/redis$n"
  redis-server --port "$port" --bind 127.0.0.1 --cluster-enabled yes \
    --cluster-config-file "$DIR/redis$n/nodes.conf" --cluster-node-timeout 2000 \
    --save '' --appendonly no --dir "$DIR/redis$n" --daemonize yes \
    --pidfile "$DIR/pids/redis$n.pid" --logfile "$DIR/logs/redis$n.log" >/dev/null
}

start_redis_cluster() {
  local n
  for n in 1 2 3; do start_redis "$n"; done
  for n in 0 1 2; do wait_for "redis$((n + 1))" "redis-cli -p ${REDIS_PORTS[$n]} ping"; done
  redis-cli --cluster create "${REDIS_PORTS[@]/#/127.0.0.1:}" --cluster-replicas 0 --cluster-yes \
    >>"$DIR/logs/redis-cluster.log" 2>&1
  for n in 0 1 2; do
    wait_for redis-cluster "redis-cli -p ${REDIS_PORTS[$n]} cluster info | grep -q cluster_state:ok"
  done
}

start_broker() {
  spawn broker env RUST_LOG=warn tansu broker --listener-url "tcp://127.0.0.1:$BROKER_PORT" \
    --advertised-listener-url "tcp://127.0.0.1:$BROKER_PORT" --storage-engine memory://tansu/
}

start_sandbox() {
  spawn sandbox env SANDBOX_ADDR="127.0.0.1:$SANDBOX_PORT" RUST_LOG=warn \
    PAYMENT_WEBHOOK_SECRET="$PAYMENT_WEBHOOK_SECRET" "$CARGO_TARGET_DIR/$BUILD/payment-sandbox"
}

start_smtp() {
  mkdir -p "$DIR/smtp/tmp" "$DIR/smtp/new" "$DIR/smtp/cur"
  spawn smtp /usr/bin/python3 -m aiosmtpd -n -l "127.0.0.1:$SMTP_PORT" \
    -c aiosmtpd.handlers.Mailbox "$DIR/smtp"
}

start_server() {
  local n="$1" port="${SERVER_PORTS[$(($1 - 1))]}"
  mkdir -p "$DIR/server$n"
  spawn "server$n" env LEPTOS_SITE_ADDR="127.0.0.1:$port" DATA_DIR="$DIR/server$n" \
    "$CARGO_TARGET_DIR/$BUILD/server"
}

start_balancer() {
  local n limit
  # Two descriptors per proxied connection (the client's and the instance's).
  limit="$(ulimit -n)"
  [ "$limit" = unlimited ] && limit=40000
  {
    cat <<EOF
global
  maxconn $(((limit - 100) / 2 > 16000 ? 16000 : (limit - 100) / 2))
  stats socket $DIR/balancer.sock mode 600 level admin

defaults
  mode http
  option forwardfor
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  # A live seat map's WebSocket stays open as long as its page.
  timeout tunnel 1h
  timeout http-request 10s
  # An instance that stopped answering: the request goes to another one where it is safe.
  retries 2
  option redispatch

frontend public
  bind 127.0.0.1:$PORT
  default_backend instances

backend instances
  # Each request to the next instance: no stickiness, no cookie.
  balance roundrobin
  option httpchk GET /health
  http-check expect status 200
  default-server inter 1s fall 2 rise 1
  # Which instance answered (the tests check that one customer's requests are spread).
  http-response set-header X-Served-By %[srv_name]
EOF
    for n in 1 2 3; do echo "  server server$n 127.0.0.1:${SERVER_PORTS[$((n - 1))]} check"; done
  } >"$DIR/balancer.cfg"
  haproxy -q -f "$DIR/balancer.cfg" -c >/dev/null
  spawn balancer haproxy -db -f "$DIR/balancer.cfg"
}

# The servers' settings: shared secrets (generated once per cluster), every part's address.
secret() { od -An -tx1 -N24 /dev/urandom | tr -d ' \n'; }
# KEY=value, quoted for the shell (cluster.env is sourced).
put() { printf '%s=%q\n' "$1" "$2"; }
write_env() {
  {
    put DATABASE_URL "postgres://postgres@127.0.0.1:$BOUNCER_PORT/seats"
    put DATABASE_DIRECT_URL "postgres://postgres@127.0.0.1:$PG_PORT/seats"
    put DB_MAX_CONNECTIONS "${DB_MAX_CONNECTIONS:-32}"
    put REDIS_URL "$(printf 'redis://127.0.0.1:%s,' "${REDIS_PORTS[@]}" | sed 's/,$//')"
    put REDIS_CLUSTER "1"
    put KAFKA_BROKERS "127.0.0.1:$BROKER_PORT"
    put SESSION_SECRET "${SESSION_SECRET:-$(secret)}"
    put TICKET_KEYS "${TICKET_KEYS:-k1:$(secret)}"
    put PAYMENT_WEBHOOK_SECRET "${PAYMENT_WEBHOOK_SECRET:-$(secret)}"
    put PAYMENT_GATEWAY_URL "http://127.0.0.1:$SANDBOX_PORT"
    put SMTP_URL "smtp://127.0.0.1:$SMTP_PORT"
    put OPERATOR_PASSWORD "${OPERATOR_PASSWORD:-$(secret)}"
    put PUBLIC_URL "http://127.0.0.1:$PORT"
    put TRUSTED_PROXIES "127.0.0.1/32"
    put LEPTOS_SITE_ROOT "${CLUSTER_SITE:-$ROOT/target/site}"
    put LEPTOS_ENV "PROD"
    put RUST_LOG "${RUST_LOG:-warn}"
  } >"$DIR/cluster.env"
  # Every other server setting (.env.example names them all) given to `start`, so that an
  # instance started again (revive) runs as the others do.
  local name
  for name in $(sed -n 's/^# *\([A-Z][A-Z0-9_]*\)=.*/\1/p' "$ROOT/.env.example" | sort -u); do
    grep -q "^$name=" "$DIR/cluster.env" && continue
    [ -n "${!name+set}" ] && put "$name" "${!name}" >>"$DIR/cluster.env"
  done
  return 0
}

load_env() {
  set -a
  # shellcheck disable=SC1091
  source "$DIR/cluster.env"
  set +a
}

# Starts part NAME (all its settings from cluster.env) and waits until it answers.
revive() {
  local name="$1"
  load_env
  case "$name" in
    postgres) start_postgres; wait_for postgres "$(pg_bin)/pg_isready -q -h 127.0.0.1 -p $PG_PORT" ;;
    pgbouncer) start_pgbouncer; wait_for pgbouncer "port_open $BOUNCER_PORT" ;;
    redis[123]) start_redis "${name#redis}"; wait_for "$name" "redis-cli -p ${REDIS_PORTS[$((${name#redis} - 1))]} ping" ;;
    broker) start_broker; wait_for broker "port_open $BROKER_PORT" ;;
    sandbox) start_sandbox; wait_for sandbox "curl -fsS http://127.0.0.1:$SANDBOX_PORT/health" ;;
    smtp) start_smtp; wait_for smtp "port_open $SMTP_PORT" ;;
    server[123])
      start_server "${name#server}"
      wait_for "$name" "curl -fsS http://127.0.0.1:${SERVER_PORTS[$((${name#server} - 1))]}/health" 120
      ;;
    balancer) start_balancer; wait_for balancer "port_open $PORT" ;;
    *) echo "unknown part: $name" >&2; return 2 ;;
  esac
}

kill_part() {
  local name="$1"
  case "$name" in
    postgres) stop_postgres ;;
    *) halt "$name" "${2:-TERM}" ;;
  esac
}

start() {
  if [ -f "$DIR/cluster.env" ]; then
    echo "a cluster already runs from $DIR (scripts/cluster.sh stop first)" >&2
    exit 1
  fi
  local p
  for p in "$PORT" "$PG_PORT" "$BOUNCER_PORT" "${REDIS_PORTS[@]}" "$BROKER_PORT" "$SANDBOX_PORT" \
    "$SMTP_PORT" "${SERVER_PORTS[@]}"; do
    if port_open "$p"; then echo "port $p is taken (set CLUSTER_PORT or CLUSTER_BASE)" >&2; exit 1; fi
  done
  command -v haproxy >/dev/null || apt_install haproxy
  command -v redis-server >/dev/null || apt_install redis-server
  ensure_pgbouncer
  ensure_tansu
  ensure_smtp_server
  if [ -z "${CLUSTER_SITE:-}" ]; then
    ensure_rust_tools
    ensure_node_packages
    log "building ($BUILD)"
    build_site "$BUILD"
  fi
  mkdir -p "$DIR/logs" "$DIR/pids"
  # PostgreSQL writes its own log there.
  [ ${#AS_PG[@]} -eq 0 ] || chown postgres "$DIR/logs"
  # Anything that fails from here stops what was started.
  set -o errtrace
  trap 'log "the cluster did not start; stopping what did"; stop' ERR
  write_env
  load_env
  log "PostgreSQL on :$PG_PORT, PgBouncer (transaction mode) on :$BOUNCER_PORT"
  revive postgres
  "$(pg_bin)/psql" -qAt -h 127.0.0.1 -p "$PG_PORT" -U postgres -c "create database seats" >/dev/null
  revive pgbouncer
  log "Redis Cluster on :${REDIS_PORTS[*]}"
  start_redis_cluster
  log "broker on :$BROKER_PORT, payment sandbox on :$SANDBOX_PORT, SMTP sink on :$SMTP_PORT"
  revive broker
  revive sandbox
  revive smtp
  log "three instances on :${SERVER_PORTS[*]}"
  # The first one migrates and writes the demo data; then the other two.
  revive server1
  revive server2 &
  local second=$!
  revive server3
  wait "$second"
  printf '%s\n' "$OPERATOR_PASSWORD" >"$DIR/operator.password"
  revive balancer
  wait_for balancer "curl -fsS http://127.0.0.1:$PORT/health"
  trap - ERR
  log "the reference deployment answers on $PUBLIC_URL (the operator's password is in $DIR/operator.password)"
}

stop() {
  local name
  [ -d "$DIR" ] || return 0
  for name in balancer server1 server2 server3 sandbox smtp broker pgbouncer redis1 redis2 redis3; do
    halt "$name"
  done
  stop_postgres
  rm -rf "$DIR"
}

status() {
  local name i
  [ -f "$DIR/cluster.env" ] || { echo "no cluster in $DIR"; return 1; }
  for name in balancer server1 server2 server3 sandbox smtp broker pgbouncer redis1 redis2 redis3 postgres; do
    if running "$name"; then echo "$name: running (pid $(pid_of "$name"))"; else echo "$name: stopped"; fi
  done
  for i in 1 2 3 4 5 6; do
    curl -sS -o /dev/null -D - "http://127.0.0.1:$PORT/health" | tr -d '\r' | awk -F': ' 'tolower($1) == "x-served-by" {print "GET /health answered by " $2}'
  done
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  kill) kill_part "$2" "${3:-TERM}" ;;
  revive) revive "$2" ;;
  *) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
