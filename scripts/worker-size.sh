#!/usr/bin/env bash
# The size of tokenpad's two Workers as Cloudflare counts it: what `wrangler deploy` uploads
# for each (its bundle of the entry and the build's glue, and the wasm), gzipped, from
# `wrangler deploy --dry-run` (nothing is uploaded), each checked against a ceiling.
# Cloudflare's limit on a Worker is on this figure; a larger one also starts slower (V8
# compiles the wasm at a cold start).
#   - the front (crates/worker/wrangler.toml, build/): every request's routing, accounts, the
#     operator's routes;
#   - the ledger (crates/worker/ledger/wrangler.toml, build-ledger/): the merchants' objects,
#     the relays, the registry: the core's operations and the settler.
#
#   ceiling: 900 KiB gzipped for each Worker, issue 44's target (docs/performance.md: the
#            Workers' size). History of the one Worker before the split: 1,237 KiB at its
#            largest (issue 41's accounts), brought to 1,022.7 KiB under a 1,024 budget by the
#            hop as route and text, openapi.json among the assets, url's IDNA stub and wasm-opt
#            without one-caller inlining. Split in two (one crate built with `--features front`
#            and `--features ledger`, scripts/build-worker.sh): the front 401.4 KiB and the
#            ledger 865.5 KiB when set. A change that needs more must take as much out
#            elsewhere, or say here why the ceiling moves.
#
#   scripts/worker-size.sh           measure crates/worker/build and build-ledger as built
#                                    (builds them when missing)
#   scripts/worker-size.sh --build   rebuild them first
# Exit code 1 over the ceiling.
set -euo pipefail
LOG_TAG=worker-size
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

CEILING_KIB=900
if [[ "${1:-}" == "--build" || ! -f crates/worker/build/index_bg.wasm || ! -f crates/worker/build-ledger/index_bg.wasm ]]; then
  "$ROOT/scripts/build-worker.sh" >&2
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
over=()
for worker in front:crates/worker ledger:crates/worker/ledger; do
  dir="${worker#*:}" worker="${worker%%:*}"
  report="$(cd "$dir" && WRANGLER_SEND_METRICS=false CLOUDFLARE_CF_FETCH_ENABLED=false \
    node "$(wrangler_js)" deploy --dry-run --outdir "$out/$worker" --env "" 2>&1)" \
    || { printf '%s\n' "$report" >&2; die "wrangler deploy --dry-run failed for the $worker"; }
  line="$(grep -o 'Total Upload: .*' <<<"$report" || true)"
  [[ -n "$line" ]] || { printf '%s\n' "$report" >&2; die "wrangler printed no 'Total Upload' line for the $worker"; }
  gzip_kib="$(sed -E 's/.*gzip: ([0-9.]+) KiB.*/\1/' <<<"$line")"
  echo "$worker Worker upload (wrangler deploy --dry-run): ${line#Total Upload: } (ceiling ${CEILING_KIB} KiB gzip)"
  for f in "$out/$worker"/*; do
    [[ "$f" == *.map || "$f" == *.md ]] && continue
    printf '  %-60s %9s bytes  %9s bytes gzip -9\n' "$(basename "$f")" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"
  done
  awk -v g="$gzip_kib" -v c="$CEILING_KIB" 'BEGIN { exit !(g <= c) }' \
    || over+=("the $worker Worker is ${gzip_kib} KiB gzipped, over its ceiling of ${CEILING_KIB} KiB")
done
((${#over[@]} == 0)) || die "${over[*]}"
