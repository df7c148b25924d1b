// Package storage is rightsize's storage probe: it measures what a volume
// delivers for the I/O patterns databases issue (random 8 KiB mixes, block
// size sweeps, sequential log writes with fsync) and reports IOPS, MB/s and a
// latency percentile table, the way diskspd, fio and HCIBench runs do in
// database storage studies.
//
// Two engines do the I/O: fio, when it is installed (its JSON output is
// parsed), and a built-in Go engine (O_DIRECT, HdrHistogram latencies) so
// that a probe needs nothing installed. The built-in engine keeps each
// thread's I/Os in flight the way fio does: through an io_uring per thread
// on Linux, Linux native AIO where io_uring is refused, and one goroutine
// per outstanding I/O elsewhere.
//
// The probe works on one test file, rightsize-probe.dat, in the directory it
// is given. The file is written once before the first job (like fio's layout
// phase, not measured) and is always removed when Run returns, including when
// its context is cancelled. A command-line caller should cancel the context
// on Ctrl-C (signal.NotifyContext) so that the file is cleaned up.
package storage

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// TestFileName is the name of the test file Run creates in Options.Path and
// removes before it returns.
const TestFileName = "rightsize-probe.dat"

// DefaultSize is the test file size Run uses when Options.Size is 0.
const DefaultSize int64 = 1 << 30

// DefaultDuration is the per-job duration Preset uses when given a duration
// of zero or less.
const DefaultDuration = 30 * time.Second

// Job describes one I/O pattern.
type Job struct {
	// Name identifies the job in progress reports, results and fio's output.
	Name string
	// BlockSize is the size of each I/O in bytes; a multiple of 512.
	BlockSize int
	// ReadPct is the share of reads, 0..100; the rest are writes. Each I/O
	// is a read or a write at random with this probability.
	ReadPct int
	// Random selects random block-aligned offsets over the whole file;
	// otherwise each thread walks its own equal slice of the file
	// sequentially, wrapping around at its end.
	Random bool
	// Threads is the number of workers (diskspd -t, fio numjobs).
	Threads int
	// QueueDepth is the number of outstanding I/Os per thread (diskspd -o,
	// fio iodepth).
	QueueDepth int
	// FsyncEvery issues an fsync after every N writes of a thread (0 = never).
	FsyncEvery int
	// Direct asks for O_DIRECT (unbuffered) I/O. If the file system refuses
	// it, the job runs buffered and the result says so (JobResult.DirectIO
	// and a note).
	Direct bool
	// Duration is how long the job issues I/O.
	Duration time.Duration
}

// rw is fio's name for the job's access pattern.
func (j Job) rw() string {
	switch {
	case j.ReadPct >= 100 && j.Random:
		return "randread"
	case j.ReadPct >= 100:
		return "read"
	case j.ReadPct <= 0 && j.Random:
		return "randwrite"
	case j.ReadPct <= 0:
		return "write"
	case j.Random:
		return "randrw"
	default:
		return "rw"
	}
}

// validate checks a job's fields, without any I/O.
func (j Job) validate() error {
	name := j.Name
	if name == "" {
		name = "(unnamed)"
	}
	switch {
	case j.BlockSize <= 0 || j.BlockSize%512 != 0:
		return fmt.Errorf("job %s: block size %d is not a positive multiple of 512", name, j.BlockSize)
	case j.ReadPct < 0 || j.ReadPct > 100:
		return fmt.Errorf("job %s: read percentage %d is outside 0..100", name, j.ReadPct)
	case j.Threads <= 0:
		return fmt.Errorf("job %s: threads must be at least 1, got %d", name, j.Threads)
	case j.QueueDepth <= 0:
		return fmt.Errorf("job %s: queue depth must be at least 1, got %d", name, j.QueueDepth)
	case j.FsyncEvery < 0:
		return fmt.Errorf("job %s: fsync interval %d is negative", name, j.FsyncEvery)
	case j.Duration <= 0:
		return fmt.Errorf("job %s: duration must be positive, got %v", name, j.Duration)
	}
	return nil
}

