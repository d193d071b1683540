#!/usr/bin/env bash
# tokenpad's benchmark: a hello-world Worker and tokenpad side by side under the same wrangler
# and workerd, every route named in docs/performance.md loaded with autocannon
# (req/s, p50, p99, share of hello-world's req/s measured in the same run, CPU time per request
# against hello-world's; hello-world is also measured writing one log line per request, as
# tokenpad does, to show what the runtime charges for that line, and after a call to a
# Durable Object, in JavaScript and in Rust (bench/hello, bench/hello-rs): the floor for a route
# that reaches the ledger; tokenpad runs API-only, without its assets), a presale launch
# with 10,000 buyers, the Worker's and the package's gzip sizes, and the Worker's cold start;
# then gas per movement on a local anvil (bench/gas.mjs: rewards to new and to existing holders,
# holders' own transfers; SKIP_GAS=1 leaves it out).
# Rate limiting is off in the benchmarked worker. Builds the Worker (and pkg/) first when a
# source is newer than the build; SKIP_BUILD=1 uses the build as it is.
#
#   ./scripts/bench.sh                     3 s per route, 32 connections, 10,000 buyers
#   ./scripts/bench.sh --seconds 10        longer runs (steadier figures)
#   ./scripts/bench.sh --connections 64 --buyers 1000 --only spend --json out.json
#   ./scripts/bench.sh --no-launch         every route, no 10,000-buyer launch (about 2 minutes)
#   ./scripts/bench.sh --quick             1 s per route, 200 buyers: a smoke run
#   ./scripts/bench.sh --no-launch --only history --cold 9
#                                          the cold start's medians over 9 restarts (default 5)
#   ./scripts/bench.sh --no-launch --only buy-presale --crowd 1000
#                                          a purchase after 1,000 buyers (default 100)
#   ./scripts/bench.sh watchers            a launch everyone watches (bench/watchers.mjs): buys
#                                          into one presale with 0, 1,000 and 5,000 WebSocket
#                                          watchers, and 1,000 connections polling its public
#                                          read (--quick: 0 and 200 watchers, 200 pollers)
#   ./scripts/bench.sh --profile spend     where one route's time goes (bench/profile.mjs: holder,
#                                          token, history, spend, transfer, distribute, replay, health;
#                                          --request-log off profiles it without the log line,
#                                          --isolate front the front Worker's isolate, not the ledger's)
#
# ./scripts/test.sh runs it once with --quick so it cannot rot, and checks none of its figures:
# they depend on the machine and what else runs on it.
set -euo pipefail
LOG_TAG=bench
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

[[ " $* " == *" -h "* || " $* " == *" --help "* ]] && { sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0; }

[[ -d node_modules/autocannon && -f "$(wrangler_js)" ]] || "$ROOT/scripts/setup.sh" || die "setup failed (see above)"

# Is any source newer than the build?
stale() {
  local built="$1"; shift
  [[ -f "$built" ]] || return 0
  [[ -n "$(find "$@" -newer "$built" -type f -print -quit 2>/dev/null)" ]]
}
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  if stale crates/worker/build-ledger/index_bg.wasm crates/core/src crates/worker/src crates/evm/src crates/*/Cargo.toml Cargo.toml Cargo.lock openapi.json; then
    "$ROOT/scripts/build-worker.sh" || die "worker build failed (see above)"
  fi
  if stale pkg/tokenpad_bg.wasm src crates/core/src Cargo.toml Cargo.lock; then
    "$ROOT/scripts/build-pkg.sh" || die "package build failed (see above)"
  fi
fi
[[ -f crates/worker/build/worker/shim.mjs && -f crates/worker/build-ledger/worker/shim.mjs ]] || die "no worker build (run without SKIP_BUILD=1)"
# The Rust yardstick (bench/hello-rs) is built when missing even with SKIP_BUILD=1: it is not
# what is measured.
if [[ "${SKIP_BUILD:-0}" != 1 || ! -f bench/hello-rs/build/index_bg.wasm ]] \
  && stale bench/hello-rs/build/index_bg.wasm bench/hello-rs/src bench/hello-rs/Cargo.toml Cargo.toml Cargo.lock; then
  WORKER_CRATE=bench/hello-rs "$ROOT/scripts/build-worker.sh" || die "bench/hello-rs build failed (see above)"
fi

if [[ "${1:-}" == watchers ]]; then
  shift
  exec node bench/watchers.mjs "$@"
fi
if [[ "${1:-}" == --profile ]]; then
  shift
  exec node bench/profile.mjs "$@"
fi
node bench/bench.mjs "$@"
if [[ "${SKIP_GAS:-0}" != 1 ]]; then
  gas_args=()
  [[ " $* " == *" --quick "* ]] && gas_args=(--quick)
  node bench/gas.mjs "${gas_args[@]}"
fi
