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

# The payment-page test drives Debian's Chromium; install it when it is missing and we may.
if [ "$command" = "test" ] && [ -z "${CHROMIUM_PATH:-}" ] && ! command -v chromium >/dev/null; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "[setup] installing Debian's chromium for the payment-page browser test"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || echo "[setup] chromium could not be installed"
  else
    echo "[setup] chromium is missing: install it (apt-get install chromium) or set CHROMIUM_PATH"
  fi
fi
exec node --import tsx "scripts/$command.ts" "$@"
