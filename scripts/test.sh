#!/usr/bin/env bash
# Runs the whole test suite: formatting and clippy (scripts/check.sh), unit tests, the store contract suite on PostgreSQL and SQLite, the
# HTTP tests, the REST API fuzzed from its OpenAPI description (schemathesis), customers' e-mail through an SMTP server process (aiosmtpd), the outbox relay against a Kafka-compatible broker (tansu, which the relay tests
# start themselves), and the Playwright end-to-end tests in headless Chromium, on the test servers
# and then on the reference deployment (scripts/cluster.sh). Installs what is missing.
# Uses TEST_DATABASE_URL (or DATABASE_URL) / REDIS_URL when given; otherwise starts throwaway
# PostgreSQL and Redis servers for the run and stops them afterwards. Fails when any test fails.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
# The phase table is printed at the end, also when a test fails.
trap 'phase_table; cleanup' EXIT
phase "installing what is missing (the first run only)"
ensure_rust_tools
ensure_tansu
ensure_smtp_server
ensure_node_packages
ensure_chromium

phase "PostgreSQL and Redis"
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-${DATABASE_URL:-}}"
if [ -z "$TEST_DATABASE_URL" ]; then
  start_throwaway_postgres "-c max_connections=400"
  TEST_DATABASE_URL="$THROWAWAY_PG_URL"
fi
export REDIS_URL="${REDIS_URL:-}"
if [ -z "$REDIS_URL" ]; then
  start_throwaway_redis
  REDIS_URL="$THROWAWAY_REDIS_URL"
fi
unset DATABASE_URL # the server under test picks its own database
# Files the Rust tests leave in the temp folder (SQLite databases, data folders).
TMP="${TMPDIR:-/tmp}"
CLEANUP+=("rm -rf $TMP/seats-tests $TMP/seats-app-* $TMP/seats-proc-*")

phase "formatting and clippy (scripts/check.sh)"
"$ROOT/scripts/check.sh"

phase "unit, contract and HTTP tests"
# app and server only: frontend turns on app's hydrate feature, which never builds with ssr.
# A failure's message, not a backtrace, is what the end of the log should show.
RUST_BACKTRACE=0 cargo test -p app -p server -p bench

log "every benchmark, for a few seconds (BENCH_SMOKE=1): a benchmark that no longer runs fails here"
for bench in "$ROOT"/scripts/bench-*.sh; do
  phase "$(basename "$bench") (smoke)"
  BENCH_SMOKE=1 BENCH_DATABASE_URL="$TEST_DATABASE_URL" "$bench"
done

phase "the REST API fuzzed from its OpenAPI description (schemathesis; BENCHMARKS.md has the long run)"
FUZZ_EXAMPLES=15 "$ROOT/scripts/fuzz-api.sh"

phase "building the app for the end-to-end tests (and the sandbox gateway of tests/payment.spec.ts)"
# Its own site folder: a product started from this checkout (scripts/run.sh) keeps serving its
# release site while the tests run.
E2E_SITE="$CARGO_TARGET_DIR/e2e-site"
build_site debug "$E2E_SITE"
E2E_DATA_DIR="$(mktemp -d /tmp/seats-e2e.XXXXXX)"
export E2E_DATA_DIR LEPTOS_SITE_ROOT="$E2E_SITE"
CLEANUP+=("rm -rf $E2E_DATA_DIR")
# Two more server instances share this PostgreSQL database and Redis (tests/fanout.spec.ts).
E2E_DB="seats_e2e_$(date +%s)_$$"
psql "$TEST_DATABASE_URL" -qc "create database $E2E_DB"
export E2E_DATABASE_URL="${TEST_DATABASE_URL%/*}/$E2E_DB"
CLEANUP+=("psql '$TEST_DATABASE_URL' -qc 'drop database if exists $E2E_DB with (force)'")
phase "Playwright end-to-end tests (headless Chromium)"
(cd end2end && npx playwright test)

phase "the reference deployment (scripts/cluster.sh): three instances behind HAProxy, PgBouncer, a Redis Cluster"
# Its own ports and folder, so that a cluster started by hand keeps running; the same settings
# the single-server tests use (short rehold, no per-address caps: every browser is 127.0.0.1).
export CLUSTER_DIR="$TMP/seats-cluster-test-$$" CLUSTER_PORT=3910 CLUSTER_BASE=3920
CLEANUP+=("$ROOT/scripts/cluster.sh stop")
CLUSTER_BUILD=debug CLUSTER_SITE="$E2E_SITE" OPERATOR_PASSWORD="end-to-end operator password" \
  HOLD_TTL_SECONDS=600 SWEEP_INTERVAL_SECONDS=1 HELD_SEATS_PER_ADDRESS=0 HOLD_RATE_PER_ADDRESS=0 \
  WAITING_ROOM_REHOLD_SECONDS=1 WAITING_ROOM_POLL_SECONDS=2 MAIL_POLL_SECONDS=0.5 \
  "$ROOT/scripts/cluster.sh" start
(
  set -a
  source "$CLUSTER_DIR/cluster.env"
  set +a
  cd end2end
  # Its screenshots stay in its folder: the docs keep the test servers' pictures.
  E2E_PAY_PORT=$CLUSTER_PORT E2E_DATA_DIR=$CLUSTER_DIR E2E_STAFF_DATABASE_URL=$DATABASE_URL \
    E2E_SCREENSHOTS=$CLUSTER_DIR/screenshots npx playwright test --config cluster.config.ts
)
"$ROOT/scripts/cluster.sh" stop
phase_table
log "all tests passed"
