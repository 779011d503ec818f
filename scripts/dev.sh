#!/usr/bin/env bash
# The development loop: `cargo leptos watch` on the embedded store (debug build; a change to the
# Rust code rebuilds and restarts the server, a change to the styles reloads the page), with the
# payment-gateway sandbox beside it unless PAYMENT_GATEWAY_URL names a gateway. Arguments go to
# `cargo leptos watch` (for example `--hot-reload`). Build output goes to $CARGO_TARGET_DIR.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
ensure_rust_tools
ensure_cargo_leptos
if [ -z "${PAYMENT_GATEWAY_URL:-}" ]; then
  cargo build -p server --bin payment-sandbox
  export SANDBOX_ADDR="${SANDBOX_ADDR:-127.0.0.1:3100}"
  export PAYMENT_WEBHOOK_SECRET="${PAYMENT_WEBHOOK_SECRET:-$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')}"
  "$CARGO_TARGET_DIR/debug/payment-sandbox" &
  CLEANUP+=("kill $!")
  export PAYMENT_GATEWAY_URL="http://$SANDBOX_ADDR"
  log "payment sandbox on $PAYMENT_GATEWAY_URL"
fi
# cargo-leptos builds and watches the customer's bundle (`frontend`) and writes the site under
# plain names: no content-hashed names from a release build. The bookings' and the staff's
# bundles are built once here, beside it (a change to their pages needs a restart of this script).
SITE="$ROOT/$(leptos_option site-root)"
PKG="$SITE/$(leptos_option site-pkg-dir)"
rm -f "$SITE/hash.txt" "$SITE/hash-bookings.txt" "$SITE/hash-staff.txt"
mkdir -p "$PKG"
for bundle in bookings staff; do
  cargo build -p "frontend-$bundle" --lib --target wasm32-unknown-unknown
  out="$(leptos_option output-name)-$bundle"
  wasm-bindgen --target web --no-typescript --out-dir "$PKG" --out-name "$out" \
    "$CARGO_TARGET_DIR/wasm32-unknown-unknown/debug/frontend_$bundle.wasm"
  mv "$PKG/${out}_bg.wasm" "$PKG/$out.wasm"
done
log "watching; the site is at http://127.0.0.1:3000"
cargo leptos watch "$@"
