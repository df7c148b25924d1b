// Package telemetry samples host counters while a benchmark step runs: CPU
// (user/system/iowait/idle/steal), per-disk IOPS, throughput, latency and
// utilisation, memory, the CPU of the watched database server's process tree
// and the driver's own CPU (to show the driver is not the bottleneck).
//
// On Linux every counter is read straight from /proc (and /sys once per disk
// name), keeping the files open and reading them again from offset 0 into
// reused buffers. Measured on a 2-vCPU VM (BenchmarkSampleTick, TestTickCost):
// about 35 µs of CPU per tick for the host counters and 6-9 µs more per
// process of the watched server tree, i.e. 0.0035 % of one core at 1 s,
// 0.035 % with a 51-process server, 0.45 % with 501, so the 1 % budget holds
// up to about 1,000 server processes.
// gopsutil is 4 times dearer for the host counters and 40 times for the
// process tree (it scans every process several times), so on Linux it is only
// kept for comparison. On other operating systems the figures come from
// gopsutil, with the limitations noted on each item (notably: the CPU of
// server processes that exited between samples is lost there).
//
// A server started in its own cgroup can be watched through the cgroup's CPU
// counter instead of its process tree (Sampler.ServerCgroup, CgroupCPU):
// exact, and one file per tick whatever the number of backends. Its
// cgroup's block I/O counters (Sampler.ServerIO, CgroupIO) give the reads
// and writes the server itself sent to the devices, where the host's disk
// figures count every process's.
//
// # CPU categories
//
// The kernel's categories are folded as follows, so that
// CPUUserPct+CPUSystemPct+CPUIowaitPct+CPUIdlePct+CPUStealPct = 100:
//
//   - user   = user + nice (guest time is already inside user/nice and is not
//     counted twice)
//   - system = system + irq + softirq
//   - iowait, idle, steal as reported.
//
// CPUBusyPct = 100 − idle − iowait, so steal counts as busy: on an
// over-committed VM the CPU the hypervisor took away is not available to the
// database either.
//
// # Memory
//
// MemUsedBytes is MemTotal − MemAvailable (what free(1) and gopsutil call
// "used"); it includes shared memory such as PostgreSQL's shared_buffers.
// MemCachedBytes is the reclaimable page cache: Buffers + Cached +
// SReclaimable − Shmem. Used + cached + free is therefore close to, but not
// exactly, the total.
package telemetry

import (
	"encoding/json"
	"time"

	"github.com/rightsize/rightsize/figures"
)

// Sample is one host observation covering the interval since the previous
// sample, i.e. (At−Interval, At].
type Sample struct {
	// At is when the counters closing this interval were read.
	At time.Time
	// Interval is the wall time covered by this sample (normally the
	// sampler's interval, longer if a tick was late or skipped).
	Interval time.Duration

	// Host is the host figures (see the package doc for the CPU
	// categories and memory): its disk figures are Disks summed, the
	// latency weighted by each disk's IOPS; its server I/O figures are the
	// watched server's cgroup's block I/O (Sampler.ServerIO; see there what
	// cgroup v1 counts of writes), 0 when no cgroup is watched.
	figures.Host
	// Procs is the CPU of the watched database server's process tree or
	// cgroup (0 when no server is watched or it was not found) and of this
	// process, the driver (including the sampler itself).
	figures.Procs

	// Disks holds one entry per physical disk, in the kernel's order. Loop,
	// ram and zram devices are skipped, and so are partitions and stacked
	// devices (device-mapper, md) whose underlying disks are listed, so that
	// summing over Disks does not count an I/O twice.
	Disks []DiskSample

	// MemTotalBytes is the machine's memory.
	MemTotalBytes uint64

	// ServerProcs is the number of processes found in the watched server's
	// tree at At (postmaster + backends + auxiliary processes); 0 when no
	// server is watched or it was not found.
	ServerProcs int

	// MajorFaultsPerSec is the host's major page faults per second (pages
	// read back from disk because memory was short); Linux only.
	MajorFaultsPerSec float64
	// ReclaimPagesPerSec is pages reclaimed per second by kswapd and direct
	// reclaim (page-cache pressure); Linux only.
	ReclaimPagesPerSec float64
}

