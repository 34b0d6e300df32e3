#!/usr/bin/env bash
# A throw-away PostgreSQL server for the history tests, from the Debian
# packages' binaries (/usr/lib/postgresql/VERSION/bin, or $RTOSBENCH_PG_BINDIR).
#   postgres-server.sh start DIR   initdb into DIR/data, start the server with
#                                  its unix socket in DIR and a free TCP port on
#                                  127.0.0.1; prints key=value lines:
#                                    url=      the trusted local user over the socket (database rtosbench)
#                                    admin_url= the same user, database postgres (to create databases)
#                                    password_url= a user with a password over TCP (database rtosbench_pw)
#                                    password= that user's password
#   postgres-server.sh stop DIR    stop it (DIR is the caller's to remove)
# Exit 77 with the reason when the server binaries are absent. As root the
# server runs as `nobody` (PostgreSQL refuses to run as root); DIR must be
# reachable by that user (a directory under /tmp is).
set -euo pipefail
action=${1:?start|stop} dir=${2:?DIR}

bindir=${RTOSBENCH_PG_BINDIR:-}
if [[ -z $bindir ]]; then
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [[ -x $d/initdb && -x $d/pg_ctl && -x $d/postgres ]]; then bindir=$d && break; fi
  done
fi
if [[ -z $bindir || ! -x $bindir/initdb ]]; then
  echo "SKIP: no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin: install postgresql (scripts/setup-deps.sh)"
  exit 77
fi

as_server() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u nobody -- "$@"
  else
    "$@"
  fi
}

case $action in
start)
  mkdir -p "$dir"
  if [[ $(id -u) -eq 0 ]]; then
    chown nobody "$dir"
    chmod 700 "$dir"
    runuser -u nobody -- test -w "$dir" || {
      echo "postgres-server: user nobody cannot write $dir (a directory under /tmp can be written)" >&2
      exit 1
    }
  fi
  as_server "$bindir/initdb" -D "$dir/data" -U rtosbench --auth=trust -E UTF8 --locale=C --no-sync \
    >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
  # The socket trusts the local user; TCP asks for a password.
  cat >"$dir/data/pg_hba.conf" <<'HBA'
local all all trust
host all all 127.0.0.1/32 scram-sha-256
HBA
  started=
  for attempt in 1 2 3; do
    port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    if as_server "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-k $dir -p $port -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=16MB -c max_connections=40" \
      start >"$dir/pg_ctl.log" 2>&1; then
      started=1 && break
    fi
  done
  if [[ -z $started ]]; then
    cat "$dir/pg_ctl.log" "$dir/server.log" >&2 || true
    exit 1
  fi
  password=pw-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
  "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U rtosbench -d postgres \
    -c "CREATE DATABASE rtosbench" \
    -c "CREATE ROLE rtosbench_pw LOGIN PASSWORD '$password'" \
    -c "CREATE DATABASE rtosbench_pw OWNER rtosbench_pw" >/dev/null
  echo "url=postgresql://rtosbench@/rtosbench?host=$dir&port=$port"
  echo "admin_url=postgresql://rtosbench@/postgres?host=$dir&port=$port"
  echo "password_url=postgresql://rtosbench_pw:$password@127.0.0.1:$port/rtosbench_pw"
  echo "password=$password"
  echo "port=$port"
  ;;
stop)
  if [[ -f $dir/data/postmaster.pid ]]; then
    as_server "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  ;;
*)
  echo "postgres-server: unknown action $action (start|stop)" >&2
  exit 64
  ;;
esac
