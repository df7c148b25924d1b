#!/usr/bin/env bash
# Where the driver's CPU per transaction goes, old binaries beside the work
# tree's (issue 32 item 1): like procedures.sh, each binary builds its own
# database in one private PostgreSQL cluster and every round runs each once
# (procedures mode, read committed, the order rotating per round, VACUUM
# and CHECKPOINT before each run); `perf record` samples the driver's
# process for PERF_SECS (default 15) seconds of its measured interval. The
# run's own driver µs per transaction (its whole measured interval) is then
# split by the samples' share into:
#   kernel   system calls and what runs in them: the loopback write (which
#            also delivers the request and wakes the server), the epoll
#            sleep and wake-up, the read;
#   runtime  Go's scheduler, poller and system-call stubs (runtime.*,
#            internal/runtime, internal/poll, net, syscall, sync);
#   code     everything else in user space: the driver's own code and its
#            libraries (wire protocol, decoding, inputs, histograms).
# It prints each run's split, then per binary the medians and their ratios
# to the first binary's.
#   bench/driversplit.sh [warehouses=4] [users=4] [duration=45s] [rounds=3]
# REFS (default 3831ca1, the 2026-11-22 binary) are the old commits; the
# work tree is "new". Needs perf (Debian's linux-perf, installed when
# missing and run as root) and, as root, a PG_USER to run the server.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-4}; U=${2:-4}; D=${3:-45s}; ROUNDS=${4:-3}
REFS=${REFS-3831ca1}; PERF_SECS=${PERF_SECS:-15}
if ! command -v perf >/dev/null; then
  [ "$(id -u)" = 0 ] || { echo "perf is missing: install Debian's linux-perf (apt-get install linux-perf)" >&2; exit 2; }
  apt-get install -y -q linux-perf >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q linux-perf >/dev/null; }
fi
. bench/lib.sh
bench_tmp driversplit
build_binaries "$REFS"
start_cluster 100
sql() { psql -X -q -h 127.0.0.1 -p "$PORT" -U postgres -d "$1" -c "$2" >/dev/null; }
for i in "${!bins[@]}"; do
  sql postgres "CREATE DATABASE rs_$i"
  "${bins[$i]}" build --target "$(dsn "rs_$i")" --warehouses "$W" --store "$TMP/store-$i.db" >"$TMP/build-$i.log" 2>&1 ||
    { echo "build ${names[$i]} failed:"; tail -5 "$TMP/build-$i.log"; exit 1; }
done

echo "PostgreSQL $("$PG_BIN/postgres" -V | awk '{print $3}') on 127.0.0.1:$PORT, $W warehouses, $U users, 10 s ramp-up, $D, procedures, read committed, perf over ${PERF_SECS} s of each run; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at start"
printf '%-5s %-10s %9s %10s %10s %10s %10s\n' round binary TPM "µs/txn" kernel runtime code
n=${#bins[@]}
for round in $(seq "$ROUNDS"); do
  for k in $(seq 0 $((n - 1))); do
    i=$(( (k + round - 1) % n ))
    sql "rs_$i" "VACUUM"; sql "rs_$i" "CHECKPOINT"
    iso=(); "${bins[$i]}" run --help 2>&1 | grep -q -- --isolation && iso=(--isolation read-committed)
    "${bins[$i]}" run --target "$(dsn "rs_$i")" --store "$TMP/store-$i.db" --users "$U" --rampup 10s --duration "$D" \
      --mode procedures "${iso[@]}" --json >"$TMP/run.json" 2>"$TMP/run.err" &
    pid=$!
    sleep 12
    perf record -q -F 1000 -p "$pid" -o "$TMP/perf.data" -- sleep "$PERF_SECS" >/dev/null 2>&1 || true
    wait "$pid" || { echo "run ${names[$i]} failed:"; tail -3 "$TMP/run.err"; continue; }
    perf report -i "$TMP/perf.data" --no-children --sort sym -g none 2>/dev/null >"$TMP/perf.txt" || true
    python3 - "$TMP/run.json" "$TMP/perf.txt" "$round" "${names[$i]}" <<'PY' | tee -a "$TMP/rows"
import json, re, sys
s = json.load(open(sys.argv[1]))["steps"][0]
share = {"kernel": 0.0, "runtime": 0.0, "code": 0.0}
runtime = re.compile(r"^(runtime\.|internal/runtime|internal/poll|net\.|syscall\.|sync\.)")
for line in open(sys.argv[2]):
    m = re.match(r"\s*([\d.]+)%\s+\[(.)\]\s+(\S+)", line)
    if not m:
        continue
    pct, where, sym = float(m.group(1)), m.group(2), m.group(3)
    share["kernel" if where == "k" else "runtime" if runtime.match(sym) else "code"] += pct
total = sum(share.values()) or 1
us = s["driver_cpu_us_per_txn"]
parts = [us * share[k] / total for k in ("kernel", "runtime", "code")]
print("%-5s %-10s %9.0f %10.1f %10.1f %10.1f %10.1f" % (sys.argv[3], sys.argv[4], s["tpm"], us, *parts))
PY
  done
done
python3 - "$TMP/rows" "${names[@]}" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
names = sys.argv[2:]
cols = ["TPM", "µs/txn", "kernel", "runtime", "code"]
med = {}
for n in names:
    r = [x for x in rows if x[1] == n]
    if r:
        med[n] = [statistics.median(float(x[2 + c]) for x in r) for c in range(len(cols))]
print("\nmedians    %9s %10s %10s %10s %10s" % tuple(cols))
for n in names:
    if n in med:
        print("%-10s %9.0f %10.1f %10.1f %10.1f %10.1f" % (n, *med[n]))
base = names[0]
for n in names[1:]:
    if n in med and base in med:
        print("%-10s %9.3f %10.3f %10.3f %10.3f %10.3f   (ratio to %s)" % (n, *[a / b if b else 0 for a, b in zip(med[n], med[base])], base))
PY
