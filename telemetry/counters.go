package telemetry

import (
	"math"
	"strings"
	"time"
)

// cpuTimes are cumulative whole-machine CPU times in any one unit (clock
// ticks from /proc/stat, seconds from gopsutil); only ratios are used.
type cpuTimes struct {
	user, nice, system, idle, iowait, irq, softirq, steal float64
}

// diskCounter holds one device's cumulative counters.
type diskCounter struct {
	name                  string
	reads, writes         uint64
	readBytes, writeBytes uint64
	readMs, writeMs, ioMs uint64
	inFlight              uint64 // I/Os in flight when read
	weightedMs            uint64 // time × I/Os in flight, ms
}

// vmCounters are the kernel's cumulative memory-pressure counters.
type vmCounters struct {
	majorFaults uint64 // pgmajfault
	reclaimed   uint64 // pgsteal_*: pages reclaimed by kswapd, direct reclaim and khugepaged
}

// memInfo is a memory snapshot in bytes, already folded as documented.
type memInfo struct {
	total, used, cached uint64
}

// hostCounters is one snapshot of the host-wide cumulative counters.
type hostCounters struct {
	cpu   cpuTimes
	disks []diskCounter // physical disks only
	mem   memInfo
	vm    vmCounters // zero where unknown
}

// hostReader fills a hostCounters snapshot, reusing c.disks' backing array.
type hostReader interface {
	read(c *hostCounters) error
}

// treeReader returns the cumulative CPU of a process tree and the number of
// processes found in it.
type treeReader interface {
	treeCPU(pid int) (time.Duration, int, error)
}

// ioCounters are a cgroup's cumulative block I/O: operations and bytes.
type ioCounters struct {
	reads, writes         uint64
	readBytes, writeBytes uint64
}

// ioReader reads a cgroup's cumulative block I/O (cgroupIO).
type ioReader interface {
	readIO(c *ioCounters) error
}

// pos returns d when positive, else 0: counters that go backwards (iowait on
// NO_HZ kernels, 32-bit wrap-around, a device reset) contribute nothing.
func pos(d float64) float64 {
	if d > 0 {
		return d
	}
	return 0
}

// udelta is cur−prev for monotonic counters, 0 if the counter went back.
func udelta(cur, prev uint64) uint64 {
	if cur >= prev {
		return cur - prev
	}
	return 0
}

// msDelta is udelta for the kernel's millisecond disk counters, which
// /proc/diskstats prints as 32-bit values: the read/write time counters sum
// the time of every I/O in flight and wrap after 2^32 ms of it (a day or two
// at queue depth 32), so a value that went back from a 32-bit one wrapped.
func msDelta(cur, prev uint64) uint64 {
	if cur < prev && prev <= math.MaxUint32 {
		return cur + (1 << 32) - prev
	}
	return udelta(cur, prev)
}

// fillCPU sets the CPU percentages of s from two cumulative snapshots.
func fillCPU(s *Sample, prev, cur *cpuTimes) {
	user := pos(cur.user-prev.user) + pos(cur.nice-prev.nice)
	system := pos(cur.system-prev.system) + pos(cur.irq-prev.irq) + pos(cur.softirq-prev.softirq)
	idle := pos(cur.idle - prev.idle)
	iowait := pos(cur.iowait - prev.iowait)
	steal := pos(cur.steal - prev.steal)
	total := user + system + idle + iowait + steal
	if total <= 0 {
		s.CPUIdlePct = 100
		return
	}
	// Clamped: a share that is all of total can round to 100.00000000000001.
	k := 100 / total
	s.CPUUserPct = clampPct(user * k)
	s.CPUSystemPct = clampPct(system * k)
	s.CPUIdlePct = clampPct(idle * k)
	s.CPUIowaitPct = clampPct(iowait * k)
	s.CPUStealPct = clampPct(steal * k)
	s.CPUBusyPct = clampPct(100 - s.CPUIdlePct - s.CPUIowaitPct)
}

