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

// HostSample is one host sample as stored (the interval ending At); units
// as in Host, the disks summed (latency I/O-weighted) with the per-disk
// figures kept as a JSON document.
type HostSample struct {
	At               time.Time `json:"at"`                          // end of the sampled interval
	CPUUserPct       float64   `json:"cpu_user_pct"`                // % of all CPUs
	CPUSystemPct     float64   `json:"cpu_system_pct"`              // % of all CPUs
	CPUIowaitPct     float64   `json:"cpu_iowait_pct"`              // % of all CPUs
	CPUIdlePct       float64   `json:"cpu_idle_pct"`                // % of all CPUs
	CPUStealPct      float64   `json:"cpu_steal_pct"`               // % of all CPUs
	CPUBusyPct       float64   `json:"cpu_busy_pct"`                // 100 − idle − iowait
	DiskReadIOPS     float64   `json:"disk_read_iops"`              // summed over disks
	DiskWriteIOPS    float64   `json:"disk_write_iops"`             // summed over disks
	DiskReadMBps     float64   `json:"disk_read_mbps"`              // summed over disks
	DiskWriteMBps    float64   `json:"disk_write_mbps"`             // summed over disks
	DiskAvgLatencyMs float64   `json:"disk_avg_latency_ms"`         // I/O-weighted over disks
	MemUsedBytes     uint64    `json:"mem_used_bytes"`              // total − available
	MemCachedBytes   uint64    `json:"mem_cached_bytes"`            // reclaimable page cache
	ServerCPUPct     float64   `json:"server_cpu_pct"`              // database server, % of one core
	DriverCPUPct     float64   `json:"driver_cpu_pct"`              // rightsize itself, % of one core
	ServerReadIOPS   float64   `json:"server_read_iops,omitempty"`  // the server's cgroup, as in Host
	ServerWriteIOPS  float64   `json:"server_write_iops,omitempty"` // the server's cgroup, as in Host
	ServerReadMBps   float64   `json:"server_read_mbps,omitempty"`  // the server's cgroup, as in Host
	ServerWriteMBps  float64   `json:"server_write_mbps,omitempty"` // the server's cgroup, as in Host
	// Disks is a JSON document of per-disk figures (telemetry.DiskSample).
	Disks string `json:"disks,omitempty"`
}

// Column is one host figure as stored: its column name (also its JSON key)
// and a pointer to the field holding it, a *float64 or a *uint64.
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

// Columns lists s's figures in their stored order, At and Disks excepted.
func (s *HostSample) Columns() []Column {
	return []Column{
		{CPUUser.Name, &s.CPUUserPct}, {CPUSystem.Name, &s.CPUSystemPct}, {CPUIowait.Name, &s.CPUIowaitPct},
		{CPUIdle.Name, &s.CPUIdlePct}, {CPUSteal.Name, &s.CPUStealPct}, {CPUBusy.Name, &s.CPUBusyPct},
		{DiskReadIOPS.Name, &s.DiskReadIOPS}, {DiskWriteIOPS.Name, &s.DiskWriteIOPS}, {DiskReadMBps.Name, &s.DiskReadMBps},
		{DiskWriteMBps.Name, &s.DiskWriteMBps}, {DiskLatency.Name, &s.DiskAvgLatencyMs},
		{MemUsed.Name, &s.MemUsedBytes}, {MemCached.Name, &s.MemCachedBytes},
		{"server_cpu_pct", &s.ServerCPUPct}, {"driver_cpu_pct", &s.DriverCPUPct},
		{ServerReadIOPS.Name, &s.ServerReadIOPS}, {ServerWriteIOPS.Name, &s.ServerWriteIOPS},
		{ServerReadMBps.Name, &s.ServerReadMBps}, {ServerWriteMBps.Name, &s.ServerWriteMBps},
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

// A Figure names one host figure for every view: Name is its stored
// column and JSON key, Head its heading in a table, Unit what it counts.
// Of reads it from a Host.
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

// Of is h's value of the figure (0 for a name Host lacks).
func (f Figure) Of(h *Host) float64 {
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
	}
	return 0
}

// MeanHost is the mean of each figure over hs (the memory figures rounded
// to the nearest byte); the zero Host for none.
func MeanHost(hs []Host) Host {
	var out Host
	if len(hs) == 0 {
		return out
	}
	each := make([][]Column, len(hs))
	for j := range hs {
		each[j] = hs[j].Columns()
	}
	for i, c := range out.Columns() {
		sum := 0.0
		for j := range each {
			sum += each[j][i].Float()
		}
		switch p := c.Ptr.(type) {
		case *float64:
			*p = sum / float64(len(hs))
		case *uint64:
			*p = uint64(math.Round(sum / float64(len(hs))))
		}
	}
	return out
}
