#!/usr/bin/env bash
# Installs slither (Trail of Bits' Solidity static analyser, from PyPI) for scripts/slither.sh:
# a Python venv in .tools/slither-venv (gitignored) with exactly the packages pinned in
# scripts/slither-requirements.txt. Skipped when that venv already has them (a hash of the
# requirements file is kept beside it), so a second run takes well under a second.
#   scripts/setup-slither.sh          install if needed
#   scripts/setup-slither.sh --print  print the slither binary's path (after installing if needed)
# Needs python3 >= 3.10 with the venv module (Debian: python3-venv) and PyPI.
set -euo pipefail
LOG_TAG=setup-slither
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

venv="$ROOT/.tools/slither-venv"
requirements="$ROOT/scripts/slither-requirements.txt"
stamp="$venv/.requirements-sha256"
want="$(sha256sum "$requirements" | cut -d' ' -f1)"

if [[ "$(cat "$stamp" 2>/dev/null || true)" != "$want" || ! -x "$venv/bin/slither" ]]; then
  command -v python3 >/dev/null || die "python3 not found: slither needs Python >= 3.10"
  python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
    || die "python3 $(python3 -c 'import platform; print(platform.python_version())') is too old: slither needs >= 3.10"
  t0=$(date +%s)
  log "installing slither into $venv (pinned in scripts/slither-requirements.txt)"
  rm -rf "$venv"
  if ! python3 -m venv "$venv"; then
    # Debian's python3 comes without venv/ensurepip: install it as setup.sh does Chromium
    command -v apt-get >/dev/null || die "python3 -m venv failed: install Python's venv module"
    sudo=()
    [[ "$(id -u)" == 0 ]] || sudo=(sudo)
    log "python3 -m venv failed: installing python3-venv with apt"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv
    rm -rf "$venv"
    python3 -m venv "$venv" || die "python3 -m venv failed even with python3-venv installed"
  fi
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
  [[ -x "$venv/bin/slither" ]] || die "slither missing after the install: $venv/bin/slither"
  echo "$want" > "$stamp"
  log "slither $("$venv/bin/slither" --version) installed in $(( $(date +%s) - t0 )) s"
fi

[[ "${1:-}" == --print ]] && echo "$venv/bin/slither"
exit 0
