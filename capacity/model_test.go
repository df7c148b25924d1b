package capacity

import (
	"math"
	"testing"

	"github.com/rightsize/rightsize/steady"
)

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// TestMVATwoQueues checks exact MVA against the closed form of two equal
// queues and no think time: G(N) = (N+1)·D^N, X(N) = G(N−1)/G(N) = N/((N+1)·D).
func TestMVATwoQueues(t *testing.T) {
	for _, n := range []int{1, 2, 5, 20} {
		const d = 0.004
		got := mva([]station{{name: "a", demand: d, queue: true}, {name: "b", demand: d, queue: true}}, n, 0).x
		want := float64(n) / (float64(n+1) * d)
		if !near(got, want, 1e-9) {
			t.Errorf("N=%d: X %.6f, want %.6f", n, got, want)
		}
	}
	// Unequal demands: G(N) = Σ_k D1^k·D2^(N−k).
	d1, d2, n := 0.003, 0.001, 4
	g := func(n int) float64 {
		var s float64
		for k := 0; k <= n; k++ {
			s += math.Pow(d1, float64(k)) * math.Pow(d2, float64(n-k))
		}
		return s
	}
	got := mva([]station{{demand: d1, queue: true}, {demand: d2, queue: true}}, n, 0).x
	if want := g(n-1) / g(n); !near(got, want, 1e-9) {
		t.Errorf("unequal: X %.6f, want %.6f", got, want)
	}
}

// base is a step of 8 users, no think time, 1 ms of server CPU per
// transaction on 2 cores, 0.5 reads and 1 write per transaction.
func base(tpm float64) Demands {
	return Demands{
		Config: Config{CPUs: 2}, Users: 8,
		TPM:           steady.Interval{Mean: tpm, Half: tpm * 0.02},
		NewOrderShare: 0.45, NewOrderP90Ms: 4,
		CPUSec:    steady.Interval{Mean: 0.001, Half: 0.00002},
		ReadIOs:   steady.Interval{Mean: 0.5, Half: 0.01},
		WriteIOs:  steady.Interval{Mean: 1, Half: 0.02},
		ReadBytes: 0.5 * 8192, WriteBytes: 8192, IOSec: 0.0001,
	}
}

func TestPredict(t *testing.T) {
	// 2 cores at 1 ms each: at most 2000 txn/s = 120,000 TPM; measured
	// 110,000 (waits elsewhere).
	m, err := New(base(110000), ReadCurve{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		cfg    Config
		tpm    float64 // expected TPM, within 5 %
		limit  string
		atMost float64 // an operational-law bound the prediction may not pass
	}{
		{"the base itself", Config{CPUs: 2}, 110000, LimitCPU, 120000},
		{"CPU-bound at one core", Config{CPUs: 1}, 60000, LimitCPU, 60000},
		{"CPU-bound at half a core", Config{CPUs: 0.5}, 30000, LimitCPU, 30000},
		{"I/O-bound on reads", Config{CPUs: 2, ReadIOPS: 200}, 24000, LimitReads, 24000},
		{"I/O-bound on writes", Config{CPUs: 2, WriteIOPS: 300}, 18000, LimitWrites, 18000},
		{"write bandwidth", Config{CPUs: 2, WriteBps: 8192 * 100}, 6000, LimitWriteBytes, 6000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := m.Predict(tc.cfg)
			if p.TPM > tc.atMost*1.0001 || !near(p.TPM, tc.tpm, 0.05) {
				t.Errorf("TPM %.0f, want about %.0f and at most %.0f", p.TPM, tc.tpm, tc.atMost)
			}
			if p.Limit != tc.limit {
				t.Errorf("limit %q (utilisation %.2f), want %q", p.Limit, p.Utilisation, tc.limit)
			}
			if !(p.TPMLow <= p.TPM && p.TPM <= p.TPMHigh) || p.TPMHigh-p.TPMLow <= 0 {
				t.Errorf("band %.0f..%.0f does not hold %.0f", p.TPMLow, p.TPMHigh, p.TPM)
			}
			if !near(p.NOPM, p.TPM*0.45, 1e-9) {
				t.Errorf("NOPM %.0f, want TPM × 0.45", p.NOPM)
			}
		})
	}
}

// TestPredictBase: at the measured configuration the prediction is the
// measurement; its band the measurement's interval and the drift between
// runs (DefaultDrift: nothing measured it), in quadrature, and no model
// error (nothing changed).
func TestPredictBase(t *testing.T) {
	b := base(110000)
	m, err := New(b, ReadCurve{})
	if err != nil {
		t.Fatal(err)
	}
	p := m.Predict(b.Config)
	rel := math.Sqrt(0.02*0.02 + 2*math.Pow(1.645*DefaultDrift, 2))
	if !near(p.TPM, 110000, 1e-6) || !near(p.TPMLow, 110000*(1-rel), 1e-6) || !near(p.TPMHigh, 110000*(1+rel), 1e-6) {
		t.Errorf("base: %.0f (%.0f..%.0f), want 110,000 ± %.1f %%", p.TPM, p.TPMLow, p.TPMHigh, rel*100)
	}
	if len(p.Band.Kinds) != 0 || p.Band.DriftMeasured {
		t.Errorf("base: band %+v, want no kinds of change and the drift assumed", p.Band)
	}
	if !near(p.NewOrderP90Ms, 4, 1e-6) {
		t.Errorf("base New-Order p90 %.3f, want the measured 4", p.NewOrderP90Ms)
	}
	// Fewer cores: longer responses, a higher p90.
	if q := m.Predict(Config{CPUs: 1}); q.NewOrderP90Ms <= 4 {
		t.Errorf("one core: New-Order p90 %.2f, want above the measured 4", q.NewOrderP90Ms)
	}
}

