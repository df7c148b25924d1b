#!/bin/bash
# Before/after of spec isolation (issue 13), interleaved so machine noise hits
# both binaries alike: TPM, NOPM, skipped deliveries and retries of 60 s runs
# of 4 users against the embedded target, in both modes.
#   OLD=/tmp/rs-old NEW=/tmp/rs-new WAREHOUSES=4 ROUNDS=2 bench/isolation.sh
# (build OLD from main: git archive main | tar -x -C DIR; go build -o /tmp/rs-old ./cmd/rightsize).
# WAREHOUSES=1 puts the 4 users on one warehouse, where Deliveries race.
set -u
OLD=${OLD:?old binary} NEW=${NEW:?new binary} W=${WAREHOUSES:-4} ROUNDS=${ROUNDS:-2}
dir=$(mktemp -d /tmp/rs-isolation.XXXXXX)
chmod 755 "$dir" # the server user (when run as root) must enter it
for v in OLD NEW; do
  "${!v}" build --data-dir "$dir/data-$v" --warehouses "$W" --store "$dir/store-$v.db" > "$dir/build-$v.log" 2>&1 || { echo "build $v failed"; exit 1; }
done
for round in $(seq "$ROUNDS"); do
  for mode in procedures statements; do
    for v in OLD NEW; do
      "${!v}" run --data-dir "$dir/data-$v" --store "$dir/store-$v.db" --users 4 --duration 60s --rampup 10s --mode "$mode" --json \
        > "$dir/run.json" 2> "$dir/run.err" || { echo "run $v failed"; tail -3 "$dir/run.err"; continue; }
      python3 -c "
import json; s = json.load(open('$dir/run.json'))['steps'][0]
print('$round $mode $v: tpm %.0f nopm %.0f skipped %d deliveries %d retries %d' % (s['tpm'], s['nopm'],
  s['skipped_deliveries'], s['txn']['delivery']['count'], sum(t['retries'] for t in s['txn'].values())))"
    done
  done
done
rm -rf "$dir"
