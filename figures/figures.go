// Package figures defines the host and transaction figures once, at the
// bottom of the import graph: telemetry and the driver produce them, store
// persists them as they are (the JSON keys are also the stored column
// names), and the views read them from there. It holds data only and
// imports nothing of rightsize.
//
// Units: CPU in % of all CPUs (see package telemetry for how the kernel's
// categories are folded: busy = 100 − idle − iowait, steal counts as busy),
// server and driver CPU in % of one core, MB = 10^6 bytes, latency in ms.
package figures

import (
	"math"
	"time"
)

// Host summarises host telemetry over an interval: means of the samples,
// the disk latency I/O-weighted (see telemetry.Summarize).
type Host struct {
	CPUBusyPct       float64 `json:"cpu_busy_pct"`        // 100 − idle − iowait, % of all CPUs
	CPUIdlePct       float64 `json:"cpu_idle_pct"`        // % of all CPUs
	CPUIowaitPct     float64 `json:"cpu_iowait_pct"`      // % of all CPUs
	CPUUserPct       float64 `json:"cpu_user_pct"`        // user + nice, % of all CPUs
	CPUSystemPct     float64 `json:"cpu_system_pct"`      // system + irq + softirq, % of all CPUs
	CPUStealPct      float64 `json:"cpu_steal_pct"`       // % of all CPUs
	DiskReadIOPS     float64 `json:"disk_read_iops"`      // reads/s summed over disks
	DiskWriteIOPS    float64 `json:"disk_write_iops"`     // writes/s summed over disks
	DiskReadMBps     float64 `json:"disk_read_mbps"`      // MB (10^6 bytes)/s read, summed over disks
	DiskWriteMBps    float64 `json:"disk_write_mbps"`     // MB (10^6 bytes)/s written, summed over disks
	DiskAvgLatencyMs float64 `json:"disk_avg_latency_ms"` // I/O-weighted mean latency, ms
	MemUsedBytes     uint64  `json:"mem_used_bytes"`      // total − available
	MemCachedBytes   uint64  `json:"mem_cached_bytes"`    // reclaimable page cache
	// The database server's own block I/O, from its cgroup's counters
	// (telemetry.Sampler.ServerIO), summed over its devices; 0 when the
	// server runs in no cgroup of rightsize's (a remote server, no caps).
	// On cgroup v1 the writes are its direct and fsync-driven ones only.
	ServerReadIOPS  float64 `json:"server_read_iops,omitempty"`  // reads/s
	ServerWriteIOPS float64 `json:"server_write_iops,omitempty"` // writes/s
	ServerReadMBps  float64 `json:"server_read_mbps,omitempty"`  // MB (10^6 bytes)/s read
	ServerWriteMBps float64 `json:"server_write_mbps,omitempty"` // MB (10^6 bytes)/s written
}

// Txn is the figures of one transaction type over an interval: counts and
// latency percentiles in ms. store.TxnSummary stores them with the type,
// the mean, the first error and the histogram; run --json shows them by
// type (scenario.TxnReport).
type Txn struct {
	Count     int64   `json:"count"`     // completed, rolled-back New-Orders included
	Rollbacks int64   `json:"rollbacks"` // New-Orders rolled back by the simulated user error
	Retries   int64   `json:"retries"`   // retries (serialization failures, deadlocks)
	Errors    int64   `json:"errors"`    // failed transactions
	P50Ms     float64 `json:"p50_ms"`    // median latency
	P90Ms     float64 `json:"p90_ms"`    // 90th percentile latency
	P95Ms     float64 `json:"p95_ms"`    // 95th percentile latency
	P99Ms     float64 `json:"p99_ms"`    // 99th percentile latency
	MaxMs     float64 `json:"max_ms"`    // largest latency
}

// Procs is the CPU of the two process trees a run watches, in % of ONE
// core (100 = one core busy, 400 = four): the database server's (its
// cgroup or process tree; 0 when no server is watched) and rightsize's
// own, the driver's. Telemetry fills it per sample and per step, the
// driver's counters per measured step; a step and a host sample store it
// as it is.
type Procs struct {
	ServerCPUPct float64 `json:"server_cpu_pct"` // database server, % of one core
	DriverCPUPct float64 `json:"driver_cpu_pct"` // rightsize itself, % of one core
}

// ServerCores is the server's CPU in cores (1.5 = one and a half cores).
func (p *Procs) ServerCores() float64 { return p.ServerCPUPct / 100 }

