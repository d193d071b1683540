#!/usr/bin/env bash
# Builds the browser library (the root crate) into pkg/, the npm package @tokenpad/client:
#   pkg/web/      ES module for browsers (--target web); web/index.js initializes itself
#   pkg/bundler/  ES module importing the .wasm (--target bundler)
#   pkg/node/     CommonJS for Node (--target nodejs)
#   pkg/package.json with `exports` for node / browser / import, and the .d.ts types.
# Release build (opt-level z, LTO: the workspace profile), then wasm-opt -Oz (npm binaryen).
# Also copies pkg/web to www/app/pkg, where the demo frontend loads it from.
# Local tools only, nothing is downloaded. Run scripts/setup.sh first.
set -euo pipefail
LOG_TAG=build-pkg
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

wb_version="$(wasm_bindgen_lock_version)"
[[ "$(wasm-bindgen --version 2>/dev/null || true)" == "wasm-bindgen $wb_version" ]] \
  || die "wasm-bindgen $wb_version not installed (Cargo.lock's version): run scripts/setup.sh"
WASM_OPT="$(wasm_opt_bin)"
[[ -x "$WASM_OPT" ]] || die "wasm-opt missing ($WASM_OPT): run scripts/setup.sh"

t0=$(date +%s%N)
# The `pkg` profile: the release profile without overflow checks (see Cargo.toml).
cargo build --profile pkg --locked --target wasm32-unknown-unknown -p tokenpad
wasm="${CARGO_TARGET_DIR:-$ROOT/target}/wasm32-unknown-unknown/pkg/tokenpad.wasm"
[[ -f "$wasm" ]] || die "cargo did not produce $wasm"

version="$(cargo pkgid -p tokenpad | sed 's/.*[#@]//')"
rm -rf pkg
mkdir -p pkg
dirs=()
for pair in web:web bundler:bundler nodejs:node; do
  target="${pair%%:*}" dir="pkg/${pair#*:}"
  wasm-bindgen --target "$target" --out-dir "$dir" --out-name tokenpad "$wasm"
  dirs+=("$dir")
  # The classes declare [Symbol.dispose] (for `using`): pull in the lib that types it, so a
  # project compiling with an older `lib` (es2022) needs no change and no skipLibCheck.
  if grep -q 'Symbol.dispose' "$dir/tokenpad.d.ts"; then
    { printf '/// <reference lib="esnext.disposable" />\n'; cat "$dir/tokenpad.d.ts"; } > "$dir/tokenpad.d.ts.tmp"
    mv "$dir/tokenpad.d.ts.tmp" "$dir/tokenpad.d.ts"
  fi
done

# wasm-opt (npm binaryen is itself wasm: about 10 s a run). The three targets' .wasm files are
# usually byte-identical (only the JS glue differs): then optimize once and copy.
# Two rounds of -Oz: the second finds what the first opened up (about 0.7 KB of gzipped wasm).
opt() { "$WASM_OPT" -Oz -Oz "$1/tokenpad_bg.wasm" -o "$1/tokenpad_bg.wasm.opt" && mv "$1/tokenpad_bg.wasm.opt" "$1/tokenpad_bg.wasm"; }
if [[ "$(sha256sum "${dirs[@]/%//tokenpad_bg.wasm}" | cut -d' ' -f1 | sort -u | wc -l)" == 1 ]]; then
  opt "${dirs[0]}"
  for d in "${dirs[@]:1}"; do cp "${dirs[0]}/tokenpad_bg.wasm" "$d/tokenpad_bg.wasm"; done
else
  pids=()
  for d in "${dirs[@]}"; do opt "$d" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || die "wasm-opt failed"; done
fi

# web/index.js: the web build, initialized with top-level await, so that browser code (and
# bundlers with the `browser` condition) use the same API as Node: no init() call needed.
cat > pkg/web/index.js <<'JS'
// Loads and instantiates the wasm once (top-level await), then re-exports the library.
// Without top-level await, import "@tokenpad/client/web" and call `await init()` yourself.
import init from './tokenpad.js';

await init({ module_or_path: new URL('./tokenpad_bg.wasm', import.meta.url) });

export * from './tokenpad.js';
export { init };
JS
cat > pkg/web/index.d.ts <<'TS'
export * from './tokenpad.js';
export { default as init } from './tokenpad.js';
TS
printf '{ "type": "commonjs" }\n' > pkg/node/package.json

# README: the "Browser library" section of the repository's README.
awk '/^## Browser library/{p=1; print "# @tokenpad/client\n"; next} p && /^## /{exit} p' README.md > pkg/README.md
[[ -s pkg/README.md ]] || printf '# @tokenpad/client\n\nSee the tokenpad repository README, "Browser library".\n' > pkg/README.md

cat > pkg/package.json <<JSON
{
  "name": "@tokenpad/client",
  "version": "$version",
  "description": "tokenpad in the browser: a public-key client, holder and presale view models, exact amount formatting (Rust compiled to WebAssembly)",
  "license": "Apache-2.0",
  "type": "module",
  "main": "./node/tokenpad.js",
  "module": "./bundler/tokenpad.js",
  "types": "./web/index.d.ts",
  "exports": {
    ".": {
      "node": {
        "types": "./node/tokenpad.d.ts",
        "default": "./node/tokenpad.js"
      },
      "browser": {
        "types": "./web/index.d.ts",
        "default": "./web/index.js"
      },
      "import": {
        "types": "./bundler/tokenpad.d.ts",
        "default": "./bundler/tokenpad.js"
      },
      "default": {
        "types": "./web/index.d.ts",
        "default": "./web/index.js"
      }
    },
    "./web": {
      "types": "./web/tokenpad.d.ts",
      "default": "./web/tokenpad.js"
    },
    "./bundler": {
      "types": "./bundler/tokenpad.d.ts",
      "default": "./bundler/tokenpad.js"
    },
    "./node": {
      "types": "./node/tokenpad.d.ts",
      "default": "./node/tokenpad.js"
    },
    "./package.json": "./package.json"
  },
  "files": ["web", "bundler", "node", "README.md"],
  "sideEffects": ["./web/index.js", "./bundler/tokenpad.js"],
  "keywords": ["tokenpad", "tokens", "presale", "wasm"]
}
JSON

# The demo frontend's copy.
rm -rf www/app/pkg
mkdir -p www/app/pkg
cp pkg/web/index.js pkg/web/index.d.ts pkg/web/tokenpad.js pkg/web/tokenpad.d.ts pkg/web/tokenpad_bg.wasm www/app/pkg/

gz() { gzip -9c "$1" | wc -c; }
log "built pkg/ ($version) and www/app/pkg in $(( ($(date +%s%N) - t0) / 1000000 )) ms: web wasm $(( $(gz pkg/web/tokenpad_bg.wasm) / 1024 )) KiB + js $(( $(gz pkg/web/tokenpad.js) / 1024 )) KiB gzipped"
