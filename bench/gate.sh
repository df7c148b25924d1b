#!/usr/bin/env bash
# The regression gate's false-alarm rate and power (issue 44, item 6), on
# one embedded PostgreSQL: K A/A gates (identical settings) and K gates of
# each known regression, judged two ways, one after the other for each gate:
#   interleaved: rightsize ab --rounds ROUNDS --max-regression TH
#   single runs: rightsize run (A), then run (B) --baseline A --max-regression TH
# (both with --max-latency-regression LTH, default 10 %, as examples/ci gate)
# The known regressions are B's server capped by --cpus (CAPS, default
# "1 0.5") and B's server with other settings (SETS: space-separated, each
# a comma-separated list of name=value, e.g. SETS="commit_delay=100,commit_siblings=0":
# a sleep of 100 us before each WAL flush, a fixed cost per commit that
# does not move with the machine's load as a quota's share does). Each
# one's true effect is measured first by one long interleaved comparison.
# It prints, per kind, that true effect and the effect over all of the
# kind's gates' rounds pooled, the share of gates that failed (false
# failures for A/A, regressions caught for the others), and for the
# interleaved gate the power the paired t test should have (bench/gatepower)
# at the scatter of the kind's own gates' rounds and the pooled effect, at
# the level a regression of NOPM alone meets under Holm (5 % over the two
# gated figures: 2.5 %), and the regression it detects with 80 % power. The gate decides at
# one-sided 5 % whether B is worse by more than TH: A/A fails at most 5 %
# of gates, fewer the less the rounds scatter (the A/A row's "ab power" is
# that expected share).
#   bench/gate.sh [K=5]
# ER=N rounds measure each regression's true effect (default 2·ROUNDS).
# KR=N runs the regressions' gates only in the first N of the K (default K),
# so more of the time goes to A/A gates, whose failure share is the figure
# to pin down (CAPS="" SETS="" runs A/A gates only); AA=0 runs no A/A gates
# (the regressions' power is the figure to pin down); SK=N judges single
# runs only in the first N of the K (default K); MINUTES=M starts no new
# gate M minutes after the start (the table then counts the gates that ran).
# The examples' settings are the default: USERS=2,4 W=2 RAMPUP=15s
# DURATION=30s ROUNDS=6 TH=2.5% (an interleaved gate then takes about 15
# minutes, a single-run one 3). Short: USERS=4 W=1 RAMPUP=2s DURATION=12s
# ROUNDS=4. PG_BIN uses installed PostgreSQL binaries; KEEP=DIR copies the
# results store and the gates' outputs there at the end. bench/GATE.md has
# measured runs and what they showed.
set -euo pipefail
cd "$(dirname "$0")/.."
K=${1:-5}
USERS=${USERS:-2,4}; W=${W:-2}; RAMPUP=${RAMPUP:-15s}; DURATION=${DURATION:-30s}; ROUNDS=${ROUNDS:-6}; TH=${TH:-2.5%}
LTH=${LTH:-10%}
CAPS=${CAPS-1 0.5}; SETS=${SETS-}
KR=${KR:-$K}; ER=${ER:-$((2 * ROUNDS))}; SK=${SK:-$K}; AA=${AA:-1}
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

# the regressions: an id each, with B's flags for ab and for a single run
declare -A bflags sflags name
REGS=()
for c in $CAPS; do
  id="cpus$c"; REGS+=("$id"); bflags[$id]="--b-cpus $c"; sflags[$id]="--cpus $c"; name[$id]="cpus $c"
