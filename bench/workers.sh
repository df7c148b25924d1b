#!/usr/bin/env bash
# Workers benchmark (issue 16): one process driving U users against N
# workers driving U/N each, on the same database, interleaved ROUNDS times,
# then the coordination overhead of a 3-step worker run.
#   bench/workers.sh TARGET_DSN STORE_DSN [users=64] [workers=4] [duration=30s] [rounds=2]
# TARGET_DSN is a built database (rightsize build --warehouses >= workers),
# STORE_DSN a PostgreSQL results store. Prints TPM, NOPM and driver CPU
# (% of one core and µs per transaction) of every run and every worker,
# the time from the last registration to the common start, and the spread
# of the workers' step starts.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=$1; STORE=$2; U=${3:-64}; N=${4:-4}; D=${5:-30s}; ROUNDS=${6:-2}
TMP=$(mktemp -d /var/tmp/rightsize-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
BIN="$TMP/rightsize"
go build -o "$BIN" ./cmd/rightsize
common=(--target "$TARGET" --store "$STORE" --rampup 10s --duration "$D" --progress-interval 0)
fig='.steps[0] | "TPM \(.tpm|floor) NOPM \(.nopm|floor) driver CPU \(.driver_cpu_pct*10|floor/10) % of a core, \(.driver_cpu_us_per_txn*10|floor/10) µs/txn"'
for r in $(seq "$ROUNDS"); do
  echo "round $r: one process, $U users: $("$BIN" run "${common[@]}" --users "$U" --json | jq -r "$fig")"
  id="bench-$r-$$"
  for i in $(seq 0 $((N-1))); do
    "$BIN" run "${common[@]}" --users "$U" --worker "$i/$N" --run-id "$id" --json > "$TMP/w$i.json" &
  done
  wait
  echo "round $r: $N workers x $((U/N)) users: $("$BIN" results show "$id" --store "$STORE" >/dev/null; jq -r "$fig" "$TMP/w0.json")"
  jq -r '.workers[] | "  worker \(.worker)/\(.workers): TPM \(.figures.peak_tpm|floor), driver CPU \(.figures.peak_driver_cpu_pct*10|floor/10) % of a core, \(.figures.peak_driver_cpu_us_per_txn*10|floor/10) µs/txn, clock offset \(.clock_offset_ns/1000|floor) µs"' "$TMP/w0.json"
done
id="coord-$$"
for i in $(seq 0 $((N-1))); do
  "$BIN" run --target "$TARGET" --store "$STORE" --rampup 1s --duration 2s --progress-interval 0 --users "$N,$N,$N" --worker "$i/$N" --run-id "$id" --json > /dev/null &
done
wait
echo "coordination of $N workers, 3 steps (run $id):"
psql "$STORE" -At -c "SET search_path = ${PGSCHEMA:-rightsize};
SELECT 'last registration to the common start: ' || round(((b.at_ns - w.last)/1e6)::numeric, 1) || ' ms (agreed ' || round(((b.agreed_ns - w.last)/1e6)::numeric, 1) || ' ms after it, start lead 1000 ms)'
FROM run_barriers b, (SELECT max(registered_at_ns) AS last FROM run_workers WHERE run_id = '$id') w WHERE b.run_id = '$id' AND b.seq = 0;
SELECT 'step ' || s.step_index + 1 || ': workers started ' || round(((max(s.start_ns) - min(s.start_ns))/1e6)::numeric, 2) || ' ms apart, ' ||
  round(((min(s.start_ns) - b.at_ns)/1e6)::numeric, 2) || '..' || round(((max(s.start_ns) - b.at_ns)/1e6)::numeric, 2) || ' ms after the agreed instant'
FROM steps s JOIN run_workers w ON w.worker_run_id = s.run_id JOIN run_barriers b ON b.run_id = w.run_id AND b.seq = s.step_index
WHERE w.run_id = '$id' GROUP BY s.step_index, b.at_ns ORDER BY s.step_index;"
