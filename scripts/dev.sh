#!/usr/bin/env bash
# Runs tokenpad locally: installs what is missing, builds the Worker, serves it with wrangler
# (local workerd) on http://127.0.0.1:${PORT:-8787} with state in .tokenpad/state, seeds a demo
# merchant + token, prints the keys, and stays in the foreground until Ctrl-C.
#
#   ./scripts/dev.sh                 PORT=8788 ./scripts/dev.sh
#   ./scripts/dev.sh --chain anvil   (settle on a real local EVM node: anvil from npm on
#                                    127.0.0.1:8545, its state in .tokenpad/anvil-state.json,
#                                    tokenpad's contracts deployed once, the demo relayer funded;
#                                    the ledger's state in .tokenpad/state-anvil)
#   ADMIN_API_KEY=mykey ./scripts/dev.sh   (overrides the generated admin key)
#   SKIP_SEED=1 ./scripts/dev.sh     (do not seed)
#   SKIP_BUILD=1 ./scripts/dev.sh    (serve the existing crates/worker/build*, no cargo)
#   TOKENPAD_DIR=/tmp/tp ./scripts/dev.sh  (keys, state and demo.json there, not in .tokenpad)
#   RATE_LIMIT_PER_SECOND=0 ./scripts/dev.sh   (each merchant's secret-key budget: 0 turns it off;
#                                    default 200; RATE_LIMIT_BURST too, default twice the rate;
#                                    PUBLIC_RATE_LIMIT_* per client address, default 50, and
#                                    SESSION_RATE_LIMIT_* per session, default 10, likewise)
#   REQUEST_LOG=errors ./scripts/dev.sh   (which requests write their JSON log line: all, the
#                                    default; errors, those answered 400 and above; off)
#   DEV_MAX_RESTARTS=5 ./scripts/dev.sh   (a runtime that dies is restarted, at most this many
#                                    times in 10 minutes; then dev.sh stops and says why)
#
# Dev-only switches ALLOW_TIME_TRAVEL, ENABLE_FAUCET, ALLOW_PRIVATE_WEBHOOK_URLS (webhooks to a
# receiver on this machine) and LOCAL_MAILBOX (the account mails go to the local mailbox, read
# at /dashboard/#/mailbox) are on here (never in wrangler.toml).
# The admin key and the wallet encryption key are generated once into .tokenpad/local.env and
# reused, so restarts can still decrypt the wallets in .tokenpad/state. They reach wrangler
# through an env file of mode 600 (.tokenpad/wrangler.env, `--env-file`), never on its
# command line, where any local user could read them with ps.
set -euo pipefail
# Started in the background by a script (`./scripts/dev.sh &` without job control), bash gets
# SIGINT and SIGQUIT ignored, and a signal ignored on entry can never be trapped: Ctrl-C's
# signal would do nothing. Run again with their default dispositions, so the traps below work
# however it was started (GNU env's --default-signal; where env lacks it, as before).
if [[ -z "${TOKENPAD_DEV_REEXEC:-}" ]] && env --default-signal=INT true 2>/dev/null; then
  export TOKENPAD_DEV_REEXEC=1
  exec env --default-signal=INT,QUIT,TERM,HUP bash "${BASH_SOURCE[0]}" "$@"
fi
LOG_TAG=dev
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

PORT="${PORT:-8787}"
BASE_URL="http://127.0.0.1:$PORT"
CHAIN_KIND=embedded
while (($#)); do
  case "$1" in
    --chain) CHAIN_KIND="${2:-}"; shift 2 || shift ;;
    --chain=*) CHAIN_KIND="${1#*=}"; shift ;;
    -h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (./scripts/dev.sh [--chain embedded|anvil])" ;;
  esac
done
[[ "$CHAIN_KIND" == embedded || "$CHAIN_KIND" == anvil ]] || die "--chain takes embedded or anvil, not '$CHAIN_KIND'"

