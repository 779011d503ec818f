#!/usr/bin/env bash
# The REST API fuzzed from its own description: schemathesis reads /openapi.json from a server
# started here (debug build, so an arithmetic overflow panics and shows as a 500; the embedded
# SQLite store; the payment sandbox as its own process; the rate limits off, so that the fuzzer
# gets past them) and sends what it generates — the documented examples, the boundaries and the
# wrong types of every parameter and body, random requests, and chains that follow the
# document's links (the programme → a hold → its checkout → the booking → its cancellation).
# Every answer is checked: no 5xx, a status the operation documents, its content type, its
# headers and its body's schema. Then the control: the same checks against a copy of the
# document with one answer's schema made wrong (`seatsTotal` a string) must fail, or the checks
# would prove nothing.
# FUZZ_EXAMPLES: test cases per operation and phase (200; the test command runs 15).
# FUZZ_SEED: repeat a run (the seed is printed at its end). Reports in target/fuzz-api/.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
ensure_schemathesis
EXAMPLES="${FUZZ_EXAMPLES:-200}"
REPORTS="$ROOT/target/fuzz-api"
mkdir -p "$REPORTS"

cargo build -p server --bin server --bin payment-sandbox
BIN="$CARGO_TARGET_DIR/debug"
DATA="$(mktemp -d /tmp/seats-fuzz.XXXXXX)"
CLEANUP+=("rm -rf $DATA")
SANDBOX_PORT="$(free_port)"
PORT="$(free_port)"
export PAYMENT_WEBHOOK_SECRET="$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')"
SANDBOX_ADDR="127.0.0.1:$SANDBOX_PORT" "$BIN/payment-sandbox" >"$DATA/sandbox.log" 2>&1 &
CLEANUP+=("kill $!")
DATA_DIR="$DATA" LEPTOS_SITE_ADDR="127.0.0.1:$PORT" PAYMENT_GATEWAY_URL="http://127.0.0.1:$SANDBOX_PORT" \
  HOLD_RATE_PER_MINUTE=0 HOLD_RATE_PER_ADDRESS=0 CHECKOUT_RATE_PER_MINUTE=0 \
  CHECKOUT_RATE_PER_ADDRESS=0 HOLDS_PER_CUSTOMER=0 HELD_SEATS_PER_ADDRESS=0 \
  LOOKUP_RATE_PER_ADDRESS=0 LOOKUP_RATE_PER_PAIR=0 LOOKUP_RATE_PER_REFERENCE=0 \
  "$BIN/server" >"$DATA/server.log" 2>&1 &
CLEANUP+=("kill $!")
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 1 300); do curl -fs "$BASE/health" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fs "$BASE/health" >/dev/null

# One customer for the whole run (schemathesis does not carry cookies from one step of a chain to
# the next): its session cookie on every request, so that the hold a chain made is its own to
# check out, cancel and look at.
SESSION="$(curl -fsi "$BASE/bookings" | tr -d '\r' | sed -n 's/^[Ss]et-[Cc]ookie: \(seats_session=[^;]*\).*/\1/p')"
[ -n "$SESSION" ] || { echo "no session cookie from $BASE/bookings" >&2; exit 1; }
CHECKS=not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance
log "schemathesis: every operation, $EXAMPLES cases per phase ($SCHEMATHESIS_PHASES)"
# From the run's own folder: schemathesis keeps a cache in the folder it runs in. Chains of up to
# 12 steps, so that one reaches from the programme through a hold to its booking.
cd "$DATA"
printf '[phases.stateful]\nmax-steps = 12\n' >"$DATA/schemathesis.toml"
"$SCHEMATHESIS/bin/st" --config-file "$DATA/schemathesis.toml" run "$BASE/openapi.json" --checks "$CHECKS" --max-examples "$EXAMPLES" \
  --phases "$SCHEMATHESIS_PHASES" \
  --header "Cookie: $SESSION" --workers 2 --no-color ${FUZZ_SEED:+--seed "$FUZZ_SEED"} \
  --report junit,har --report-dir "$REPORTS" --output-truncate true
# Five hundreds the fuzzer did not see (a panic after the answer, a background task's failure).
if grep -q "panicked" "$DATA/server.log"; then
  grep -m5 -A3 "panicked" "$DATA/server.log" >&2
  echo "the server panicked during the run" >&2
  exit 1
fi

log "control: the same checks against a document whose programme says seatsTotal is a string"
curl -fs "$BASE/openapi.json" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
doc["components"]["schemas"]["ShowtimeSummary"]["properties"]["seatsTotal"] = {"type": "string"}
json.dump(doc, sys.stdout)' >"$DATA/wrong.json"
if "$SCHEMATHESIS/bin/st" run "$DATA/wrong.json" --url "$BASE" --include-path /showtimes \
  --include-method GET --checks response_schema_conformance --max-examples 5 --phases examples,fuzzing \
  --no-color >"$DATA/control.log" 2>&1; then
  cat "$DATA/control.log" >&2
  echo "the control passed: the checks did not catch a wrong schema" >&2
  exit 1
fi
grep -q "seatsTotal" "$DATA/control.log" || {
  cat "$DATA/control.log" >&2
  echo "the control failed for another reason than the wrong schema" >&2
  exit 1
}
log "the control failed as it must (seatsTotal is an integer, not a string)"
