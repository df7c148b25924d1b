#!/usr/bin/env bash
# The regression gate's false-alarm rate and power (issue 44, item 6), on
# one embedded PostgreSQL: K A/A gates (identical settings) and K gates of
# each known regression (B's server capped by --cpus: CAPS, default "1 0.5",
# whose true effect is measured first by one long interleaved comparison
# each), judged two ways, one after the other for each gate:
#   interleaved: rightsize ab --rounds ROUNDS --max-regression TH
#   single runs: rightsize run (A), then run (B) --baseline A --max-regression TH
# (both with --max-latency-regression LTH, default 10 %, as examples/ci gate)
# It prints, per kind, the true effect, the share of gates that failed
# (false failures for A/A, regressions caught for the caps), and for the
# interleaved gate the power the paired t test should have at the scatter
# of the A/A gates' rounds (bench/gatepower) and the regression it detects
# with 80 % power. The gate decides at one-sided 5 % whether B is worse
# by more than TH: A/A fails at most 5 % of gates, fewer the less the
# rounds scatter (the A/A row's "ab power" is that expected share).
#   bench/gate.sh [K=5]
# ER=N rounds measure each cap's true effect (default 2·ROUNDS).
# KR=N runs the regressions' gates only in the first N of the K (default K),
# so more of the time goes to A/A gates, whose failure share is the figure
# to pin down (CAPS="" runs A/A gates only); MINUTES=M starts no new gate M
# minutes after the start (the table then counts the gates that ran).
# The examples' settings are the default: USERS=2,4 W=2 RAMPUP=15s
# DURATION=30s ROUNDS=6 TH=2.5% (an interleaved gate then takes about 15
# minutes, a single-run one 3). Short: USERS=4 W=1 RAMPUP=2s DURATION=12s
# ROUNDS=4. PG_BIN uses installed PostgreSQL binaries; KEEP=DIR copies the
# results store and the gates' outputs there at the end. bench/GATE.md has a
# measured run and what it showed.
set -euo pipefail
cd "$(dirname "$0")/.."
K=${1:-5}
USERS=${USERS:-2,4}; W=${W:-2}; RAMPUP=${RAMPUP:-15s}; DURATION=${DURATION:-30s}; ROUNDS=${ROUNDS:-6}; TH=${TH:-2.5%}
LTH=${LTH:-10%}
CAPS=${CAPS-1 0.5}
KR=${KR:-$K}; ER=${ER:-$((2 * ROUNDS))}
STOP=$(( $(date +%s) + 60 * ${MINUTES:-100000} ))
TMP=$(mktemp -d "${BASE:-/var/tmp}/rightsize-gate.XXXXXX")
chmod 755 "$TMP"
trap '[ -z "${KEEP:-}" ] || cp -r "$TMP/out" "$TMP/results.db" "$KEEP/" 2>/dev/null || true; rm -rf "$TMP"' EXIT
BIN="$TMP/rightsize"; POWER="$TMP/gatepower"
go build -o "$BIN" ./cmd/rightsize
go build -o "$POWER" ./bench/gatepower
mkdir "$TMP/out"
STORE="$TMP/results.db"
ARGS=(--target embedded --data-dir "$TMP/pg")
[ -n "${PG_BIN:-}" ] && ARGS+=(--pg-bin "$PG_BIN")
"$BIN" build "${ARGS[@]}" --warehouses "$W" >&2
COMMON=("${ARGS[@]}" --users "$USERS" --rampup "$RAMPUP" --duration "$DURATION" --store "$STORE" --progress-interval 0)
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); users $USERS, $W warehouses, ramp-up $RAMPUP, measured $DURATION, $ROUNDS rounds, thresholds NOPM $TH, New-Order p90 $LTH"

nopm() { jq -r '.overall.figures[] | select(.figure == "NOPM") | "\(.slower_pct) \(.scatter_pct)"' "$1"; }
bside() { [ "$1" = aa ] && return; echo "--b-cpus $1"; }

# the true effect of each cap: one interleaved comparison of ER (2·ROUNDS) rounds
declare -A effect
for c in $CAPS; do
  "$BIN" ab "${COMMON[@]}" --rounds "$ER" --label "effect-$c" --b-cpus "$c" --json >"$TMP/out/effect-$c.json" 2>"$TMP/out/effect-$c.err"
  read -r slower scatter < <(nopm "$TMP/out/effect-$c.json")
  effect[$c]=$slower
  printf "# --cpus %s: NOPM %.1f %% slower over %d rounds (B/A %.3f, 90 %% interval %.3f-%.3f; the rounds scatter by %.1f %%)\n" "$c" "$slower" "$ER" \
    $(jq -r '.overall.figures[] | select(.figure == "NOPM") | "\(.ratio) \(.ratio_low) \(.ratio_high)"' "$TMP/out/effect-$c.json") "$scatter"
