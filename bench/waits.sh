#!/usr/bin/env bash
# Wait-sampling overhead (issue 14): on one built database, runs of one step
# with and without wait sampling, interleaved (off on, on off, off on ...), same
# build; prints each pair's TPM, the TPM ratio on/off and the mean overhead,
# with the driver's µs per transaction (the sampler runs in the driver).
#   bench/waits.sh [warehouses=4] [users=8] [duration=30s] [pairs=3] [interval=100ms] [target=embedded]
# PG_BIN=/usr/lib/postgresql/15/bin uses installed PostgreSQL binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-4}; U=${2:-8}; D=${3:-30s}; PAIRS=${4:-3}; IV=${5:-100ms}; TARGET=${6:-embedded}
TMP=$(mktemp -d /var/tmp/rightsize-bench.XXXXXX)
chmod 755 "$TMP"
trap 'rm -rf "$TMP"' EXIT
BIN="$TMP/rightsize"
go build -o "$BIN" ./cmd/rightsize
case $TARGET in
  embedded) ARGS=(--target embedded --data-dir "$TMP/pg"); [ -n "${PG_BIN:-}" ] && ARGS+=(--pg-bin "$PG_BIN") ;;
  mariadb) ARGS=(--target mariadb --data-dir "$TMP/mariadb") ;;
  *) ARGS=(--target "$TARGET") ;;
esac
"$BIN" build "${ARGS[@]}" --warehouses "$W" >/dev/null 2>&1
STORE="$TMP/results.db"
printf 'pair  TPM off   TPM on    on/off   driver µs/txn off  on   ticks skipped\n'
for i in $(seq 1 "$PAIRS"); do
  order="off on"; [ $((i % 2)) -eq 0 ] && order="on off"   # alternate who runs first (a warmer cache)
  for w in $order; do
    flags=(--no-waits); [ $w = on ] && flags=(--wait-interval "$IV")
    "$BIN" run "${ARGS[@]}" --users "$U" --rampup 5s --duration "$D" --json --store "$STORE" "${flags[@]}" 2>/dev/null > "$TMP/$i-$w.json"
  done
  python3 - "$TMP/$i-off.json" "$TMP/$i-on.json" "$i" "$STORE" <<'PY'
import json, sys, sqlite3
off, on = (json.load(open(p))["steps"][0] for p in sys.argv[1:3])
db = sqlite3.connect(sys.argv[4])
prof = json.loads(db.execute("SELECT w.profile FROM step_waits w JOIN steps s ON s.id = w.step_id WHERE s.run_id = ?",
                             (json.load(open(sys.argv[2]))["run_id"],)).fetchone()[0] or "{}")
print("%-4s %9.0f %9.0f %8.4f %12.1f %8.1f %7d %7d" % (sys.argv[3], off["tpm"], on["tpm"], on["tpm"] / off["tpm"],
      off["driver_cpu_us_per_txn"], on["driver_cpu_us_per_txn"], prof.get("ticks", 0), prof.get("skipped", 0)))
PY
done | tee "$TMP/pairs.txt"
sort -n -k4 "$TMP/pairs.txt" | awk '{ r[n++] = $4; s += $4 } END { if (n) { m = (n % 2) ? r[(n-1)/2] : (r[n/2-1] + r[n/2]) / 2
  printf "on/off: median %.4f, mean %.4f: overhead %.2f %% of TPM (median; %d pairs, %s users, %s warehouses, %s each, interval %s)\n", m, s/n, (1-m)*100, n, "'"$U"'", "'"$W"'", "'"$D"'", "'"$IV"'" } }'
echo "(a loaded machine moves TPM by more than the sampler costs: go test -run '^\$' -bench WaitSample ./engine/postgres measures the cost of one sample)"