// DiskSample is one disk's activity over a sample's interval.
type DiskSample struct {
	// Name is the kernel's device name (sda, nvme0n1, vda ...).
	Name string
	// ReadIOPS is completed reads per second.
	ReadIOPS float64
	// WriteIOPS is completed writes per second.
	WriteIOPS float64
	// ReadMBps is MB (10^6 bytes) read per second.
	ReadMBps float64
	// WriteMBps is MB (10^6 bytes) written per second.
	WriteMBps float64
	// AvgLatencyMs is (Δ read time + Δ write time) / Δ I/Os from the
	// kernel's millisecond counters (/proc/diskstats on Linux), 0 if there
	// was no I/O. It includes queueing time in the block layer.
	AvgLatencyMs float64
	// UtilPct is Δ io time / Δ wall × 100: the share of the interval the
	// device had at least one I/O in flight. Devices that serve many I/Os in
	// parallel (NVMe, SAN) can be far from saturated at 100 %.
	UtilPct float64
	// InFlight is the number of I/Os in flight when the sample was read.
	InFlight float64
	// QueueDepth is the mean number of I/Os in flight over the interval
	// (Δ weighted I/O time / Δ wall, the kernel's aqu-sz).
	QueueDepth float64
}

// Summary averages samples over a step: the host figures (figures.Host,
// what a step stores), the processes' CPU and the sampler's own. Every
// sample weighs the same, except DiskAvgLatencyMs, which is weighted by I/O
// count (each disk-sample weighs IOPS × interval, an interval of 0 counting
// as 1 s; 0 if there was no I/O). Disk rates are summed over disks, memory
// and CPU shares are means of the samples'.
type Summary struct {
	figures.Host
	figures.Procs

	// Samples is the number of samples averaged.
	Samples int
	// DiskMaxUtilPct is the mean over samples of the busiest disk's UtilPct.
	DiskMaxUtilPct float64
	// MemTotalBytes is the largest Sample.MemTotalBytes.
	MemTotalBytes uint64
}

// Summarize averages samples; the zero Summary is returned for no samples.
// Each sample's host figures (host) and processes' CPU are averaged by
// figures.Mean but the disk latency, which is weighted by each sample's
// I/O count over its interval.
func Summarize(samples []Sample) Summary {
	var sum Summary
	n := len(samples)
	if n == 0 {
		return sum
	}
	hosts := make([]figures.Host, n)
	procs := make([]figures.Procs, n)
	var latNum, latDen float64
	for i := range samples {
		s := &samples[i]
		hosts[i], procs[i] = s.host(), s.Procs
		secs := s.Interval.Seconds()
		if secs <= 0 {
			secs = 1
		}
		w := (hosts[i].DiskReadIOPS + hosts[i].DiskWriteIOPS) * secs
		latNum += hosts[i].DiskAvgLatencyMs * w
		latDen += w
		maxUtil := 0.0
		for _, d := range s.Disks {
			maxUtil = max(maxUtil, d.UtilPct)
		}
		sum.DiskMaxUtilPct += maxUtil
		sum.MemTotalBytes = max(sum.MemTotalBytes, s.MemTotalBytes)
	}
	sum.Host, sum.Procs = figures.Mean(hosts), figures.Mean(procs)
	sum.DiskAvgLatencyMs = 0
	if latDen > 0 {
		sum.DiskAvgLatencyMs = latNum / latDen
	}
	sum.Samples = n
	sum.DiskMaxUtilPct /= float64(n)
	return sum
}

// host is the sample's host figures, the disk figures summed from Disks
// (sumDisks): a sample made by hand may list its disks only.
func (s *Sample) host() figures.Host {
	h := s.Host
	sumDisks(&h, s.Disks)
	return h
}

// sumDisks sets h's disk figures to those of disks summed, the latency
// weighted by each disk's IOPS (0 without I/O).
func sumDisks(h *figures.Host, disks []DiskSample) {
	h.DiskReadIOPS, h.DiskWriteIOPS, h.DiskReadMBps, h.DiskWriteMBps, h.DiskAvgLatencyMs = 0, 0, 0, 0, 0
	var lat, ios float64
	for _, d := range disks {
		h.DiskReadIOPS += d.ReadIOPS
		h.DiskWriteIOPS += d.WriteIOPS
		h.DiskReadMBps += d.ReadMBps
		h.DiskWriteMBps += d.WriteMBps
		lat += d.AvgLatencyMs * (d.ReadIOPS + d.WriteIOPS)
		ios += d.ReadIOPS + d.WriteIOPS
	}
	if ios > 0 {
		h.DiskAvgLatencyMs = lat / ios
	}
}

// Figures returns the sample as stored (figures.HostSample): its host
// figures (host), the processes' CPU, the per-disk figures as a JSON
// document.
func (s *Sample) Figures() figures.HostSample {
	hs := figures.HostSample{At: s.At, Host: s.host(), Procs: s.Procs}
	if len(s.Disks) > 0 {
		if b, err := json.Marshal(s.Disks); err == nil {
			hs.Disks = string(b)
		}
	}
	return hs
}
