#!/usr/bin/env bash
# The best-available benchmark (see BENCHMARKS.md): the pick alone on a 1,000-seat hall 80 % sold,
# then best-available holds against plain holds of free pairs, 64 clients each, on a throwaway
# PostgreSQL unless BENCH_DATABASE_URL is given. Options: BENCH_SECONDS (10), BENCH_CLIENTS (64),
# BENCH_PICKS (2000). BENCH_SMOKE=1: debug build, 1 s, 8 clients, 50 picks.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
export BENCH_DATABASE_URL="${BENCH_DATABASE_URL:-}"
if [ -z "$BENCH_DATABASE_URL" ]; then
  start_throwaway_postgres "-c max_connections=600 -c shared_buffers=256MB"
  BENCH_DATABASE_URL="$THROWAWAY_PG_URL"
fi
export BENCH_SECONDS="$(bench_option BENCH_SECONDS 10 1)"
export BENCH_CLIENTS="$(bench_option BENCH_CLIENTS 64 8)"
export BENCH_PICKS="$(bench_option BENCH_PICKS 2000 50)"
bench_build -p bench --bin pick-bench
"$BIN/pick-bench"