// presets maps a preset name to its job list builder.
var presets = map[string]func(d time.Duration) []Job{
	// diskspd -b8K -o4 -t8 -r -w25 -h: the SQL Server OLTP data file pattern.
	"sqlserver": func(d time.Duration) []Job {
		return []Job{{Name: "sqlserver-8k-rand-r75", BlockSize: 8 << 10, ReadPct: 75, Random: true,
			Threads: 8, QueueDepth: 4, Direct: true, Duration: d}}
	},
	// HCIBench-style sweep: 70/30 random at 4 KiB..256 KiB, then sequential
	// 128 KiB reads and writes.
	"hci": func(d time.Duration) []Job {
		var jobs []Job
		for _, kib := range []int{4, 8, 16, 32, 64, 128, 256} {
			jobs = append(jobs, Job{Name: fmt.Sprintf("hci-%dk-rand-r70", kib), BlockSize: kib << 10, ReadPct: 70,
				Random: true, Threads: 8, QueueDepth: 4, Direct: true, Duration: d})
		}
		return append(jobs,
			Job{Name: "hci-128k-seq-read", BlockSize: 128 << 10, ReadPct: 100, Threads: 8, QueueDepth: 4, Direct: true, Duration: d},
			Job{Name: "hci-128k-seq-write", BlockSize: 128 << 10, ReadPct: 0, Threads: 8, QueueDepth: 4, Direct: true, Duration: d})
	},
	// Transaction log pattern: one writer, sequential, fsync after each write.
	"log": func(d time.Duration) []Job {
		var jobs []Job
		for _, kib := range []int{8, 16, 32, 64} {
			jobs = append(jobs, Job{Name: fmt.Sprintf("log-%dk-seq-write-fsync", kib), BlockSize: kib << 10, ReadPct: 0,
				Threads: 1, QueueDepth: 1, FsyncEvery: 1, Direct: true, Duration: d})
		}
		return jobs
	},
}

// PresetNames returns the names Preset accepts, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Preset returns the jobs of a named preset, each running for duration
// (DefaultDuration when duration <= 0):
//
//   - "sqlserver": 8 KiB random, 75 % reads / 25 % writes, 8 threads x 4
//     outstanding I/Os, direct (diskspd -b8K -o4 -t8 -r -w25 -h).
//   - "hci": 4, 8, 16, 32, 64, 128 and 256 KiB random at 70 % reads, then
//     sequential 128 KiB 100 % read, then sequential 128 KiB 100 % write;
//     each 8 threads x 4 outstanding I/Os, direct.
//   - "log": sequential writes of 8, 16, 32 and 64 KiB, fsync after each
//     write, 1 thread, queue depth 1, direct.
//
// An unknown name gives an error listing the valid names.
func Preset(name string, duration time.Duration) ([]Job, error) {
	build, ok := presets[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return nil, fmt.Errorf("unknown storage preset %q (valid: %s)", name, strings.Join(PresetNames(), ", "))
	}
	if duration <= 0 {
		duration = DefaultDuration
	}
	return build(duration), nil
}

// Options says where and how Run probes.
type Options struct {
	// Path is the directory on the volume to probe; it must exist and be
	// writable. The test file TestFileName is created in it.
	Path string
	// Size is the test file size in bytes (DefaultSize when 0). It is
	// rounded down to a multiple of 4096 and must fit in the free space.
	// Make it larger than the storage's caches for meaningful results.
	Size int64
	// Engine is "auto" (or ""): fio if it is on PATH, else builtin; "fio";
	// or "builtin".
	Engine string
	// BuiltinIO is the builtin engine's I/O interface: "auto" (or "") for
	// the best available (io_uring, else Linux AIO, else goroutines), or
	// one of IOURing, IOLibaio, IOGoroutines (an error where unavailable).
	BuiltinIO string
	// RefuseIOUring makes the builtin engine behave as on a kernel that
	// refuses io_uring (sysctl kernel.io_uring_disabled, a seccomp
	// filter): io_uring's setup fails and the engine falls back.
	RefuseIOUring bool
}

// Latency summarises one latency distribution, in milliseconds.
type Latency struct {
	MinMs, P25Ms, P50Ms, P75Ms, P90Ms, P95Ms, P99Ms, P999Ms, MaxMs, MeanMs, StdDevMs float64
}

