#!/usr/bin/env bash
# Prints the gzipped size of what a browser page downloads for @tokenpad/client and checks it
# against the budget: 150 KiB (153600 bytes) gzipped.
#   - the default entry (index.js, as browsers, vite and webpack load it): every file it
#     imports statically, followed from index.js, and the .wasm;
#   - an esbuild bundle (the `browser` condition: inline.js, the wasm inside), as one file.
# The server and React entry points are not in either: they must not add to the download.
#   scripts/size.sh          measure pkg/ as built (builds it first when missing)
#   scripts/size.sh --build  rebuild pkg/ first
# Exit code 1 when over budget.
set -euo pipefail
LOG_TAG=size
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

BUDGET_BYTES=$((150 * 1024))
if [[ "${1:-}" == "--build" || ! -f pkg/tokenpad_bg.wasm ]]; then
  "$ROOT/scripts/build-pkg.sh" >&2
fi

gz() { gzip -9c "$1" | wc -c; }
kib() { printf '%d.%d KiB' $(($1 / 1024)) $(( ($1 % 1024) * 10 / 1024 )); }
row() { printf '  %-28s %9s bytes  %9s bytes gzipped\n' "$1" "$(stat -c %s "$1")" "$(gz "$1")"; }
echo "@tokenpad/client $(node -p "require('./pkg/package.json').version") (gzip -9):"

# The files index.js loads: static `import`/`export ... from './x.js'`, followed (not the
# dynamic import() of the fallback copy, which a page loads only when the .wasm is missing).
mapfile -t files < <(node -e '
  const fs = require("fs"), path = require("path");
  const seen = new Set(), todo = ["pkg/index.js"];
  while (todo.length) {
    const f = todo.pop();
    if (seen.has(f)) continue;
    seen.add(f);
    const src = fs.readFileSync(f, "utf8");
    for (const m of src.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+["\x27](\.[^"\x27]+)["\x27]/gm)) {
      todo.push(path.join(path.dirname(f), m[1]));
    }
  }
  console.log([...seen].sort().join("\n"));')
total=0
for f in "${files[@]}" pkg/tokenpad_bg.wasm; do
  row "$f"
  total=$((total + $(gz "$f")))
done
printf '  %-28s %9s                %9s bytes gzipped (%s; budget %d KiB)\n' "total (default entry)" "" "$total" "$(kib "$total")" $((BUDGET_BYTES / 1024))

bundle="$(mktemp -d)"
trap 'rm -rf "$bundle"' EXIT
printf "import { TokenpadClient, holderPortfolio } from '../pkg/inline.js';\nconsole.log(TokenpadClient, holderPortfolio);\n" > "$ROOT/pkg/.size-entry.mjs"
"$(esbuild_bin)" "$ROOT/pkg/.size-entry.mjs" --bundle --format=esm --log-level=error --outfile="$bundle/app.js"
rm -f "$ROOT/pkg/.size-entry.mjs"
inline=$(gz "$bundle/app.js")
printf '  %-28s %9s bytes  %9s bytes gzipped (%s)\n' "esbuild bundle (inline)" "$(stat -c %s "$bundle/app.js")" "$inline" "$(kib "$inline")"

((total <= BUDGET_BYTES)) || die "the default entry is over budget by $((total - BUDGET_BYTES)) bytes"
((inline <= BUDGET_BYTES)) || die "the esbuild bundle is over budget by $((inline - BUDGET_BYTES)) bytes"
