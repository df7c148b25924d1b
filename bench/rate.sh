#!/usr/bin/env bash
# rightsize run --rate against pgbench -R on one private PostgreSQL
# cluster: pgbench's tables built once by rightsize build --workload tpcb
# at the scale given, then each round runs, in turn, pgbench -M prepared
# -b tpcb-like -R RATE and rightsize run --workload tpcb --rate RATE with
# the same clients and duration (CHECKPOINT before each). It prints per
# run the TPS kept, the mean schedule lag and the mean latency (both
# counting from the scheduled start, as pgbench -R counts them), then the
# medians per client and rate.
#   bench/rate.sh [scale=10] [clients=4] [duration=10s] [rounds=3] [rates="500 2000"]
# LIMIT=MS adds a latency limit to both (pgbench -L MS, rightsize
# --latency-limit MSms) and prints each one's late share (of the completed
# transactions) and skipped share (of all), as pgbench defines them.
# PG_BIN (default /usr/lib/postgresql/15/bin) holds initdb, pg_ctl and
# pgbench; as root the server runs as PG_USER (default postgres).
# 2026-11-30 on the 2-core VM, quiet, 4 clients at scale 10. Before the
# loop's timed waits used epoll_pwait2 (they ended on the next whole
# millisecond): at 500 TPS, lag 0.461 and 0.522 ms against pgbench's
# 0.161-0.363, latency 1.53-1.77 ms against 1.24-1.35. After,
# bench/rate.sh 10 4 10s 2 "500 2000", medians of 2 rounds:
#   500 TPS   pgbench 500.0 TPS, lag 0.173 ms, latency 1.029 ms
#             rightsize 503.0, 0.111, 0.910
#   2000 TPS  pgbench 1995.0, 0.753, 1.963
#             rightsize 2013.6, 0.596, 1.742
# With a limit, LIMIT=2 bench/rate.sh 10 4 10s 2 "2000 5000" (the server
# I/O-bound, its TPS falling from round to round), late % and skipped %
# per interleaved pair:
#   2000 TPS  pgbench 65.97/18.70, 81.89/35.02; rightsize 59.06/16.05, 70.56/28.27
#   5000 TPS  pgbench 99.12/74.62, 99.61/90.26; rightsize 99.04/78.44, 99.67/91.49
set -euo pipefail
cd "$(dirname "$0")/.."
S=${1:-10}; C=${2:-4}; D=${3:-10s}; ROUNDS=${4:-3}; RATES=${5:-500 2000}
PGB_L=(); RS_L=()
if [ -n "${LIMIT:-}" ]; then PGB_L=(-L "$LIMIT"); RS_L=(--latency-limit "${LIMIT}ms"); fi
. bench/lib.sh
bench_tmp rate
go build -o "$TMP/rs" ./cmd/rightsize
start_cluster 100
DB=$(dsn postgres)
SECS=${D%s}
"$TMP/rs" build --workload tpcb --scale "$S" --target "$DB" >"$TMP/build.log" 2>&1 ||
  { echo "build failed:"; tail -5 "$TMP/build.log"; exit 1; }
psql_() { psql -X -q -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -c "$1" >/dev/null; }
: >"$TMP/rows"
for R in $RATES; do
  for round in $(seq "$ROUNDS"); do
    psql_ CHECKPOINT
    as_pg "$PG_BIN/pgbench" -n -M prepared -c "$C" -R "$R" "${PGB_L[@]}" -T "$SECS" -h 127.0.0.1 -p "$PORT" -U postgres -b tpcb-like postgres >"$TMP/pgb" 2>&1 ||
      { echo "pgbench failed:"; tail -3 "$TMP/pgb"; exit 1; }
    python3 - "$TMP/pgb" "$R" "$round" >>"$TMP/rows" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
tps = float(re.search(r"tps = ([0-9.]+)", t).group(1))
lag = float(re.search(r"schedule lag: avg ([0-9.]+)", t).group(1))
lat = float(re.search(r"latency average = ([0-9.]+)", t).group(1))
m = re.search(r"latency limit: ([0-9]+)/([0-9]+)", t)
late = 100.0 * int(m.group(1)) / max(int(m.group(2)), 1) if m else 0.0
m = re.search(r"transactions skipped: [0-9]+ \(([0-9.]+)%", t)
skip = float(m.group(1)) if m else 0.0
print(sys.argv[2], sys.argv[3], "pgbench", tps, lag, lat, late, skip)
PY
    psql_ CHECKPOINT
    "$TMP/rs" run --target "$DB" --workload tpcb --users "$C" --rate "$R" "${RS_L[@]}" --rampup 0s --duration "$D" --no-waits --label "r$R-$round" \
      --store "$TMP/st.db" >"$TMP/rs.out" 2>&1 || { echo "rightsize failed:"; tail -3 "$TMP/rs.out"; exit 1; }
    "$TMP/rs" results show "r$R-$round" --json --store "$TMP/st.db" >"$TMP/rs.json"
    python3 - "$TMP/rs.json" "$R" "$round" >>"$TMP/rows" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s, w = d["steps"][0], d["workload"]["steps"][0]
t = s["txn"][0]
late, skipped = s.get("late_txns", 0), s.get("skipped_txns", 0)
n = sum(x["count"] for x in s["txn"])
print(sys.argv[2], sys.argv[3], "rightsize", w["tps"], s["schedule_lag_ms"], t["mean_ms"],
      100.0 * late / max(n, 1), 100.0 * skipped / max(n + skipped, 1))
PY
  done
done
python3 - "$TMP/rows" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
print("%6s %5s %-10s %9s %9s %11s %7s %9s" % ("rate", "round", "client", "TPS", "lag ms", "latency ms", "late %", "skipped %"))
for r in rows:
    print("%6s %5s %-10s %9.1f %9.3f %11.3f %7.2f %9.2f" % (r[0], r[1], r[2], *map(float, r[3:8])))
print("medians:")
for rate in dict.fromkeys(r[0] for r in rows):
    for c in ("pgbench", "rightsize"):
        sel = [r for r in rows if r[0] == rate and r[2] == c]
        med = [statistics.median(float(r[i]) for r in sel) for i in (3, 4, 5, 6, 7)]
        print("%6s %5s %-10s %9.1f %9.3f %11.3f %7.2f %9.2f" % (rate, "", c, *med))
PY