"$ROOT/scripts/setup.sh" || die "setup failed (see above)"
if [[ "${SKIP_BUILD:-0}" == 1 && -f crates/worker/build/worker/shim.mjs && -f crates/worker/build-ledger/worker/shim.mjs ]]; then
  log "SKIP_BUILD=1: serving the existing crates/worker/build and build-ledger"
else
  "$ROOT/scripts/build-worker.sh" || die "worker build failed (see above)"
fi
# The browser package, which the demo frontend (www/, served at /) loads from www/app/pkg.
if [[ "${SKIP_BUILD:-0}" == 1 && -f www/app/pkg/index.js ]]; then
  :
else
  "$ROOT/scripts/build-pkg.sh" || die "browser package build failed (see above)"
fi
# The merchant dashboard (www/dashboard, served at /dashboard/), built on that package.
if [[ "${SKIP_BUILD:-0}" == 1 && -f www/dashboard/app.js ]]; then
  :
else
  "$ROOT/scripts/build-dashboard.sh" || die "dashboard build failed (see above)"
fi

# --- keys, generated once -----------------------------------------------------------------
TP_DIR="${TOKENPAD_DIR:-$ROOT/.tokenpad}"
# The ledger of one chain is not the ledger of another: each chain keeps its own state.
STATE_DIR="$TP_DIR/state"
DEMO_FILE="$TP_DIR/demo.json"
if [[ "$CHAIN_KIND" == anvil ]]; then
  STATE_DIR="$TP_DIR/state-anvil"
  DEMO_FILE="$TP_DIR/demo-anvil.json"
fi
mkdir -p "$STATE_DIR"
chmod 700 "$TP_DIR"
ENV_FILE="$TP_DIR/local.env"
randhex() { node -e "process.stdout.write(require('crypto').randomBytes($1).toString('hex'))"; }
if [[ ! -f "$ENV_FILE" ]]; then
  (umask 077; printf '# Generated by scripts/dev.sh; reused on every start. Deleting it makes the wallets in\n# .tokenpad/state undecryptable.\nADMIN_API_KEY=dev-admin-%s\nWALLET_ENCRYPTION_KEY=%s\n' \
    "$(randhex 16)" "$(randhex 32)" > "$ENV_FILE")
  log "generated $ENV_FILE"
fi
env_value() { sed -n "s/^$1=//p" "$ENV_FILE" | tail -n 1; }
ADMIN_API_KEY="${ADMIN_API_KEY:-$(env_value ADMIN_API_KEY)}"
WALLET_ENCRYPTION_KEY="$(env_value WALLET_ENCRYPTION_KEY)"
[[ -n "$ADMIN_API_KEY" ]] || die "no ADMIN_API_KEY in $ENV_FILE"
[[ "$WALLET_ENCRYPTION_KEY" =~ ^[0-9a-fA-F]{64}$ ]] || die "WALLET_ENCRYPTION_KEY in $ENV_FILE must be 64 hex chars"
[[ "$ADMIN_API_KEY" =~ ^[A-Za-z0-9._~+/=-]+$ ]] || die "ADMIN_API_KEY may use only letters, digits and ._~+/=-"
chmod 600 "$ENV_FILE"
# What wrangler reads: the secrets as they are in effect now (ADMIN_API_KEY may come from the
# environment), in a file only this user can read.
SECRETS_FILE="$TP_DIR/wrangler.env"
(umask 077; printf '# Written by scripts/dev.sh on every start, for wrangler --env-file.\nADMIN_API_KEY=%s\nWALLET_ENCRYPTION_KEY=%s\n' \
  "$ADMIN_API_KEY" "$WALLET_ENCRYPTION_KEY" > "$SECRETS_FILE")
chmod 600 "$SECRETS_FILE"

