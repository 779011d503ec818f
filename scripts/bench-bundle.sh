#!/usr/bin/env bash
# The bundle benchmark (see BENCHMARKS.md): what a phone downloads and how soon the seat map
# works. Builds the release site (the three bundles, wasm-opt, brotli 11 — in a smoke run too: a
# debug bundle's size says nothing), reports each bundle's bytes raw, gzip and brotli, and fails
# when the customer's, the bookings' or the staff's brotli bytes pass their budget
# (BUDGET_CUSTOMER, BUDGET_BOOKINGS, BUDGET_STAFF). Then starts the server on that site and, in
# headless Chromium, measures the seat map's time to interactive (hydrated) after navigation with
# an empty cache, on an emulated mid-range phone (4× CPU slowdown, 10 Mbit/s, 40 ms round trip)
# and unthrottled, against the same page's HTML and stylesheet alone under the same conditions (JavaScript off), and on the
# phone how long after the server's answer "best 2" shows its hold panel and how long after a tap
# a seat shows as selected, and the bytes a first
# visit on the phone brought over the network until the live map's first frame (failing over
# BUDGET_FIRST_VISIT). Then, except in a smoke run, Lighthouse's mobile audit of the seat map and
# the showtime list (3 runs each, the median). Reports `ratio=<the page's HTML alone ÷
# interactive, on the phone>` (1.00: the bundle would cost nothing). Options: BENCH_RUNS (5
# visits per figure). BENCH_SMOKE=1: a debug server, 1 visit, no Lighthouse.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
ensure_rust_tools
ensure_node_packages
ensure_chromium
# The budgets the test command holds the bundles to (brotli bytes). The issue's targets are
# lower (250,000 and 450,000); BENCHMARKS.md says where the bytes go, and why the staff's budget
# was raised on 2026-12-03 and 2026-12-04, the customer's three times on 2026-12-04; both were
# lowered on 2026-12-06 and three times on 2026-12-07 (the last time by a third bundle).
BUDGET_CUSTOMER="${BUDGET_CUSTOMER:-348000}"
BUDGET_BOOKINGS="${BUDGET_BOOKINGS:-261000}"
BUDGET_STAFF="${BUDGET_STAFF:-565000}"
# A phone's first visit to the 300-seat map: HTML, JavaScript, WebAssembly, CSS and the live
# map's first frame, as they crossed the network (the issue's target: 250,000).
BUDGET_FIRST_VISIT="${BUDGET_FIRST_VISIT:-380000}"
export BENCH_RUNS="$(bench_option BENCH_RUNS 5 1)"

SITE="$CARGO_TARGET_DIR/bench-site"
build_bundles release "$SITE"
bench_build -p server --bin server
PKG="$SITE/$(leptos_option site-pkg-dir)"
NAME="$(leptos_option output-name)"
size() { stat -c %s "$1"; }
fail=0
for bundle in customer bookings staff; do
  case "$bundle" in
    customer) stem="$NAME"; budget="$BUDGET_CUSTOMER" ;;
    bookings) stem="$NAME-bookings"; budget="$BUDGET_BOOKINGS" ;;
    staff) stem="$NAME-staff"; budget="$BUDGET_STAFF" ;;
  esac
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
python3 - "$DIR/interactive.json" "$DIR/first-visit" <<'PY'
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
t = r["tap"]
print(f"a tap on a seat on the phone (4x CPU): selected {t['selectedMedian']:.0f} ms after the tap "
      f"(median of {len(t['selected'])}: {', '.join(f'{x:.0f}' for x in t['selected'])})")
p = r["phone"]
w = p["wire"]
parts = ", ".join(f"{k} {v:,}" for k, v in sorted(w["byKind"].items(), key=lambda kv: -kv[1]))
print(f"first visit on the phone, bytes on the wire to the live map's first frame: {w['total']:,} ({parts})")
open(sys.argv[2], "w").write(str(w["total"]))
print(f"ratio={p['htmlMedian'] / p['interactiveMedian']:.2f}")
PY
# Lighthouse's mobile audit (its own throttling: a slow 4G network and a 4x slower CPU,
# simulated), 3 runs of each page, the median; not in a smoke run.
if [ "${BENCH_SMOKE:-}" != 1 ]; then
  ensure_lighthouse
  showtime="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["path"])' "$DIR/interactive.json")"
  for path in "$showtime" /; do
    for run in 1 2 3; do
      CHROME_PATH=/usr/bin/chromium "$LIGHTHOUSE" "http://127.0.0.1:$PORT$path" --quiet \
        --only-categories=performance --output=json --output-path="$DIR/lighthouse-$run.json" \
        --chrome-flags="--headless=new --no-sandbox" >/dev/null 2>&1 \
        || { log "Lighthouse failed on $path"; exit 1; }
    done
    python3 - "$path" "$DIR"/lighthouse-{1,2,3}.json <<'PY'
import json, sys
runs = [json.load(open(f)) for f in sys.argv[2:]]
def med(xs): return sorted(xs)[len(xs) // 2]
score = med([r["categories"]["performance"]["score"] * 100 for r in runs])
audit = lambda name: med([r["audits"][name]["numericValue"] for r in runs])
print(f"Lighthouse mobile {sys.argv[1]}: performance {score:.0f} (runs: {', '.join(str(round(r['categories']['performance']['score'] * 100)) for r in runs)}), "
      f"total blocking time {audit('total-blocking-time'):.0f} ms, largest contentful paint {audit('largest-contentful-paint'):.0f} ms, "
      f"time to interactive {audit('interactive'):.0f} ms, {audit('total-byte-weight'):,.0f} bytes")
PY
  done
fi
first_visit="$(cat "$DIR/first-visit")"
if [ "$first_visit" -gt "$BUDGET_FIRST_VISIT" ]; then
  log "a first visit to the seat map is over its budget: $first_visit > $BUDGET_FIRST_VISIT bytes on the wire"
  exit 1
fi
