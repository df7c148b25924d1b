// This file is the step layer of "why it stops" (see package waits' doc for
// the four layers): the engine's wait sampler opened, started and stopped
// around a step's measured interval, the step's Saturation derived from its
// host telemetry (a counter profile is then completed with the server's
// CPU: waits.Profile.AddServerCPU).
// Package diagnosis judges what it fills; analysis/why.go stores it.

package scenario

import (
	"context"
	"runtime"
	"slices"
	"time"

	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/telemetry"
	"github.com/rightsize/rightsize/waits"
)

// stepWaits samples the waits of one step: opened before the users start,
// started when measuring begins, stopped when it ends. A missing sampler
// (an engine without one, a sampler that could not open) leaves a profile
// that says why; the step goes on either way.
type stepWaits struct {
	s       waits.Sampler
	rec     *waits.Recording
	missing string
}

// openWaits opens the engine's sampler, or nil when waits are off.
func (a *Autopilot) openWaits(ctx context.Context) *stepWaits {
	if a.NoWaits {
		return nil
	}
	src, ok := a.DB.(waits.Source)
	if !ok {
		return &stepWaits{missing: a.DB.Engine() + " has no wait sampler"}
	}
	s, err := src.WaitSampler(ctx, a.waitInterval())
	if err != nil {
		return &stepWaits{missing: "open the wait sampler: " + err.Error()}
	}
	return &stepWaits{s: s}
}

func (a *Autopilot) waitInterval() time.Duration {
	if a.WaitInterval > 0 {
		return a.WaitInterval
	}
	return waits.DefaultInterval
}

// start begins sampling (called as the ramp-up ends).
func (w *stepWaits) start(ctx context.Context, interval time.Duration) {
	if w == nil || w.s == nil {
		return
	}
	rec, err := waits.Start(ctx, w.s, interval)
	if err != nil {
		w.missing = err.Error()
		return
	}
	w.rec = rec
}

// stop ends sampling and returns the profile (nil when waits are off). It
// gives the sampler's last reads 10 s (a server that died answers no more).
func (w *stepWaits) stop(ctx context.Context) *waits.Profile {
	if w == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var p *waits.Profile
	if w.rec != nil {
		var err error
		if p, err = w.rec.Stop(ctx); err != nil {
			w.missing = err.Error()
			p = nil
		}
	}
	if w.s != nil {
		w.s.Close()
	}
	if p == nil {
		p = &waits.Profile{Source: "none"}
	}
	if w.missing != "" {
		p.Missing = append(p.Missing, w.missing)
	}
	return p
}

// serverSide tells where the database server runs.
type serverSide int

const (
	serverWatched   serverSide = iota // a process on this host whose CPU is sampled
	serverInProcess                   // inside the driver (SQLite)
	serverElsewhere                   // not watched: maybe another host
)

func serverOf(hasServer bool, pid int) serverSide {
	switch {
	case !hasServer:
		return serverInProcess
	case pid > 0:
		return serverWatched
	}
	return serverElsewhere
}

// saturation derives a step's resource saturation from its measured host
// samples. The database's disk is the one that served the most I/O. The
// server may use capCPUs cores (0: the host's). An engine that runs inside
// the driver (SQLite) has the driver's CPU as the server's, and no driver
// of its own; for a server that is not watched (maybe on another host) the
// host's busy CPU says nothing about it and is left out.
func saturation(samples []telemetry.Sample, sum telemetry.Summary, side serverSide, capCPUs float64) *waits.Saturation {
	if len(samples) == 0 {
		return nil
	}
	s := &waits.Saturation{Cores: float64(runtime.NumCPU()), ServerCores: sum.ServerCores(), DriverCores: sum.DriverCores(),
		HostBusyPct: figures.CPUBusy.Of(&sum.Host)}
	if capCPUs > 0 {
		s.Cores = min(s.Cores, capCPUs)
	}
	switch side {
	case serverInProcess:
		s.ServerCores, s.DriverCores = s.DriverCores, 0
	case serverElsewhere:
		s.HostBusyPct = 0
	}
	ios := map[string]float64{}
	for _, x := range samples {
		s.MajorFaultsPerSec += x.MajorFaultsPerSec / float64(len(samples))
		s.ReclaimPagesPerSec += x.ReclaimPagesPerSec / float64(len(samples))
		for _, d := range x.Disks {
			ios[d.Name] += d.ReadIOPS + d.WriteIOPS
		}
	}
	for name, n := range ios {
		if n > ios[s.Disk] || s.Disk == "" {
			s.Disk = name
		}
	}
	var lat []float64
	for _, x := range samples {
		for _, d := range x.Disks {
			if d.Name != s.Disk {
				continue
			}
			if d.ReadIOPS+d.WriteIOPS > 0 {
				lat = append(lat, d.AvgLatencyMs)
			}
			s.QueueDepth += d.QueueDepth / float64(len(samples))
			s.MaxInFlight = max(s.MaxInFlight, d.InFlight)
		}
	}
	s.DiskP50Ms, s.DiskP99Ms = percentile(lat, 0.50), percentile(lat, 0.99)
	return s
}

// percentile is the nearest-rank percentile q (0..1) of v; 0 for none.
func percentile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	i := int(q*float64(len(v))+0.999999) - 1
	return v[max(0, min(i, len(v)-1))]
}
