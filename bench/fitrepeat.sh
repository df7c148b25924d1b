#!/usr/bin/env bash
# fit's repeatability (issue 44, item 6): on one embedded PostgreSQL of W
# warehouses (built once), the candidates CPUS are measured once (a sweep
# of the same steps) to set two targets from the cheapest candidate's NOPM:
#   A = NOPM / 1.25 (the cheapest clears it by 25 %: the same answer is
#       wanted in at least 9 of 10 fits),
#   B = NOPM / 1.05 (it clears it by 5 %: the answer should say the nearest
#       candidates are not distinguishable).
# Then rightsize fit runs N times for each target (A and B alternately, so
# drift falls on both alike; the default predict-then-measure search, fixed
# steps), and it prints each fit's answer with the measured candidates'
# intervals (a candidate fit measured again because it held the target
# shows its runs), then per target: the answers, how many of N agree with
# the majority, how many say the answer is not distinguishable from
# another measured candidate or that a cheaper one is not distinguishable
# from the target, and how many name the cheapest candidate.
#   bench/fitrepeat.sh [N=10]
# RETARGET=1 measures the cheapest candidate again before each round (a
# sweep of that one value, REF_REPEAT=3 repeats: one 8 s run scatters by
# 10-20 % here) and sets the round's targets from its mean, so the
# drift of a loaded host between the first sweep and a late fit does not
# move the clearance the targets stand for (it still moves within a round:
# the line of each fit shows what the fit measured).
# USERS=4 W=1 RAMPUP=2s DURATION=8s CPUS=0.25,0.5,1 by default (a fit then
# takes 15-45 s, or up to 100 s when it measures a candidate again).
# PG_BIN uses installed PostgreSQL binaries; KEEP=DIR copies
# the results store and the fits' JSON there at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-10}
USERS=${USERS:-4}; W=${W:-1}; RAMPUP=${RAMPUP:-2s}; DURATION=${DURATION:-8s}; CPUS=${CPUS:-0.25,0.5,1}
TMP=$(mktemp -d "${BASE:-/var/tmp}/rightsize-fitrepeat.XXXXXX")
chmod 755 "$TMP" # the server's user enters it to reach its data directory
trap '[ -z "${KEEP:-}" ] || cp -r "$TMP/out" "$TMP/results.db" "$KEEP/" 2>/dev/null || true; rm -rf "$TMP"' EXIT
BIN="$TMP/rightsize"
go build -o "$BIN" ./cmd/rightsize
mkdir "$TMP/out"
# one config priced per core, so fewer cores are cheaper
cat >"$TMP/costs.yaml" <<'EOF'
currency: USD
configs:
  - name: vm
    vm_cores: 1
    hardware:
      - {item: "vCPU-month", per: vm_core, price: 40}
EOF
ARGS=(--target embedded --data-dir "$TMP/pg" --store "$TMP/results.db")
[ -n "${PG_BIN:-}" ] && ARGS+=(--pg-bin "$PG_BIN")
"$BIN" build "${ARGS[@]}" --warehouses "$W" >"$TMP/out/build.log" 2>&1 || { tail -3 "$TMP/out/build.log" >&2; exit 1; }
STEPS=(--users "$USERS" --rampup "$RAMPUP" --duration "$DURATION" --repeat 1 --progress-interval 0)
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $W warehouses, users $USERS, ramp-up $RAMPUP, measured $DURATION, cpus $CPUS, $N fits per target"

# the candidates measured once, the same steps
"$BIN" sweep cpus --values "$CPUS" "${ARGS[@]}" "${STEPS[@]}" --json >"$TMP/out/sweep.json" 2>"$TMP/out/sweep.err" ||
  { tail -3 "$TMP/out/sweep.err" >&2; exit 1; }
jq -r '.points | sort_by(.value | tonumber)[] | "# measured once: cpus \(.value): NOPM \(.nopm | floor) ± \(.nopm_half | floor)"' "$TMP/out/sweep.json"
read -r cheapest base < <(jq -r '.points | sort_by(.value | tonumber)[0] | "\(.value) \(.nopm)"' "$TMP/out/sweep.json")
declare -A target
target[A]=$(awk -v n="$base" 'BEGIN {printf "%.0f", n / 1.25}')
target[B]=$(awk -v n="$base" 'BEGIN {printf "%.0f", n / 1.05}')
echo "# cheapest candidate cpus $cheapest: target A ${target[A]} NOPM (clears by 25 %), target B ${target[B]} NOPM (clears by 5 %)"

