#!/usr/bin/env bash
# Starts a throwaway PostgreSQL on 127.0.0.1 for the storage contract tests and prints
# the DATABASE_URL to use.
#   scripts/postgres-up.sh [port] [directory]          start (the directory is wiped first)
#   scripts/postgres-up.sh --durable [port] [directory]
#                                                      start with production durability (fsync and
#                                                      synchronous_commit on; the default turns both
#                                                      off, which flatters every write: for benches)
#   scripts/postgres-up.sh --stop [port] [directory]   stop it and delete the directory
# As root it runs the server as the user postgres (created if missing).
set -euo pipefail
action=start
durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
if [ "${1:-}" = "--stop" ]; then
  action=stop
  shift
elif [ "${1:-}" = "--durable" ]; then
  durability="-c fsync=on -c synchronous_commit=on -c full_page_writes=on"
  shift
fi
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
if [ "$action" = "stop" ]; then
  if [ -d "$dir/data" ]; then
    run_as_postgres "'$bin/pg_ctl' -D '$dir/data' -m immediate -w stop >/dev/null 2>&1" || true
  fi
  rm -rf "$dir"
  exit 0
fi
if [ "$(id -u)" = "0" ] && ! id postgres >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
fi
rm -rf "$dir"
mkdir -p "$dir"
[ "$(id -u)" = "0" ] && chown postgres "$dir"
if ! run_as_postgres "'$bin/initdb' -D '$dir/data' -A trust -U postgres >'$dir/initdb.log' 2>&1"; then
  echo "postgres-up: initdb failed:" >&2
  cat "$dir/initdb.log" >&2 || true
  exit 1
fi
if ! run_as_postgres "'$bin/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -t 60 -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1 $durability -c max_connections=200\" start >/dev/null"; then
  echo "postgres-up: the server did not start:" >&2
  tail -n 20 "$dir/server.log" >&2 || true
  exit 1
fi
echo "postgresql://postgres@127.0.0.1:$port/postgres"
