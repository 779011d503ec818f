#!/usr/bin/env bash
# The soak (see BENCHMARKS.md): 1,000,000 hold attempts from 512 concurrent clients on one
# 300-seat showtime on PostgreSQL, with 1-second holds, so seats keep coming back; no seat may be
# held for two customers at once. Then the control — the hold done as a read and then a write —
# which must be caught overselling. Memory and connections are printed every tenth of the run.
# On a throwaway PostgreSQL unless BENCH_DATABASE_URL is given. Options: BENCH_ATTEMPTS
# (1000000), BENCH_CONTROL_ATTEMPTS (100000), BENCH_CLIENTS (512), BENCH_CONNECTIONS (64),
# BENCH_TTL_MS (1000). BENCH_SMOKE=1: debug build, 20,000 attempts each, 64 clients.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
export BENCH_DATABASE_URL="${BENCH_DATABASE_URL:-}"
if [ -z "$BENCH_DATABASE_URL" ]; then
  start_throwaway_postgres "-c max_connections=600 -c shared_buffers=256MB"
  BENCH_DATABASE_URL="$THROWAWAY_PG_URL"
fi
export BENCH_ATTEMPTS="$(bench_option BENCH_ATTEMPTS 1000000 20000)"
export BENCH_CONTROL_ATTEMPTS="$(bench_option BENCH_CONTROL_ATTEMPTS 100000 20000)"
export BENCH_CLIENTS="$(bench_option BENCH_CLIENTS 512 64)"
bench_build -p bench --bin soak
"$BIN/soak"
