#!/usr/bin/env bash
# What TPC-C's isolation level 3 costs (issue 32 item 2): the work tree's
# rightsize runs --isolation read-committed and spec alternately (the order
# rotating per round, each mode in turn) on one database of a managed
# target, and prints per run TPM, retries and New-Order p90, then per mode
# the medians of spec/rc over the rounds' pairs.
#   bench/levels.sh [target=embedded] [warehouses=4] [users=4] [duration=60s] [rounds=3]
# target is embedded (the managed PostgreSQL) or mariadb (the managed
# MariaDB); users = 10 x warehouses is TPC-C's shape, where users share a
# warehouse. MODES (default "procedures statements").
set -euo pipefail
cd "$(dirname "$0")/.."
T=${1:-embedded}; W=${2:-4}; U=${3:-4}; D=${4:-60s}; ROUNDS=${5:-3}
MODES=${MODES:-procedures statements}
. bench/lib.sh
bench_tmp levels
build_binaries "" # the work tree's alone: bins[0]
rs() { "${bins[0]}" "$@" --target "$T" --data-dir "$TMP/data" --store "$TMP/store.db"; }
rs build --warehouses "$W" >"$TMP/build.log" 2>&1 || { echo "build failed:"; tail -5 "$TMP/build.log"; exit 1; }
echo "$T, $W warehouses, $U users, 10 s ramp-up, $D; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at start"
printf '%-5s %-12s %-15s %10s %8s %10s\n' round mode isolation TPM retries "NO p90 ms"
for round in $(seq "$ROUNDS"); do
  for mode in $MODES; do
    levels="read-committed spec"; [ $((round % 2)) = 0 ] && levels="spec read-committed"
    for iso in $levels; do
      rs run --users "$U" --rampup 10s --duration "$D" --mode "$mode" --isolation "$iso" --json >"$TMP/run.json" 2>"$TMP/run.err" ||
        { echo "run $mode $iso failed:"; tail -3 "$TMP/run.err"; continue; }
      python3 - "$TMP/run.json" "$round" "$mode" "$iso" <<'PY' | tee -a "$TMP/rows"
import json, sys
s = json.load(open(sys.argv[1]))["steps"][0]
t = s.get("txn", {})
print("%-5s %-12s %-15s %10.0f %8d %10.2f" % (sys.argv[2], sys.argv[3], sys.argv[4], s["tpm"],
      sum(x.get("retries", 0) for x in t.values()), t.get("new_order", {}).get("p90_ms", 0)))
PY
    done
  done
done
python3 - "$TMP/rows" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
print()
for mode in dict.fromkeys(r[1] for r in rows):
    tpm = {(r[0], r[2]): float(r[3]) for r in rows if r[1] == mode}
    ratios = [tpm[(k, "spec")] / tpm[(k, "read-committed")] for k in {r[0] for r in rows}
              if (k, "spec") in tpm and (k, "read-committed") in tpm]
    if ratios:
        print("%-12s spec/rc TPM median %.3f (pairs %s)" % (mode, statistics.median(ratios), ", ".join("%.3f" % x for x in sorted(ratios))))
PY