// TestConcurrencyLimit: two users thinking long never saturate anything.
func TestConcurrencyLimit(t *testing.T) {
	b := base(0)
	b.Users, b.ThinkSec = 2, 10
	b.TPM = steady.Interval{Mean: 2 * 60 / 10.01, Half: 0.1}
	m, err := New(b, ReadCurve{})
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Predict(Config{CPUs: 0.5}); p.Limit != LimitConcurrency {
		t.Errorf("limit %q at utilisation %.3f, want %q", p.Limit, p.Utilisation, LimitConcurrency)
	}
}

func TestReadCurve(t *testing.T) {
	const mib = 1 << 20
	c := NewReadCurve(CachePoint{256 * mib, 4, 0.002}, CachePoint{1024 * mib, 1, 0.001}, CachePoint{0, 99, 9})
	for _, tc := range []struct {
		size int64
		want float64
	}{
		{1024 * mib, 1}, {4096 * mib, 1}, {0, 1}, {256 * mib, 4},
		{512 * mib, 2.5},     // halfway in log2 between 256M and 1G
		{128 * mib, 5.5},     // the slope of the two smallest, extended
		{1 * mib, 4 + 1.5*8}, // 8 halvings below 256M
	} {
		if got := c.at(tc.size, func(p CachePoint) float64 { return p.ReadIOs }); !near(got, tc.want, 1e-9) {
			t.Errorf("reads at %d MiB: %.3f, want %.3f", tc.size/mib, got, tc.want)
		}
	}
	if s := c.Scale(1024*mib, 256*mib); !near(s, 4, 1e-9) {
		t.Errorf("scale 1G → 256M: %.3f, want 4", s)
	}
	if s := c.CPUScale(1024*mib, 512*mib); !near(s, 1.5, 1e-9) {
		t.Errorf("CPU scale 1G → 512M: %.3f, want 1.5 (halfway in log2)", s)
	}
	if s := NewReadCurve(CachePoint{mib, 3, 0.001}).Scale(mib, 2*mib); s != 1 {
		t.Errorf("one point: scale %.3f, want 1", s)
	}
}

// TestPredictMemory: with reads measured at two cache sizes and reads
// limited, a smaller cache lowers the throughput by the reads' ratio.
func TestPredictMemory(t *testing.T) {
	const mib = 1 << 20
	b := base(110000)
	b.Config = Config{CPUs: 2, CacheBytes: 1024 * mib, ReadIOPS: 100}
	b.ReadIOs = steady.Interval{Mean: 1}
	b.TPM = steady.Interval{Mean: 5800, Half: 50} // near 100 IOPS / 1 read
	m, err := New(b, NewReadCurve(CachePoint{1024 * mib, 1, 0.001}, CachePoint{256 * mib, 4, 0.001}))
	if err != nil {
		t.Fatal(err)
	}
	p := m.Predict(Config{CPUs: 2, CacheBytes: 256 * mib, ReadIOPS: 100})
	if p.Limit != LimitReads || p.TPM > 100*60/4*1.0001 || !near(p.TPM, 100*60/4, 0.05) {
		t.Errorf("256M: TPM %.0f limit %q, want about 1,500 on %q", p.TPM, p.Limit, LimitReads)
	}
	one, _ := New(b, ReadCurve{})
	if q := one.Predict(Config{CPUs: 2, CacheBytes: 256 * mib, ReadIOPS: 100}); len(q.Notes) == 0 {
		t.Errorf("one memory size measured: the prediction should say reads were taken as measured")
	}
}

