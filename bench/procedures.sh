#!/usr/bin/env bash
# Procedures mode, old binaries against the work tree's, interleaved on one
# private PostgreSQL cluster (issue 32 item 1). Each binary builds its own
# database in the same cluster; then every round runs each binary once
# (the order rotates from round to round), with VACUUM and CHECKPOINT
# before each run, so machine noise hits all alike. It prints TPM, NOPM
# and the driver's CPU µs per transaction per run, then per binary the
# medians, their ratios to the first binary's and their ranges.
#   bench/procedures.sh [warehouses=4] [users=4] [duration=60s] [rounds=3]
# REFS="7602bc2 3831ca1" are the old commits (default: 7602bc2, main when
# issue 32 item 1 began); the work tree is "new". ISOLATION=spec runs the
# binaries that know --isolation at spec (default read-committed; older
# binaries run read committed anyway); ISOLATION="read-committed spec"
# runs both, interleaved, each run labelled with its level (the binaries
# that do not know --isolation run once, labelled rc; issue 32 item 2).
# MODE=statements measures that mode;
# MODE="statements procedures" runs every binary in both, each run
# labelled binary/mode (issue 32 item 3).
# GOTPC=1 adds go-tpc (pingcap/go-tpc built from its public source, see
# build_gotpc in bench/lib.sh: GOTPC_SRC a clone, or GOTPC_BIN a binary)
# as one more run of each round: its prepare builds its own database in
# the same cluster, and its runs (tpcc, the postgres driver, W
# warehouses, U threads, no keying or thinking) print TPM, NOPM and its
# client CPU per transaction (user+system of the whole process over its
# successful transactions; go-tpc has no ramp-up, so it runs for the
# duration and counts all of it) beside rightsize's; "retries" is then
# go-tpc's failed transactions.
# FLOOR=1 adds bench/floor as one more run of each round: U connections
# repeating a prepared statement that keeps the server busy about as long
# as a transaction (FLOOR_N rows counted, default 8000: set it so its rate
# is near the binaries' TPM) through the virtual users' socket path, with
# no TPC-C work in the driver. Its TPM column is round trips per minute,
# its driver µs is per round trip: the medians then add each binary's µs
# over that floor, the part its code decides, and their ratios.
# PG_BIN (default /usr/lib/postgresql/15/bin) holds initdb and pg_ctl; as
# root the server runs as PG_USER (default postgres).
# 2026-11-27, REFS="7602bc2 3831ca1" bench/procedures.sh 4 4 30s 4, on the
# 2-core VM shared with other jobs (load 5-8), medians of 4 interleaved runs:
#   7602bc2  82,998 TPM  71.1 µs/txn
#   3831ca1  83,392 TPM  62.6 µs/txn (the 2026-11-22 binary)
#   new      81,202 TPM  55.8 µs/txn (TPM 0.978, driver µs 0.785 of 7602bc2)
# 2026-11-27, MODE="statements procedures" REFS=7d69a38 bench/procedures.sh
# 4 4 45s 3 (issue 32 item 3), same machine, load 9-14, medians (range):
#   7d69a38/statements  15,777 TPM  214.0 µs/txn (192.4-216.6)
#   new/statements      18,379 TPM  102.2 µs/txn (91.6-138.3; 0.478)
#   new/procedures      20,980 TPM   97.5 µs/txn (84.6-98.0)
# 2026-11-27, quiet VM (load from the bench only), MODE="procedures
# statements" ISOLATION="read-committed spec" REFS=3831ca1
# bench/procedures.sh 4 4 60s 3, medians (range):
#   3831ca1/procedures/rc  87,082 TPM  60.0 µs/txn (57.6-61.1)
#   3831ca1/statements/rc  48,115 TPM 142.0 µs/txn (134.6-145.6)
#   new/procedures/rc      85,518 TPM  53.8 µs/txn (0.982, 0.897)
#   new/procedures/spec    84,578 TPM  55.1 µs/txn (5-8 retries a run)
#   new/statements/rc      46,702 TPM  71.1 µs/txn (0.50 of 3831ca1's µs)
#   new/statements/spec    45,542 TPM  76.9 µs/txn
# and at 4 warehouses x 40 users (REFS="" ... 4 40 60s 3): spec/rc TPM
# 0.689 in procedures mode (33-47k retries a minute), 0.79 in statements
# mode, before procedures mode's level 3 came from row locks (bench/levels.sh).
# After New-Order's lines went into one statement, quiet, REFS="3831ca1
# ab76c96" bench/procedures.sh 4 4 60s 3: 3831ca1 88,419 TPM 58.2 µs,
# ab76c96 82,261 57.5, new 92,779 53.3 (TPM 1.049, µs 0.916 of 3831ca1).
# After rawsock's Exchange (no read that finds nothing), load 2.9-4.8,
# REFS="3831ca1 665e9ec" bench/procedures.sh 4 4 60s 3: 3831ca1 78,046
# TPM 65.4 µs, 665e9ec 92,575 54.2, new 91,460 50.9 (TPM 1.172, µs 0.778
# of 3831ca1; per round 0.71-0.87). With GOTPC=1, load 6-13: go-tpc
# 682637f 23,732 TPM at 1,398 µs of client CPU per transaction, where
# 3831ca1 made 49,029 at 74.0 and new 46,311 at 64.0.
# After the wait sampler on the wire and binary parameters, load 3.7-7.6,
# REFS="3831ca1 e5167d4" bench/procedures.sh 4 4 30s 3: 3831ca1 46,296 TPM
# 69.7 µs, e5167d4 (before) 39,628 65.9, new 56,708 58.2 (µs 0.835 of
# 3831ca1, per round 0.83, 0.80, 0.92; 0.88 of e5167d4).
# After issue 46's consolidation (one shape per figure, one table of step
# columns, the figure of merit a value, scenario and report split by job),
# quiet machine (load 3-3.7, nothing else running), REFS=a7e92c0
# bench/procedures.sh 4 4 40s 6: a7e92c0 216,446 TPM 25.9 µs, new 218,609
# 25.9 (TPM 1.010, driver µs 0.998; per round µs 0.97-1.04): unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-4}; U=${2:-4}; D=${3:-60s}; ROUNDS=${4:-3}
REFS=${REFS-7602bc2}; ISOLATION=${ISOLATION:-read-committed}; MODE=${MODE:-procedures}
. bench/lib.sh
bench_tmp procbench
build_binaries "$REFS"
[ -n "${GOTPC:-}" ] && build_gotpc
[ -n "${FLOOR:-}" ] && go build -o "$TMP/floor" ./bench/floor
start_cluster 300
sql() { psql -X -q -h 127.0.0.1 -p "$PORT" -U postgres -d "$1" -c "$2" >/dev/null; }

