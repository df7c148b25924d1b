package telemetry

import (
	"context"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rightsize/rightsize/figures"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestSummarize(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name    string
		samples []Sample
		want    Summary
	}{
		{name: "empty", samples: nil, want: Summary{}},
		{
			name: "one sample, two disks",
			samples: []Sample{{
				At: t0, Interval: time.Second,
				Host: figures.Host{CPUUserPct: 30, CPUSystemPct: 10, CPUIowaitPct: 5, CPUIdlePct: 50, CPUStealPct: 5, CPUBusyPct: 45,
					MemUsedBytes: 100, MemCachedBytes: 50},
				Disks: []DiskSample{
					{Name: "sda", ReadIOPS: 100, WriteIOPS: 100, ReadMBps: 1, WriteMBps: 2, AvgLatencyMs: 1, UtilPct: 20},
					{Name: "sdb", ReadIOPS: 0, WriteIOPS: 50, ReadMBps: 0, WriteMBps: 4, AvgLatencyMs: 6, UtilPct: 70},
				},
				MemTotalBytes: 1000,
				Procs:         figures.Procs{ServerCPUPct: 150, DriverCPUPct: 20},
			}},
			want: Summary{
				Samples: 1,
				Host: figures.Host{CPUBusyPct: 45, CPUIdlePct: 50, CPUIowaitPct: 5, CPUUserPct: 30, CPUSystemPct: 10, CPUStealPct: 5,
					DiskReadIOPS: 100, DiskWriteIOPS: 150, DiskReadMBps: 1, DiskWriteMBps: 6,
					DiskAvgLatencyMs: (200*1 + 50*6) / 250.0, MemUsedBytes: 100, MemCachedBytes: 50},
				DiskMaxUtilPct: 70, MemTotalBytes: 1000,
				Procs: figures.Procs{ServerCPUPct: 150, DriverCPUPct: 20},
			},
		},
		{
			name: "means over samples, latency weighted by I/O count",
			samples: []Sample{
				{At: t0, Interval: time.Second, Host: figures.Host{CPUBusyPct: 20, CPUIdlePct: 80, CPUUserPct: 20, MemUsedBytes: 10, MemCachedBytes: 3},
					Disks:         []DiskSample{{Name: "sda", ReadIOPS: 1000, AvgLatencyMs: 1, UtilPct: 50}},
					MemTotalBytes: 100, Procs: figures.Procs{ServerCPUPct: 100, DriverCPUPct: 10}},
				{At: t0.Add(time.Second), Interval: time.Second, Host: figures.Host{CPUBusyPct: 60, CPUIdlePct: 30, CPUIowaitPct: 10, CPUUserPct: 60,
					MemUsedBytes: 20, MemCachedBytes: 4},
					Disks:         []DiskSample{{Name: "sda", WriteIOPS: 10, AvgLatencyMs: 100, UtilPct: 10}},
					MemTotalBytes: 100, Procs: figures.Procs{ServerCPUPct: 300, DriverCPUPct: 30}},
			},
			want: Summary{
				Samples: 2,
				Host: figures.Host{CPUBusyPct: 40, CPUIdlePct: 55, CPUIowaitPct: 5, CPUUserPct: 40,
					DiskReadIOPS: 500, DiskWriteIOPS: 5, DiskAvgLatencyMs: (1000*1 + 10*100) / 1010.0,
					MemUsedBytes: 15, MemCachedBytes: 4}, // 3.5 rounds half up
				DiskMaxUtilPct: 30, MemTotalBytes: 100, Procs: figures.Procs{ServerCPUPct: 200, DriverCPUPct: 20},
			},
		},
		{
			name: "no I/O: latency 0; zero interval counts as 1 s",
			samples: []Sample{
				{Disks: []DiskSample{{Name: "sda"}}, Host: figures.Host{CPUIdlePct: 100}},
				{Disks: []DiskSample{{Name: "sda"}}, Host: figures.Host{CPUIdlePct: 100}},
			},
			want: Summary{Samples: 2, Host: figures.Host{CPUIdlePct: 100}},
		},
		{
			name: "longer interval weighs more in latency",
			samples: []Sample{
				{Interval: 3 * time.Second, Disks: []DiskSample{{ReadIOPS: 10, AvgLatencyMs: 2}}},
				{Interval: time.Second, Disks: []DiskSample{{ReadIOPS: 10, AvgLatencyMs: 6}}},
			},
			want: Summary{Samples: 2, Host: figures.Host{DiskReadIOPS: 10, DiskAvgLatencyMs: (30*2 + 10*6) / 40.0}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Summarize(tc.samples)
			floats := []struct {
				name      string
				got, want float64
			}{
				{"CPUBusyPct", got.CPUBusyPct, tc.want.CPUBusyPct},
				{"CPUIdlePct", got.CPUIdlePct, tc.want.CPUIdlePct},
				{"CPUIowaitPct", got.CPUIowaitPct, tc.want.CPUIowaitPct},
				{"CPUUserPct", got.CPUUserPct, tc.want.CPUUserPct},
				{"CPUSystemPct", got.CPUSystemPct, tc.want.CPUSystemPct},
				{"CPUStealPct", got.CPUStealPct, tc.want.CPUStealPct},
				{"DiskReadIOPS", got.DiskReadIOPS, tc.want.DiskReadIOPS},
				{"DiskWriteIOPS", got.DiskWriteIOPS, tc.want.DiskWriteIOPS},
				{"DiskReadMBps", got.DiskReadMBps, tc.want.DiskReadMBps},
				{"DiskWriteMBps", got.DiskWriteMBps, tc.want.DiskWriteMBps},
				{"DiskAvgLatencyMs", got.DiskAvgLatencyMs, tc.want.DiskAvgLatencyMs},
				{"DiskMaxUtilPct", got.DiskMaxUtilPct, tc.want.DiskMaxUtilPct},
				{"ServerCPUPct", got.ServerCPUPct, tc.want.ServerCPUPct},
				{"DriverCPUPct", got.DriverCPUPct, tc.want.DriverCPUPct},
			}
			for _, f := range floats {
				if !near(f.got, f.want, 1e-9) {
					t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
				}
			}
			if got.Samples != tc.want.Samples || got.MemUsedBytes != tc.want.MemUsedBytes ||
				got.MemCachedBytes != tc.want.MemCachedBytes || got.MemTotalBytes != tc.want.MemTotalBytes {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestSampleFigures: a sample is stored with every host figure it has,
// the disks summed and their latency weighted by IOPS.
func TestSampleFigures(t *testing.T) {
	s := Sample{At: time.Unix(1000, 0), Host: figures.Host{CPUUserPct: 1, CPUSystemPct: 2, CPUIowaitPct: 3, CPUIdlePct: 4, CPUStealPct: 5, CPUBusyPct: 6,
		MemUsedBytes: 7, MemCachedBytes: 8, ServerReadIOPS: 11, ServerWriteIOPS: 12, ServerReadMBps: 13, ServerWriteMBps: 14},
		Disks: []DiskSample{{Name: "sda", ReadIOPS: 10, WriteIOPS: 30, ReadMBps: 1, WriteMBps: 2, AvgLatencyMs: 2},
			{Name: "sdb", ReadIOPS: 0, WriteIOPS: 10, WriteMBps: 4, AvgLatencyMs: 7}},
		Procs: figures.Procs{ServerCPUPct: 9, DriverCPUPct: 10}}
	want := figures.HostSample{At: s.At, Host: figures.Host{CPUUserPct: 1, CPUSystemPct: 2, CPUIowaitPct: 3, CPUIdlePct: 4, CPUStealPct: 5, CPUBusyPct: 6,
		DiskReadIOPS: 10, DiskWriteIOPS: 40, DiskReadMBps: 1, DiskWriteMBps: 6, DiskAvgLatencyMs: (40*2 + 10*7) / 50.0,
		MemUsedBytes: 7, MemCachedBytes: 8, ServerReadIOPS: 11, ServerWriteIOPS: 12, ServerReadMBps: 13, ServerWriteMBps: 14},
		Procs: figures.Procs{ServerCPUPct: 9, DriverCPUPct: 10}}
	got := s.Figures()
	if got.Disks == "" {
		t.Error("no per-disk document")
	}
	got.Disks = ""
	if got != want {
		t.Errorf("Figures() = %+v\nwant %+v", got, want)
	}
}

func TestWindow(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var ss []Sample
	for i := 1; i <= 10; i++ { // sample i covers (t0+i-1, t0+i]
		ss = append(ss, Sample{At: t0.Add(time.Duration(i) * time.Second), Interval: time.Second, Host: figures.Host{CPUBusyPct: float64(i)}})
	}
	sec := func(f float64) time.Time { return t0.Add(time.Duration(f * float64(time.Second))) }
	tests := []struct {
		from, to float64
		want     []float64
	}{
		{0, 10, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{0, 3, []float64{1, 2, 3}},
		{3, 10, []float64{4, 5, 6, 7, 8, 9, 10}},
		{2.4, 4.6, []float64{3, 4, 5}}, // midpoints 2.5, 3.5, 4.5
		{20, 30, nil},
		{5, 5, nil},
		{6, 5, nil},
	}
	for _, tc := range tests {
		got := Window(ss, sec(tc.from), sec(tc.to))
		var ids []float64
		for _, s := range got {
			ids = append(ids, s.CPUBusyPct)
		}
		if len(ids) != len(tc.want) {
			t.Errorf("Window(%v,%v) = %v, want %v", tc.from, tc.to, ids, tc.want)
			continue
		}
		for i := range ids {
			if ids[i] != tc.want[i] {
				t.Errorf("Window(%v,%v) = %v, want %v", tc.from, tc.to, ids, tc.want)
				break
			}
		}
	}
	// Adjacent windows partition the samples.
	a, b := Window(ss, sec(0), sec(4.2)), Window(ss, sec(4.2), sec(11))
	if len(a)+len(b) != len(ss) {
		t.Errorf("adjacent windows hold %d+%d samples, want %d", len(a), len(b), len(ss))
	}
	if got := len(since(ss, sec(7))); got != 3 {
		t.Errorf("since(7) = %d samples, want 3", got)
	}
}

func TestPhysicalDisksByName(t *testing.T) {
	tests := []struct {
		names []string
		want  []string
	}{
		{[]string{"loop0", "loop1", "sda", "sda1", "sda2", "sdb", "sdb1", "zram0", "ram0"}, []string{"sda", "sdb"}},
		{[]string{"nvme0n1", "nvme0n1p1", "nvme0n1p2", "nvme1n1", "dm-0", "dm-1", "md0"}, []string{"nvme0n1", "nvme1n1"}},
		{[]string{"mmcblk0", "mmcblk0p1", "vda", "vda1", "xvda", "xvda1"}, []string{"mmcblk0", "vda", "xvda"}},
		{[]string{"disk0", "disk0s1", "disk1"}, []string{"disk0", "disk1"}},
		{[]string{"sda1", "sda2"}, []string{"sda1", "sda2"}},                        // partitions only: keep them
		{[]string{"dm-0", "loop0"}, []string{"dm-0"}},                               // nothing physical: fall back
		{[]string{"C:", "D:"}, []string{"C:", "D:"}},                                // Windows volumes
		{[]string{"sda", "sdaa", "sdab1", "sdab"}, []string{"sda", "sdaa", "sdab"}}, // letters are not partitions
	}
	for _, tc := range tests {
		keep := physicalDisksByName(tc.names)
		var got []string
		for _, n := range tc.names {
			if keep[n] {
				got = append(got, n)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%v: kept %v, want %v", tc.names, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%v: kept %v, want %v", tc.names, got, tc.want)
				break
			}
		}
	}
}

func TestFillCPU(t *testing.T) {
	prev := cpuTimes{user: 100, nice: 10, system: 50, idle: 1000, iowait: 20, irq: 1, softirq: 4, steal: 0}
	cur := cpuTimes{user: 130, nice: 20, system: 60, idle: 1040, iowait: 15 /* went back */, irq: 3, softirq: 12, steal: 10}
	var s Sample
	fillCPU(&s, &prev, &cur)
	// Δ user+nice 40, system+irq+softirq 20, idle 40, iowait 0 (clamped), steal 10: total 110.
	want := map[string][2]float64{
		"user": {s.CPUUserPct, 40.0 / 110 * 100}, "system": {s.CPUSystemPct, 20.0 / 110 * 100},
		"idle": {s.CPUIdlePct, 40.0 / 110 * 100}, "iowait": {s.CPUIowaitPct, 0}, "steal": {s.CPUStealPct, 10.0 / 110 * 100},
		"busy": {s.CPUBusyPct, 70.0 / 110 * 100},
	}
	for k, v := range want {
		if !near(v[0], v[1], 1e-9) {
			t.Errorf("%s = %v, want %v", k, v[0], v[1])
		}
	}
	var z Sample
	fillCPU(&z, &prev, &prev)
	if z.CPUIdlePct != 100 || z.CPUBusyPct != 0 {
		t.Errorf("no elapsed ticks: %+v", z)
	}
	// All idle over 11 ticks: 11 * (100/11) is 100.00000000000001 in
	// floating point, which once failed TestRecording's range check.
	idle := prev
	idle.idle += 11
	var a Sample
	fillCPU(&a, &prev, &idle)
	if a.CPUIdlePct != 100 || a.CPUBusyPct != 0 {
		t.Errorf("an all-idle interval: idle %v, busy %v; want 100, 0", a.CPUIdlePct, a.CPUBusyPct)
	}
}

func TestDiskSamplesMath(t *testing.T) {
	prev := []diskCounter{
		{name: "sda", reads: 100, writes: 100, readBytes: 0, writeBytes: 0, readMs: 1000, writeMs: 1000, ioMs: 500},
		{name: "sdb", reads: 5, writes: 5, readMs: math.MaxUint32 - 10, writeMs: 0, ioMs: math.MaxUint32 - 100},
	}
	cur := []diskCounter{
		{name: "sdc", reads: 1}, // new disk: skipped this time
		{name: "sda", reads: 300, writes: 400, readBytes: 4e6, writeBytes: 8e6, readMs: 1200, writeMs: 1900, ioMs: 1500},
		{name: "sdb", reads: 6, writes: 5, readMs: 9, writeMs: 0, ioMs: 100}, // 32-bit wrap of the ms counters
	}
	got := diskSamples(prev, cur, 2)
	if len(got) != 2 {
		t.Fatalf("got %d disks, want 2: %+v", len(got), got)
	}
	a := got[0]
	if a.Name != "sda" || a.ReadIOPS != 100 || a.WriteIOPS != 150 || a.ReadMBps != 2 || a.WriteMBps != 4 ||
		!near(a.AvgLatencyMs, 1100.0/500, 1e-9) || a.UtilPct != 50 {
		t.Errorf("sda = %+v", a)
	}
	b := got[1]
	if b.ReadIOPS != 0.5 || b.AvgLatencyMs != 20 || !near(b.UtilPct, 201.0/2000*100, 1e-9) {
		t.Errorf("sdb = %+v", b)
	}
}

// tickAfter primes a fresh sampler, runs f, and returns the next sample.
func tickAfter(t *testing.T, s *Sampler, f func()) Sample {
	t.Helper()
	s.reset()
	if _, _, err := s.tick(); err != nil {
		t.Fatal(err)
	}
	f()
	smp, ok, err := s.tick()
	if err != nil || !ok {
		t.Fatalf("tick: ok=%v err=%v", ok, err)
	}
	return smp
}

func checkRanges(t *testing.T, s Sample) {
	t.Helper()
	pcts := map[string]float64{
		"user": s.CPUUserPct, "system": s.CPUSystemPct, "iowait": s.CPUIowaitPct,
		"idle": s.CPUIdlePct, "steal": s.CPUStealPct, "busy": s.CPUBusyPct,
	}
	for k, v := range pcts {
		if v < 0 || v > 100 || math.IsNaN(v) {
			t.Errorf("CPU %s = %v, want 0..100", k, v)
		}
	}
	if sum := s.CPUBusyPct + s.CPUIdlePct + s.CPUIowaitPct; !near(sum, 100, 0.01) {
		t.Errorf("busy+idle+iowait = %v, want 100", sum)
	}
	if sum := s.CPUUserPct + s.CPUSystemPct + s.CPUIowaitPct + s.CPUIdlePct + s.CPUStealPct; !near(sum, 100, 0.01) {
		t.Errorf("user+system+iowait+idle+steal = %v, want 100", sum)
	}
	if s.MemTotalBytes == 0 || s.MemUsedBytes == 0 || s.MemUsedBytes > s.MemTotalBytes || s.MemCachedBytes > s.MemTotalBytes {
		t.Errorf("memory used %d cached %d total %d", s.MemUsedBytes, s.MemCachedBytes, s.MemTotalBytes)
	}
	if s.DriverCPUPct < 0 || s.DriverCPUPct > 100*float64(runtime.NumCPU())+10 {
		t.Errorf("DriverCPUPct = %v", s.DriverCPUPct)
	}
	if s.Interval <= 0 || s.At.IsZero() {
		t.Errorf("At %v Interval %v", s.At, s.Interval)
	}
	for _, d := range s.Disks {
		if d.Name == "" || d.ReadIOPS < 0 || d.WriteIOPS < 0 || d.ReadMBps < 0 || d.WriteMBps < 0 ||
			d.AvgLatencyMs < 0 || d.UtilPct < 0 || d.UtilPct > 100 {
			t.Errorf("disk %+v", d)
		}
	}
}

func TestSampleRanges(t *testing.T) {
	readers := map[string]hostReader{"default": newHostReader(), "gopsutil": newPsutilHost()}
	for name, h := range readers {
		t.Run(name, func(t *testing.T) {
			s := NewSampler(0, 0)
			s.host = h
			smp := tickAfter(t, s, func() { time.Sleep(300 * time.Millisecond) })
			checkRanges(t, smp)
			if smp.ServerCPUPct != 0 || smp.ServerProcs != 0 {
				t.Errorf("no server watched, got %v%% %d procs", smp.ServerCPUPct, smp.ServerProcs)
			}
			t.Logf("%+v", smp)
		})
	}
}

func TestDriverCPU(t *testing.T) {
	s := NewSampler(0, 0)
	var stop atomic.Bool
	var got, wall time.Duration
	smp := tickAfter(t, s, func() {
		cpu0, t0 := SelfCPU(), time.Now()
		defer func() { got, wall = SelfCPU()-cpu0, time.Since(t0) }()
		done := make(chan struct{})
		go func() {
			defer close(done)
			x := 0
			for !stop.Load() {
				for i := 0; i < 1000; i++ {
					x += i * i
				}
			}
			_ = x
		}()
		time.Sleep(500 * time.Millisecond)
		stop.Store(true)
		<-done
	})
	checkRanges(t, smp)
	// One goroutine spinning for the whole interval is ~100 % of a core on
	// a quiet machine, less on a loaded one: compare with what the process
	// really got (rusage over the same half second), not a fixed figure.
	if want := got.Seconds() / wall.Seconds() * 100; smp.DriverCPUPct < 0.5*want || smp.DriverCPUPct > 1.5*want+5 || smp.DriverCPUPct <= 0 {
		t.Errorf("DriverCPUPct = %.1f with a spinning goroutine; the process used %.1f %% of a core over the interval", smp.DriverCPUPct, want)
	}
	t.Logf("DriverCPUPct = %.1f (rusage %.1f), busy = %.1f", smp.DriverCPUPct, got.Seconds()/wall.Seconds()*100, smp.CPUBusyPct)
}

func TestSelfCPUMonotonic(t *testing.T) {
	a := SelfCPU()
	x := 0
	for i := 0; i < 5_000_000; i++ {
		x += i ^ x
	}
	_ = x
	b := SelfCPU()
	if a <= 0 || b < a {
		t.Errorf("SelfCPU %v then %v", a, b)
	}
}

func TestRecording(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	r := Start(ctx, 50*time.Millisecond, 0)
	deadline := time.Now().Add(5 * time.Second)
	for len(r.Samples()) < 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	ss := r.Stop()
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ss) < 3 {
		t.Fatalf("got %d samples in 5 s at 50 ms", len(ss))
	}
	for i, s := range ss {
		checkRanges(t, s)
		if i > 0 && !s.At.After(ss[i-1].At) {
			t.Errorf("sample %d not after %d", i, i-1)
		}
	}
	if got := len(r.Since(start)); got != len(ss) {
		t.Errorf("Since(start) = %d samples, want %d", got, len(ss))
	}
	if got := len(r.Window(start, ss[len(ss)-1].At)); got != len(ss) {
		t.Errorf("Window(start, last.At) = %d samples, want %d", got, len(ss))
	}
	n := len(r.Stop())
	if n != len(ss) {
		t.Errorf("second Stop returned %d samples, want %d", n, len(ss))
	}

	// A sampler runs once at a time.
	s := NewSampler(time.Hour, 0)
	rec := s.Start(context.Background())
	for deadline := time.Now().Add(5 * time.Second); !s.running.Load() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if err := s.Run(context.Background(), nil); err != ErrRunning {
		t.Errorf("second Run: %v, want ErrRunning", err)
	}
	rec.Stop()
}
