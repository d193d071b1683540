#!/usr/bin/env bash
# tokenpad's full check, as CI runs it (.ci/run): setup, rustfmt, clippy, native Rust tests,
# the seeded simulator, Worker build, black-box HTTP tests against the built Worker in local
# workerd, the Solidity contracts on a local anvil node, their forge fuzz and invariant suite and
# slither's triaged findings, and the browser
# library: its package build, size and publish dry run, wasm tests in headless Chromium, the www end-to-end test,
# the npm package installed from its tarball (Node ESM/CJS, the server client, an edge Worker in
# workerd) and bundled by vite (React), esbuild and webpack into pages loaded in Chromium.
# Stops at the first failing step. SKIP_SETUP=1 skips scripts/setup.sh; FROM_STEP=<step> starts
# at that step (the names are the ones it logs).
set -euo pipefail
LOG_TAG=test
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

t_all=$(date +%s)
# One clean pass keeps nothing for a next build to reuse: incremental state would only take disk
# (1.6 GB of target/debug on a clean run). Cargo.toml keeps debug builds to line tables for the
# same reason. The free space is logged so a full disk is seen before a step dies of it.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
log "disk: $(df -Ph "$ROOT" | awk 'NR==2 {print $4 " free of " $2}')"
# A step that hangs (a process left running keeps a test file's process alive, say) fails
# after STEP_TIMEOUT_S instead of using up CI's whole time with nothing said (the longest step,
# the http suites, takes ~9 minutes on a 2-core machine). timeout signals the step's whole process group.
# Setup on a fresh machine downloads and compiles its tools: it gets twice as long.
STEP_TIMEOUT_S="${STEP_TIMEOUT_S:-1800}"
STEP_PID=""
trap 'if [[ -n "$STEP_PID" ]]; then kill -TERM "$STEP_PID" 2>/dev/null || true; wait "$STEP_PID" 2>/dev/null || true; fi; exit 130' INT TERM
step() {
  local name="$1"; shift
  # FROM_STEP=<name> skips the steps before that one (a rerun after a failure).
  if [[ -n "${FROM_STEP:-}" ]]; then
    [[ "$name" == "$FROM_STEP" ]] || { log "── $name: skipped (FROM_STEP=$FROM_STEP)"; return 0; }
    FROM_STEP=""
  fi
  local t0; t0=$(date +%s)
  log "── $name: $*"
  local limit="$STEP_TIMEOUT_S"
  [[ "$name" == setup ]] && limit=$(( STEP_TIMEOUT_S * 2 ))
  local rc=0
  # In the background, so the trap below can pass an interrupt on: timeout runs the step in a
  # process group of its own, which a Ctrl-C on this script would not reach.
  timeout --kill-after=30s "$limit" "$@" &
  STEP_PID=$!
  wait "$STEP_PID" || rc=$?
  STEP_PID=""
  if (( rc != 0 )); then
    local why=""
    (( rc == 124 || rc == 137 )) && why=" after ${limit} s without finishing (STEP_TIMEOUT_S)"
    # The exit code too: a node script whose awaited promise can never settle exits 13 and
    # prints nothing (cold-profile-smoke did, when an inspector closed under its session).
    printf '\n%s[test] FAILED at step "%s"%s%s (exit %d; command: %s)\n' "$_c2" "$name" "$why" "$_c0" "$rc" "$*" >&2
    exit 1
  fi
  log "── $name ok ($(( $(date +%s) - t0 )) s)"
}

[[ "${SKIP_SETUP:-0}" == 1 ]] || step setup "$ROOT/scripts/setup.sh" --browser --slither
step fmt cargo fmt --all -- --check
step clippy cargo clippy --workspace --all-targets --locked -- -D warnings
step clippy-wasm cargo clippy -p tokenpad -p tokenpad-worker -p tokenpad-evm --target wasm32-unknown-unknown --all-targets --locked -- -D warnings
step rust-tests cargo test --workspace --locked
# openapi.json under a standard OpenAPI linter (@redocly/cli, pinned): redocly.yaml makes every
# recommended rule an error; .redocly.lint-ignore.yaml lists the findings the document cannot fix.
step openapi-lint env REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true "$ROOT/node_modules/.bin/redocly" lint
# The seeded simulator (crates/sim): the CI seeds' long random histories with faults, every
# invariant checked after each step; a failure prints its shortest history and the command
# that reruns it. The debug build cargo test just made (25 s of CPU; under a minute on a
# busy 2-core machine).
step sim cargo run -p tokenpad-sim --locked -- --ci
step build-worker "$ROOT/scripts/build-worker.sh"
# The two Workers as wrangler uploads them, gzipped, each against its ceiling
# (scripts/worker-size.sh), and their two configurations in agreement (the same vars in every
# environment, the front's bindings on the ledger's classes: scripts/check-wrangler.mjs).
step worker-size "$ROOT/scripts/worker-size.sh"
step check-wrangler node "$ROOT/scripts/check-wrangler.mjs"
# What the size comes from, by crate (bench/wasm-size.mjs), run so it cannot rot.
step wasm-size node "$ROOT/bench/wasm-size.mjs" --top 5
step build-pkg "$ROOT/scripts/build-pkg.sh"
step build-dashboard "$ROOT/scripts/build-dashboard.sh"
step pkg-size "$ROOT/scripts/size.sh"
# The release path, short of the upload: pack, check the types of every entry point
# (@arethetypeswrong/cli), `npm publish --dry-run` (.github/workflows/release.yml publishes).
step pkg-publish-dry-run "$ROOT/scripts/publish.sh" --dry-run
step browser-tests "$ROOT/scripts/test-browser.sh"

