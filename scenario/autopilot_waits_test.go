package scenario

import (
	"runtime"
	"testing"
	"time"

	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/telemetry"
	"github.com/rightsize/rightsize/waits"
)

func TestSaturation(t *testing.T) {
	var samples []telemetry.Sample
	for i := range 100 {
		samples = append(samples, telemetry.Sample{At: time.Unix(int64(i), 0), MajorFaultsPerSec: 10, ReclaimPagesPerSec: 4,
			Disks: []telemetry.DiskSample{
				{Name: "sda", ReadIOPS: 1, AvgLatencyMs: 50, QueueDepth: 9},
				{Name: "vdb", WriteIOPS: 100, AvgLatencyMs: float64(i + 1), QueueDepth: 2, InFlight: float64(i % 7)},
			}})
	}
	samples = append(samples, telemetry.Sample{Disks: []telemetry.DiskSample{{Name: "vdb", QueueDepth: 2}}}) // no I/O: no latency
	s := saturation(samples, telemetry.Summary{Procs: figures.Procs{ServerCPUPct: 150, DriverCPUPct: 20}, Host: figures.Host{CPUBusyPct: 80}}, serverWatched, 0)
	want := waits.Saturation{Disk: "vdb", DiskP50Ms: 50, DiskP99Ms: 99, QueueDepth: 2, MaxInFlight: 6, ServerCores: 1.5, Cores: float64(runtime.NumCPU()),
		DriverCores: 0.2, HostBusyPct: 80, MajorFaultsPerSec: 10 * 100 / 101.0, ReclaimPagesPerSec: 4 * 100 / 101.0}
	if d := *s; d.Disk != want.Disk || d.DiskP50Ms != want.DiskP50Ms || d.DiskP99Ms != want.DiskP99Ms || d.MaxInFlight != want.MaxInFlight ||
		d.ServerCores != want.ServerCores || d.DriverCores != want.DriverCores || d.QueueDepth < 1.999 || d.QueueDepth > 2.001 ||
		d.MajorFaultsPerSec < 9.9 || d.MajorFaultsPerSec > 9.91 {
		t.Errorf("saturation %+v\nwant %+v", d, want)
	}
	if in := saturation(samples, telemetry.Summary{Procs: figures.Procs{DriverCPUPct: 90}}, serverInProcess, 0); in.ServerCores != 0.9 || in.DriverCores != 0 {
		t.Errorf("in-process engine: %+v", in)
	}
	if c := saturation(samples, telemetry.Summary{}, serverWatched, 0.5); c.Cores != 0.5 {
		t.Errorf("cap of 0.5 CPUs: cores %v", c.Cores)
	}
	if r := saturation(samples, telemetry.Summary{Host: figures.Host{CPUBusyPct: 99}}, serverElsewhere, 0); r.HostBusyPct != 0 {
		t.Errorf("a server elsewhere got the host's busy CPU: %+v", r)
	}
	if saturation(nil, telemetry.Summary{}, serverWatched, 0) != nil {
		t.Errorf("saturation of no samples")
	}
}
