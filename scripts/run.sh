#!/usr/bin/env bash
# Entry of `npm start` and `npm test`: installs what is missing, then runs scripts/<command>.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
# The pinned versions (TEMPORAL_SERVER_VERSION, TEMPORAL_UI_VERSION, TEMPORAL_CLI_VERSION, images):
# one file, also what docker-compose.yml's tags are checked against.
# shellcheck source=../versions.env
. ./versions.env

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] installing node dependencies (npm ci)"
  npm ci --no-audit --no-fund
fi

TEMPORAL_CLI="${TEMPORAL_CLI:-$PWD/.tools/bin/temporal}"
if [ ! -x "$TEMPORAL_CLI" ]; then
  command -v go >/dev/null || { echo "[setup] Go is needed once to build the Temporal CLI (or set TEMPORAL_CLI)"; exit 1; }
  echo "[setup] building the Temporal CLI v$TEMPORAL_CLI_VERSION into .tools/bin (first time only, takes a few minutes)"
  mkdir -p .tools/bin
  if ! GOBIN="$PWD/.tools/bin" go install github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_CLI_VERSION; then
    echo "[setup] retrying with GOSUMDB=off (checksum database unreachable)"
    GOSUMDB=off GOBIN="$PWD/.tools/bin" go install github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_CLI_VERSION
  fi
  TEMPORAL_CLI="$PWD/.tools/bin/temporal"
fi
export TEMPORAL_CLI

command="$1"
shift

# go install with a retry without the checksum database (unreachable on some networks).
go_install() {
  local gobin="$1" pkg="$2"
  command -v go >/dev/null || { echo "[setup] Go is needed once to build $pkg (or use TEMPORAL_MODE=dev-file)"; exit 1; }
  mkdir -p "$gobin"
  if ! GOBIN="$gobin" go install "$pkg"; then
    echo "[setup] retrying with GOSUMDB=off (checksum database unreachable)"
    GOSUMDB=off GOBIN="$gobin" go install "$pkg"
  fi
}

# TEMPORAL_MODE=server (the default of npm start; npm test and npm run bench default to
# dev-memory): the real Temporal server on Postgres, its schema tool and the Web UI server.
# Built once (a few minutes the first time; Go's caches make rebuilds quick), only when needed.
default_mode=dev-memory
[ "$command" = "start" ] && default_mode=server
if [ "${TEMPORAL_MODE:-$default_mode}" = "server" ]; then
  server_dir="${TEMPORAL_SERVER_DIR:-$PWD/.tools/temporal-server-v$TEMPORAL_SERVER_VERSION}"
  if [ ! -x "$server_dir/bin/server" ] || [ ! -x "$server_dir/bin/sql" ]; then
    echo "[setup] building the Temporal server v$TEMPORAL_SERVER_VERSION and its schema tool into $server_dir (first time only, takes a few minutes)"
    go_install "$server_dir/bin" go.temporal.io/server/cmd/server@v$TEMPORAL_SERVER_VERSION
    go_install "$server_dir/bin" go.temporal.io/server/cmd/tools/sql@v$TEMPORAL_SERVER_VERSION
  fi
  if [ ! -d "$server_dir/schema/postgresql/v12" ]; then
    mod="$(go env GOMODCACHE)/go.temporal.io/server@v$TEMPORAL_SERVER_VERSION"
    [ -d "$mod" ] || go mod download go.temporal.io/server@v$TEMPORAL_SERVER_VERSION 2>/dev/null || true
    mkdir -p "$server_dir/schema/postgresql"
    cp -r "$mod/schema/postgresql/v12" "$server_dir/schema/postgresql/" && chmod -R u+w "$server_dir/schema"
  fi
  ui_bin="${TEMPORAL_UI_BIN:-$PWD/.tools/temporal-ui-v$TEMPORAL_UI_VERSION/bin/server}"
  if [ "$command" = "start" ] && [ ! -x "$ui_bin" ]; then
    echo "[setup] building the Temporal Web UI server v$TEMPORAL_UI_VERSION (first time only)"
    go_install "$(dirname "$ui_bin")" github.com/temporalio/ui-server/v2/cmd/server@v$TEMPORAL_UI_VERSION || echo "[setup] the UI server did not build; the stack runs without a UI"
  fi
fi

# promtool (Prometheus' rule checker) for test/ops/prometheus-rules.test.ts: built once by `go install`
# into a versioned folder of .tools, so a new pin builds anew (PROMTOOL_VERSION of versions.env).
if [ "$command" = "test" ]; then
  PROMTOOL="${PROMTOOL:-$PWD/.tools/promtool-v$PROMTOOL_VERSION/bin/promtool}"
  if [ ! -x "$PROMTOOL" ]; then
    echo "[setup] building promtool v$PROMTOOL_VERSION into $(dirname "$PROMTOOL") (first time only, a few minutes)"
    # Without the service-discovery plugins but DNS's (prometheus.yml uses dns_sd_configs): half the
    # modules to download and build (Prometheus' own build tags, plugins/*.go).
    GOFLAGS="${GOFLAGS:-} -tags=remove_all_sd,enable_dns_sd" go_install "$(dirname "$PROMTOOL")" "github.com/prometheus/prometheus/cmd/promtool@v$PROMTOOL_VERSION"
  fi
  export PROMTOOL
fi

# The operator console (console/, served by the API under /console): built into console/dist
# when it is missing or older than any of its sources (a fresh build takes about a second).
if [ "$command" = "start" ] || [ "$command" = "test" ]; then
  if [ ! -f console/dist/index.html ] || [ -n "$(find console/src console/index.html console/vite.config.ts console/package.json -newer console/dist/index.html -print -quit)" ]; then
    echo "[setup] building the operator console (console/dist)"
    npm run -s console:build
  fi
fi

# The payment-page and console tests drive Debian's Chromium; install it when it is missing and we may.
if [ "$command" = "test" ] && [ -z "${CHROMIUM_PATH:-}" ] && ! command -v chromium >/dev/null; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "[setup] installing Debian's chromium for the payment-page browser test"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || echo "[setup] chromium could not be installed"
  else
    echo "[setup] chromium is missing: install it (apt-get install chromium) or set CHROMIUM_PATH"
  fi
fi
exec node --import tsx "scripts/$command.ts" "$@"
