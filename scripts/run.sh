#!/usr/bin/env bash
# Entry of `npm start` and `npm test`: installs what is missing, then runs scripts/<command>.ts.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] installing node dependencies (npm ci)"
  npm ci --no-audit --no-fund
fi

TEMPORAL_CLI="${TEMPORAL_CLI:-$PWD/.tools/bin/temporal}"
if [ ! -x "$TEMPORAL_CLI" ]; then
  command -v go >/dev/null || { echo "[setup] Go is needed once to build the Temporal CLI (or set TEMPORAL_CLI)"; exit 1; }
  echo "[setup] building the Temporal CLI v1.5.1 into .tools/bin (first time only, takes a few minutes)"
  mkdir -p .tools/bin
  if ! GOBIN="$PWD/.tools/bin" go install github.com/temporalio/cli/cmd/temporal@v1.5.1; then
    echo "[setup] retrying with GOSUMDB=off (checksum database unreachable)"
    GOSUMDB=off GOBIN="$PWD/.tools/bin" go install github.com/temporalio/cli/cmd/temporal@v1.5.1
  fi
  TEMPORAL_CLI="$PWD/.tools/bin/temporal"
fi
export TEMPORAL_CLI

command="$1"
shift
exec node --import tsx "scripts/$command.ts" "$@"