# --- the chain: a local anvil with tokenpad's contracts (--chain anvil) ----------------------
ANVIL_PID=""
CHAIN_VARS=()
if [[ "$CHAIN_KIND" == anvil ]]; then
  CHAIN_ENV="$TP_DIR/chain.env"
  rm -f "$CHAIN_ENV"
  log "starting anvil on 127.0.0.1:${ANVIL_PORT:-8545} (state: $TP_DIR/anvil-state.json)"
  setsid node scripts/anvil.mjs --port "${ANVIL_PORT:-8545}" --dir "$TP_DIR" --env-out "$CHAIN_ENV" \
    </dev/null >"$TP_DIR/anvil.out" 2>&1 &
  ANVIL_PID=$!
  for _ in $(seq 600); do
    [[ -s "$CHAIN_ENV" ]] && break
    kill -0 "$ANVIL_PID" 2>/dev/null || { tail -20 "$TP_DIR/anvil.out" >&2; die "anvil did not start (see above)"; }
    sleep 0.1
  done
  [[ -s "$CHAIN_ENV" ]] || die "anvil did not start in 60 s (see $TP_DIR/anvil.out)"
  chain_value() { sed -n "s/^$1=//p" "$CHAIN_ENV" | tail -n 1; }
  CHAIN_RPC_URL="$(chain_value CHAIN_RPC_URL)"
  # The RPC URL is a secret on real chains (API keys): it goes in the env file, like them.
  printf 'CHAIN_RPC_URL=%s\n' "$CHAIN_RPC_URL" >> "$SECRETS_FILE"
  CHAIN_VARS=(--var CHAIN:evm --var "CHAIN_ID:$(chain_value CHAIN_ID)" --var "CHAIN_USDC:$(chain_value CHAIN_USDC)"
    --var "CHAIN_FACTORY:$(chain_value CHAIN_FACTORY)" --var "CHAIN_MARKET:$(chain_value CHAIN_MARKET)"
    --var "CHAIN_LOCKER:$(chain_value CHAIN_LOCKER)"
    --var "CHAIN_UNISWAP_FACTORY:$(chain_value CHAIN_UNISWAP_FACTORY)"
    --var CHAIN_POLL_MS:500 --var CHAIN_BATCH_WINDOW_MS:200 --var CHAIN_SCAN_MS:2000
    --var CHAIN_FINALITY:2)
  log "anvil answers on $CHAIN_RPC_URL (chain $(chain_value CHAIN_ID))"
fi

# The per-merchant rate limit, when set in the environment (a whole number; 0 turns it off),
# and which requests write their log line.
LIMIT_VARS=()
for name in RATE_LIMIT_PER_SECOND RATE_LIMIT_BURST PUBLIC_RATE_LIMIT_PER_SECOND PUBLIC_RATE_LIMIT_BURST \
  SESSION_RATE_LIMIT_PER_SECOND SESSION_RATE_LIMIT_BURST; do
  value="${!name:-}"
  [[ -z "$value" ]] && continue
  [[ "$value" =~ ^[0-9]+$ ]] || die "$name must be a whole number (0 turns the limit off), not '$value'"
  LIMIT_VARS+=(--var "$name:$value")
  log "$name=$value"
done
if [[ -n "${REQUEST_LOG:-}" ]]; then
  [[ "$REQUEST_LOG" =~ ^(all|errors|off)$ ]] || die "REQUEST_LOG must be all, errors or off, not '$REQUEST_LOG'"
  LIMIT_VARS+=(--var "REQUEST_LOG:$REQUEST_LOG")
  log "REQUEST_LOG=$REQUEST_LOG"
fi

node -e "const s=require('net').createServer().once('error',()=>process.exit(1)).listen($PORT,'127.0.0.1',()=>s.close())" \
  || die "port $PORT on 127.0.0.1 is in use (another ./scripts/dev.sh?). Stop it or use PORT=<other> ./scripts/dev.sh"

