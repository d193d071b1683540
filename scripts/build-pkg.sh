#!/usr/bin/env bash
# Builds the npm package @tokenpad/client into pkg/ (see docs/package.md, also its README):
#   pkg/tokenpad_bg.wasm   the one wasm (the root crate: release, LTO, opt-level z, wasm-opt -Oz)
#   pkg/wasm.js            its wasm-bindgen glue (--target web: init / initSync)
#   pkg/wasm-gz.js         the same wasm gzipped + base64, for bundlers with no asset support
#   pkg/*.js, *.d.ts       the JavaScript layer (src/js/, TypeScript compiled by tsc): the
#                          clients, errors, live updates, the service clock, view wrappers, and
#                          one entry per runtime: index (browsers, vite, webpack), inline
#                          (esbuild), workerd, node (+ node.cjs), init (wasm passed in),
#                          server and metal (no wasm), react; *.cjs and *.d.cts for require
#   pkg/generated/         the wire and API types generated from the Rust types
#   pkg/package.json       `exports` choosing the entry by runtime (scripts/pkg-manifest.mjs),
#                          README.md, LICENSE
# Also copies what a page loads to www/app/pkg, where the demo frontend imports it from.
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
ESBUILD="$(esbuild_bin)"
TSC="$ROOT/node_modules/typescript/bin/tsc"
[[ -x "$WASM_OPT" && -x "$ESBUILD" && -f "$TSC" ]] || die "npm packages missing (wasm-opt, esbuild, typescript): run scripts/setup.sh"

t0=$(date +%s%N)
# The `pkg` profile: the release profile without overflow checks (see Cargo.toml).
cargo build --profile pkg --locked --target wasm32-unknown-unknown -p tokenpad
wasm="${CARGO_TARGET_DIR:-$ROOT/target}/wasm32-unknown-unknown/pkg/tokenpad.wasm"
[[ -f "$wasm" ]] || die "cargo did not produce $wasm"
version="$(cargo pkgid -p tokenpad | sed 's/.*[#@]//')"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
rm -rf pkg
mkdir -p pkg/generated

# 1. The wasm and its glue (--target web: `init(module_or_path)` and `initSync({ module })`,
#    which every entry point uses in its own way).
wasm-bindgen --target web --out-dir "$stage/wb" --out-name tokenpad "$wasm"
# Two rounds of -Oz: the second finds what the first opened up (about 0.7 KB of gzipped wasm).
"$WASM_OPT" -Oz -Oz "$stage/wb/tokenpad_bg.wasm" -o pkg/tokenpad_bg.wasm
cp "$stage/wb/tokenpad.js" pkg/wasm.js
printf '%s\n' "export default \"$(gzip -9cn pkg/tokenpad_bg.wasm | base64 -w0)\";" > pkg/wasm-gz.js

# 2. The JavaScript layer: src/js with the glue's declarations beside it, compiled by tsc. The
#    glue's .d.ts names the shapes the Rust exports declare (unchecked types): import them.
cp -r src/js "$stage/js"
{
  printf "import type { HolderFull, Presale, PresaleMerchant, Token, Decimal } from './generated/wire.js';\n"
  printf "import type { Countdown, FormatOptions, Portfolio, PresaleProgress, TokenSupply } from './types.js';\n"
  cat "$stage/wb/tokenpad.d.ts"
} > "$stage/js/wasm.d.ts"
cat > "$stage/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "target": "es2022", "module": "es2022", "moduleResolution": "bundler", "lib": ["es2022", "dom", "dom.iterable"],
    "strict": true, "declaration": true, "skipLibCheck": true, "types": [], "typeRoots": [],
    "rootDir": "js", "outDir": "out", "removeComments": false, "newLine": "lf"
  },
  "include": ["js/**/*.ts"]
}
JSON
ln -s "$ROOT/node_modules" "$stage/node_modules"
node "$TSC" -p "$stage/tsconfig.json" || die "tsc failed (see above)"
# The JavaScript again without its comments (the declarations keep theirs, for editors): a
# page downloads the code, not the notes, about 4.9 KB of gzip (src/js is the commented source).
node "$TSC" -p "$stage/tsconfig.json" --removeComments --declaration false --outDir "$stage/js-out" \
  || die "tsc (JavaScript without comments) failed"
(cd "$stage/js-out" && find . -name '*.js' -exec cp --parents {} "$stage/out/" \;)
cp -r "$stage/out/." pkg/
cp src/js/generated/wire.d.ts src/js/generated/api.d.ts src/js/generated/views.d.ts pkg/generated/
cp "$stage/js/wasm.d.ts" pkg/wasm.d.ts
cp src/js/wasm-gz.d.ts pkg/wasm-gz.d.ts
rm -f pkg/modules.d.ts

# 3. CommonJS builds (require), each one bundled file: node.cjs (the wasm read from the
#    package's directory), init.cjs (and web, its other name), server.cjs, metal.cjs and
#    react.cjs and query.cjs (React and ws stay the app's: never bundled in). init's glue finds the wasm by
#    `import.meta.url` when given nothing: the CommonJS build reads it from __filename.
printf "export * from './init.js';\n" > pkg/web.js
cp pkg/init.d.ts pkg/web.d.ts
cjs() { "$ESBUILD" "pkg/$1.js" --bundle --format=cjs --platform=node --target=node18 --log-level=error \
  --external:react --external:ws --outfile="pkg/$2.cjs" "${@:3}"; }
cjs node-cjs node
cjs server server
cjs metal metal
cjs react react
cjs query query
cjs init init --define:import.meta.url=__tokenpad_url \
  --banner:js="const __tokenpad_url = require('node:url').pathToFileURL(__filename).href;"
cp pkg/init.cjs pkg/web.cjs
rm -f pkg/node-cjs.js pkg/node-cjs.d.ts

# 4. README: docs/package.md, the package's documentation, under the package's name (its
#    relative links are made absolute on the repository by scripts/pkg-manifest.mjs, step 5).
[[ -s docs/package.md && "$(head -n 1 docs/package.md)" == "# "* ]] \
  || die "docs/package.md (the package's README) is missing or does not start with its title"
{ printf '# @tokenpad/client\n'; tail -n +2 docs/package.md; } > pkg/README.md

# 5. package.json and the CommonJS declarations (scripts/pkg-manifest.mjs), and the license.
cp LICENSE pkg/LICENSE
node scripts/pkg-manifest.mjs pkg "$version" || die "pkg-manifest failed"

# 6. The demo frontend's copy: what a page may load (not the Node, server or React files).
rm -rf www/app/pkg
mkdir -p www/app/pkg
for f in pkg/*.js; do
  case "$(basename "$f")" in node.js|server.js|metal.js|react.js|workerd.js|init.js|web.js) ;; *) cp "$f" www/app/pkg/ ;; esac
done
cp pkg/tokenpad_bg.wasm www/app/pkg/
# The amount fields json.ts reads exactly (the client's session-token actions use it).
mkdir -p www/app/pkg/generated
cp pkg/generated/decimals.js www/app/pkg/generated/

gz() { gzip -9c "$1" | wc -c; }
log "built pkg/ ($version) and www/app/pkg in $(( ($(date +%s%N) - t0) / 1000000 )) ms: wasm $(( $(gz pkg/tokenpad_bg.wasm) / 1024 )) KiB gzipped"
