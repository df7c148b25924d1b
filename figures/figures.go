// Package figures defines the host figures once, at the bottom of the
// import graph: telemetry produces them, store persists them as they are
// (the JSON keys are also the stored column names), and the views read them
// from there. It holds data only and imports nothing of rightsize.
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
}

// HostSample is one host sample as stored (the interval ending At); units
// as in Host, the disks summed (latency I/O-weighted) with the per-disk
// figures kept as a JSON document.
type HostSample struct {
	At               time.Time `json:"at"`                  // end of the sampled interval
	CPUUserPct       float64   `json:"cpu_user_pct"`        // % of all CPUs
	CPUSystemPct     float64   `json:"cpu_system_pct"`      // % of all CPUs
	CPUIowaitPct     float64   `json:"cpu_iowait_pct"`      // % of all CPUs
	CPUIdlePct       float64   `json:"cpu_idle_pct"`        // % of all CPUs
	CPUStealPct      float64   `json:"cpu_steal_pct"`       // % of all CPUs
	CPUBusyPct       float64   `json:"cpu_busy_pct"`        // 100 − idle − iowait
	DiskReadIOPS     float64   `json:"disk_read_iops"`      // summed over disks
	DiskWriteIOPS    float64   `json:"disk_write_iops"`     // summed over disks
	DiskReadMBps     float64   `json:"disk_read_mbps"`      // summed over disks
	DiskWriteMBps    float64   `json:"disk_write_mbps"`     // summed over disks
	DiskAvgLatencyMs float64   `json:"disk_avg_latency_ms"` // I/O-weighted over disks
	MemUsedBytes     uint64    `json:"mem_used_bytes"`      // total − available
	MemCachedBytes   uint64    `json:"mem_cached_bytes"`    // reclaimable page cache
	ServerCPUPct     float64   `json:"server_cpu_pct"`      // database server, % of one core
	DriverCPUPct     float64   `json:"driver_cpu_pct"`      // rightsize itself, % of one core
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
		{"cpu_busy_pct", &h.CPUBusyPct}, {"cpu_idle_pct", &h.CPUIdlePct}, {"cpu_iowait_pct", &h.CPUIowaitPct},
		{"cpu_user_pct", &h.CPUUserPct}, {"cpu_system_pct", &h.CPUSystemPct}, {"cpu_steal_pct", &h.CPUStealPct},
		{"disk_read_iops", &h.DiskReadIOPS}, {"disk_write_iops", &h.DiskWriteIOPS},
		{"disk_read_mbps", &h.DiskReadMBps}, {"disk_write_mbps", &h.DiskWriteMBps},
		{"disk_avg_latency_ms", &h.DiskAvgLatencyMs}, {"mem_used_bytes", &h.MemUsedBytes}, {"mem_cached_bytes", &h.MemCachedBytes},
	}
}

// Columns lists s's figures in their stored order, At and Disks excepted.
func (s *HostSample) Columns() []Column {
	return []Column{
		{"cpu_user_pct", &s.CPUUserPct}, {"cpu_system_pct", &s.CPUSystemPct}, {"cpu_iowait_pct", &s.CPUIowaitPct},
		{"cpu_idle_pct", &s.CPUIdlePct}, {"cpu_steal_pct", &s.CPUStealPct}, {"cpu_busy_pct", &s.CPUBusyPct},
		{"disk_read_iops", &s.DiskReadIOPS}, {"disk_write_iops", &s.DiskWriteIOPS}, {"disk_read_mbps", &s.DiskReadMBps},
		{"disk_write_mbps", &s.DiskWriteMBps}, {"disk_avg_latency_ms", &s.DiskAvgLatencyMs},
		{"mem_used_bytes", &s.MemUsedBytes}, {"mem_cached_bytes", &s.MemCachedBytes},
		{"server_cpu_pct", &s.ServerCPUPct}, {"driver_cpu_pct", &s.DriverCPUPct},
	}
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