# --- wrangler dev, in its own process group so Ctrl-C reaches it exactly once, from us -------
# How many times the runtime may die and be restarted in RESTART_WINDOW seconds before dev.sh
# gives up (it then exits 1 and says why).
MAX_RESTARTS="${DEV_MAX_RESTARTS:-5}"
RESTART_WINDOW=600
[[ "$MAX_RESTARTS" =~ ^[0-9]+$ ]] || die "DEV_MAX_RESTARTS must be a whole number, not '$MAX_RESTARTS'"
WRANGLER_PID=""
DEV_VARS=(--var ALLOW_TIME_TRAVEL:true --var ENABLE_FAUCET:true --var ALLOW_PRIVATE_WEBHOOK_URLS:true
  --var LOCAL_MAILBOX:true "${CHAIN_VARS[@]}" "${LIMIT_VARS[@]}")
# The two Workers run in one wrangler dev: the front (crates/worker/wrangler.toml) serves,
# the ledger holds the merchants' objects beside it. wrangler gives `--var` and `--env-file`
# to the first alone, and the ledger reads its vars and secrets from the .dev.vars beside its
# config. So the ledger runs from a copy of its config in $TP_DIR/ledger (its `main` made
# absolute), with that .dev.vars (mode 600) beside it: the secrets stay in $TP_DIR, never in
# the source tree.
LEDGER_DIR="$TP_DIR/ledger"
write_ledger_config() {
  mkdir -p "$LEDGER_DIR"
  local line found=0
  while IFS= read -r line; do
    if [[ "$line" == 'main = "entry.mjs"' ]]; then line="main = \"$ROOT/crates/worker/ledger/entry.mjs\""; found=1; fi
    printf '%s\n' "$line"
  done < "$ROOT/crates/worker/ledger/wrangler.toml" > "$LEDGER_DIR/wrangler.toml"
  ((found)) || die "crates/worker/ledger/wrangler.toml no longer has main = \"entry.mjs\""
  (umask 077
    printf '# Written by scripts/dev.sh on every start: the ledger Worker'"'"'s vars and secrets.\n'
    grep -v '^#' "$SECRETS_FILE"
    for ((i = 1; i < ${#DEV_VARS[@]}; i += 2)); do printf '%s=%s\n' "${DEV_VARS[i]%%:*}" "${DEV_VARS[i]#*:}"; done
  ) > "$LEDGER_DIR/.dev.vars"
  chmod 600 "$LEDGER_DIR/.dev.vars"
}
start_wrangler() {
  log "starting wrangler dev on $BASE_URL (state: $STATE_DIR)"
  write_ledger_config
  (cd "$ROOT/crates/worker" && exec setsid node "$(wrangler_js)" dev \
    --config wrangler.toml --config "$LEDGER_DIR/wrangler.toml" \
    --ip 127.0.0.1 --port "$PORT" \
    --persist-to "$STATE_DIR" \
    --env-file "$SECRETS_FILE" \
    --show-interactive-dev-session=false \
    "${DEV_VARS[@]}" \
    </dev/null) &
  WRANGLER_PID=$!
}

# Stops wrangler and everything in its process group (workerd): SIGINT first, which lets
# wrangler stop workerd cleanly, then SIGKILL for what is left.
stop_wrangler() {
  [[ -n "$WRANGLER_PID" ]] || return 0
  if kill -0 "$WRANGLER_PID" 2>/dev/null; then
    kill -INT "$WRANGLER_PID" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$WRANGLER_PID" 2>/dev/null || break; sleep 0.1; done
  fi
  for _ in $(seq 20); do kill -0 -- "-$WRANGLER_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL -- "-$WRANGLER_PID" 2>/dev/null || true
  wait "$WRANGLER_PID" 2>/dev/null || true
}

stopped=0
cleanup() {
  ((stopped)) && return
  stopped=1
  [[ -n "${CHILD_PID:-}" ]] && { kill "$CHILD_PID" 2>/dev/null || true; }
  if [[ -n "$WRANGLER_PID" ]] && kill -0 -- "-$WRANGLER_PID" 2>/dev/null; then
    log "stopping wrangler (pid $WRANGLER_PID)"
  fi
  stop_wrangler
  if [[ -n "$ANVIL_PID" ]] && kill -0 "$ANVIL_PID" 2>/dev/null; then
    log "stopping anvil (its state is written to $TP_DIR/anvil-state.json)"
    kill -INT "$ANVIL_PID" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$ANVIL_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$ANVIL_PID" 2>/dev/null || true
  fi
}
trap 'log "SIGINT: stopping"; cleanup; exit 130' INT
trap 'log "SIGTERM: stopping"; cleanup; exit 143' TERM
trap 'cleanup; exit 129' HUP
trap cleanup EXIT

# Runs a command in the background and waits for it, so a signal is handled at once (bash runs
# a trap only once a foreground child has exited).
run() {
  "$@" &
  CHILD_PID=$!
  local status=0
  wait "$CHILD_PID" || status=$?
  CHILD_PID=""
  return "$status"
}

# Whether the Worker itself answers: /health with its x-request-id (wrangler's proxy answers
# too, with an error page, while its runtime is gone).
answers() {
  if command -v curl >/dev/null; then
    local headers
    headers=$(curl -s -o /dev/null -D - -m 3 "$BASE_URL/health" 2>/dev/null) || return 1
    grep -qi '^x-request-id:' <<<"$headers"
  else
    node -e "fetch(process.argv[1] + '/health', { signal: AbortSignal.timeout(3000) })
      .then((r) => process.exit(r.headers.has('x-request-id') ? 0 : 1), () => process.exit(1))" "$BASE_URL"
  fi
}

# Whether the runtime is alive. wrangler runs two workerds in its process group: its proxy,
# listening on $PORT, and the runtime that runs the Worker, on a port of its own. Either can die
# while wrangler stays up; when the Worker's does, the proxy answers $PORT with a plain-text 503
# forever. Both there: alive, checked without a request, so the supervision below writes
# nothing to the log. Otherwise (one of them gone, or no pgrep, or a wrangler that runs them
# some other way) the Worker is asked: alive if it answers itself.
runtime_alive() {
  if command -v pgrep >/dev/null \
    && pgrep -g "$WRANGLER_PID" -f -- "--socket-addr=entry=127\.0\.0\.1:$PORT( |$)" >/dev/null \
    && (( $(pgrep -g "$WRANGLER_PID" -x workerd | wc -l) >= 2 )); then
    return 0
  fi
  answers
}

# Waits (60 s at most) until the Worker answers; fails if wrangler exits first.
wait_until_up() {
  local deadline=$(( $(date +%s) + 60 ))
  while (( $(date +%s) < deadline )); do
    kill -0 "$WRANGLER_PID" 2>/dev/null || { log "wrangler exited"; return 1; }
    answers && return 0
    run sleep 0.2
  done
  log "no answer from $BASE_URL after 60 s"
  return 1
}

start_wrangler
t0=$(date +%s%N)
wait_until_up || die "wrangler did not come up (see its output above)"
log "worker answers on $BASE_URL after $(( ($(date +%s%N) - t0) / 1000000 )) ms"

# --- seed -------------------------------------------------------------------------------------
if [[ "${SKIP_SEED:-0}" != 1 ]]; then
  if ! TOKENPAD_URL="$BASE_URL" ADMIN_API_KEY="$ADMIN_API_KEY" TOKENPAD_DEMO_FILE="$DEMO_FILE" \
    TOKENPAD_FUND_RPC="${CHAIN_RPC_URL:-}" run node scripts/seed.mjs; then
    printf '\n%s[dev] SEEDING FAILED%s (see the error above). The server is still running;\n' "$_c2" "$_c0" >&2
    printf '      fix the API and rerun: TOKENPAD_URL=%s ADMIN_API_KEY=<key> node scripts/seed.mjs\n\n' "$BASE_URL" >&2
  fi
fi

# The demo frontend's link, with the demo merchant's public key (never the secret one).
WWW_URL="$BASE_URL/"
demo_pk="$(node -p "require(process.argv[1]).keys.publicKey" "$DEMO_FILE" 2>/dev/null || true)"
[[ "$demo_pk" == pk_* ]] && WWW_URL="$BASE_URL/?publicKey=$demo_pk"

# The dashboard, and the demo account that owns the demo merchant when the seed made one
# (demo.json's `account`: its email and password, scripts/seed.mjs).
DASH_LINES="  dashboard     $BASE_URL/dashboard/   (local mailbox: $BASE_URL/dashboard/#/mailbox)"
demo_account="$(node -e "const a=require(process.argv[1]).account; if (a && a.email && a.password) process.stdout.write(a.email + ' / ' + a.password)" "$DEMO_FILE" 2>/dev/null || true)"
[[ -n "$demo_account" ]] && DASH_LINES+=$'\n'"  demo account  $demo_account      (log in to the dashboard with it)"

cat <<MSG

tokenpad is running on $BASE_URL   (state: $STATE_DIR, keys: $ENV_FILE)
  web demo      $WWW_URL
$DASH_LINES
  admin key     $ADMIN_API_KEY      (x-admin-key)
  time travel   curl -sX POST $BASE_URL/admin/time/advance -H "x-admin-key: $ADMIN_API_KEY" -H 'content-type: application/json' -d '{"seconds":60}'
$(if [[ "$CHAIN_KIND" == anvil ]]; then printf '  chain         anvil at %s (every movement settles there; the demo merchant relayer is funded)\n  fund a relayer  node scripts/fund.mjs <merchantAddress>     (a new merchant signs and pays gas from its own wallet)\n' "$CHAIN_RPC_URL"; fi)
Press Ctrl-C to stop.

MSG

# --- supervise: the runtime can die under wrangler (workerd killed, out of memory) while
# wrangler stays up and answers nothing but errors. Every 2 s: is wrangler alive, is its
# runtime? Three misses in a row (a reload after a rebuild may take one) and wrangler is
# restarted on the same state, at most MAX_RESTARTS times in RESTART_WINDOW seconds; past that
# dev.sh stops and says why.
restarts=()
misses=0
while :; do
  run sleep 2
  if kill -0 "$WRANGLER_PID" 2>/dev/null; then
    if runtime_alive; then misses=0; continue; fi
    misses=$((misses + 1))
    ((misses < 3)) && continue
    why="the Workers runtime (workerd) serving $BASE_URL died while wrangler stayed up"
  else
    status=0
    wait "$WRANGLER_PID" 2>/dev/null || status=$?
    why="wrangler exited with status $status"
  fi
  misses=0
  now=$(date +%s)
  recent=()
  for t in "${restarts[@]}"; do (( now - t < RESTART_WINDOW )) && recent+=("$t"); done
  restarts=("${recent[@]}")
  if (( ${#restarts[@]} >= MAX_RESTARTS )); then
    printf '\n%s[dev] STOPPED:%s %s, and it was restarted %d times in the last %d minutes already.\n' \
      "$_c2" "$_c0" "$why" "${#restarts[@]}" $((RESTART_WINDOW / 60)) >&2
    printf '      See the runtime output above; start ./scripts/dev.sh again once it is fixed (state is kept in %s).\n\n' "$STATE_DIR" >&2
    exit 1
  fi
  restarts+=("$now")
  printf '\n%s[dev] %s: restarting it (%d of at most %d in %d minutes; state is kept)%s\n' \
    "$_c2" "$why" "${#restarts[@]}" "$MAX_RESTARTS" $((RESTART_WINDOW / 60)) "$_c0" >&2
  stop_wrangler
  start_wrangler
  if wait_until_up; then
    log "worker answers again on $BASE_URL"
  else
    log "the restarted runtime did not come up"
  fi
done
