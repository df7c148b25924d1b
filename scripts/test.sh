#!/usr/bin/env bash
# scripts/test.sh: make test's go test, in two phases, so that the tests
# that measure run on a quiet machine and the cgroup v2 guest's minutes of
# TCG overlap the tests that do not.
#
#   1. every package but the guest, with cmd/rightsize's measuring tests
#      (MEASURING) skipped, beside the guest (test/v2guest): the tests
#      leave most of the CPU idle (make test used 40 % of the 2 cores);
#   2. the measuring tests alone: they read the host's idle CPU as the
#      server's (the capacity model) or judge a few per cent, and a guest
#      beside them made TestSweepPredictsCPUs err by half and skip.
#
# Each phase prints go test's own output (the guest's once phase 1 is
# done); the exit is non-zero when any phase failed, and then the phases'
# FAIL lines are repeated last.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}

# cmd/rightsize's tests whose figures depend on the CPU they are left:
# predictions against measurements, A/B and gate verdicts, the drift
# between runs, auto's steady-state stop, fit's measured candidates and
# the memory sweep's reads
MEASURING='^(TestSweepPredictsCPUs|TestSweepPredictsWriteBandwidth|TestSweepPredictsMemoryFromOneSize|TestEmbeddedTPCBSweepPredicts|TestCalibrate|TestGateUnmeasuredDrift|TestABEmbedded|TestABVersions|TestABTwoTargets|TestABWorkload|TestGateEmbedded|TestEmbeddedTPCBGate|TestAutoEndsEarlyWhenQuiet|TestAutoRunsToCapWhenUnstable|TestFitMeasures|TestEmbeddedTPCBFit|TestSweepMemoryEmbedded)$'

logs=$(mktemp -d /tmp/rightsize-make-test.XXXXXX)
"$GO" test -count=1 -timeout 45m ./test/v2guest > "$logs/guest" 2>&1 &
guest=$!
# the guest's go test is stopped if this script ends before it (its pid
# is forgotten once waited for: pids are reused)
trap '[ -n "$guest" ] && kill "$guest" 2>/dev/null; rm -rf "$logs"' EXIT

"$GO" test -count=1 -timeout 45m -skip "$MEASURING" $("$GO" list ./... | grep -v /test/v2guest) 2>&1 | tee "$logs/packages"
rc1=${PIPESTATUS[0]}
wait "$guest"
rc2=$?
guest=""
cat "$logs/guest"

"$GO" test -count=1 -timeout 45m -run "$MEASURING" ./cmd/rightsize 2>&1 | tee "$logs/measuring"
rc3=${PIPESTATUS[0]}

if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ] || [ $rc3 -ne 0 ]; then
  echo "make test failed: the packages exit $rc1, the v2 guest $rc2, the measuring tests $rc3:"
  grep -h '^\(--- FAIL\|FAIL\)' "$logs/packages" "$logs/guest" "$logs/measuring"
  exit 1
fi
