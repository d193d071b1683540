#!/usr/bin/env bash
# Builds the merchant dashboard (www/dashboard-src/, React 19 + Pico CSS) into www/dashboard/,
# the static assets the Worker serves at /dashboard/ (docs/dashboard.md). It imports the npm
# package as an app would (@tokenpad/client for the wasm view models and formatting,
# @tokenpad/client/server for the API calls), from pkg/: run scripts/build-pkg.sh first.
# Output (gitignored, like www/app/pkg): index.html, app.js (one esbuild bundle, the wasm inside
# it), pico.min.css, dashboard.css.
set -euo pipefail
LOG_TAG=build-dashboard
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

ESBUILD="$(esbuild_bin)"
TSC="$ROOT/node_modules/typescript/bin/tsc"
[[ -x "$ESBUILD" ]] || die "esbuild missing: run scripts/setup.sh"
[[ -f pkg/package.json && -f pkg/server.js && -f pkg/inline.js ]] || die "pkg/ missing: run scripts/build-pkg.sh first"
PICO="node_modules/@picocss/pico/css/pico.min.css"
[[ -f "$PICO" && -d node_modules/react && -d node_modules/react-dom ]] || die "npm packages missing (react, react-dom, @picocss/pico): run scripts/setup.sh"

t0=$(date +%s%N)
# Types first (esbuild does not check them): the package's declarations, React's.
node "$TSC" -p www/dashboard-src/tsconfig.json || die "the dashboard does not type-check (see above)"
# @tokenpad/client resolves to pkg/ through its package.json's exports (the `browser`
# condition: the inline entry, wasm in the bundle), as in an app that installed it.
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/@tokenpad"
ln -s "$ROOT/pkg" "$stage/@tokenpad/client"

out=www/dashboard
rm -rf "$out"
mkdir -p "$out"
NODE_PATH="$stage:$ROOT/node_modules" "$ESBUILD" www/dashboard-src/main.tsx --bundle --format=esm --platform=browser \
  --target=es2022 --jsx=automatic --minify --sourcemap=linked --legal-comments=linked --log-level=warning \
  --define:process.env.NODE_ENV='"production"' --outfile="$out/app.js"
cp www/dashboard-src/index.html www/dashboard-src/dashboard.css "$out/"
cp "$PICO" "$out/pico.min.css"
gz() { gzip -9c "$1" | wc -c; }
log "built $out in $(( ($(date +%s%N) - t0) / 1000000 )) ms: app.js $(( $(gz "$out/app.js") / 1024 )) KiB gzipped"
