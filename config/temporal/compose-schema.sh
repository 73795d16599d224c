#!/bin/sh
# docker-compose's temporal-schema job (temporalio/admin-tools, before the server starts): creates
# Temporal's two databases when missing, sets their schema up once, and brings it to the version
# of the tool's schema directory on every start. Idempotent: a second run changes nothing.
# The same steps as npm start's prepareTemporalDatabases (scripts/temporal-server.ts).
set -eu

: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${POSTGRES_PWD:?}"
DB_PORT="${DB_PORT:-5432}"
DBNAME="${DBNAME:-temporal}"
VISIBILITY_DBNAME="${VISIBILITY_DBNAME:-temporal_visibility}"
SCHEMA_DIR="${SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}"
SQL_TOOL="${SQL_TOOL:-temporal-sql-tool}"
# Passwords by environment, never on a command line (ps would show them).
export PGPASSWORD="$POSTGRES_PWD" SQL_PASSWORD="$POSTGRES_PWD"

sql_tool() {
  db="$1"; shift
  "$SQL_TOOL" --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" --db "$db" "$@"
}
# One value from Postgres (psql ships with admin-tools); $1 the database, $2 the query.
ask() {
  psql -h "$POSTGRES_SEEDS" -p "$DB_PORT" -U "$POSTGRES_USER" -d "$1" -v ON_ERROR_STOP=1 -Atc "$2"
}

for pair in "$DBNAME:temporal" "$VISIBILITY_DBNAME:visibility"; do
  db="${pair%%:*}"
  kind="${pair#*:}"
  if [ -z "$(ask postgres "select 1 from pg_database where datname = '$db'")" ]; then
    echo "temporal-schema: creating database $db"
    sql_tool "$db" create-database
  fi
  # setup-schema only on an empty database: it lays down version 0.0, update-schema does the rest.
  if [ -z "$(ask "$db" "select to_regclass('public.schema_version')")" ]; then
    echo "temporal-schema: setting up the schema of $db"
    sql_tool "$db" setup-schema -v 0.0
  fi
  sql_tool "$db" update-schema -d "$SCHEMA_DIR/$kind/versioned"
  echo "temporal-schema: $db at version $(ask "$db" "select curr_version from schema_version")"
done
