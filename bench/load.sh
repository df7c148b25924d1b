#!/usr/bin/env bash
# Build (load) speed, old binaries against the work tree's, interleaved on
# one private PostgreSQL cluster (issue 32 item 5), beside a raw binary COPY
# of the same rows. Every round builds the database once with each binary
# (rightsize build --warehouses N --loaders K into a fresh database, after a
# CHECKPOINT) and loads the raw files once; the order rotates from round to
# round so machine noise hits all alike. "raw" is the floor the generator is
# measured against: the tables one build made, dumped once per (table,
# warehouse) with COPY ... TO ... (FORMAT binary), then loaded with psql's
# \copy ... FROM ... (FORMAT binary) into empty tables of the same schema by
# K sessions (the files dealt biggest first to the least loaded session),
# with synchronous_commit off as the loaders have it: the same rows over the
# same protocol, no generator, no indexes.
# It prints per run the build's wall seconds, its load phase (rightsize's
# own "load" figure: schema, generation and COPY), rightsize's user+sys CPU
# seconds; then per binary the medians, their ratios to the first ref, and
# the load's ratio to the raw COPY's median.
#   bench/load.sh [warehouses=10] [rounds=2] [refs=3831ca1]
# WORKLOAD=tpcb builds pgbench's tables instead (build --workload tpcb
# --scale N, the first argument the scale; issue 47 item 3): the raw files
# are pgbench_branches, pgbench_tellers and pgbench_accounts per branch;
# give refs "" when the refs predate --workload.
# LOADERS (default: the number of cores) is --loaders and the raw sessions.
# PG_BIN (default /usr/lib/postgresql/15/bin) holds initdb and pg_ctl; as
# root the server runs as PG_USER (default postgres).
# 2026-11-27, bench/load.sh 10 3, 2-core VM shared with other jobs (load
# 4-10), medians of 3 interleaved runs (a second series at load 8-14 in
# parentheses):
#   3831ca1  build 38.3 s (63.4), load 29.8 s (47.2), CPU 16.5 s (18.0), load/raw 1.92 (2.19)
#   new      build 26.5 s (40.3), load 17.1 s (24.9), CPU  3.3 s  (3.4), load/raw 1.10 (1.15)
#   raw      load 15.5 s (21.6)
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-10}; ROUNDS=${2:-2}; REFS=${3-3831ca1}
K=${LOADERS:-$(nproc)}
. bench/lib.sh
bench_tmp loadbench
build_binaries "$REFS"
mkdir "$TMP/raw" && chown "$PG_USER" "$TMP/raw" 2>/dev/null || true
start_cluster 100
psql_() { PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres "$@"; }
fresh() { psql_ -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" -c "CHECKPOINT" >/dev/null; }
WHAT=(--warehouses "$W"); [ "${WORKLOAD:-tpcc}" = tpcb ] && WHAT=(--workload tpcb --scale "$W")
build() { # binary database: the build's output; its time in $TMP/time
  /usr/bin/time -f '%e %U %S' -o "$TMP/time" "$1" build --target "$(dsn "$2")" "${WHAT[@]}" --loaders "$K" --store "$TMP/store.db" 2>"$TMP/build.err" ||
    { echo "build with $1 failed:" >&2; tail -5 "$TMP/build.err" >&2; exit 1; }
}

# The raw files: one build by the work tree's binary, dumped per (table, warehouse).
fresh rs_src
build "$TMP/rs-new" rs_src >/dev/null
if [ "${WORKLOAD:-tpcc}" = tpcb ]; then
  pg_dump -h 127.0.0.1 -p "$PORT" -U postgres -s --section=pre-data -t 'pgbench_*' rs_src >"$TMP/schema.sql"
  declare -A wcol=([pgbench_accounts]=bid)
  for t in pgbench_branches pgbench_tellers; do psql_ -d rs_src -c "COPY $t TO '$TMP/raw/$t.bin' (FORMAT binary)"; done
else
  pg_dump -h 127.0.0.1 -p "$PORT" -U postgres -s --section=pre-data \
    -t 'warehouse|district|customer|history|orders|new_order|order_line|stock|item' rs_src >"$TMP/schema.sql"
  declare -A wcol=([warehouse]=w_id [district]=d_w_id [customer]=c_w_id [history]=h_w_id [orders]=o_w_id
    [new_order]=no_w_id [order_line]=ol_w_id [stock]=s_w_id)
  psql_ -d rs_src -c "COPY item TO '$TMP/raw/item.bin' (FORMAT binary)"
fi
for t in "${!wcol[@]}"; do
  for w in $(seq "$W"); do
    psql_ -d rs_src -c "COPY (SELECT * FROM $t WHERE ${wcol[$t]} = $w) TO '$TMP/raw/$t.$w.bin' (FORMAT binary)"
  done
done
psql_ -d postgres -c "DROP DATABASE rs_src" >/dev/null
python3 - "$TMP/raw" "$K" <<'PY'
import os, sys
d, k = sys.argv[1], int(sys.argv[2])
files = sorted(os.listdir(d), key=lambda f: -os.path.getsize(os.path.join(d, f)))
load, scripts = [0] * k, [["SET synchronous_commit = off;"] for _ in range(k)]
for f in files:
    i = load.index(min(load))
    load[i] += os.path.getsize(os.path.join(d, f))
    scripts[i].append("\\copy %s FROM '%s' (FORMAT binary)" % (f.split(".")[0], os.path.join(d, f)))
for i, s in enumerate(scripts):
    open(os.path.join(os.path.dirname(d), "raw-%d.sql" % i), "w").write("\n".join(s) + "\n")
PY
raw_mib=$(du -sm "$TMP/raw" | cut -f1)

echo "PostgreSQL $("$PG_BIN/postgres" -V | awk '{print $3}') on 127.0.0.1:$PORT, ${WHAT[*]}, $K loaders, raw files $raw_mib MiB; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at start"
printf '%-5s %-9s %8s %8s %8s\n' round binary wall_s load_s cpu_s
names+=(raw); n=${#names[@]}
for round in $(seq "$ROUNDS"); do
  for k in $(seq 0 $((n - 1))); do
    i=$(( (k + round - 1) % n ))
    fresh rs_bench
    if [ "${names[$i]}" = raw ]; then
      psql_ -d rs_bench -f "$TMP/schema.sql" >/dev/null
      t0=$(date +%s.%N)
      pids=()
      for s in "$TMP"/raw-*.sql; do psql_ -d rs_bench -f "$s" >/dev/null & pids+=($!); done
      for p in "${pids[@]}"; do wait "$p"; done
      s=$(echo "$(date +%s.%N) - $t0" | bc)
      row=$(printf '%-5s %-9s %8.1f %8.1f %8s' "$round" raw "$s" "$s" -)
    else
      out=$(build "${bins[$i]}" rs_bench)
      read -r wall user sys <"$TMP/time"
      load=$(echo "$out" | sed -n 's/.*(load \([0-9.]*\) s,.*/\1/p')
      row=$(printf '%-5s %-9s %8.1f %8.1f %8.1f' "$round" "${names[$i]}" "$wall" "$load" "$(echo "$user + $sys" | bc)")
    fi
    echo "$row" | tee -a "$TMP/rows"
  done
done
python3 - "$TMP/rows" "${names[@]}" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
names = sys.argv[2:]
def med(n, col):
    v = [float(x[col]) for x in rows if x[1] == n and x[col] != "-"]
    return statistics.median(v) if v else None
def spread(n, col):
    v = [float(x[col]) for x in rows if x[1] == n]
    return "%.1f-%.1f" % (min(v), max(v))
base, raw = names[0], med("raw", 3)
print("\nmedians   %8s %8s %8s %12s %10s %11s %10s" % ("wall_s", "load_s", "cpu_s", "load spread", "wall/ref", "cpu/ref", "load/raw"))
for n in names:
    w, l, c = med(n, 2), med(n, 3), med(n, 4)
    cr = "%11.3f" % (c / med(base, 4)) if c else "%11s" % "-"
    print("%-9s %8.1f %8.1f %8s %12s %10.3f %s %10.2f" % (n, w, l, "%.1f" % c if c else "-", spread(n, 3),
          w / med(base, 2), cr, l / raw))
PY
