#!/usr/bin/env bash
# The hold benchmark (see BENCHMARKS.md): the engine against pgbench running the identical
# statement, at concurrency 1, 8, 64, 256, on a throwaway PostgreSQL (max_connections=600)
# unless BENCH_DATABASE_URL is given. Options: BENCH_SECONDS (10), BENCH_TTL_MS (1000),
# BENCH_CONCURRENCY (1,8,64,256).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
export BENCH_DATABASE_URL="${BENCH_DATABASE_URL:-}"
if [ -z "$BENCH_DATABASE_URL" ]; then
  start_throwaway_postgres "-c max_connections=600 -c shared_buffers=256MB"
  BENCH_DATABASE_URL="$THROWAWAY_PG_URL"
fi
export PGBENCH="${PGBENCH:-$(command -v pgbench || echo "$(pg_bin)/pgbench")}"
cargo build --release -p bench --bin hold-bench
"$CARGO_TARGET_DIR/release/hold-bench"
