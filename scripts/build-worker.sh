#!/usr/bin/env bash
# Builds tokenpad's two Workers from crates/worker with worker-build in release mode, using only
# local tools: nothing is downloaded.
#   - the front (`--features front`: routing, accounts, the operator's routes) into
#     crates/worker/build, deployed by crates/worker/wrangler.toml;
#   - the ledger (`--features ledger`: the merchants' Durable Objects, the relays, the registry)
#     into crates/worker/build-ledger, deployed by crates/worker/ledger/wrangler.toml.
# One crate, two builds: each Worker carries only the code its entry points reach, so each
# stays under its size budget (scripts/worker-size.sh; docs/performance.md says why two).
# The commit of its sources goes into it (`TOKENPAD_COMMIT`, which `GET /health` answers with
# the version): the last commit that changed the Worker's sources (Cargo.toml, Cargo.lock,
# crates/), so a commit of docs alone neither renames nor rebuilds it; `-dirty` appended when
# those sources differ from it, `unknown` outside git.
# Extra arguments go to worker-build. Run scripts/setup.sh first. WORKER_CRATE=bench/hello-rs
# builds the benchmark's Rust yardstick the same way instead (into bench/hello-rs/build).
set -euo pipefail
LOG_TAG=build-worker
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

wb_version="$(wasm_bindgen_lock_version)"
WASM_BINDGEN_BIN="$(command -v wasm-bindgen || true)"
[[ -n "$WASM_BINDGEN_BIN" && "$("$WASM_BINDGEN_BIN" --version)" == "wasm-bindgen $wb_version" ]] \
  || die "wasm-bindgen $wb_version not installed (Cargo.lock's version): run scripts/setup.sh"
[[ "$(worker-build --version 2>/dev/null || true)" == "$WORKER_BUILD_VERSION" ]] \
  || die "worker-build $WORKER_BUILD_VERSION not installed: run scripts/setup.sh"
WASM_OPT_BIN="$(wasm_opt_bin)"
ESBUILD_BIN="$(esbuild_bin)"
[[ -x "$WASM_OPT_BIN" && -x "$ESBUILD_BIN" ]] || die "npm packages missing (wasm-opt, esbuild): run scripts/setup.sh"
export WASM_BINDGEN_BIN WASM_OPT_BIN ESBUILD_BIN

sources=(Cargo.toml Cargo.lock crates)
commit="$(git -C "$ROOT" log -1 --format=%H -- "${sources[@]}" 2>/dev/null || true)"
[[ -n "$commit" ]] || commit=unknown
if [[ "$commit" != unknown && -n "$(git -C "$ROOT" status --porcelain -- "${sources[@]}" 2>/dev/null)" ]]; then
  commit+="-dirty"
fi
export TOKENPAD_COMMIT="$commit"

t0=$(date +%s%N)
crate="${WORKER_CRATE:-crates/worker}"
cd "$ROOT/$crate"
# worker-build keeps the wasm's name section (wasm-opt --debuginfo): no part of what runs, and
# 11 % of the gzip size. Out of the deployed wasm; the names go beside the build, for the
# profiler (bench/profile.mjs) and bench/wasm-size.mjs alone.
built() { # <out dir> <names file>
  [[ -f "$1/worker/shim.mjs" && -f "$1/index_bg.wasm" ]] || die "worker-build did not produce $1/worker/shim.mjs and $1/index_bg.wasm"
  node "$ROOT/scripts/wasm-names.mjs" strip "$1/index_bg.wasm" "$2" || die "could not strip the wasm's name section"
  log "built $crate/$1 at $commit ($(( $(stat -c %s "$1/index_bg.wasm") / 1024 )) KiB wasm, $(( $(gzip -9c "$1/index_bg.wasm" | wc -c) / 1024 )) KiB gzipped)"
}
if [[ -n "${WORKER_CRATE:-}" ]]; then
  worker-build --release "$@" || die "worker-build failed (see above)"
  built build build-names.json
else
  worker-build --release -d build "$@" --no-default-features --features front || die "worker-build (front) failed (see above)"
  built build build-names.json
  worker-build --release -d build-ledger "$@" --no-default-features --features ledger || die "worker-build (ledger) failed (see above)"
  built build-ledger build-ledger-names.json
  # The OpenAPI document GET /openapi.json serves, among the static assets (the front reads it
  # through its ASSETS binding; kept out of the wasm, it does not count against its size).
  cp "$ROOT/openapi.json" "$ROOT/www/openapi.json"
fi
log "done in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
