package waits

// Saturation is how close a step's resources came to their limits over the
// measured interval, from the host telemetry.
type Saturation struct {
	// Disk is the device holding the database: the disk that served the
	// most I/O during the step.
	Disk string `json:"disk,omitempty"`
	// DiskP50Ms and DiskP99Ms are percentiles of that disk's per-second
	// average I/O latency (seconds without I/O left out).
	DiskP50Ms float64 `json:"disk_p50_ms"`
	DiskP99Ms float64 `json:"disk_p99_ms"`
	// QueueDepth is the disk's mean number of I/Os in flight (aqu-sz);
	// MaxInFlight the most in flight at any sample.
	QueueDepth  float64 `json:"queue_depth"`
	MaxInFlight float64 `json:"max_in_flight"`
	// ServerCores is the cores the database server used (mean; 0 when its
	// processes are not on this host) out of Cores it may use (the host's
	// logical CPUs, or its cap).
	ServerCores float64 `json:"server_cores"`
	Cores       float64 `json:"cores"`
	// DriverCores is the cores rightsize itself used (mean).
	DriverCores float64 `json:"driver_cores"`
	// HostBusyPct is the host's CPU busy share (mean, % of all CPUs).
	HostBusyPct float64 `json:"host_busy_pct"`
	// MajorFaultsPerSec and ReclaimPagesPerSec are the host's memory
	// pressure (means).
	MajorFaultsPerSec  float64 `json:"major_faults_per_s"`
	ReclaimPagesPerSec float64 `json:"reclaim_pages_per_s"`
}

// MeanSaturation averages saturations across repeats (nil ones ignored;
// nil when there is none). The disk is the first one named.
func MeanSaturation(ss []*Saturation) *Saturation {
	var out Saturation
	n := 0.0
	for _, s := range ss {
		if s == nil {
			continue
		}
		n++
		if out.Disk == "" {
			out.Disk = s.Disk
		}
		out.DiskP50Ms += s.DiskP50Ms
		out.DiskP99Ms += s.DiskP99Ms
		out.QueueDepth += s.QueueDepth
		out.MaxInFlight = max(out.MaxInFlight, s.MaxInFlight)
		out.ServerCores += s.ServerCores
		out.Cores = max(out.Cores, s.Cores)
		out.DriverCores += s.DriverCores
		out.HostBusyPct += s.HostBusyPct
		out.MajorFaultsPerSec += s.MajorFaultsPerSec
		out.ReclaimPagesPerSec += s.ReclaimPagesPerSec
	}
	if n == 0 {
		return nil
	}
	for _, p := range []*float64{&out.DiskP50Ms, &out.DiskP99Ms, &out.QueueDepth, &out.ServerCores, &out.DriverCores,
		&out.HostBusyPct, &out.MajorFaultsPerSec, &out.ReclaimPagesPerSec} {
		*p /= n
	}
	return &out
}

// AddServerCPU completes a counter-based profile (which times waits only)
// with the server's CPU over the interval (s.ServerCores) as the CPU class,
// so that shares of active time compare with sampled profiles. Nothing is
// added when p is nil or sampled, or the server's CPU is unknown.
func (p *Profile) AddServerCPU(s *Saturation) {
	if p == nil || p.Sampled || s == nil || s.ServerCores <= 0 || p.Seconds <= 0 {
		return
	}
	p.Events = append(p.Events, Event{Class: CPU, Name: "CPU (server time)", Seconds: s.ServerCores * p.Seconds})
	p.Normalize()
}
