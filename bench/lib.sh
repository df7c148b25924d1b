# Shared by the bench/ scripts that build rightsize binaries and run them
# on a private PostgreSQL cluster or a managed target (procedures.sh,
# load.sh, levels.sh); source it after cd-ing to
# the repository root. It reads PG_BIN (default
# /usr/lib/postgresql/15/bin: initdb, pg_ctl, postgres) and PG_USER (the
# server's user as root, default postgres).
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}; PG_USER=${PG_USER:-postgres}

# as_pg runs a command as the server's user when run as root.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u "$PG_USER" -- "$@"; else "$@"; fi; }

# bench_tmp NAME makes the run's directory $TMP (the server user may enter
# it) and removes it, with the cluster, when the script exits.
bench_tmp() {
  TMP=$(mktemp -d "/var/tmp/rightsize-$1.XXXXXX")
  chmod 755 "$TMP"
  trap 'as_pg "$PG_BIN/pg_ctl" -D "$TMP/pg" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
}

# build_binaries REFS builds each ref's rightsize (git archive of the
# commit) and the work tree's as "new" into $TMP: names[] and bins[].
build_binaries() {
  names=(); bins=()
  local ref
  for ref in $1; do
    mkdir "$TMP/src-$ref"
    git archive "$ref" | tar -x -C "$TMP/src-$ref"
    (cd "$TMP/src-$ref" && go build -o "$TMP/rs-$ref" ./cmd/rightsize)
    names+=("$ref"); bins+=("$TMP/rs-$ref")
  done
  go build -o "$TMP/rs-new" ./cmd/rightsize
  names+=(new); bins+=("$TMP/rs-new")
}

# start_cluster MAX_CONNECTIONS initialises and starts the cluster in
# $TMP/pg on a random loopback port ($PORT; trust authentication, only
# reachable from this machine, gone at exit) with a 512MB cache and
# checkpoints spaced out so they do not decide a short run.
start_cluster() {
  PORT=$((20000 + RANDOM % 20000))
  mkdir "$TMP/pg" && chown "$PG_USER" "$TMP/pg" 2>/dev/null || true
  as_pg "$PG_BIN/initdb" -D "$TMP/pg" -A trust -U postgres >/dev/null
  as_pg "$PG_BIN/pg_ctl" -D "$TMP/pg" -l "$TMP/pg/server.log" -w start -o \
    "-p $PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$TMP/pg -c shared_buffers=512MB -c max_connections=$1 -c max_wal_size=4GB -c checkpoint_timeout=15min" >/dev/null
}

# dsn DB is the URL of database DB of the cluster.
dsn() { echo "postgres://postgres@127.0.0.1:$PORT/$1?sslmode=disable"; }
