// Package figures defines the host figures once, at the bottom of the
// import graph: telemetry produces them, store persists them as they are
// (the JSON keys are also the stored column names), and the views read them
// from there. It holds data only and imports nothing of rightsize.
//
// Units: CPU in % of all CPUs (see package telemetry for how the kernel's
// categories are folded: busy = 100 − idle − iowait, steal counts as busy),
// server and driver CPU in % of one core, MB = 10^6 bytes, latency in ms.
package figures

import "time"

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
