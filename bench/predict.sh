#!/usr/bin/env bash
# Capacity model benchmark (issue 33): on W warehouses and U users it
# measures a grid of cpus {2, 1.5, 1, 0.5} × I/O {none, riops=2000:wiops=2000,
# riops=400:wiops=400} (three cpus sweeps), then predicts all twelve points
# from the one at 2 cpus and no limit, replays fit over the grid at three
# targets with and without predictions, and predicts a memory sweep
# 1G,512M,256M,128M on MW warehouses from two of its points. Everything is
# printed side by side in one run; bench/PREDICT.md has what it gave.
#   [ROUNDS=N] bench/predict.sh [warehouses=4] [users=8] [rampup=10s] [duration=30s] [memory warehouses=10]
# ROUNDS=N measures the grid N times, interleaved (the machine's speed
# drifts: a 30 s step's NOPM has a ±5-16 % interval of its own), each
# round predicted from its own base and the medians compared;
# PG_BIN=/usr/lib/postgresql/15/bin uses installed PostgreSQL binaries;
# KEEP=DIR keeps the results store (DIR/results.db) for a closer look.
# Needs cgroups (root, or a delegated subtree) and a data directory on a
# block device for the I/O limits (/var/tmp).
#
# Issue 48's shapes, each a sweep predicted from its first value alone
# (statements mode and quota 0.25, write bandwidth limits, IOPS, memory
# from one point, 16 users, 2 and 8 warehouses), printed with the error
# and whether the band held, per point and over all shapes:
#   PARTS=shapes [SHAPES=stmt,bw,iops,mem,u16,w2,w8] [ROUNDS=N] bench/predict.sh
# w8c1 (8 warehouses from cpus 1 down to 0.25, the driver on a core of
# its own) runs only when named in SHAPES.
# A write bandwidth limit on cgroup v2, in the qemu guest (test/v2guest,
# its bandwidth layout: 2 warehouses, 4 users, cpus 1, 5 s + 90 s, a sweep
# io none,wbps=1M,wbps=200K,wbps=50K --predict per round, predicted in the
# guest), summarised the same way:
#   PARTS=v2 [ROUNDS=N] bench/predict.sh
# PARTS (default grid,memory,shapes; v2 only when named) picks the parts; SHAPE_DURATION
# (default 20s) and SHAPE_RAMPUP (5s) time the shapes' steps.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-4}; U=${2:-8}; R=${3:-10s}; D=${4:-30s}; MW=${5:-10}
TMP=$(mktemp -d /var/tmp/rightsize-predict.XXXXXX)
chmod 755 "$TMP"
trap 'rm -rf "$TMP"' EXIT
BIN="$TMP/rightsize"
go build -o "$BIN" ./cmd/rightsize
[ -z "${KEEP:-}" ] || mkdir -p "$KEEP" # a new directory is the usual wish
STORE="${KEEP:-$TMP}/results.db"
PG=(--data-dir "$TMP/pg"); [ -n "${PG_BIN:-}" ] && PG+=(--pg-bin "$PG_BIN")
RUN=(--users "$U" --rampup "$R" --duration "$D" --repeat 1 --store "$STORE")
ROUNDS=${ROUNDS:-1}
PARTS=${PARTS:-grid,memory,shapes}
has() { [[ ",$PARTS," == *",$1,"* ]]; }
if has grid; then
  "$BIN" build --warehouses "$W" "${PG[@]}" >&2
  for r in $(seq 1 "$ROUNDS"); do
    for io in none riops=2000:wiops=2000 riops=400:wiops=400; do
      label=grid-${io%%:*}; label=${label/riops=/}
      [ "$r" -gt 1 ] && label=$label.$r
      echo "sweep cpus 2,1.5,1,0.5 with --io-limit $io ($label)" >&2
      "$BIN" sweep cpus --values 2,1.5,1,0.5 --io-limit "$io" --label "$label" "${RUN[@]}" "${PG[@]}" --json > "$TMP/$label.json"
    done
  done
fi
if has memory; then
  MEM=(--data-dir "$TMP/pg-mem"); [ -n "${PG_BIN:-}" ] && MEM+=(--pg-bin "$PG_BIN")
  "$BIN" build --warehouses "$MW" "${MEM[@]}" >&2
  echo "sweep memory 1G,512M,256M,128M on $MW warehouses" >&2
  "$BIN" sweep memory --values 1G,512M,256M,128M --label mem "${RUN[@]}" "${MEM[@]}" --json > "$TMP/mem.json" || true
fi
# name: warehouses users kind values flags...
declare -A SHAPE=(
  [stmt]="4 8 cpus 1,0.5,0.25 --mode statements"
  [bw]="4 8 io none,wbps=3M,wbps=1M --cpus 1"
  [iops]="4 8 io none,riops=150:wiops=150 --cpus 1"
  [mem]="8 8 memory 1G,512M,256M,160M --prewarm"
  [u16]="4 16 cpus 2,1,0.5"
  [w2]="2 8 cpus 2,1,0.5,0.25"
  [w8]="8 8 cpus 2,1,0.5"
  [w8c1]="8 8 cpus 1,0.5,0.25"
)
SHAPES=${SHAPES:-stmt,bw,iops,mem,u16,w2,w8}
if has shapes; then
  declare -A BUILT=()
  for r in $(seq 1 "$ROUNDS"); do
    for s in ${SHAPES//,/ }; do
      read -r sw su kind values flags <<< "${SHAPE[$s]}"
      dir=$TMP/pg-w$sw
      SPG=(--data-dir "$dir"); [ -n "${PG_BIN:-}" ] && SPG+=(--pg-bin "$PG_BIN")
      if [ -z "${BUILT[$sw]:-}" ]; then "$BIN" build --warehouses "$sw" "${SPG[@]}" >&2; BUILT[$sw]=1; fi
      label=$s; [ "$r" -gt 1 ] && label=$s.$r
      echo "shape $label: sweep $kind $values on $sw warehouses, $su users $flags" >&2
      # shellcheck disable=SC2086 # flags are words
      "$BIN" sweep "$kind" --values "$values" $flags --label "$label" --users "$su" --rampup "${SHAPE_RAMPUP:-5s}" --duration "${SHAPE_DURATION:-20s}" \
        --repeat 1 --store "$STORE" "${SPG[@]}" --json > "$TMP/$label.json" || true
    done
  done
fi
if has v2; then
  RIGHTSIZE_V2GUEST_ROUNDS=$ROUNDS RIGHTSIZE_V2GUEST_TIMEOUT=$((900 + ROUNDS * 900)) test/v2guest/run.sh "${KEEP:-$TMP}/v2" bandwidth >&2
  go run ./bench/predict -grid "" -sweep-files "${KEEP:-$TMP}/v2/bandwidth/sweep-*.json"
  [ "$PARTS" = v2 ] && exit 0
fi
echo "# $W warehouses, $U users, ramp-up $R, measured $D, one repeat, $ROUNDS round(s); memory on $MW warehouses; parts $PARTS"
GRID=""; has grid && GRID=grid-none,grid-2000,grid-400
MEMS=""; has memory && MEMS=mem
SH=""; has shapes && SH=$SHAPES
go run ./bench/predict -store "$STORE" -grid "$GRID" -memory "$MEMS" -shapes "$SH" -rounds "$ROUNDS"
