# Shared helpers for scripts/run.sh, scripts/test.sh and scripts/bench-holds.sh. Every step is
# idempotent: a tool already present at the right version is not installed again.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/seats/target}"
# Scripted builds gain nothing from incremental caches, which grow the target folder by gigabytes.
export CARGO_INCREMENTAL=0
export PATH="$HOME/.cargo/bin:$ROOT/end2end/node_modules/.bin:$PATH"
CARGO_LEPTOS_VERSION=0.3.10

# Each step with the minutes and seconds since the script started, so a slow step shows in CI logs.
log() { printf '\033[1m==> [%d:%02d] %s\033[0m\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }

apt_install() {
  log "installing Debian packages: $*"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

ensure_rust_tools() {
  rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$' \
    || { log "adding the wasm32 target"; rustup target add wasm32-unknown-unknown; }
  if [ "$(cargo leptos --version 2>/dev/null | awk '{print $2}')" != "$CARGO_LEPTOS_VERSION" ]; then
    log "installing cargo-leptos $CARGO_LEPTOS_VERSION (about 10 minutes, once)"
    cargo install --debug cargo-leptos --version "$CARGO_LEPTOS_VERSION" --locked
  fi
  # The CLI must equal the wasm-bindgen library version in Cargo.lock exactly.
  local want
  want="$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/"/, "", $3); print $3}' "$ROOT/Cargo.lock")"
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$want" ]; then
    log "installing wasm-bindgen-cli $want (about 2 minutes, once)"
    # Not --locked: its lock file names a crate version the registry snapshot lacks.
    cargo install --debug wasm-bindgen-cli --version "$want"
  fi
}

TANSU_VERSION=0.6.0

# A Kafka-compatible broker for the relay tests (server/tests/it/relay.rs), unless KAFKA_BROKERS
# names a cluster to use instead. Without the dynostore feature its in-memory storage refuses
# to start.
ensure_tansu() {
  [ -n "${KAFKA_BROKERS:-}" ] && return 0
  if [ "$(tansu --version 2>/dev/null | awk '{print $2}')" != "$TANSU_VERSION" ]; then
    log "installing tansu $TANSU_VERSION, a Kafka-compatible broker (about 10 minutes, once)"
    cargo install --debug tansu --version "$TANSU_VERSION" --locked --features dynostore
  fi
}

ensure_node_packages() {
  command -v npm >/dev/null || apt_install nodejs npm
  if [ ! -x "$ROOT/end2end/node_modules/.bin/playwright" ] || [ ! -x "$ROOT/end2end/node_modules/.bin/wasm-opt" ] \
    || [ "$ROOT/end2end/package-lock.json" -nt "$ROOT/end2end/node_modules/.package-lock.json" ]; then
    log "installing npm packages (Playwright, binaryen's wasm-opt)"
    (cd "$ROOT/end2end" && npm ci --no-audit --no-fund)
  fi
}

ensure_chromium() {
  [ -x /usr/bin/chromium ] || apt_install chromium
  # Korean glyphs for the screenshots the end-to-end tests take (cosmetic, small package).
  dpkg -s fonts-nanum >/dev/null 2>&1 || apt_install fonts-nanum || true
}

pg_bin() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  if [ -z "$dir" ]; then apt_install postgresql; dir="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"; fi
  echo "$dir"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

CLEANUP=()
cleanup() { for c in "${CLEANUP[@]}"; do eval "$c" >/dev/null 2>&1 || true; done; }
trap cleanup EXIT

# Starts a throwaway PostgreSQL (own folder, free port) and sets THROWAWAY_PG_URL. Called
# directly, not in $(…): its stop command must reach CLEANUP in this shell.
# $1: extra server options, e.g. "-c max_connections=400".
start_throwaway_postgres() {
  local bin dir port
  bin="$(pg_bin)"
  dir="$(mktemp -d /tmp/seats-pg.XXXXXX)"
  port="$(free_port)"
  local run=()
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    chown postgres "$dir"
    run=(runuser -u postgres --)
  fi
  "${run[@]}" "$bin/initdb" -D "$dir/data" -U postgres --auth=trust >/dev/null
  "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off ${1:-}" start >/dev/null
  CLEANUP+=("${run[*]} $bin/pg_ctl -D $dir/data -m immediate stop; rm -rf $dir")
  log "throwaway PostgreSQL on 127.0.0.1:$port"
  THROWAWAY_PG_URL="postgres://postgres@127.0.0.1:$port/postgres"
}

# Starts a throwaway Redis on a free port and sets THROWAWAY_REDIS_URL (call directly, as above).
start_throwaway_redis() {
  command -v redis-server >/dev/null || apt_install redis-server
  local port
  port="$(free_port)"
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --pidfile "/tmp/seats-redis-$port.pid" --logfile "/tmp/seats-redis-$port.log" >/dev/null
  CLEANUP+=("kill \$(cat /tmp/seats-redis-$port.pid); rm -f /tmp/seats-redis-$port.*")
  log "throwaway Redis on 127.0.0.1:$port"
  THROWAWAY_REDIS_URL="redis://127.0.0.1:$port"
}