done
i=0
for set in $SETS; do
  i=$((i + 1)); id="set$i"; REGS+=("$id"); name[$id]="$set"
  for kv in ${set//,/ }; do bflags[$id]+=" --b-set $kv"; sflags[$id]+=" --set $kv"; done
done
name[aa]="A/A"

# the true effect of each regression: one interleaved comparison of ER (2·ROUNDS) rounds
declare -A effect
for id in "${REGS[@]}"; do
  # shellcheck disable=SC2086 # the flags are words
  "$BIN" ab "${COMMON[@]}" --rounds "$ER" --label "effect-$id" ${bflags[$id]} --json >"$TMP/out/effect-$id.json" 2>"$TMP/out/effect-$id.err"
  read -r slower scatter < <(nopm "$TMP/out/effect-$id.json")
  effect[$id]=$slower
  printf "# %s: NOPM %.1f %% slower over %d rounds (B/A %.3f, 90 %% interval %.3f-%.3f; the rounds scatter by %.1f %%)\n" "${name[$id]}" "$slower" "$ER" \
    $(jq -r '.overall.figures[] | select(.figure == "NOPM") | "\(.ratio) \(.ratio_low) \(.ratio_high)"' "$TMP/out/effect-$id.json") "$scatter"
done

# gate KIND K: each method once, the interleaved first on odd k
declare -A fail_ab fail_single err n_ab n_single
gate_ab() {
  local kind=$1 k=$2 rc=0
  n_ab[$kind]=$((${n_ab[$kind]:-0} + 1))
  # shellcheck disable=SC2086 # the flags are words
  "$BIN" ab "${COMMON[@]}" --rounds "$ROUNDS" --label "ab-$kind-$k" ${bflags[$kind]:-} --max-regression "$TH" --max-latency-regression "$LTH" --json \
    >"$TMP/out/ab-$kind-$k.json" 2>"$TMP/out/ab-$kind-$k.err" || rc=$?
  case $rc in 0) ;; 1) fail_ab[$kind]=$((${fail_ab[$kind]:-0} + 1)) ;; *) err[$kind]=$((${err[$kind]:-0} + 1)); cat "$TMP/out/ab-$kind-$k.err" >&2 ;; esac
  [ "$rc" -gt 1 ] || nopm "$TMP/out/ab-$kind-$k.json" >>"$TMP/out/$kind-nopm"
}
gate_single() {
  local kind=$1 k=$2 rc=0 cap=()
  [ "$k" -le "$SK" ] || return 0
  n_single[$kind]=$((${n_single[$kind]:-0} + 1))
  # shellcheck disable=SC2206 # the flags are words
  cap=(${sflags[$kind]:-})
  "$BIN" run "${COMMON[@]}" --label "s-$kind-$k-a" >"$TMP/out/s-$kind-$k-a.txt" 2>&1 || { err[$kind]=$((${err[$kind]:-0} + 1)); return; }
  "$BIN" run "${COMMON[@]}" "${cap[@]}" --label "s-$kind-$k-b" --baseline "s-$kind-$k-a" --max-regression "$TH" --max-latency-regression "$LTH" \
    >"$TMP/out/s-$kind-$k-b.txt" 2>&1 || rc=$?
  case $rc in 0) ;; 1) fail_single[$kind]=$((${fail_single[$kind]:-0} + 1)) ;; *) err[$kind]=$((${err[$kind]:-0} + 1)); tail -3 "$TMP/out/s-$kind-$k-b.txt" >&2 ;; esac
}
for k in $(seq 1 "$K"); do
  kinds=(); [ "$AA" = 0 ] || kinds=(aa); [ "$k" -gt "$KR" ] || kinds+=("${REGS[@]}")
  for kind in "${kinds[@]}"; do
    [ "$(date +%s)" -lt "$STOP" ] || break 2
    if [ $((k % 2)) -eq 1 ]; then gate_ab "$kind" "$k"; gate_single "$kind" "$k"; else gate_single "$kind" "$k"; gate_ab "$kind" "$k"; fi
    echo "# gate $k $kind done $(date -u +%T), load $(cut -d' ' -f1 /proc/loadavg)" >&2
  done
done

# Holm over the gated figures (NOPM, and the p90 when LTH is not 0): a
# regression of NOPM alone fails the gate at one-sided 5 % / FAMILY
FAMILY=2; [ "${LTH%\%}" != 0 ] || FAMILY=1
ALPHA=$(awk -v f="$FAMILY" 'BEGIN {print 0.05 / f}')
# per kind: the RMS of its gates' NOPM log-ratio scatters, and its gates' mean slowdown
pooled() { [ -s "$TMP/out/$1-nopm" ] && awk '{s += $2 * $2; e += $1; n++} END {printf "%.2f %.2f\n", sqrt(s / n), e / n}' "$TMP/out/$1-nopm"; }
printf "%-36s %12s %12s %10s %14s %14s %16s %14s %7s\n" kind "true effect" "in gates" scatter "ab failed" "single failed" "ab power (t)" "ab detects" errors
for kind in aa "${REGS[@]}"; do
  [ "$kind" != aa ] || [ "$AA" != 0 ] || continue
  e=0; [ "$kind" = aa ] || e=${effect[$kind]}
  expect="-"; mde="-"; scatter="-"; eg="-"
  if read -r scatter eg < <(pooled "$kind"); then # A/A: the chance of a false failure at this scatter
    pe=$eg; [ "$kind" != aa ] || pe=0
    read -r expect mde < <("$POWER" -scatter "$scatter" -rounds "$ROUNDS" -effect "$pe" -threshold "${TH%\%}" -alpha "$ALPHA")
    [ "$kind" != aa ] || expect=$((expect * FAMILY)) # either figure may fail an A/A gate (at most)
    expect="$expect %"; mde="$mde %"; scatter="$scatter %"; eg="$eg %"
  fi
  printf "%-36s %10.1f %% %12s %10s %8s/%-5s %8s/%-5s %16s %14s %7s\n" "${name[$kind]}" "$e" "$eg" "$scatter" "${fail_ab[$kind]:-0}" "${n_ab[$kind]:-0}" "${fail_single[$kind]:-0}" "${n_single[$kind]:-0}" "$expect" "$mde" "${err[$kind]:-0}"
done
# why each A/A gate failed: the figures that failed it
for f in "$TMP"/out/ab-aa-*.json; do
  [ -s "$f" ] && jq -r --arg g "$(basename "$f" .json)" 'select(.passed == false) | .failures[] | "# A/A failed, \($g): \(.)"' "$f" || true
done
for f in "$TMP"/out/s-aa-*-b.txt; do
  [ -e "$f" ] && grep -h '^  FAIL' "$f" | sed "s|^  FAIL|# A/A failed, $(basename "$f" -b.txt) (single runs):|"  || true
done
echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