for i in "${!bins[@]}"; do
  db="rs_$(echo "${names[$i]}" | tr -c 'a-z0-9\n' _)"
  sql postgres "CREATE DATABASE $db"
  "${bins[$i]}" build --target "$(dsn "$db")" --warehouses "$W" --store "$TMP/store-$i.db" >"$TMP/build-$i.log" 2>&1 ||
    { echo "build ${names[$i]} failed:"; tail -5 "$TMP/build-$i.log"; exit 1; }
done

# A run is a binary in a mode at an isolation; with more than one mode
# its label is binary/mode, with more than one isolation binary[/mode]/level
# (rc or spec).
short() { case $1 in read-committed) echo rc ;; *) echo "$1" ;; esac; }
labels=(); run_bin=(); run_mode=(); run_iso=()
for i in "${!bins[@]}"; do
  knows=0; "${bins[$i]}" run --help 2>&1 | grep -q -- --isolation && knows=1
  for mode in $MODE; do
    for iso in $ISOLATION; do
      [ "$knows" = 0 ] && [ "$iso" != "${ISOLATION%% *}" ] && continue
      label=${names[$i]}; [ "$(echo $MODE | wc -w)" -gt 1 ] && label="$label/$mode"
      [ "$(echo $ISOLATION | wc -w)" -gt 1 ] && { [ "$knows" = 1 ] && label="$label/$(short "$iso")" || label="$label/rc"; }
      labels+=("$label"); run_bin+=("$i"); run_mode+=("$mode"); run_iso+=("$iso")
    done
  done
done

