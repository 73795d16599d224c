#!/bin/sh
# docker-compose's temporal-namespace job (temporalio/admin-tools, once the server answers): the
# namespace with its retention and the gateway's search attributes (SEARCH_ATTRIBUTES, Keyword).
# Idempotent: an existing namespace gets the retention set again, existing attributes are kept.
set -eu

: "${TEMPORAL_ADDRESS:?}" "${SEARCH_ATTRIBUTES:?}"
NAMESPACE="${NAMESPACE:-default}"
RETENTION="${RETENTION:-30d}"
TEMPORAL="${TEMPORAL_CLI:-temporal}"
export TEMPORAL_ADDRESS

# The server may still be joining its ring after its port opens.
tries=0
until "$TEMPORAL" operator cluster health 2>/dev/null | grep -q SERVING; do
  tries=$((tries + 1))
  [ "$tries" -lt 60 ] || { echo "temporal-namespace: the server at $TEMPORAL_ADDRESS is not serving"; exit 1; }
  sleep 2
done

if "$TEMPORAL" operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1; then
  "$TEMPORAL" operator namespace update --namespace "$NAMESPACE" --retention "$RETENTION"
else
  "$TEMPORAL" operator namespace create --namespace "$NAMESPACE" --retention "$RETENTION"
fi

# A new namespace may take a moment to be visible to the search-attribute API.
existing=""
tries=0
until existing="$("$TEMPORAL" operator search-attribute list --namespace "$NAMESPACE" 2>/dev/null)"; do
  tries=$((tries + 1))
  [ "$tries" -lt 30 ] || { echo "temporal-namespace: cannot list search attributes of $NAMESPACE"; exit 1; }
  sleep 1
done
for sa in $SEARCH_ATTRIBUTES; do
  if printf '%s\n' "$existing" | awk '{print $1}' | grep -qx "$sa"; then continue; fi
  echo "temporal-namespace: registering search attribute $sa"
  "$TEMPORAL" operator search-attribute create --namespace "$NAMESPACE" --name "$sa" --type Keyword
done
echo "temporal-namespace: $NAMESPACE ready (retention $RETENTION; search attributes: $SEARCH_ATTRIBUTES)"
