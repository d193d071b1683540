#!/usr/bin/env bash
# Installs what tokenpad's build and tests need; every step is skipped when already present.
#   scripts/setup.sh            Rust wasm target, wasm-bindgen-cli (= Cargo.lock), worker-build, npm deps
#   scripts/setup.sh --browser  also Chromium + chromedriver from apt (for browser tests)
#   scripts/setup.sh --slither  also slither (Python venv in .tools/, for scripts/slither.mjs)
# Also: TOKENPAD_SETUP_BROWSER=1 is the same as --browser. scripts/dev.sh runs it bare (a first
# run waits only for what the local run needs); scripts/test.sh with both.
set -euo pipefail
LOG_TAG=setup
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

browser="${TOKENPAD_SETUP_BROWSER:-0}"
slither=0
for arg in "$@"; do
  case "$arg" in
    --browser) browser=1 ;;
    --slither) slither=1 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) die "unknown argument: $arg (try --help)" ;;
  esac
done

t0=$(date +%s%N)
elapsed() { echo "$(( ($(date +%s%N) - t0) / 1000000 )) ms"; }

command -v cargo >/dev/null || die "cargo not found: install Rust with rustup (https://rustup.rs)"
command -v rustup >/dev/null || die "rustup not found: the wasm target is installed with rustup"
command -v node >/dev/null || die "node not found: install Node.js >= 20.19"
command -v npm >/dev/null || die "npm not found"
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' \
  || die "Node $(node --version) is too old: need >= 20.19 (wrangler 4.86, vite 8 for the bundler tests)"

# 1. Rust: wasm target, rustfmt and clippy (scripts/test.sh uses both).
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
missing_components=()
cargo fmt --version >/dev/null 2>&1 || missing_components+=(rustfmt)
cargo clippy --version >/dev/null 2>&1 || missing_components+=(clippy)
if ((${#missing_components[@]})); then
  log "adding rust components ${missing_components[*]}"
  rustup component add "${missing_components[@]}"
fi

# 2. wasm-bindgen CLI, exactly the library version in Cargo.lock. No --locked: its published
#    lockfile pins a crate version the registry mirror lacks.
wb_version="$(wasm_bindgen_lock_version)"
[[ -n "$wb_version" ]] || die "no wasm-bindgen package in Cargo.lock"
if [[ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $wb_version" ]]; then
  log "installing wasm-bindgen-cli $wb_version (about 2 min)"
  cargo install wasm-bindgen-cli --version "=$wb_version"
fi

# 3. worker-build.
if [[ "$(worker-build --version 2>/dev/null || true)" != "$WORKER_BUILD_VERSION" ]]; then
  log "installing worker-build $WORKER_BUILD_VERSION (about 3 min)"
  cargo install worker-build --version "=$WORKER_BUILD_VERSION" --locked
fi

# 4. npm packages (wrangler, binaryen's wasm-opt, playwright-core, ajv, typescript, esbuild;
#    for the package's tests vite, webpack, react; for the chain: solc-js, OpenZeppelin's
#    contracts, anvil, viem). Reinstalled only when package.json or package-lock.json changed
#    since the last install, or a binary is missing.
stamp_file="node_modules/.tokenpad-npm-stamp"
npm_stamp="$(cat package.json package-lock.json 2>/dev/null | sha256sum | cut -d' ' -f1)"
if [[ "$(cat "$stamp_file" 2>/dev/null || true)" != "$npm_stamp" \
   || ! -f "$(wrangler_js)" || ! -x "$(wasm_opt_bin)" || ! -x "$(esbuild_bin)" ]] \
   || { [[ "$(node_platform)" == linux-x64 ]] && [[ ! -x "$(anvil_bin)" ]]; }; then
  if [[ -f package-lock.json ]]; then
    log "npm ci"
    npm ci --no-audit --no-fund
  else
    log "npm install (no package-lock.json yet)"
    npm install --no-audit --no-fund
  fi
  [[ -x "$(esbuild_bin)" ]] || die "esbuild binary missing after npm install: $(esbuild_bin)"
  if [[ ! -x "$(anvil_bin)" ]]; then
    # package.json has anvil for linux x64 only (the registry we use has no other build).
    [[ "$(node_platform)" == linux-x64 ]] && die "anvil binary missing after npm install: $(anvil_bin)"
    log "warning: no anvil for $(node_platform) in package.json; the chain tests (tests/chain) need one"
  fi
  # Hash again: `npm install` may have just written package-lock.json.
  cat package.json package-lock.json | sha256sum | cut -d' ' -f1 > "$stamp_file"
fi

# 5. Chromium for browser tests (apt), only on request.
if [[ "$browser" == 1 ]]; then
  if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]]; then
    :
  else
    command -v apt-get >/dev/null || die "--browser needs apt-get (Debian/Ubuntu); install chromium and chromedriver yourself"
    sudo=()
    if [[ "$(id -u)" != 0 ]]; then
      command -v sudo >/dev/null || die "--browser needs root or sudo for apt-get"
      sudo=(sudo)
    fi
    log "installing chromium + chromium-driver with apt (about 35 s)"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver
  fi
fi

# 6. slither, the contracts' static analyser (scripts/test.sh's slither step), only on request:
#    a pinned venv in .tools/slither-venv; well under a second when it is already there.
if [[ "$slither" == 1 ]]; then "$ROOT/scripts/setup-slither.sh"; fi

log "ok ($(elapsed)): wasm-bindgen $wb_version, worker-build $WORKER_BUILD_VERSION, wrangler $(node -p "require('$ROOT/node_modules/wrangler/package.json').version")$([[ "$browser" == 1 ]] && echo ", $(/usr/bin/chromium --version 2>/dev/null)")"