[ -n "${GOTPC:-}" ] && { prepare_gotpc; labels+=(go-tpc); run_bin+=(gotpc); run_mode+=(statements); run_iso+=(read-committed); }
[ -n "${FLOOR:-}" ] && { labels+=(floor); run_bin+=(floor); run_mode+=(-); run_iso+=(-); }

echo "PostgreSQL $("$PG_BIN/postgres" -V | awk '{print $3}') on 127.0.0.1:$PORT, $W warehouses, $U users, 10 s ramp-up, $D, $MODE, $ISOLATION; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at start"
printf '%-5s %-26s %10s %10s %14s %8s %10s\n' round run TPM NOPM "driver µs/txn" retries "NO p90 ms"
n=${#labels[@]}
for round in $(seq "$ROUNDS"); do
  for k in $(seq 0 $((n - 1))); do
    j=$(( (k + round - 1) % n )); i=${run_bin[$j]}
    [ "$i" = gotpc ] && { run_gotpc "$round" | tee -a "$TMP/rows"; continue; }
    if [ "$i" = floor ]; then
      out=$("$TMP/floor" -target "$(dsn postgres)" -users "$U" -rampup 10s -duration "$D" -n "${FLOOR_N:-8000}" 2>&1) ||
        { echo "run floor failed: $out"; continue; }
      echo "$out" | awk -v r="$round" '{gsub(",", ""); printf "%-5s %-26s %10.0f %10.0f %14.1f %8d %10.2f\n", r, "floor", $5, 0, $NF, 0, 0}' | tee -a "$TMP/rows"
      continue
    fi
    db="rs_$(echo "${names[$i]}" | tr -c 'a-z0-9\n' _)"
    sql "$db" "VACUUM"; sql "$db" "CHECKPOINT"
    iso=(); "${bins[$i]}" run --help 2>&1 | grep -q -- --isolation && iso=(--isolation "${run_iso[$j]}")
    "${bins[$i]}" run --target "$(dsn "$db")" --store "$TMP/store-$i.db" --users "$U" --rampup 10s --duration "$D" \
      --mode "${run_mode[$j]}" "${iso[@]}" --json >"$TMP/run.json" 2>"$TMP/run.err" || { echo "run ${labels[$j]} failed:"; tail -3 "$TMP/run.err"; continue; }
    python3 - "$TMP/run.json" "$round" "${labels[$j]}" <<'PY' | tee -a "$TMP/rows"
import json, sys
s = json.load(open(sys.argv[1]))["steps"][0]
t = s.get("txn", {})
retries = sum(x.get("retries", 0) for x in t.values())
p90 = t.get("new_order", {}).get("p90_ms", 0)
print("%-5s %-26s %10.0f %10.0f %14.1f %8d %10.2f" % (sys.argv[2], sys.argv[3], s["tpm"], s["nopm"], s["driver_cpu_us_per_txn"], retries, p90))
PY
  done
done
python3 - "$TMP/rows" "${labels[@]}" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
names = sys.argv[2:]
med, spread = {}, {}
for n in names:
    r = [x for x in rows if x[1] == n]
    if r:
        tpm, us = [float(x[2]) for x in r], [float(x[4]) for x in r]
        med[n] = (statistics.median(tpm), statistics.median(us))
        spread[n] = "%.0f-%.0f / %.1f-%.1f" % (min(tpm), max(tpm), min(us), max(us))
base = names[0]
print("\nmedians %-19s %10s %14s %10s %9s   %s" % ("", "TPM", "driver µs/txn", "TPM ratio", "µs ratio", "range TPM / µs"))
for n in names:
    if n in med and base in med:
        print("%-26s %10.0f %14.1f %10.3f %9.3f   %s" % (n, med[n][0], med[n][1], med[n][0] / med[base][0], med[n][1] / med[base][1], spread[n]))
if "floor" in med and base in med:
    f = med["floor"][1]
    print("\nover the floor (median µs/txn - the floor's %.1f µs per round trip; floor/%s %.3f)" % (f, base, f / med[base][1]))
    for n in names:
        if n in med and n != "floor":
            print("%-26s %10.1f µs %8.3f" % (n, med[n][1] - f, (med[n][1] - f) / (med[base][1] - f)))
PY
