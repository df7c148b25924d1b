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
# Why 30 rounds of 2.5 s: on a virtual disk the host now and then
# completes every I/O in flight 2-3 ms late, a dozen times a second for one
# to five seconds
# (traced on this project's VM with the block layer's issue and complete
# events: 1.1-1.7 % of the I/Os in those seconds, whichever engine runs,
# all 32 in flight issued together and completed together). That is just
# above 1 %, so a short round's p99 is either the device's usual tail
# (0.7 ms at 32 KiB) or the stall (2 ms), decided by whether an episode
# fell into it ("tail rounds", counted per engine in the summary). With
# 5-7 rounds of 5 s the median of either engine was decided by those
# rounds in one job or two of every run, so the default became 15 rounds
# of 5 s; an A/A control (below) then showed that two runs of fio still
# missed the target against each other in most full runs at 15 x 5 s
# (label swaps 0.77-0.84 in three runs). The same time cut into 30 rounds
# of 2.5 s gives each median twice the rounds and puts each round's runs
# closer together: in three such runs (2026-11-25, ENGINES=fio,fio,builtin,
# 45 min each, a quiet host: 0-4 tail rounds of 30 per job and engine)
# fio's false-miss rate was 0.30, 0.51, 0.66 read as a ratio of medians and
# 0.27, 0.26, 0.12 read as the median of per-round ratios, and fio met the
# target against itself on every job in both readings in all three runs.
# builtin met it on every job read as a ratio of medians in all three
# (worst IOPS 3.2, 3.3, 3.9 %; p99 at most 1.7 % over fio's), and read as
# paired ratios in two; in the third its paired IOPS at seq-write was
# 1.051, faster than fio (1.009-1.036 in the other five runs of the day):
# at large blocks builtin's paired IOPS run 1-4 % over fio's, with 0.55-0.7
# of fio's CPU per I/O on these 2 cores.
# Fewer, longer rounds in the same time were tried (5 of 15 s): a 15 s
# window is stalled less often (from the traces: 0-12 % of them against
# 0-37 % of 5 s ones), but five rounds give the medians less to stand on
# against the disk's slower drift (-15 % IOPS for a minute at a time), and
# that run missed p99 on two jobs.
# Per job the summary also counts the rounds in which only one engine's run
# was a tail round, with a sign test. Pooled over twelve runs (mostly the
# 16-64 KiB jobs) that split was builtin 63, fio 30 (p < 0.001): the
# builtin engine draws the host's stalls somewhat more often. The stalled
# share of I/Os sits near the 1 % that decides a p99 (block-layer trace,
# per second at 16-32 KiB: median 0.84 %, quartiles 0.33-1.16 %), so a
# small excess flips rounds. Its cause is not found: not the request
# stream, interface, buffer pages, address space, nor the engine's lower
# CPU per I/O (a 1.3 µs busy loop before each submission, fio's extra cost,
# left the split where it was).
# The summary's last line per job measures what the split only hints at:
# the share of I/Os at or over the job's stall threshold (the largest edge
# of fio's latency ranges not above twice the lowest p99: 1 ms at 8-32 KiB),
# per engine, and the paired builtin/fio ratio with its 95 % confidence
# interval. Unlike p99 it does not jump at 1 %. In 84 interleaved rounds of
# 16 and 32 KiB (two runs, each engine a new process per round, 2026-11-25)
# the ratio was 0.92 (0.79-1.07) while the tail-round split of the same
# rounds was builtin 20, fio 15: the builtin engine's I/Os are not held back
# more often; the two differ, if at all, in how the stalled share spreads
# over rounds, which decides how many rounds pass 1 %. Full runs of this
# script the same day, one after the other: in the first every job's
# interval included 1 (ratios 0.80 to 1.22) and every job met the target
# (IOPS within 1.7 %, p99 at most 2.9 % over fio's); in the second p99
# missed at 16 and 32 KiB (1.72, 2.38) and at 32 KiB the interval did not
# include 1 (2.12, 1.34-3.38): in that run the builtin engine's 32 KiB I/Os
# were held back twice as often. 32 KiB is the job where the builtin
# engine's p99 missed most often over the sessions; the per-process runs
# above (each engine a new process) did not show it there (0.96 and 0.70).
# An A/A control (ENGINES=fio,fio,builtin) answers how often the target
# fails between two runs of the same engine: the summary then swaps fio's
# and fio#2's labels at random round by round (they ran back to back, so
# for one engine the labels are exchangeable) and prints how often their
# medians miss the target, per job and on at least one job, in each
# reading. Three full runs of 15 rounds x 5 s on 2026-11-25 (40 min each,
# a quiet day for the host: 0-1 tail rounds per job and engine): fio
# against itself missed on 3 jobs (p99 1.068 at sqlserver, IOPS 1.050 at
# 4 KiB, p99 1.059 at seq-write), then on 1 (16 KiB: IOPS 0.936, p99
# 1.083); the label swaps put the chance that two runs of
# fio miss on at least one of the ten jobs at 0.77 and 0.79. Against that,
# builtin met every job in the first run (IOPS within 4.4 %, p99 at most
# 3.9 % over fio's), and in the second met p99 on every job (never over
# fio's) but was faster than fio by 5.3, 5.6 and 7.0 % at 64 KiB, 256 KiB
# and seq-read, where its paired per-round ratios were 1.025, 1.033, 1.030:
# the device's speed swung by up to a quarter from round to round in that
# run (64 KiB: fio 28.4k to 37.8k IOPS), and a ratio of medians taken over
# such rounds moves with it while each round's paired ratio does not. A
# third run (the summary printing the control itself): fio missed against
# itself on 2 jobs (sqlserver, 8 KiB), label swaps 0.84; builtin on 1
# (128 KiB p99 1.052). Read a single MISS against the control's rate: on
# this host the target failed for identical engines in most full runs at
# 15 x 5 s, and fails in a tenth to two thirds of them at 30 x 2.5 s.
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
