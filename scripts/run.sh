#!/usr/bin/env bash
# Installs what is missing and starts the product on its embedded default (SQLite file under
# ./data, in-process everything) at http://127.0.0.1:3000. Set DATABASE_URL=postgres://… to run
# on PostgreSQL instead; see .env.example for every setting. Without PAYMENT_GATEWAY_URL it also
# starts the payment-gateway sandbox (payment-sandbox, on SANDBOX_ADDR, default 127.0.0.1:3100).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
ensure_rust_tools
ensure_node_packages # binaryen's wasm-opt, used by the release build
log "building (release)"
build_site release
export LEPTOS_SITE_ROOT="${LEPTOS_SITE_ROOT:-$ROOT/target/site}"
export LEPTOS_SITE_ADDR="${LEPTOS_SITE_ADDR:-127.0.0.1:3000}"
export LEPTOS_ENV="${LEPTOS_ENV:-PROD}"
if [ -z "${PAYMENT_GATEWAY_URL:-}" ]; then
  # No real gateway configured: the payment sandbox, as its own process, stopped with the server.
  export SANDBOX_ADDR="${SANDBOX_ADDR:-127.0.0.1:3100}"
  # A secret for this pair only: the server requires one whenever a gateway URL is set.
  export PAYMENT_WEBHOOK_SECRET="${PAYMENT_WEBHOOK_SECRET:-$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')}"
  "$CARGO_TARGET_DIR/release/payment-sandbox" &
  CLEANUP+=("kill $!")
  export PAYMENT_GATEWAY_URL="http://$SANDBOX_ADDR"
  log "payment sandbox on $PAYMENT_GATEWAY_URL"
fi
log "starting on http://$LEPTOS_SITE_ADDR"
"$CARGO_TARGET_DIR/release/server" "$@"