// DriverCores is the driver's CPU in cores.
func (p *Procs) DriverCores() float64 { return p.DriverCPUPct / 100 }

// HostSample is one host sample as stored (the interval ending At): the
// host figures (disks summed, latency I/O-weighted), the server's and the
// driver's CPU, and the per-disk figures kept as a JSON document.
type HostSample struct {
	At time.Time `json:"at"` // end of the sampled interval
	Host
	Procs
	// Disks is a JSON document of per-disk figures (telemetry.DiskSample).
	Disks string `json:"disks,omitempty"`
}

// Column is one figure as stored: its column name (also its JSON key)
// and a pointer to the field holding it, a *float64, *uint64 or *int64.
type Column struct {
	Name string
	Ptr  any
}

// Columns lists h's figures in their stored order.
func (h *Host) Columns() []Column {
	return []Column{
		{CPUBusy.Name, &h.CPUBusyPct}, {CPUIdle.Name, &h.CPUIdlePct}, {CPUIowait.Name, &h.CPUIowaitPct},
		{CPUUser.Name, &h.CPUUserPct}, {CPUSystem.Name, &h.CPUSystemPct}, {CPUSteal.Name, &h.CPUStealPct},
		{DiskReadIOPS.Name, &h.DiskReadIOPS}, {DiskWriteIOPS.Name, &h.DiskWriteIOPS},
		{DiskReadMBps.Name, &h.DiskReadMBps}, {DiskWriteMBps.Name, &h.DiskWriteMBps},
		{DiskLatency.Name, &h.DiskAvgLatencyMs}, {MemUsed.Name, &h.MemUsedBytes}, {MemCached.Name, &h.MemCachedBytes},
		{ServerReadIOPS.Name, &h.ServerReadIOPS}, {ServerWriteIOPS.Name, &h.ServerWriteIOPS},
		{ServerReadMBps.Name, &h.ServerReadMBps}, {ServerWriteMBps.Name, &h.ServerWriteMBps},
	}
}

// Columns lists p's figures in their stored order.
func (p *Procs) Columns() []Column {
	return []Column{{ServerCPU.Name, &p.ServerCPUPct}, {DriverCPU.Name, &p.DriverCPUPct}}
}

// Columns lists s's figures in their stored order (host_samples' own,
// older than Host's), At and Disks excepted.
func (s *HostSample) Columns() []Column {
	h := &s.Host
	return []Column{
		{CPUUser.Name, &h.CPUUserPct}, {CPUSystem.Name, &h.CPUSystemPct}, {CPUIowait.Name, &h.CPUIowaitPct},
		{CPUIdle.Name, &h.CPUIdlePct}, {CPUSteal.Name, &h.CPUStealPct}, {CPUBusy.Name, &h.CPUBusyPct},
		{DiskReadIOPS.Name, &h.DiskReadIOPS}, {DiskWriteIOPS.Name, &h.DiskWriteIOPS}, {DiskReadMBps.Name, &h.DiskReadMBps},
		{DiskWriteMBps.Name, &h.DiskWriteMBps}, {DiskLatency.Name, &h.DiskAvgLatencyMs},
		{MemUsed.Name, &h.MemUsedBytes}, {MemCached.Name, &h.MemCachedBytes},
		{ServerCPU.Name, &s.Procs.ServerCPUPct}, {DriverCPU.Name, &s.Procs.DriverCPUPct},
		{ServerReadIOPS.Name, &h.ServerReadIOPS}, {ServerWriteIOPS.Name, &h.ServerWriteIOPS},
		{ServerReadMBps.Name, &h.ServerReadMBps}, {ServerWriteMBps.Name, &h.ServerWriteMBps},
	}
}

// Unit is what a figure counts; the views format a figure by its unit
// (package report) and name it in headings.
type Unit string

// The units of the figures.
const (
	Count      Unit = ""              // a count or a rate (TPM, IOPS, users): whole numbers
	Percent    Unit = "%"             // a share of something else (CV, efficiency)
	PctAllCPUs Unit = "% of all CPUs" // host CPU shares
	PctOneCore Unit = "% of one core" // a process tree's CPU: 100 = one core busy
	Ms         Unit = "ms"            // latency
	Us         Unit = "µs"            // CPU time per transaction
	MBps       Unit = "MB/s"          // MB (10^6 bytes) per second
	Bytes      Unit = "bytes"         // memory
)

