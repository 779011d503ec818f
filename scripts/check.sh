#!/usr/bin/env bash
# The gate against drift: the layout map against the tree, formatting, and clippy with
# warnings as errors for each feature set separately — the server side (`app` with `ssr`, `server`, their tests and binaries) and the
# browser side (the bundles `frontend`, `frontend-bookings` and `frontend-staff`, which turn on `app`'s `hydrate`, for wasm32). The two sets never
# build together. Run by scripts/test.sh (so by CI); run it before committing.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
log "layout map (docs/architecture.md)"
"$ROOT/scripts/check_layout.sh"
log "cargo fmt --check"
cargo fmt --all -- --check
log "clippy, server side (ssr)"
cargo clippy -p app -p server -p bench --all-targets -- -D warnings
log "clippy, browser side (hydrate, wasm32)"
cargo clippy -p frontend -p frontend-bookings -p frontend-staff --target wasm32-unknown-unknown -- -D warnings