# summary of one fit's JSON: answer|the answer says not distinguishable (from
# a measured neighbour, a cheaper candidate from the target, or, with no
# answer, the closest from the target) (0/1)|a candidate's reason says it (0/1)|the trials
summary() {
  jq -r --arg cheapest "$cheapest" '.result as $r
    | ($r.trials | map(select(.verdict == "meets" or .verdict == "misses"))) as $m
    | (if $r.best >= 0 then "cpus \($r.trials[$r.best].cpus)" else "none" end) as $ans
    | [$ans,
       (if (($r.indistinct // []) | length) > 0 or (($r.unsettled // []) | length) > 0 or ($r.best < 0 and $r.closest >= 0
          and ($r.trials[$r.closest].reason | test("not distinguishable"))) then 1 else 0 end),
       (if any($r.trials[]; .reason | test("not distinguishable")) then 1 else 0 end),
       ([$r.trials[] | "\(.cpus) " + (if .verdict == "meets" or .verdict == "misses"
          then "\(.nopm_ci.mean | floor)±\(.nopm_ci.half | floor) \(if .holds_target then "holds the target" else .verdict end)\(if (.runs // 1) > 1 then " (\(.runs) runs)" else "" end)"
          else .verdict end)] | join("; "))] | join("|")' "$1"
}

declare -A answers nd straddle cheapestwins errs
for i in $(seq 1 "$N"); do
  if [ -n "${RETARGET:-}" ]; then
    "$BIN" sweep cpus --values "$cheapest" "${ARGS[@]}" "${STEPS[@]}" --repeat "${REF_REPEAT:-3}" --json >"$TMP/out/ref-$i.json" 2>"$TMP/out/ref-$i.err" ||
      { tail -3 "$TMP/out/ref-$i.err" >&2; exit 1; }
    ref=$(jq -r '.points[0].nopm' "$TMP/out/ref-$i.json")
    target[A]=$(awk -v n="$ref" 'BEGIN {printf "%.0f", n / 1.25}')
    target[B]=$(awk -v n="$ref" 'BEGIN {printf "%.0f", n / 1.05}')
    echo "round $i $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg): cpus $cheapest measured again (${REF_REPEAT:-3} repeats): NOPM $(printf '%.0f' "$ref"): target A ${target[A]}, B ${target[B]}"
  fi
  for t in A B; do
    f="$TMP/out/fit-$t-$i.json"; rc=0
    "$BIN" fit "${ARGS[@]}" "${STEPS[@]}" --cost "$TMP/costs.yaml" --config vm --cpus "$CPUS" \
      --target-nopm "${target[$t]}" --label "fit-$t-$i" --json >"$f" 2>"$TMP/out/fit-$t-$i.err" || rc=$?
    if [ "$rc" -gt 2 ] || [ "$rc" = 1 ] || ! jq -e .result "$f" >/dev/null 2>&1; then
      errs[$t]=$((${errs[$t]:-0} + 1)); echo "fit $t $i: exit $rc: $(tail -1 "$TMP/out/fit-$t-$i.err")"; continue
    fi
    IFS='|' read -r ans ind str trials < <(summary "$f")
    answers[$t]+="$ans"$'\n'
    nd[$t]=$((${nd[$t]:-0} + ind)); straddle[$t]=$((${straddle[$t]:-0} + str))
    [ "$ans" != "cpus $cheapest" ] || cheapestwins[$t]=$((${cheapestwins[$t]:-0} + 1))
    echo "fit $t $i $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg) target ${target[$t]}: answer $ans$([ "$ind" = 1 ] && echo ', says not distinguishable'); $trials"
  done
done

echo "# per target: the answers (count), the majority's share, answers saying not distinguishable (from a measured neighbour, a cheaper candidate from the target, or none meets and the closest is not distinguishable from the target), fits where any candidate's reason says its interval holds the target, answers naming the cheapest"
for t in A B; do
  counts=$(printf '%s' "${answers[$t]:-}" | sort | uniq -c | sort -rn | awk '{c=$1; $1=""; printf "%s%s ×%d", sep, substr($0, 2), c; sep=", "}')
  majority=$(printf '%s' "${answers[$t]:-}" | sort | uniq -c | sort -rn | awk 'NR == 1 {print $1}')
  done_=$(printf '%s' "${answers[$t]:-}" | grep -c . || true)
  [ -z "${RETARGET:-}" ] || target[$t]="each round's"
  printf "target %s (%s NOPM): %s; majority %s of %s; answer says not distinguishable %s of %s; target inside a candidate's interval %s of %s; cheapest (cpus %s) %s of %s; errors %s\n" \
    "$t" "${target[$t]}" "$counts" "${majority:-0}" "$done_" "${nd[$t]:-0}" "$done_" "${straddle[$t]:-0}" "$done_" "$cheapest" "${cheapestwins[$t]:-0}" "$done_" "${errs[$t]:-0}"
done
echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