// Side is the outcome for one direction: reads, writes, the total of both,
// or (JobResult.Sync) the fsync calls.
type Side struct {
	// Bytes transferred.
	Bytes int64
	// IOs is the number of completed I/Os (or fsync calls).
	IOs int64
	// MBps is the throughput in MiB/s (2^20 bytes per second, as diskspd
	// and fio print it).
	MBps float64
	// IOPS is IOs per second of the job's elapsed time.
	IOPS float64
	// Latency is the per-I/O latency distribution: for the builtin engine
	// from the system call that submits the I/O to the one that reaps it
	// (the read or write call on goroutines), for fio its total latency
	// (lat, submission plus completion).
	Latency Latency
}

// LatencyEdgesMs are the lower edges of the latency ranges of
// JobResult.Buckets, in ms: fio's ranges (2, 4, 10 ... 750, 1000 µs; 2, 4,
// 10 ... 1000, 2000 ms; then 2 s and over), the nanosecond ones folded
// into the first.
var LatencyEdgesMs = []float64{0, 0.002, 0.004, 0.010, 0.020, 0.050, 0.100, 0.250, 0.500, 0.750,
	1, 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000}

// LatencyBucket is one latency range of a job's distribution: the share
// of its reads and writes whose latency was at least FromMs and below the
// next range's FromMs (no upper edge for the last range).
type LatencyBucket struct {
	FromMs float64
	// Pct is the share of the I/Os in the range, in percent.
	Pct float64
}

// LatencyBuckets is a latency distribution over the ranges of
// LatencyEdgesMs, one LatencyBucket per range.
type LatencyBuckets []LatencyBucket

// newLatencyBuckets returns the ranges of LatencyEdgesMs, each with no I/O.
func newLatencyBuckets() LatencyBuckets {
	b := make(LatencyBuckets, len(LatencyEdgesMs))
	for i, e := range LatencyEdgesMs {
		b[i].FromMs = e
	}
	return b
}

// PctAtLeast returns the share, in percent, of the I/Os whose latency was
// at least ms, which must be one of LatencyEdgesMs; ok is false when the
// distribution is empty or ms is not an edge.
func (bs LatencyBuckets) PctAtLeast(ms float64) (pct float64, ok bool) {
	for _, b := range bs {
		if b.FromMs == ms {
			ok = true
		}
		if ok {
			pct += b.Pct
		}
	}
	return pct, ok
}

// JobResult is the measured outcome of one Job.
type JobResult struct {
	// Job is the job as run.
	Job Job
	// Engine is "fio" or "builtin".
	Engine string
	// IOEngine is how the I/O was issued: for builtin IOURing, IOLibaio
	// or IOGoroutines; for fio its ioengine (libaio, psync...).
	IOEngine string `json:",omitempty"`
	// Fallback says why the builtin engine did not use a better I/O
	// interface (e.g. "io_uring unavailable: io_uring_setup: operation not
	// permitted"); empty when it used the best one of its platform.
	Fallback string `json:",omitempty"`
	// HugePages reports whether the engine's I/O buffers were on huge pages
	// (2 MiB, physically contiguous: a block reaches the device as one
	// segment). On base pages a large block is as many segments as the
	// page allocator happened to scatter it into, which a virtual disk pays
	// for per segment; a note says why when the builtin engine got none.
	HugePages bool `json:",omitempty"`
	// CPUPerIOMicros is the engine's own CPU time (user plus system, all
	// its threads or processes) per completed read or write, in µs: the
	// probe's process for builtin, fio's processes for fio. 0 when
	// unknown.
	CPUPerIOMicros float64 `json:",omitempty"`
	// Read, Write and Total are the reads, the writes and both together.
	Read, Write, Total Side
	// Sync describes the fsync calls (FsyncEvery > 0); their latency is not
	// included in Write's, as with fio.
	Sync Side
	// DirectIO reports whether the I/O really bypassed the page cache.
	DirectIO bool
	// Buckets is the latency distribution of reads and writes together in
	// fio's ranges (LatencyEdgesMs): the share of I/Os in each, as fio
	// prints it under "lat (usec)" and "lat (msec)". fio fills it from its
	// completion latencies (clat), the builtin engine from the latencies
	// its percentiles come from. Empty when the engine reported none.
	Buckets LatencyBuckets `json:",omitempty"`
	// Elapsed is the measured duration of the job.
	Elapsed time.Duration
	// Notes are remarks about how the job ran (fallbacks, approximations,
	// interruption).
	Notes []string
}
