#!/usr/bin/env bash
# The browser library's wasm-bindgen tests (tests/it/) in headless Chromium, through
# chromedriver (flags in webdriver.json). Fails unless the run happened in Chrome and every
# #[wasm_bindgen_test] in tests/it/ passed: a run that was skipped (e.g. under Node, which
# prints "skipping" and exits 0) or that ran fewer tests than the file holds is a failure.
# Needs Chromium and chromedriver: scripts/setup.sh --browser.
set -euo pipefail
LOG_TAG=test-browser
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
[[ -x "$CHROMEDRIVER" && -x /usr/bin/chromium ]] || die "chromium/chromedriver missing: run scripts/setup.sh --browser"
command -v wasm-bindgen-test-runner >/dev/null || die "wasm-bindgen-test-runner missing: run scripts/setup.sh"

expected=$(cat tests/it/*.rs | grep -cE "^\s*#\[wasm_bindgen_test\]")
((expected > 0)) || die "no #[wasm_bindgen_test] in tests/it/"

log="$(mktemp)"
# chromedriver makes Chromium's profile in $TMPDIR and, stopped by the test runner without a
# session delete, leaves it there: 38 MB in /tmp per run. The run gets a TMPDIR of its own.
tmp="$(mktemp -d)"
trap 'rm -f "$log"; rm -rf "$tmp"' EXIT
set +e
TMPDIR="$tmp" \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
CHROMEDRIVER="$CHROMEDRIVER" \
WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-120}" \
  cargo test --locked -p tokenpad --target wasm32-unknown-unknown --test it 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
((status == 0)) || die "browser tests failed (exit $status)"

grep -q 'Running headless tests in Chrome' "$log" || die "the tests did not run in headless Chrome (see above)"
if grep -qiE '^\s*(skipping|test .* \.\.\. ignored)' "$log"; then
  die "some browser tests were skipped (see above)"
fi
result="$(grep -E '^test result: ' "$log" | tail -n 1)"
passed="$(sed -nE 's/^test result: ok\. ([0-9]+) passed; 0 failed.*/\1/p' <<<"$result")"
[[ "$passed" == "$expected" ]] \
  || die "expected $expected browser tests to pass, got: ${result:-no test result line}"
log "$passed of $expected browser tests passed in Chromium"