func clampPct(p float64) float64 {
	if p < 0 {
		return 0
	}
	if p > 100 {
		return 100
	}
	return p
}

// diskSamples converts two snapshots into per-disk rates over secs seconds.
// Disks absent from prev (hot-plugged) are reported from the next sample on.
func diskSamples(prev, cur []diskCounter, secs float64) []DiskSample {
	if len(cur) == 0 || secs <= 0 {
		return nil
	}
	out := make([]DiskSample, 0, len(cur))
	for i := range cur {
		c := &cur[i]
		p := findDisk(prev, c.name, i)
		if p == nil {
			continue
		}
		r := udelta(c.reads, p.reads)
		w := udelta(c.writes, p.writes)
		d := DiskSample{
			Name:       c.name,
			ReadIOPS:   float64(r) / secs,
			WriteIOPS:  float64(w) / secs,
			ReadMBps:   float64(udelta(c.readBytes, p.readBytes)) / secs / 1e6,
			WriteMBps:  float64(udelta(c.writeBytes, p.writeBytes)) / secs / 1e6,
			UtilPct:    clampPct(float64(msDelta(c.ioMs, p.ioMs)) / (secs * 1000) * 100),
			InFlight:   float64(c.inFlight),
			QueueDepth: float64(msDelta(c.weightedMs, p.weightedMs)) / (secs * 1000),
		}
		if ios := r + w; ios > 0 {
			d.AvgLatencyMs = float64(msDelta(c.readMs, p.readMs)+msDelta(c.writeMs, p.writeMs)) / float64(ios)
		}
		out = append(out, d)
	}
	return out
}

// findDisk finds name in ds, trying index hint first (the order is stable).
func findDisk(ds []diskCounter, name string, hint int) *diskCounter {
	if hint < len(ds) && ds[hint].name == name {
		return &ds[hint]
	}
	for i := range ds {
		if ds[i].name == name {
			return &ds[i]
		}
	}
	return nil
}

// virtualDiskPrefixes name devices that are never physical disks.
var virtualDiskPrefixes = []string{"loop", "ram", "zram", "nbd", "fd", "sr"}

func isVirtualDiskName(name string) bool {
	for _, p := range virtualDiskPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// physicalDisksByName picks physical whole disks from a device list by name
// alone, for when /sys/block cannot be consulted: it drops virtual devices,
// device-mapper and md devices, and partitions whose disk is also listed
// (sda1 of sda, nvme0n1p1 of nvme0n1, mmcblk0p1 of mmcblk0, disk0s1 of disk0).
// If that would leave nothing, every non-virtual name is kept.
func physicalDisksByName(names []string) map[string]bool {
	keep := make(map[string]bool, len(names))
	present := make(map[string]bool, len(names))
	for _, n := range names {
		present[n] = true
	}
	any := false
	for _, n := range names {
		ok := !isVirtualDiskName(n) && !strings.HasPrefix(n, "dm-") && !strings.HasPrefix(n, "md") &&
			!isPartitionOfListed(n, present)
		keep[n] = ok
		any = any || ok
	}
	if !any {
		for _, n := range names {
			keep[n] = !isVirtualDiskName(n)
		}
	}
	return keep
}

// isPartitionOfListed reports whether name is <disk><digits>,
// <disk>p<digits> or <disk>s<digits> for some listed disk.
func isPartitionOfListed(name string, present map[string]bool) bool {
	// Strip the trailing partition number.
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i == len(name) || i == 0 {
		return false
	}
	base := name[:i]
	if present[base] && !endsWithDigit(base) {
		return true // sda1
	}
	if last := base[len(base)-1]; last == 'p' || last == 's' {
		if b := base[:len(base)-1]; b != "" && present[b] && endsWithDigit(b) {
			return true // nvme0n1p1, mmcblk0p1, disk0s1
		}
	}
	return false
}

func endsWithDigit(s string) bool {
	return s != "" && s[len(s)-1] >= '0' && s[len(s)-1] <= '9'
}
