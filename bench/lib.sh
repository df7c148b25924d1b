# Shared by the bench/ scripts that build rightsize binaries and run them
# on a private PostgreSQL cluster or a managed target (procedures.sh,
# load.sh, levels.sh) and go-tpc beside them; source it after cd-ing to
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

# server_ticks prints the cluster's CPU so far, in clock ticks: the
# postmaster's user+system time, its exited children's (reaped into its
# cutime+cstime) and its live children's. It waits (up to 5 s) for the
# client connections' backends to end first: one that ends between the
# listing and the reading would be counted in neither.
server_ticks() {
  local pm i
  pm=$(head -1 "$TMP/pg/postmaster.pid")
  for i in $(seq 50); do
    ps -o args= --ppid "$pm" | grep -q '127\.0\.0\.1(' || break
    sleep 0.1
  done
  { cat "/proc/$pm/stat"; for c in $(ps -o pid= --ppid "$pm"); do cat "/proc/$c/stat" 2>/dev/null; done; } |
    sed 's/.*) //' | awk 'NR == 1 { t += $14 + $15 } { t += $12 + $13 } END { print t }'
}

# dsn DB is the URL of database DB of the cluster.
dsn() { echo "postgres://postgres@127.0.0.1:$PORT/$1?sslmode=disable"; }

# build_gotpc puts go-tpc in $GOTPC_BIN: the binary named there, or one
# built into $TMP (never into the tree) from pingcap/go-tpc's public
# source: the git repository GOTPC_SRC (its HEAD), else the module
# proxy's GOTPC_VERSION (default latest). The proxy's latest, v1.0.7,
# predates go-tpc's postgres driver, so that needs a clone in GOTPC_SRC.
build_gotpc() {
  if [ -n "${GOTPC_BIN:-}" ]; then
    :
  elif [ -n "${GOTPC_SRC:-}" ]; then
    mkdir "$TMP/gotpc-src"
    git -C "$GOTPC_SRC" archive HEAD | tar -x -C "$TMP/gotpc-src"
    (cd "$TMP/gotpc-src" && GOFLAGS=-mod=mod go build -o "$TMP/go-tpc" ./cmd/go-tpc)
    GOTPC_BIN=$TMP/go-tpc
  else
    GOBIN=$TMP GOFLAGS=-mod=mod go install "github.com/pingcap/go-tpc/cmd/go-tpc@${GOTPC_VERSION:-latest}"
    GOTPC_BIN=$TMP/go-tpc
  fi
  "$GOTPC_BIN" --help 2>&1 | grep -q 'mysql, postgres' ||
    { echo "$GOTPC_BIN has no postgres driver: set GOTPC_SRC to a clone of github.com/pingcap/go-tpc" >&2; exit 1; }
}

# prepare_gotpc builds go-tpc's database rs_gotpc in the cluster ($W
# warehouses; --no-check: its consistency check after the load takes
# minutes on PostgreSQL) and sets GOTPC_ARGS, the flags of its runs ($U
# threads, the postgres driver).
prepare_gotpc() {
  GOTPC_ARGS=(tpcc -d postgres -H 127.0.0.1 -P "$PORT" -U postgres -D rs_gotpc --conn-params sslmode=disable --warehouses "$W" -T "$U")
  psql -X -q -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -c "CREATE DATABASE rs_gotpc" >/dev/null
  "$GOTPC_BIN" "${GOTPC_ARGS[@]}" prepare --no-check >"$TMP/gotpc-prepare.log" 2>&1 ||
    { echo "go-tpc prepare failed:"; tail -5 "$TMP/gotpc-prepare.log"; exit 1; }
}

# run_gotpc ROUND runs go-tpc for $D after VACUUM and CHECKPOINT and
# prints a row as procedures.sh does: round, go-tpc, TPM, NOPM, client
# CPU µs per transaction (user+system of the whole process over its
# successful transactions), failed transactions, New-Order p90 ms.
run_gotpc() {
  local db=(psql -X -q -h 127.0.0.1 -p "$PORT" -U postgres -d rs_gotpc)
  "${db[@]}" -c VACUUM >/dev/null; "${db[@]}" -c CHECKPOINT >/dev/null
  /usr/bin/time -o "$TMP/gotpc.cpu" -f '%U %S' "$GOTPC_BIN" "${GOTPC_ARGS[@]}" --time "$D" run >"$TMP/gotpc.out" 2>&1 ||
    { echo "go-tpc run failed:" >&2; tail -3 "$TMP/gotpc.out" >&2; return 0; }
  python3 - "$TMP/gotpc.out" "$TMP/gotpc.cpu" "$1" <<'PY'
import re, sys
ok = err = 0; takes = tpm_no = p90 = 0.0
for l in open(sys.argv[1]):
    m = re.match(r"\[Summary\] (\w+)\s+- Takes\(s\): ([\d.]+), Count: (\d+), TPM: ([\d.]+).*90th\(ms\): ([\d.]+)", l)
    if not m:
        continue
    name, t, n = m.group(1), float(m.group(2)), int(m.group(3))
    if name.endswith("_ERR"):
        err += n
        continue
    ok += n; takes = max(takes, t)
    if name == "NEW_ORDER":
        tpm_no, p90 = float(m.group(4)), float(m.group(5))
cpu = sum(float(x) for x in open(sys.argv[2]).read().split()[-2:])
print("%-5s %-26s %10.0f %10.0f %14.1f %8d %10.2f" % (sys.argv[3], "go-tpc", ok * 60 / takes if takes else 0, tpm_no, cpu * 1e6 / ok if ok else 0, err, p90))
PY
}
