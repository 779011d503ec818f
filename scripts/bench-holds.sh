#!/usr/bin/env bash
# The hold benchmark (see BENCHMARKS.md): the engine against pgbench running the identical
# statement, at concurrency 1, 8, 64, 256, on a throwaway PostgreSQL (max_connections=600)
# unless BENCH_DATABASE_URL is given. Options: BENCH_SECONDS (10), BENCH_TTL_MS (1000),
# BENCH_CONCURRENCY (1,8,64,256). BENCH_SMOKE=1: debug build, 1 s at 1 and 8 (the test
# command's check that it still runs).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
export BENCH_DATABASE_URL="${BENCH_DATABASE_URL:-}"
if [ -z "$BENCH_DATABASE_URL" ]; then
  start_throwaway_postgres "-c max_connections=600 -c shared_buffers=256MB"
  BENCH_DATABASE_URL="$THROWAWAY_PG_URL"
fi
export PGBENCH="${PGBENCH:-$(command -v pgbench || echo "$(pg_bin)/pgbench")}"
export BENCH_SECONDS="$(bench_option BENCH_SECONDS 10 1)"
export BENCH_CONCURRENCY="$(bench_option BENCH_CONCURRENCY 1,8,64,256 1,8)"
bench_build -p bench --bin hold-bench
"$BIN/hold-bench"