// TestDriverShares: at 2 cores on a 2-core host the driver's CPU queues
// with the server's; at 1 core it runs on the other one. Other processes'
// load during the base is taken away from every configuration's cores.
func TestDriverShares(t *testing.T) {
	b := base(0)
	b.DriverCPUSec = 0.00025
	b.Config = Config{CPUs: 2, HostCPUs: 2, DriverShares: true}
	b.TPM = steady.Interval{Mean: 1550 * 60, Half: 1000} // near 2 cores / 1.25 ms
	b.HostBusyPct = 97
	m, err := New(b, ReadCurve{})
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Predict(b.Config); p.Limit != LimitCPU || !near(p.TPM, b.TPM.Mean, 1e-6) {
		t.Errorf("base: %.0f TPM, limit %q; want the measured %.0f, CPU", p.TPM, p.Limit, b.TPM.Mean)
	}
	// one core of its own: 1 ms per transaction, at most 60,000 TPM
	if p := m.Predict(Config{CPUs: 1, HostCPUs: 2}); p.TPM > 60000*1.0001 || !near(p.TPM, 60000, 0.08) || p.Limit != LimitCPU {
		t.Errorf("cpus 1: %.0f TPM, limit %q; want about 60,000, CPU", p.TPM, p.Limit)
	}
	// 1.5 cores of the two the driver shares: the quota bounds it, at
	// most 1.5 / 1 ms = 90,000 TPM; the CPU time queues once, not at the
	// host's cores and again at the quota
	if p := m.Predict(Config{CPUs: 1.5, HostCPUs: 2, DriverShares: true}); p.TPM > 90000*1.0001 || !near(p.TPM, 90000, 0.08) || p.Limit != LimitCPU {
		t.Errorf("cpus 1.5 shared: %.0f TPM, limit %q; want about 90,000, CPU", p.TPM, p.Limit)
	}
	// half the host busy with other work during the base: a core of the
	// server's is worth half
	b.HostBusyPct = 100
	b.TPM = steady.Interval{Mean: 800 * 60, Half: 500}
	m, err = New(b, ReadCurve{})
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Predict(Config{CPUs: 1, HostCPUs: 2}); p.TPM > 30000*1.0001 || !near(p.TPM, 30000, 0.1) {
		t.Errorf("cpus 1 with a core's worth of other work: %.0f TPM, want about 30,000", p.TPM)
	}
	// the other work takes from the cores of the cpuset, not from the
	// quota: half a core's quota on the core half taken still gets its
	// half, a quarter binds
	if p := m.Predict(Config{CPUs: 0.5, HostCPUs: 2}); !near(p.TPM, 30000, 0.1) {
		t.Errorf("cpus 0.5 with a core's worth of other work: %.0f TPM, want about 30,000 as at cpus 1", p.TPM)
	}
	if p := m.Predict(Config{CPUs: 0.25, HostCPUs: 2}); p.TPM > 15000*1.0001 || !near(p.TPM, 15000, 0.1) {
		t.Errorf("cpus 0.25 with a core's worth of other work: %.0f TPM, want about 15,000, its quota", p.TPM)
	}
}

// TestQuotaCores: a quota is an absolute allowance; other processes' load
// takes from it only where it leaves the quota's own cores less free
// than the quota.
func TestQuotaCores(t *testing.T) {
	for _, tc := range []struct {
		cpus, host, free, want float64
	}{
		{0.25, 2, 0.25, 0.25}, // a quarter core, host three quarters busy: all of it (was 0.0625)
		{0.25, 2, 0.2, 0.2},   // less free on its core than the quota
		{0.5, 2, 0.75, 0.5},
		{1, 2, 0.5, 0.5}, // a whole core, half of it taken
		{1, 2, 1, 1},
		{1.5, 2, 0.5, 1}, // spans 2 cores, a core's worth free
		{1.5, 2, 0.9, 1.5},
		{2, 2, 0.5, 1},
		{4, 2, 0.5, 1},     // more than the host: its free cores
		{0.25, 0, 1, 0.25}, // host unknown
	} {
		if got := quotaCores(Config{CPUs: tc.cpus, HostCPUs: tc.host}, tc.free); !near(got, tc.want, 1e-9) {
			t.Errorf("cpus %g of %g, %.0f %% free: %g cores, want %g", tc.cpus, tc.host, tc.free*100, got, tc.want)
		}
	}
}

// TestPredictQuotaOnLoadedHost: measured at one core of a 2-core host
// while other work kept 1.5 cores busy (the server got half its core), a
// quarter-core quota is predicted at about a quarter core's throughput,
// not a quarter of what the loaded core gave (the model once scaled the
// quota by the host's free share: 0.06 cores).
func TestPredictQuotaOnLoadedHost(t *testing.T) {
	b := base(0)
	b.Users = 4
	b.Config = Config{CPUs: 1, HostCPUs: 2}
	b.DriverCPUSec = 0.0002
	b.TPM = steady.Interval{Mean: 450 * 60, Half: 300} // 0.45 cores of server CPU at 1 ms
	b.HostBusyPct = 100                                // 2 cores: 0.45 server, 0.09 driver, 1.46 others
	m, err := New(b, ReadCurve{})
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Predict(b.Config); !near(p.TPM, b.TPM.Mean, 0.01) {
		t.Errorf("base: %.0f TPM, want the measured %.0f", p.TPM, b.TPM.Mean)
	}
	// a quarter core at 1 ms (less a few % to throttling): at most 15,000 TPM
	p := m.Predict(Config{CPUs: 0.25, HostCPUs: 2})
	if p.TPM > 15000*1.0001 || p.TPM < 15000*0.8 || p.Limit != LimitCPU {
		t.Errorf("cpus 0.25: %.0f TPM, limit %q; want 12,000-15,000 (a quarter core's), CPU", p.TPM, p.Limit)
	}
}
