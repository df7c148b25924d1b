#!/usr/bin/env bash
# Driver benchmark (core issue): builds 4 warehouses on the embedded
# PostgreSQL, runs 4 users for 60 s in each mode and prints load seconds,
# TPM, NOPM, driver and server CPU µs per transaction, side by side.
#   bench/driver.sh [warehouses] [users] [duration]
# Set PG_BIN=/usr/lib/postgresql/15/bin to use installed binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-4}; U=${2:-4}; D=${3:-60s}
BIN=$(mktemp -d)/rightsize
go build -o "$BIN" ./cmd/rightsize
DATA=$(mktemp -d /var/tmp/rightsize-bench.XXXXXX)
trap 'rm -rf "$DATA" "$(dirname "$BIN")"' EXIT
chmod 755 "$DATA"
ARGS=(--data-dir "$DATA/pg")
[ -n "${PG_BIN:-}" ] && ARGS+=(--pg-bin "$PG_BIN")
# keep the server up for the whole benchmark so build and runs share it
build_out=$("$BIN" build "${ARGS[@]}" --warehouses "$W" 2>/dev/null)
echo "$build_out"
load_s=$(echo "$build_out" | sed -n 's/.* in \([0-9.]*\) s (load.*/\1/p')
printf '\n%-11s %8s %10s %10s %16s %16s\n' mode load_s TPM NOPM "driver µs/txn" "server µs/txn"
for mode in procedures statements; do
  "$BIN" run "${ARGS[@]}" --users "$U" --rampup 10s --duration "$D" --mode "$mode" --json 2>/dev/null > "$DATA/$mode.json" || true
  python3 - "$DATA/$mode.json" "$mode" "$load_s" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = r["steps"][0]
print("%-11s %8s %10.0f %10.0f %16.1f %16.1f" % (sys.argv[2], sys.argv[3], s["tpm"], s["nopm"],
      s["driver_cpu_us_per_txn"], s.get("server_cpu_us_per_txn") or 0))
PY
done
