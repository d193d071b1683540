#!/usr/bin/env bash
# Prints the gzipped size of the browser package (what a page downloads: the web build's wasm
# and JS glue) and checks it against the budget: 150 KiB (153600 bytes) gzipped, wasm + JS.
#   scripts/size.sh          measure pkg/ as built (builds it first when missing)
#   scripts/size.sh --build  rebuild pkg/ first
# Exit code 1 when over budget.
set -euo pipefail
LOG_TAG=size
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

BUDGET_BYTES=$((150 * 1024))
if [[ "${1:-}" == "--build" || ! -f pkg/web/tokenpad_bg.wasm ]]; then
  "$ROOT/scripts/build-pkg.sh" >&2
fi

gz() { gzip -9c "$1" | wc -c; }
row() { printf '  %-28s %9s bytes  %9s bytes gzipped\n' "$1" "$(stat -c %s "$1")" "$(gz "$1")"; }
echo "@tokenpad/client $(node -p "require('./pkg/package.json').version") (gzip -9):"
total=0
for f in pkg/web/tokenpad_bg.wasm pkg/web/tokenpad.js pkg/web/index.js; do
  row "$f"
  total=$((total + $(gz "$f")))
done
printf '  %-28s %9s                %9s bytes gzipped (%d.%d KiB; budget %d KiB)\n' "total (wasm + JS)" "" "$total" \
  $((total / 1024)) $(( (total % 1024) * 10 / 1024 )) $((BUDGET_BYTES / 1024))
if ((total > BUDGET_BYTES)); then
  die "over budget by $((total - BUDGET_BYTES)) bytes"
fi