# A global WebSocket for the live push tests: Node 22 has one, Node 20 behind a flag.
ws_flag=()
node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' || ws_flag=(--experimental-websocket)

shopt -s nullglob
http_tests=(tests/http/*.test.mjs)
shopt -u nullglob
if ((${#http_tests[@]})); then
  step http-tests node "${ws_flag[@]}" --test --test-concurrency=1 "${http_tests[@]}"
else
  log "no tests/http/*.test.mjs files"
fi

# The contracts (their offline build reproduces contracts/build) on a real local node (anvil),
# and crates/evm's signing and calldata: against viem's (vectors) and sent to anvil.
step evm-vectors node crates/evm/tests/vectors.mjs --check
# tests/chain/settlement.test.mjs: settlement through the Worker, with its faults.
step chain-tests node --test --test-concurrency=1 tests/chain/ crates/evm/tests/anvil.test.mjs
# The contracts as contracts: forge's fuzz and invariant tests (contracts/test, about 30 s), then
# slither, which fails on any finding not triaged in contracts/slither-triage.json (about 10 s).
step forge "$ROOT/scripts/forge-test.sh"
step slither node "$ROOT/scripts/slither.mjs"
# The chain's representative subset of the HTTP suites (the whole list ran past the 30-minute
# budget): the ledger, idempotency, presales, the README walkthroughs, webhooks, markets (two
# files: markets_traders has round trips, launch pools, concurrency and the outside trader),
# deployments, and that a read asks nothing of a quiet settler (quiet_reads), again, each
# worker on its own anvil with Uniswap v3 and tokenpad's market deployed (every movement
# settled on chain, pools are Uniswap's, trades are swaps whose quotes must equal QuoterV2's
# and whose mined amounts the quotes', an outside trader swaps through
# SwapRouter; each suite ends reconciling ledger and chain, pools included; webhooks delivered
# while movements settle on chain). tokens, holders and sessions run on the embedded chain only
# (http-tests): what they move on chain, a token's deployment, a holder's movements, a
# session's spend, the subset moves too; presale_events (a hundred purchases, checking the
# events' shapes) runs on the embedded chain only too. Any suite runs on anvil alone with
# `TOKENPAD_TEST_CHAIN=anvil node --test tests/http/<suite>.test.mjs`.
step chain-http-tests env TOKENPAD_TEST_CHAIN=anvil node "${ws_flag[@]}" --test --test-concurrency=1 \
  tests/http/ledger.test.mjs tests/http/idempotency.test.mjs tests/http/presales.test.mjs \
  tests/http/readme.test.mjs tests/http/webhooks.test.mjs tests/http/markets.test.mjs \
  tests/http/markets_traders.test.mjs tests/http/deployments.test.mjs tests/http/quiet_reads.test.mjs

step e2e-tests node --test --test-concurrency=1 tests/e2e/
step consumer-tests node --test --test-concurrency=1 tests/consumer/
step bundler-tests node --test --test-concurrency=1 tests/browser/
# The benchmark, the profiler, the benchmark without wrangler dev, perf's split of workerd's CPU, the SQL statement
# benchmark, the presale reads under purchases and the watched launch, once each, so none can
# rot unnoticed: a failed request, a watcher not at the last state or a crash fails the step;
# the figures are not checked (they depend on the machine). bench/ab.mjs's table is printed from the smoke run's figures (its runs would build
# another commit: too long here).
rm -rf "$ROOT/target/bench-smoke"
mkdir -p "$ROOT/target/bench-smoke"
step bench-smoke env SKIP_BUILD=1 "$ROOT/scripts/bench.sh" --quick --json "$ROOT/target/bench-smoke/1-B.json"
step ab-table-smoke node "$ROOT/bench/ab.mjs" --table "$ROOT/target/bench-smoke"
step profile-smoke env SKIP_BUILD=1 "$ROOT/scripts/bench.sh" --profile spend --seconds 1 --top 5
step profile-front-smoke env SKIP_BUILD=1 "$ROOT/scripts/bench.sh" --profile spend --seconds 1 --top 5 --isolate front
step cold-profile-smoke node "$ROOT/bench/cold-profile.mjs" --runs 1 --top 5 --out "$ROOT/target/bench-smoke"
step plain-smoke node "$ROOT/bench/plain.mjs" --seconds 1 --warm 0
# Linux perf's split of workerd's CPU (bench/perf.mjs), where perf is installed and may sample
# (a CI machine may have none or forbid it: then that is said, and nothing fails).
if perf record -q -o /dev/null -- true >/dev/null 2>&1; then
  step perf-smoke node "$ROOT/bench/perf.mjs" spend --seconds 1 --top 3
else
  log "── perf-smoke: skipped (no perf that may sample processes here)"
fi
step sqlite-smoke node "$ROOT/bench/sqlite.mjs" --seconds 1 --rounds 1 --n 2
step sqlite-each-smoke node "$ROOT/bench/sqlite.mjs" --seconds 1 --rounds 1 --n 2 --each --only "seq given"
step sqlite-group-smoke node "$ROOT/bench/sqlite.mjs" --seconds 1 --rounds 1 --n 1 --group --only "floor|a spend"
# The signature's price in V8's wasm (bench/sign.mjs): its four builds of k256 must sign alike.
step sign-smoke node "$ROOT/bench/sign.mjs" --rounds 1 --n 5
step presale-reads-smoke node "$ROOT/bench/presale-reads.mjs" --buyers 50 --seconds 1
step watchers-smoke env SKIP_BUILD=1 "$ROOT/scripts/bench.sh" watchers --watchers 0,50 --seconds 1 --pollers 20 --poll-seconds 1

log "all checks passed in $(( $(date +%s) - t_all )) s"
