#!/usr/bin/env bash
# Time to answer (issue 15): the same users sweep measured twice on one
# embedded PostgreSQL, interleaved (fixed, auto, then auto, fixed for each
# further round): fixed ramp-up, duration and repeats against --rampup auto
# --duration auto --precision P --repeat auto with those fixed values as the
# caps, so the auto run's fixed plan is the fixed run. It prints the wall
# time of each run, and per step the mean TPM of each, their difference and
# whether the auto mean lies in the fixed run's 95 % interval across
# repeats.
#   bench/time-to-answer.sh [users=1,2,4,8] [warehouses=4] [rampup=30s] [duration=120s] [repeat=3] [precision=2%] [rounds=1]
# The full default takes about 1 h 10 min (fixed: 4 steps × 150 s × 3).
# PG_BIN=/usr/lib/postgresql/15/bin uses installed PostgreSQL binaries.
# BASE=/dev/shm puts the database (and the results) on that file system
# instead of /var/tmp: on tmpfs commits do not wait for a disk that other
# work on the host shares, so the series show the method, not the disk.
# KEEP=DIR copies the results store there at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
USERS=${1:-1,2,4,8}; W=${2:-4}; RAMPUP=${3:-30s}; DURATION=${4:-120s}; REPEAT=${5:-3}; PRECISION=${6:-2%}; ROUNDS=${7:-1}
TMP=$(mktemp -d "${BASE:-/var/tmp}/rightsize-tta.XXXXXX")
chmod 755 "$TMP"
trap 'rm -rf "$TMP"' EXIT
BIN="$TMP/rightsize"
go build -o "$BIN" ./cmd/rightsize
STORE="$TMP/results.db"
ARGS=(--target embedded --data-dir "$TMP/pg")
[ -n "${PG_BIN:-}" ] && ARGS+=(--pg-bin "$PG_BIN")
"$BIN" build "${ARGS[@]}" --warehouses "$W" >&2

run() { # kind round
  local kind=$1 label="$1-$2" t0 t1 extra
  if [ "$kind" = fixed ]; then
    extra=(--rampup "$RAMPUP" --duration "$DURATION" --repeat "$REPEAT")
  else
    extra=(--rampup auto --rampup-max "$RAMPUP" --duration auto --duration-max "$DURATION" --precision "$PRECISION"
      --repeat auto --repeat-max "$REPEAT")
  fi
  t0=$(date +%s.%N)
  "$BIN" run "${ARGS[@]}" --users "$USERS" "${extra[@]}" --label "$label" --store "$STORE" --progress-interval 0 \
    > "$TMP/$label.txt" 2>"$TMP/$label.err" || { cat "$TMP/$label.err" >&2; exit 1; }
  t1=$(date +%s.%N)
  echo "$t0 $t1" > "$TMP/$label.wall"
  "$BIN" results export "$label" --format json --store "$STORE" > "$TMP/$label.json"
  grep -A30 'how each step ended' "$TMP/$label.txt" | grep -v '^$' | sed "s/^/  [$label] /" >&2 || true
}

for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then run fixed "$r"; run auto "$r"; else run auto "$r"; run fixed "$r"; fi
done

[ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp "$STORE" "$KEEP/" && echo "results store copied to $KEEP" >&2

python3 - "$TMP" "$ROUNDS" "$USERS" "$W" "$RAMPUP" "$DURATION" "$REPEAT" "$PRECISION" <<'PY'
import json, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
def load(label):
    t0, t1 = map(float, open(f"{tmp}/{label}.wall").read().split())
    return t1 - t0, json.load(open(f"{tmp}/{label}.json"))
print(f"\nusers {sys.argv[3]} on {sys.argv[4]} warehouses; fixed: --rampup {sys.argv[5]} --duration {sys.argv[6]} --repeat {sys.argv[7]};"
      f" auto: --precision {sys.argv[8]} --repeat auto with those as the caps")
all_in, ratios = True, []
for r in range(1, rounds + 1):
    fw, fixed = load(f"fixed-{r}")
    aw, auto = load(f"auto-{r}")
    ratios.append(aw / fw)
    print(f"\nround {r}: wall time fixed {fw:.0f} s, auto {aw:.0f} s ({100 * aw / fw:.0f} % of fixed);"
          f" auto repeats: {auto['run'].get('repeat_end') or auto['run']['repeats']}")
    print(f"  {'users':>5} {'fixed TPM':>10} {'± 95 %':>8} {'auto TPM':>10} {'± 95 %':>8} {'diff':>7}  auto mean in fixed interval")
    for f, a in zip(fixed["aggregates"], auto["aggregates"]):
        fm, fh = f["tpm_ci"]["mean"] or f["tpm"]["mean"], f["tpm_ci"]["half"]
        am, ah = a["tpm_ci"]["mean"] or a["tpm"]["mean"], a["tpm_ci"]["half"]
        inside = fm - fh <= am <= fm + fh
        all_in &= inside
        print(f"  {f['users']:>5} {fm:>10.0f} {fh:>8.0f} {am:>10.0f} {ah:>8.0f} {100 * (am - fm) / fm:>+6.1f}%  {'yes' if inside else 'NO'}")
print(f"\nauto took {100 * sum(ratios) / len(ratios):.0f} % of the fixed time (target ≤ 30 %); every auto mean in the fixed interval: {'yes' if all_in else 'no'}")
PY