done

# gate KIND K: each method once, the interleaved first on odd k
declare -A fail_ab fail_single err n_ab n_single
gate_ab() {
  local kind=$1 k=$2 rc=0
  n_ab[$kind]=$((${n_ab[$kind]:-0} + 1))
  "$BIN" ab "${COMMON[@]}" --rounds "$ROUNDS" --label "ab-$kind-$k" $(bside "$kind") --max-regression "$TH" --max-latency-regression "$LTH" --json \
    >"$TMP/out/ab-$kind-$k.json" 2>"$TMP/out/ab-$kind-$k.err" || rc=$?
  case $rc in 0) ;; 1) fail_ab[$kind]=$((${fail_ab[$kind]:-0} + 1)) ;; *) err[$kind]=$((${err[$kind]:-0} + 1)); cat "$TMP/out/ab-$kind-$k.err" >&2 ;; esac
  [ "$kind" != aa ] || nopm "$TMP/out/ab-$kind-$k.json" | awk '{print $2}' >>"$TMP/out/aa-scatter"
}
gate_single() {
  local kind=$1 k=$2 rc=0 cap=()
  n_single[$kind]=$((${n_single[$kind]:-0} + 1))
  [ "$kind" = aa ] || cap=(--cpus "$kind")
  "$BIN" run "${COMMON[@]}" --label "s-$kind-$k-a" >"$TMP/out/s-$kind-$k-a.txt" 2>&1 || { err[$kind]=$((${err[$kind]:-0} + 1)); return; }
  "$BIN" run "${COMMON[@]}" "${cap[@]}" --label "s-$kind-$k-b" --baseline "s-$kind-$k-a" --max-regression "$TH" --max-latency-regression "$LTH" \
    >"$TMP/out/s-$kind-$k-b.txt" 2>&1 || rc=$?
  case $rc in 0) ;; 1) fail_single[$kind]=$((${fail_single[$kind]:-0} + 1)) ;; *) err[$kind]=$((${err[$kind]:-0} + 1)); tail -3 "$TMP/out/s-$kind-$k-b.txt" >&2 ;; esac
}
for k in $(seq 1 "$K"); do
  kinds=aa; [ "$k" -gt "$KR" ] || kinds="aa $CAPS"
  for kind in $kinds; do
    [ "$(date +%s)" -lt "$STOP" ] || break 2
    if [ $((k % 2)) -eq 1 ]; then gate_ab "$kind" "$k"; gate_single "$kind" "$k"; else gate_single "$kind" "$k"; gate_ab "$kind" "$k"; fi
    echo "# gate $k $kind done $(date -u +%T), load $(cut -d' ' -f1 /proc/loadavg)" >&2
  done
done

scatter=$(awk '{s += $1 * $1; n++} END {if (n) printf "%.2f", sqrt(s / n)}' "$TMP/out/aa-scatter")
echo "# the A/A gates' rounds scatter by ${scatter} % (RMS of their NOPM log-ratio standard deviations)"
printf "%-10s %12s %18s %18s %16s %14s %7s\n" kind "true effect" "ab failed" "single failed" "ab power (t)" "ab detects" errors
for kind in aa $CAPS; do
  e=0; name="A/A"
  [ "$kind" = aa ] || { e=${effect[$kind]}; name="cpus $kind"; }
  expect="-"; mde="-"
  if [ -n "$scatter" ]; then # A/A: the chance of a false failure at this scatter
    read -r expect mde < <("$POWER" -scatter "$scatter" -rounds "$ROUNDS" -effect "$e" -threshold "${TH%\%}"); expect="$expect %"; mde="$mde %"
  fi
  printf "%-10s %10.1f %% %12s/%-5s %12s/%-5s %16s %14s %7s\n" "$name" "$e" "${fail_ab[$kind]:-0}" "${n_ab[$kind]:-0}" "${fail_single[$kind]:-0}" "${n_single[$kind]:-0}" "$expect" "$mde" "${err[$kind]:-0}"
done
# why each A/A gate failed: the figures that failed it
for f in "$TMP"/out/ab-aa-*.json; do
  [ -s "$f" ] && jq -r --arg g "$(basename "$f" .json)" 'select(.passed == false) | .failures[] | "# A/A failed, \($g): \(.)"' "$f" || true
done
for f in "$TMP"/out/s-aa-*-b.txt; do
  [ -e "$f" ] && grep -h '^  FAIL' "$f" | sed "s|^  FAIL|# A/A failed, $(basename "$f" -b.txt) (single runs):|"  || true
done
echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
