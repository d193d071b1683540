#!/usr/bin/env bash
# Publishes @tokenpad/client (pkg/, built by scripts/build-pkg.sh) to npm, or checks that it
# would publish: `--dry-run` (what ./scripts/test.sh runs, so the release path cannot rot).
#   1. packs pkg/ (the tarball is what gets published, and what the consumer tests install);
#   2. checks its types with @arethetypeswrong/cli (every entry point, import and require);
#   3. on a release tag (GITHUB_REF_NAME=v<version>), checks the tag names the package's version;
#   4. `npm publish <tarball>`: with --provenance in GitHub Actions (the release workflow,
#      .github/workflows/release.yml: npm signs where and from what commit it was built), with
#      --dry-run otherwise.
set -euo pipefail
LOG_TAG=publish
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

dry_run=0
[[ "${1:-}" == --dry-run ]] && dry_run=1
[[ -f pkg/package.json ]] || die "pkg/ is not built: run scripts/build-pkg.sh"

out="$ROOT/target/publish"
rm -rf "$out" && mkdir -p "$out"
(cd pkg && npm pack --pack-destination "$out" --silent >/dev/null)
tarball="$(ls "$out"/*.tgz)"
version="$(node -p "require('./pkg/package.json').version")"
log "packed $(basename "$tarball") ($(( $(stat -c %s "$tarball") / 1024 )) KiB)"

# The wasm file is an asset, not a JavaScript entry point: it has no types to check.
"$ROOT/node_modules/.bin/attw" "$tarball" --exclude-entrypoints ./tokenpad_bg.wasm \
  || die "@arethetypeswrong/cli found problems in the package's types (above)"

if [[ "${GITHUB_REF_NAME:-}" == v* && "${GITHUB_REF_NAME#v}" != "$version" ]]; then
  die "the tag $GITHUB_REF_NAME does not name the package's version $version (Cargo.toml)"
fi

args=(publish "$tarball" --access public)
if (( dry_run )); then
  args+=(--dry-run)
elif [[ "${GITHUB_ACTIONS:-}" == true ]]; then
  args+=(--provenance)
else
  die "a real publish runs in the release workflow (for provenance); here: scripts/publish.sh --dry-run"
fi
listing="$(npm "${args[@]}" 2>&1)" || { printf '%s\n' "$listing" >&2; die "npm ${args[*]} failed"; }
for f in package.json README.md LICENSE tokenpad_bg.wasm index.js node.cjs server.cjs metal.cjs react.cjs index.d.cts; do
  grep -qE "(^| )$f$" <<<"$listing" || { printf '%s\n' "$listing" >&2; die "the package would not contain $f"; }
done
log "npm ${args[*]}: @tokenpad/client@$version$( (( dry_run )) && echo ' (dry run)')"
