#!/usr/bin/env bash
# Count a block device's completion stalls while a command runs: the
# kernel's block:block_rq_complete events for the device (tracefs, as
# root), streamed and reduced per second to the number of completions and
# of gaps over GAP_MS (1.5) between consecutive completions. With 32 I/Os
# in flight completing every ~0.5 ms, such a gap is the device holding
# every I/O in flight: on a virtual disk, the host stalling (issue 17:
# the episodes that decide a short round's p99). Prints one line per
# second (monotonic clock, as the trace's): "SECONDS COMPLETIONS GAPS", each
# printed when the next second begins.
#
# usage: bench/disk-stalls.sh DEVICE OUT -- COMMAND [ARGS...]
#   e.g. bench/disk-stalls.sh /dev/vda /tmp/stalls.txt -- \
#          env JOBS=hci-32k ROUNDS=5 bash bench/storage.sh
# The trace's state (events, filter, clock, buffer size) is restored at
# the end, also on Ctrl-C. The command's own output is left as it is; to
# place its rounds in time, stamp its lines with /proc/uptime's first field
# (the same clock as the trace's "mono" on a machine that never suspended).
set -euo pipefail
DEV=${1:?device, e.g. /dev/vda}; OUT=${2:?output file}; shift 2
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: $0 DEVICE OUT -- COMMAND [ARGS...]" >&2; exit 2; }
T=/sys/kernel/tracing
[ -w "$T/tracing_on" ] || { echo "$0: $T is not writable: run as root with tracefs mounted" >&2; exit 2; }
MAJ=$((16#$(stat -L -c %t "$DEV"))); MIN=$((16#$(stat -L -c %T "$DEV")))
EV=$T/events/block/block_rq_complete
OLD_CLOCK=$(sed 's/.*\[\(.*\)\].*/\1/' "$T/trace_clock"); OLD_BUF=$(cat "$T/buffer_size_kb")
restore() {
	echo 0 >"$T/tracing_on"; echo 0 >"$EV/enable"; echo 0 >"$EV/filter"
	echo "$OLD_CLOCK" >"$T/trace_clock"; echo "$OLD_BUF" >"$T/buffer_size_kb"; echo >"$T/trace"
	[ -z "${READER:-}" ] || kill "$READER" 2>/dev/null || true
}
trap restore EXIT
echo 0 >"$T/tracing_on"; echo >"$T/trace"; echo mono >"$T/trace_clock"; echo 8192 >"$T/buffer_size_kb"
echo "dev == $(((MAJ << 20) | MIN))" >"$EV/filter"; echo 1 >"$EV/enable"; echo 1 >"$T/tracing_on"
awk -v gap="${GAP_MS:-1.5}" '{
	for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = substr($i, 1, length($i) - 1) + 0; break }
	s = int(t); if (s != cur) { if (cur) print cur, n, g; fflush(); cur = s; n = 0; g = 0 }
	n++; if (last && (t - last) * 1000 > gap) g++; last = t
}' "$T/trace_pipe" >"$OUT" &
READER=$!
"$@"
