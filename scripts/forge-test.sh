#!/usr/bin/env bash
# The contracts' Solidity test suite (contracts/test/*.t.sol: fuzz and invariant tests of the
# market, locker, factory and token) under forge from npm (@foundry-rs/forge, pinned in
# package.json), offline: foundry.toml points forge at scripts/solc-js.cjs instead of a
# downloaded solc. Outputs in target/forge. Extra arguments go to `forge test`, e.g.
#   scripts/forge-test.sh --match-contract LockerTest -vv
set -euo pipefail
LOG_TAG=forge
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

forge="$ROOT/node_modules/.bin/forge"
[[ -x "$forge" ]] || die "forge not found at $forge: run scripts/setup.sh (npm ci)"
# the contracts' artifacts are what the tests deploy: they must be the sources' build
node scripts/build-contracts.mjs --check
exec "$forge" test "$@"
