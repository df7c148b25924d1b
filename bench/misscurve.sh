#!/usr/bin/env bash
# The miss-ratio curve against measured reads (issue 48 item 3): memory
# sweeps 1G,512M,384M,256M,160M with --prewarm on 4 and 8 warehouses (the
# curve's hot bytes were chosen on 4; 8 is held out), one step each long
# enough for the cache's warm-up to end inside it, then `go run
# ./bench/predict -reads`: per point the device reads per transaction over
# the window and after the warm-up (MSER-5 truncation), the blocks read from
# outside shared_buffers, and the curve's reads from the 1G point.
#   [KEEP=DIR] [PG_BIN=...] bench/misscurve.sh [warehouses=4,8] [users=8] [rampup=5s] [duration=40s]
set -euo pipefail
cd "$(dirname "$0")/.."
WS=${1:-4,8}; U=${2:-8}; R=${3:-5s}; D=${4:-40s}
VALUES=${VALUES:-1G,512M,384M,256M,160M}
TMP=$(mktemp -d /var/tmp/rightsize-misscurve.XXXXXX)
chmod 755 "$TMP"
trap 'rm -rf "$TMP"' EXIT
BIN="$TMP/rightsize"
go build -o "$BIN" ./cmd/rightsize
STORE="${KEEP:-$TMP}/results.db"
labels=()
for w in ${WS//,/ }; do
  PG=(--data-dir "$TMP/pg-w$w"); [ -n "${PG_BIN:-}" ] && PG+=(--pg-bin "$PG_BIN")
  "$BIN" build --warehouses "$w" "${PG[@]}" >&2
  echo "$(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg): sweep memory $VALUES --prewarm on $w warehouses (m$w)" >&2
  "$BIN" sweep memory --values "$VALUES" --prewarm --label "m$w" --users "$U" --rampup "$R" --duration "$D" --repeat 1 \
    --store "$STORE" "${PG[@]}" --json > "$TMP/m$w.json" || true
  labels+=("m$w")
done
echo "# $U users, ramp-up $R, measured $D, one repeat; load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
go run ./bench/predict -store "$STORE" -grid "" -memory "" -reads "$(IFS=,; echo "${labels[*]}")"
