#!/usr/bin/env bash
# Generates Go code from the gateway's OpenAPI documents with the two common generators at their
# default settings, and compiles and vets it: oapi-codegen (its default output: types, the client
# with ClientWithResponses, an Echo server and the embedded document) and ogen (its default: client
# and server), each from the full document (/openapi.json) and from the merchant's
# (/openapi.merchant.json). Exit status 0 only when all four generate, build and vet.
#
#   tools/go-client/check.sh                     writes both documents (scripts/openapi.ts), then checks them
#   tools/go-client/check.sh FULL.json MERCHANT.json   (paths outside GO_CLIENT_DIR)
#   tools/go-client/check.sh --update            also refreshes go.mod and go.sum here (go mod tidy on
#                                                what the generators wrote), after a generator pin moved
#                                                or the generated code started importing a new module
#
# The generator versions are pinned by this module's `tool` directives (go.mod, with go.sum): `go
# tool` builds them once into Go's build cache. Modules come from the Go module proxy into the
# module cache (GOMODCACHE), so a warm machine runs offline. test/ops/go-client.test.ts runs it
# under `npm test`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
update=false
docs=()
for arg in "$@"; do
  case "$arg" in
    --update) update=true ;;
    *) docs+=("$(realpath "$arg")") ;;
  esac
done
command -v go >/dev/null || { echo "[go-client] Go is needed (go.dev/dl)"; exit 1; }

# A fixed folder (GO_CLIENT_DIR, default .data/go-client, ignored by git) and not a fresh temporary
# one: Go's build cache keys a package by its folder too, so unchanged generated code builds from cache.
work="${GO_CLIENT_DIR:-$root/.data/go-client}"
rm -rf "$work"
mkdir -p "$work"
cp "$here/go.mod" "$here/go.sum" "$work/"
if [ "${#docs[@]}" -eq 0 ]; then
  (cd "$root" && node --import tsx scripts/openapi.ts "$work/openapi.json" && node --import tsx scripts/openapi.ts --merchant "$work/openapi.merchant.json") >/dev/null
  docs=("$work/openapi.json" "$work/openapi.merchant.json")
fi
[ "${#docs[@]}" -eq 2 ] || { echo "[go-client] give two documents: the full one and the merchant's"; exit 2; }

cd "$work"
# -mod=mod only when refreshing go.mod; otherwise go.mod and go.sum are the whole truth (readonly).
if $update; then export GOFLAGS="${GOFLAGS:-} -mod=mod"; fi
started=$SECONDS
i=0
for doc in "${docs[@]}"; do
  name=$([ $i -eq 0 ] && echo full || echo merchant)
  i=$((i + 1))
  mkdir -p "oapi$name"
  echo "[go-client] oapi-codegen: $doc → oapi$name"
  go tool oapi-codegen -package "oapi$name" -o "oapi$name/api.gen.go" "$doc"
  echo "[go-client] ogen: $doc → ogen$name"
  # ogen logs every schema it simplifies at INFO/WARN level; its errors still reach stderr.
  go tool ogen -loglevel error -target "ogen$name" -package "ogen$name" -clean "$doc"
done
if $update; then
  go mod tidy
  cp go.mod go.sum "$here/"
  echo "[go-client] go.mod and go.sum refreshed in $here"
fi
echo "[go-client] go build ./... ($((SECONDS - started)) s so far)"
go build ./...
echo "[go-client] go vet ./... ($((SECONDS - started)) s so far)"
go vet ./...
echo "[go-client] 4 clients generated, built and vetted in $((SECONDS - started)) s"
