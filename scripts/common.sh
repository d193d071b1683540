# Shared helpers for scripts/*.sh. Source it; do not run it.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CARGO_BIN_DIR="${CARGO_HOME:-$HOME/.cargo}/bin"
case ":$PATH:" in *":$CARGO_BIN_DIR:"*) ;; *) export PATH="$CARGO_BIN_DIR:$PATH" ;; esac

WORKER_BUILD_VERSION="0.8.7"

if [[ -t 2 ]]; then _c1=$'\033[1;34m' _c2=$'\033[1;31m' _c0=$'\033[0m'; else _c1= _c2= _c0=; fi
log() { printf '%s[%s]%s %s\n' "$_c1" "${LOG_TAG:-tokenpad}" "$_c0" "$*" >&2; }
die() { printf '%s[%s] ERROR:%s %s\n' "$_c2" "${LOG_TAG:-tokenpad}" "$_c0" "$*" >&2; exit 1; }

# The wasm-bindgen version resolved in Cargo.lock (the CLI must match it exactly).
wasm_bindgen_lock_version() {
  awk '/^\[\[package\]\]/{name=""} /^name = "wasm-bindgen"$/{name=1; next} name && /^version = /{gsub(/"/,"",$3); print $3; exit}' \
    "$ROOT/Cargo.lock"
}

# node's platform-arch, e.g. linux-x64, as used by npm's @esbuild/<platform-arch> packages.
node_platform() { node -p 'process.platform + "-" + process.arch'; }

esbuild_bin() { printf '%s/node_modules/@esbuild/%s/bin/esbuild' "$ROOT" "$(node_platform)"; }
wasm_opt_bin() { printf '%s/node_modules/binaryen/bin/wasm-opt' "$ROOT"; }
wrangler_js() { printf '%s/node_modules/wrangler/bin/wrangler.js' "$ROOT"; }
# anvil (local Ethereum node) from Foundry's npm platform package, e.g. @foundry-rs/anvil-linux-amd64
# (an optional dependency: npm installs it on linux x64 only).
anvil_bin() {
  local arch; arch="$(node -p 'process.arch')"
  [[ "$arch" == x64 ]] && arch=amd64
  printf '%s/node_modules/@foundry-rs/anvil-%s-%s/bin/anvil' "$ROOT" "$(node -p 'process.platform')" "$arch"
}

# Wrangler: quiet and offline.
export WRANGLER_SEND_METRICS=false
export CLOUDFLARE_CF_FETCH_ENABLED=false
