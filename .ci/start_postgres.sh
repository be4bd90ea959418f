#!/usr/bin/env bash
# Install (Debian package) and start a throwaway PostgreSQL on loopback for the tests of the
# Postgres checkpointer, create a database, and print its DSN on stdout (logs go to stderr).
#
#   export LGM_TEST_POSTGRES_DSN="$(bash .ci/start_postgres.sh)"
#
# Idempotent: if the server is already up on the port, it only prints the DSN.
set -euo pipefail

PORT="${LGM_PG_PORT:-54329}"
DB="${LGM_PG_DB:-lgm_test}"
DATA="${LGM_PG_DATA:-/tmp/lgm-postgres-$PORT}"
DSN="postgresql://postgres@127.0.0.1:$PORT/$DB"

log() { echo "[start_postgres] $*" >&2; }

pg_bin() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  [ -n "$dir" ] && echo "$dir"
}

if [ -z "$(pg_bin)" ]; then
  log "installing postgresql (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update >&2
  apt-get install -y --no-install-recommends postgresql >&2
fi
BIN="$(pg_bin)"
[ -n "$BIN" ] || { log "postgresql binaries not found after install"; exit 1; }

if "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"; then
  log "already running on port $PORT"
else
  if [ ! -s "$DATA/PG_VERSION" ]; then
    log "initdb in $DATA"
    rm -rf "$DATA"
    mkdir -p "$DATA"
    chown postgres:postgres "$DATA"
    runuser -u postgres -- "$BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 >&2
  fi
  log "starting on 127.0.0.1:$PORT"
  runuser -u postgres -- "$BIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k /tmp -c fsync=off" start >&2
fi

for _ in $(seq 1 60); do
  "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" && break
  sleep 0.5
done
"$BIN/pg_isready" -h 127.0.0.1 -p "$PORT" >&2

if ! runuser -u postgres -- "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1; then
  runuser -u postgres -- "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres "$DB" >&2
fi
echo "$DSN"
