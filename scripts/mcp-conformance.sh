#!/usr/bin/env bash
# The official MCP conformance suite against `svc mcp --http` (docs/mcp.md, "Over HTTP"): a
# throwaway sandbox and config dir, an agent's profile, `svc mcp --http 127.0.0.1:0`, then the
# scenarios that apply to any server. Prints each scenario's checks and one line per scenario;
# exits 1 when any fails. Run by .ci/run and `npm run conformance` (which builds first).
#
# The suite needs Node >= 22: SVC_CONFORMANCE_NODE names that node binary; without it, this
# machine's node if it is 22 or later, else node@22 from the npm registry into the temporary dir.
# svc itself runs on this machine's node. The suite is pinned and installed without install
# scripts into the temporary dir, and runs there, so its results never land in the repository.
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE=@modelcontextprotocol/conformance@0.1.16
SCENARIOS=(server-initialize ping tools-list dns-rebinding-protection)

work="$(mktemp -d)"
export SVC_CONFIG_DIR="$work/config"
mkdir -m 700 "$SVC_CONFIG_DIR"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

svc() { node bin/svc.js "$@"; }
# Waits (up to 15 s) for a line matching $2 in file $1; prints the file and fails otherwise.
wait_for() {
  for _ in $(seq 1 150); do grep -qE "$2" "$1" && return 0; sleep 0.1; done
  echo "conformance: timed out waiting for /$2/ in $1:" >&2; cat "$1" >&2; return 1
}

node22="${SVC_CONFORMANCE_NODE:-}"
if [ -z "$node22" ]; then
  if [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 22 ]; then node22="$(command -v node)"; else
    npm install --prefix "$work/node22" --no-audit --no-fund --loglevel=error node@22 >/dev/null
    node22="$work/node22/node_modules/node/bin/node"
  fi
fi
npm install --prefix "$work/suite" --ignore-scripts --no-audit --no-fund --loglevel=error "$CONFORMANCE" >/dev/null
suite="$work/suite/node_modules/@modelcontextprotocol/conformance/dist/index.js"
echo "conformance: $CONFORMANCE on Node $("$node22" --version), svc on Node $(node --version)"

# A sandbox, and an agent of @alice in profile "conformance" (the README's quickstart, then an agent).
node bin/svc.js sandbox start --port 0 --ephemeral --quiet >"$work/sandbox.log" 2>&1 & # node itself, so that $! is its pid
pids+=($!)
wait_for "$work/sandbox.log" 'listening on'
svc agent create conformance --approval-threshold 50 --save-profile conformance >/dev/null 2>"$work/agent.log" || { cat "$work/agent.log" >&2; exit 1; }

node bin/svc.js mcp --profile conformance --http 127.0.0.1:0 </dev/null >"$work/mcp.out" 2>"$work/mcp.log" &
pids+=($!)
wait_for "$work/mcp.log" 'over HTTP at http://'
url="$(grep -oE 'over HTTP at http://[^ ]+' "$work/mcp.log" | head -n 1 | sed 's/^over HTTP at //')"

status=0
summary=()
for scenario in "${SCENARIOS[@]}"; do
  out="$work/$scenario.out"
  # The suite's own cwd: a temporary dir, whatever it writes.
  # Passed only when the suite exits 0, ran at least one check, and counted no failure.
  if (cd "$work" && "$node22" "$suite" server --url "$url" --scenario "$scenario") >"$out" 2>&1 \
    && grep -qE 'Passed: [1-9][0-9]*/[0-9]+, 0 failed' <(sed 's/\x1b\[[0-9;]*m//g' "$out"); then
    summary+=("$scenario passed")
  else
    summary+=("$scenario FAILED"); status=1
  fi
  # The checks and the totals, without colours and without the URL (it is the server's credential).
  masked="$(sed -e 's/\x1b\[[0-9;]*m//g' -e "s#$url#<url>#g" "$out")"
  grep -E '^\S* *\[|Passed:|Error|error' <<<"$masked" || printf '%s\n' "$masked"
done
for line in "${summary[@]}"; do echo "conformance: $line"; done
exit "$status"
