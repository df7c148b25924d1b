package waits

import (
	"context"
	"reflect"
	"sync/atomic"
	"testing"
	"time"
)

func TestProfileShares(t *testing.T) {
	p := &Profile{Seconds: 10, Events: []Event{
		{Class: CPU, Name: "CPU", Seconds: 4}, {Class: Lock, Name: "Lock:tuple", Seconds: 1},
		{Class: Lock, Name: "Lock:tuple", Seconds: 2}, {Class: Client, Name: "Client:ClientRead", Seconds: 5},
		{Class: Log, Name: "IO:WALSync", Seconds: 1},
	}}
	p.Normalize()
	if len(p.Events) != 4 || p.Events[0].Name != "Client:ClientRead" || p.Events[2] != (Event{Class: Lock, Name: "Lock:tuple", Seconds: 3}) {
		t.Errorf("Normalize: %+v", p.Events)
	}
	if a := p.Active(); a != 8 {
		t.Errorf("Active = %v, want 8 (Client left out)", a)
	}
	if s := p.Share(Lock); s != 3.0/8 {
		t.Errorf("Share(Lock) = %v", s)
	}
	if e, ok := p.Top(Log); !ok || e.Name != "IO:WALSync" {
		t.Errorf("Top(Log) = %+v, %v", e, ok)
	}
	if _, ok := p.Top(IO); ok {
		t.Errorf("Top(IO) found an event")
	}
	if n := p.AverageActive(); n != 0.8 {
		t.Errorf("AverageActive = %v", n)
	}
	if len(p.ByClass()) != len(Classes) {
		t.Errorf("ByClass has %d classes", len(p.ByClass()))
	}
}

func TestMean(t *testing.T) {
	a := &Profile{Source: "pg_stat_activity", Ticks: 10, Skipped: 1, Seconds: 10, Missing: []string{"x"},
		Events: []Event{{Class: CPU, Name: "CPU", Seconds: 4, Count: 40}}, Counters: map[string]float64{"wal.wal_sync": 10},
		Locks: []LockWait{{Type: "tuple", Relation: "district", Mode: "ExclusiveLock", Samples: 4}}}
	b := &Profile{Source: "pg_stat_activity", Ticks: 20, Seconds: 20, Missing: []string{"x", "y"},
		Events: []Event{{Class: CPU, Name: "CPU", Seconds: 2, Count: 20}, {Class: Lock, Name: "Lock:tuple", Seconds: 6, Count: 60}}}
	m := Mean([]*Profile{a, nil, b})
	want := &Profile{Source: "pg_stat_activity", Ticks: 30, Skipped: 1, Seconds: 15, Missing: []string{"x", "y"},
		Events:   []Event{{Class: CPU, Name: "CPU", Seconds: 3, Count: 30}, {Class: Lock, Name: "Lock:tuple", Seconds: 3, Count: 30}},
		Counters: map[string]float64{"wal.wal_sync": 5},
		Locks:    []LockWait{{Type: "tuple", Relation: "district", Mode: "ExclusiveLock", Samples: 2}}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("Mean =\n%+v\nwant\n%+v", m, want)
	}
	if Mean([]*Profile{nil}) != nil {
		t.Errorf("Mean of nothing is not nil")
	}
	s := MeanSaturation([]*Saturation{{Disk: "sda", DiskP99Ms: 2, Cores: 2, MaxInFlight: 3}, nil, {Disk: "sdb", DiskP99Ms: 4, Cores: 2, MaxInFlight: 1}})
	if *s != (Saturation{Disk: "sda", DiskP99Ms: 3, Cores: 2, MaxInFlight: 3}) {
		t.Errorf("MeanSaturation = %+v", s)
	}
}

// slowSampler takes 3 intervals per sample.
type slowSampler struct {
	d       time.Duration
	samples atomic.Int64
}

func (s *slowSampler) Start(context.Context) error { return nil }
func (s *slowSampler) Sample(context.Context) error {
	s.samples.Add(1)
	time.Sleep(s.d)
	return nil
}
func (s *slowSampler) Profile(context.Context) (*Profile, error) {
	return &Profile{Source: "test"}, nil
}
func (s *slowSampler) Close() error { return nil }

// A sampler slower than its interval skips ticks and counts them; Stop
// returns without waiting for the ticks it missed.
func TestRecordingSkips(t *testing.T) {
	s := &slowSampler{d: 30 * time.Millisecond}
	r, err := Start(context.Background(), s, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	p, err := r.Stop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.Ticks != s.samples.Load() || p.Ticks == 0 {
		t.Errorf("Ticks %d, samples %d", p.Ticks, s.samples.Load())
	}
	if p.Skipped < p.Ticks {
		t.Errorf("Skipped %d for %d ticks of 3 intervals each", p.Skipped, p.Ticks)
	}
	if p.Seconds < 0.3 {
		t.Errorf("Seconds = %v", p.Seconds)
	}
}

func TestAddServerCPU(t *testing.T) {
	s := &Saturation{ServerCores: 1.5}
	p := &Profile{Seconds: 10, Events: []Event{{Class: Log, Name: "WRITELOG", Seconds: 5}}}
	p.AddServerCPU(s)
	if e, ok := p.Top(CPU); !ok || e.Seconds != 15 {
		t.Errorf("server CPU not added: %+v", p.Events)
	}
	sampled := &Profile{Seconds: 10, Sampled: true}
	if sampled.AddServerCPU(s); len(sampled.Events) != 0 {
		t.Errorf("CPU added to a sampled profile")
	}
	var off *Profile // --no-waits
	off.AddServerCPU(s)
}
