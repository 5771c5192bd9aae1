#!/usr/bin/env bash
# Starts a throwaway PostgreSQL on 127.0.0.1 for the storage contract tests and prints
# the DATABASE_URL to use. Usage: scripts/postgres-up.sh [port] [directory]
set -euo pipefail
port="${1:-55432}"
dir="${2:-/tmp/roundtable-pg-$port}"
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ]; then
  echo "postgres-up: no PostgreSQL server found under /usr/lib/postgresql (apt-get install postgresql)" >&2
  exit 1
fi
run_as_postgres() {
  if [ "$(id -u)" = "0" ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi
}
if [ "$(id -u)" = "0" ] && ! id postgres >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
fi
rm -rf "$dir"
mkdir -p "$dir"
[ "$(id -u)" = "0" ] && chown postgres "$dir"
run_as_postgres "'$bin/initdb' -D '$dir/data' -A trust -U postgres >'$dir/initdb.log' 2>&1"
run_as_postgres "'$bin/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200\" start >/dev/null"
echo "postgresql://postgres@127.0.0.1:$port/postgres"
