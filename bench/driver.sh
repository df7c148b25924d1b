#!/usr/bin/env bash
# Driver benchmark (core and engines issues): for every engine available here
# it builds 4 warehouses, runs 4 users for 60 s in each mode, and prints load
# seconds, TPM, NOPM, driver and server CPU µs per transaction, and the
# loader's CPU as a share of the server's, side by side in one run.
#   bench/driver.sh [warehouses=4] [users=4] [duration=60s] [engines="postgres mariadb sqlite"]
# PG_BIN=/usr/lib/postgresql/15/bin uses installed PostgreSQL binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-4}; U=${2:-4}; D=${3:-60s}; ENGINES=${4:-"postgres mariadb sqlite"}
TMP=$(mktemp -d /var/tmp/rightsize-bench.XXXXXX)
chmod 755 "$TMP"
trap 'rm -rf "$TMP"' EXIT
BIN="$TMP/rightsize"
go build -o "$BIN" ./cmd/rightsize
STORE="$TMP/results.db"
rows=()
for eng in $ENGINES; do
  case $eng in
    postgres) ARGS=(--target embedded --data-dir "$TMP/pg"); [ -n "${PG_BIN:-}" ] && ARGS+=(--pg-bin "$PG_BIN"); MODES="procedures statements" ;;
    mariadb)
      if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then echo "mariadb: mariadbd not installed, skipped" >&2; continue; fi
      ARGS=(--target mariadb --data-dir "$TMP/mariadb"); MODES="procedures statements" ;;
    sqlite) ARGS=(--target "sqlite:$TMP/tpcc.sqlite"); MODES="statements" ;;
    *) echo "unknown engine $eng" >&2; exit 2 ;;
  esac
  build_out=$("$BIN" build "${ARGS[@]}" --warehouses "$W" 2>/dev/null)
  echo "$eng: $build_out" | sed 's/^/  /' >&2
  load_s=$(echo "$build_out" | sed -n 's/.* in \([0-9.]*\) s (load.*/\1/p')
  share=$(echo "$build_out" | sed -n 's/build CPU: rightsize \([0-9.]*\) s, server \([0-9.]*\) s/\1 \2/p' | awk '{ if ($2 > 0) printf "%.0f%%", 100*$1/$2; else print "-" }')
  [ -z "$share" ] && share="-"
  for mode in $MODES; do
    "$BIN" run "${ARGS[@]}" --users "$U" --rampup 10s --duration "$D" --mode "$mode" --json --store "$STORE" --label "bench-$eng-$mode" 2>/dev/null > "$TMP/$eng-$mode.json" || true
    rows+=("$(python3 - "$TMP/$eng-$mode.json" "$eng" "$mode" "$load_s" "$share" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = r["steps"][0]
print("%-9s %-11s %8s %9s %10.0f %10.0f %14.1f %14.1f" % (sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], s["tpm"], s["nopm"],
      s["driver_cpu_us_per_txn"], s.get("server_cpu_us_per_txn") or 0))
PY
)")
  done
done
printf '\n%d warehouses, %d users, %s per mode\n' "$W" "$U" "$D"
printf '%-9s %-11s %8s %9s %10s %10s %14s %14s\n' engine mode load_s load_cpu TPM NOPM "driver µs/txn" "server µs/txn"
printf '%s\n' "${rows[@]}"
echo "(load_cpu: rightsize's CPU during the load as a share of the server's; sqlite runs in process, so its driver µs include SQLite itself)"
