#!/usr/bin/env bash
# One command for a newcomer: install, build, start a throwaway sandbox, and send a confidential
# transfer through the real CLI until it is confirmed. Leaves your own ~/.config/svc untouched.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -d node_modules ] || npm ci --no-audit --no-fund
npm run --silent build

export SVC_CONFIG_DIR="$(mktemp -d)"
svc() { node bin/svc.js "$@"; }
log="$SVC_CONFIG_DIR/sandbox.log"

echo "==> svc sandbox start --port 0 --ephemeral --block-time 1s   (config in $SVC_CONFIG_DIR)"
node bin/svc.js sandbox start --port 0 --ephemeral --block-time 1s >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$SVC_CONFIG_DIR"' EXIT
for _ in $(seq 1 100); do grep -q 'listening on' "$log" && break; sleep 0.1; done
grep -q 'listening on' "$log" || { cat "$log"; exit 1; }
grep 'listening on' "$log"

run() { echo; echo "==> svc $*"; svc "$@"; }
run profile ls
run account
run transfer send @acme 12.50 --memo "first invoice" --wait
run transfer ls --limit 5
run balance --verify
echo
echo "Done: a confirmed confidential transfer in the sandbox. See README.md for the tour."
