#!/usr/bin/env bash
# Compare rightsize's builtin storage engine with fio, job by job, on the
# sqlserver and hci presets (8 threads x 4 outstanding, direct) on a 1 GiB
# test file: interleaved rounds (the engine order alternates from job to job
# and round to round), then per job the medians of IOPS, MB/s, average and
# p99 latency and CPU per I/O of each engine, the builtin/fio ratios of those
# medians (target: builtin IOPS and p99 within 5 % of fio's on every job),
# and the median of the per-round ratios (each round runs the engines back
# to back, so the device's drift between rounds cancels out of them), each
# with its verdict: the two readings of "within 5 %, median over rounds".
#
# The defaults (30 rounds of 2.5 s) come from the host's storage stalls:
# a round's p99 is the device's usual tail or a stall, so the medians need
# many short rounds. Run with ENGINES=fio,fio,builtin for an A/A control:
# how often two runs of fio miss the target against each other (0.30-0.66
# of label swaps at these defaults on this project's VM). Why, and what
# past runs found: bench/STORAGE.md.
#
# usage: bench/storage.sh [DIR]    (default /var/tmp/rightsize-storagebench)
# env:   DURATION (2500ms per job), SIZE (bytes, 1073741824), ROUNDS (30),
#        PRESETS (sqlserver,hci), ENGINES (fio,builtin; also builtin:io_uring,
#        builtin:libaio, builtin:goroutines; each compared with the first,
#        and one listed twice runs twice, e.g. fio,fio,builtin: fio#2/fio is
#        an A/A control beside builtin/fio), JOBS (regular expression: only
#        the jobs whose name matches, e.g. 'hci-(64k|128k-seq)')
#        HUGEPAGES (16): huge pages to reserve (vm.nr_hugepages) for the run,
#        so that fio's buffers are on huge pages (--iomem=mmaphuge) as the
#        builtin engine's are (transparent huge pages): a block is then one
#        physically contiguous segment for both, not as many as the page
#        allocator's luck gives fio (on this VM's virtio disk that decided
#        up to 2x at 128 KiB). 0 leaves the pool alone. Needs root; the
#        previous value is restored at the end.
# The test file is removed at the end (also on Ctrl-C), and DIR if the
# script created it.
set -euo pipefail

DIR=${1:-/var/tmp/rightsize-storagebench}
DURATION=${DURATION:-2500ms}
SIZE=${SIZE:-1073741824}
ROUNDS=${ROUNDS:-30}
PRESETS=${PRESETS:-sqlserver,hci}
ENGINES=${ENGINES:-fio,builtin}
JOBS=${JOBS:-}
HUGEPAGES=${HUGEPAGES:-16}

if ! command -v fio >/dev/null 2>&1; then
	echo "fio not found: installing it with apt-get" >&2
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q fio
fi
echo "$(fio --version), $(go version), $(nproc) CPUs, kernel $(uname -r), dir $DIR ($(df -hP "$(dirname "$DIR")" | awk 'NR==2 {print $1}'))" >&2

cd "$(dirname "$0")/.."
if [ ! -d "$DIR" ]; then
	mkdir -p "$DIR"
	trap 'rmdir "$DIR" 2>/dev/null || true' EXIT
fi
go build -o "$DIR/.storagebench" ./probe/storage/cmd/storagebench
NR=/proc/sys/vm/nr_hugepages
OLD_NR=""
if [ "$HUGEPAGES" -gt 0 ] && [ -w "$NR" ]; then
	OLD_NR=$(cat "$NR")
	if [ "$OLD_NR" -lt "$HUGEPAGES" ]; then
		echo "$HUGEPAGES" >"$NR"
	fi
	echo "huge pages reserved for fio: $(awk '/HugePages_Free/ {print $2}' /proc/meminfo) free (vm.nr_hugepages $OLD_NR -> $(cat "$NR"), restored at the end)" >&2
elif [ "$HUGEPAGES" -gt 0 ]; then
	echo "cannot write $NR (not root): fio's buffers stay on base pages unless huge pages are already reserved" >&2
fi
trap 'rm -f "$DIR/.storagebench"; rmdir "$DIR" 2>/dev/null || true; [ -z "$OLD_NR" ] || echo "$OLD_NR" >"$NR"' EXIT
"$DIR/.storagebench" -dir "$DIR" -size "$SIZE" -duration "$DURATION" \
	-preset "$PRESETS" -rounds "$ROUNDS" -engines "$ENGINES" -jobs "$JOBS"