// A Figure names one host or process figure for every view: Name is its
// stored column and JSON key, Head its heading in a table, Unit what it
// counts. Of reads it from a Host or a Procs.
type Figure struct {
	Name string
	Head string
	Unit Unit
}

// The host figures, in Host's order.
var (
	CPUBusy       = Figure{"cpu_busy_pct", "CPU busy", PctAllCPUs} // 100 − idle − iowait
	CPUIdle       = Figure{"cpu_idle_pct", "idle", PctAllCPUs}
	CPUIowait     = Figure{"cpu_iowait_pct", "iowait", PctAllCPUs}
	CPUUser       = Figure{"cpu_user_pct", "user", PctAllCPUs}
	CPUSystem     = Figure{"cpu_system_pct", "system", PctAllCPUs}
	CPUSteal      = Figure{"cpu_steal_pct", "steal", PctAllCPUs}
	DiskReadIOPS  = Figure{"disk_read_iops", "read IOPS", Count}
	DiskWriteIOPS = Figure{"disk_write_iops", "write IOPS", Count}
	DiskReadMBps  = Figure{"disk_read_mbps", "read MB/s", MBps}
	DiskWriteMBps = Figure{"disk_write_mbps", "write MB/s", MBps}
	DiskLatency   = Figure{"disk_avg_latency_ms", "disk ms", Ms} // I/O-weighted
	MemUsed       = Figure{"mem_used_bytes", "memory used", Bytes}
	MemCached     = Figure{"mem_cached_bytes", "page cache", Bytes}
	// The server's own I/O, from its cgroup.
	ServerReadIOPS  = Figure{"server_read_iops", "server read IOPS", Count}
	ServerWriteIOPS = Figure{"server_write_iops", "server write IOPS", Count}
	ServerReadMBps  = Figure{"server_read_mbps", "server read MB/s", MBps}
	ServerWriteMBps = Figure{"server_write_mbps", "server write MB/s", MBps}
)

// The process figures, in Procs' order.
var (
	ServerCPU = Figure{"server_cpu_pct", "server CPU", PctOneCore}
	DriverCPU = Figure{"driver_cpu_pct", "driver CPU", PctOneCore}
)

// HasColumns is what has stored figures: a Host, a Procs, a HostSample or
// a Txn.
type HasColumns interface{ Columns() []Column }

// Of is h's value of the figure (0 for a name h lacks).
func (f Figure) Of(h HasColumns) float64 {
	for _, c := range h.Columns() {
		if c.Name == f.Name {
			return c.Float()
		}
	}
	return 0
}

// CPUMeasured tells whether h has CPU figures (an imported run has none).
func (h *Host) CPUMeasured() bool {
	return h.CPUBusyPct != 0 || h.CPUIdlePct != 0 || h.CPUIowaitPct != 0
}

// DiskMeasured tells whether h has disk figures.
func (h *Host) DiskMeasured() bool {
	return h.DiskReadIOPS != 0 || h.DiskWriteIOPS != 0 || h.DiskAvgLatencyMs != 0
}

// ServerIOMeasured tells whether h has the server's own I/O figures (its
// cgroup's counters). A server in a group always writes (its log is
// synced), so all four at 0 means they were not measured.
func (h *Host) ServerIOMeasured() bool {
	return h.ServerReadIOPS != 0 || h.ServerWriteIOPS != 0 || h.ServerReadMBps != 0 || h.ServerWriteMBps != 0
}

// Float returns the column's value as a float64.
func (c Column) Float() float64 {
	switch p := c.Ptr.(type) {
	case *float64:
		return *p
	case *uint64:
		return float64(*p)
	case *int64:
		return float64(*p)
	}
	return 0
}

// Mean is the mean of each figure over xs (the memory figures rounded to
// the nearest byte); the zero value for none. T is Host or Procs.
func Mean[T any, P interface {
	*T
	HasColumns
}](xs []T) T {
	var out T
	if len(xs) == 0 {
		return out
	}
	each := make([][]Column, len(xs))
	for j := range xs {
		each[j] = P(&xs[j]).Columns()
	}
	for i, c := range P(&out).Columns() {
		sum := 0.0
		for j := range each {
			sum += each[j][i].Float()
		}
		switch p := c.Ptr.(type) {
		case *float64:
			*p = sum / float64(len(xs))
		case *uint64:
			*p = uint64(math.Round(sum / float64(len(xs))))
		}
	}
	return out
}
