#!/usr/bin/env bash
# The bundle benchmark (see BENCHMARKS.md): what a phone downloads and how soon the seat map
# works. Builds the release site (both bundles, wasm-opt, brotli 11 — in a smoke run too: a debug
# bundle's size says nothing), reports each bundle's bytes raw, gzip and brotli, and fails when
# the customer's or the staff's brotli bytes pass their budget (BUDGET_CUSTOMER,
# BUDGET_STAFF). Then starts the server on that site and, in headless Chromium, measures the
# seat map's time to interactive (hydrated) after navigation with an empty cache, on an emulated
# mid-range phone (4× CPU slowdown, 10 Mbit/s, 40 ms round trip) and unthrottled, against the
# same page's HTML and stylesheet alone under the same conditions (JavaScript off), and on the
# phone how long after the server's answer "best 2" shows its hold panel. Ends with
# `ratio=<the page's HTML alone ÷ interactive, on the phone>` (1.00: the bundle would cost
# nothing). Options: BENCH_RUNS (5 visits per figure). BENCH_SMOKE=1: a debug server, 1 visit.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
ensure_rust_tools
ensure_node_packages
ensure_chromium
# The budgets the test command holds the bundles to (brotli bytes). The issue's targets are
# lower (250,000 and 450,000); BENCHMARKS.md says where the bytes go, and why the staff's budget
# was raised on 2026-12-03 and 2026-12-04, the customer's three times on 2026-12-04; both were
# lowered on 2026-12-06 and 2026-12-07.
BUDGET_CUSTOMER="${BUDGET_CUSTOMER:-393500}"
BUDGET_STAFF="${BUDGET_STAFF:-566500}"
export BENCH_RUNS="$(bench_option BENCH_RUNS 5 1)"

SITE="$CARGO_TARGET_DIR/bench-site"
build_bundles release "$SITE"
bench_build -p server --bin server
PKG="$SITE/$(leptos_option site-pkg-dir)"
NAME="$(leptos_option output-name)"
size() { stat -c %s "$1"; }
fail=0
for bundle in customer staff; do
  if [ "$bundle" = customer ]; then stem="$NAME"; budget="$BUDGET_CUSTOMER"; else stem="$NAME-staff"; budget="$BUDGET_STAFF"; fi
  wasm="$(ls "$PKG/$stem".*.wasm)"
  js="$(ls "$PKG/$stem".*.js)"
  br=$(($(size "$wasm.br") + $(size "$js.br")))
  echo "$bundle bundle: WebAssembly $(size "$wasm") bytes ($(size "$wasm.gz") gzip, $(size "$wasm.br") brotli), JavaScript $(size "$js") bytes ($(size "$js.br") brotli); $br bytes brotli in all, budget $budget"
  if [ "$br" -gt "$budget" ]; then
    log "the $bundle bundle is over its budget: $br > $budget bytes brotli"
    fail=1
  fi
done
css="$(ls "$PKG/$NAME".*.css)"
echo "stylesheet (both): $(size "$css") bytes ($(size "$css.br") brotli)"
[ "$fail" = 0 ] || exit 1

DIR="$(mktemp -d /tmp/seats-bundle-bench.XXXXXX)"
CLEANUP+=("rm -rf $DIR")
PORT="$(free_port)"
LEPTOS_SITE_ADDR="127.0.0.1:$PORT" LEPTOS_SITE_ROOT="$SITE" DATA_DIR="$DIR/data" DATABASE_URL="" REDIS_URL="" \
  RUST_LOG=warn "$BIN/server" &
SERVER=$!
CLEANUP+=("kill $SERVER")
for _ in $(seq 1 150); do curl -fs "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.2; done
(cd end2end && BENCH_BASE="http://127.0.0.1:$PORT" BENCH_OUT="$DIR/interactive.json" \
  npx playwright test --config bench.config.ts >"$DIR/playwright.log" 2>&1) || { cat "$DIR/playwright.log"; exit 1; }
python3 - "$DIR/interactive.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for name, what in (("phone", "emulated phone (4x CPU, 10 Mbit/s, 40 ms)"), ("unthrottled", "unthrottled")):
    f = r[name]
    runs = ", ".join(f"{x:.0f}" for x in f["interactive"])
    print(f"seat map {r['path']}, {what}: interactive {f['interactiveMedian']:.0f} ms after navigation "
          f"(median of {len(f['interactive'])}: {runs}); HTML and stylesheet alone {f['htmlMedian']:.0f} ms")
b = r["best"]
print(f"best 2 on the phone (4x CPU): hold panel {b['panelMedian']:.0f} ms after the server's answer "
      f"(median of {len(b['panel'])}: {', '.join(f'{x:.0f}' for x in b['panel'])}); the answer itself {b['answerMedian']:.0f} ms")
p = r["phone"]
print(f"ratio={p['htmlMedian'] / p['interactiveMedian']:.2f}")
PY
