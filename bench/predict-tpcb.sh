#!/usr/bin/env bash
# Capacity model benchmark for a pgbench workload (issue 47): on pgbench's
# tables at scale S and U users it measures the grid cpus {2, 1.5, 1, 0.5}
# × I/O {none, riops=2000:wiops=2000, riops=400:wiops=400} of the tpcb
# workload (three `sweep cpus --workload tpcb --predict`), then, as
# bench/predict.sh does for TPC-C, predicts all twelve points from the one
# at 2 cpus and no limit (the figure of merit: every script's
# transactions per minute), replays fit over the grid at three targets
# with and without predictions, and runs one real
# `fit --workload tpcb --target-tps T` over the same twelve candidates
# (T: TPS env, default 0.97 × the lower quartile of the grid's measured TPS),
# saying how many it measured. bench/PREDICT.md has what it gave.
#   [ROUNDS=N] [TPS=T] bench/predict-tpcb.sh [scale=10] [users=8] [rampup=5s] [duration=20s]
# ROUNDS=N measures the grid N times, interleaved, each round predicted
# from its own base and the medians compared; PG_BIN=/usr/lib/postgresql/15/bin
# uses installed PostgreSQL binaries; KEEP=DIR keeps the results store
# (DIR/results.db); FIT=0 leaves the real fit out.
# Needs cgroups (root, or a delegated subtree) and a data directory on a
# block device for the I/O limits (/var/tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
S=${1:-10}; U=${2:-8}; R=${3:-5s}; D=${4:-20s}
TMP=$(mktemp -d /var/tmp/rightsize-predict-tpcb.XXXXXX)
chmod 755 "$TMP"
trap 'rm -rf "$TMP"' EXIT
BIN="$TMP/rightsize"
go build -o "$BIN" ./cmd/rightsize
[ -z "${KEEP:-}" ] || mkdir -p "$KEEP" # a new directory is the usual wish
STORE="${KEEP:-$TMP}/results.db"
PG=(--data-dir "$TMP/pg"); [ -n "${PG_BIN:-}" ] && PG+=(--pg-bin "$PG_BIN")
RUN=(--workload tpcb --users "$U" --rampup "$R" --duration "$D" --repeat 1 --store "$STORE")
ROUNDS=${ROUNDS:-1}
IOS=(none riops=2000:wiops=2000 riops=400:wiops=400)
"$BIN" build --workload tpcb --scale "$S" "${PG[@]}" >&2
for r in $(seq 1 "$ROUNDS"); do
  for io in "${IOS[@]}"; do
    label=tpcb-${io%%:*}; label=${label/riops=/}
    [ "$r" -gt 1 ] && label=$label.$r
    echo "$(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg): sweep cpus 2,1.5,1,0.5 --workload tpcb --io-limit $io ($label)" >&2
    "$BIN" sweep cpus --values 2,1.5,1,0.5 --io-limit "$io" --predict --label "$label" "${RUN[@]}" "${PG[@]}" --json > "$TMP/$label.json"
  done
done
echo "# tpcb scale $S, $U users, ramp-up $R, measured $D, one repeat, $ROUNDS round(s); load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
go run ./bench/predict -store "$STORE" -grid tpcb-none,tpcb-2000,tpcb-400 -memory "" -shapes "" -rounds "$ROUNDS"
[ "${FIT:-1}" = 0 ] && exit 0
if [ -z "${TPS:-}" ]; then
  TPS=$(jq -s '[.[].points[] | select(.nopm > 0) | .nopm] | sort | .[(length/4|floor)] * 0.97 / 60 | floor' "$TMP"/tpcb-*.json)
fi
go run ./bench/predict -write-costs "$TMP/costs.yaml" # the prices the replays above used
echo "$(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg): fit --workload tpcb --target-tps $TPS over the twelve" >&2
"$BIN" fit --target-tps "$TPS" --cpus 2,1.5,1,0.5 --io none --io riops=2000:wiops=2000 --io riops=400:wiops=400 \
  --cost "$TMP/costs.yaml" --config vm --confidence mean --label tpcb-fit "${RUN[@]}" "${PG[@]}" || true
echo "# fit done; load $(cut -d' ' -f1-3 /proc/loadavg)"
