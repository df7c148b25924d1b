package telemetry

import (
	"testing"
)

// benchTick measures one sampler tick. Besides ns/op (wall) it reports the
// CPU the tick costs (cpu-ns/op, from getrusage, which counts the kernel
// work of reading /proc) and that as a share of one core at the default 1 s
// interval (%core@1s).
func benchTick(b *testing.B, s *Sampler) {
	b.Helper()
	s.reset()
	if _, _, err := s.tick(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := SelfCPU()
	for b.Loop() {
		if _, _, err := s.tick(); err != nil {
			b.Fatal(err)
		}
	}
	cpuPerOp := float64(SelfCPU()-cpu0) / float64(b.N)
	b.ReportMetric(cpuPerOp, "cpu-ns/op")
	b.ReportMetric(cpuPerOp/float64(DefaultInterval)*100, "%core@1s")
}

// BenchmarkSampleTick measures one tick: host counters alone, and with a
// watched server tree of 1+50 processes (a postmaster with 50 backends),
// with the /proc readers and, for comparison, the gopsutil ones.
func BenchmarkSampleTick(b *testing.B) {
	b.Run("host", func(b *testing.B) { benchTick(b, NewSampler(0, 0)) })
	b.Run("host/gopsutil", func(b *testing.B) {
		s := NewSampler(0, 0)
		s.host = newPsutilHost()
		benchTick(b, s)
	})
	pid, ok := benchServerTree(b, 50)
	if !ok {
		return
	}
	b.Run("host+server51", func(b *testing.B) { benchTick(b, NewSampler(0, pid)) })
	b.Run("host+server51/gopsutil", func(b *testing.B) {
		s := NewSampler(0, pid)
		s.host = newPsutilHost()
		s.tree = psutilTree{}
		benchTick(b, s)
	})
}

// BenchmarkSelfCPU measures the getrusage call behind SelfCPU.
func BenchmarkSelfCPU(b *testing.B) {
	for b.Loop() {
		_ = SelfCPU()
	}
}

// TestTickCost prints the CPU cost of one tick as a share of one core at a
// 1 s interval. Its only assertion is a budget 10 times the 1 % target,
// measured in CPU time rather than wall time so that a busy machine does not
// make it fail.
func TestTickCost(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	cases := []struct {
		name string
		s    *Sampler
	}{{"host", NewSampler(0, 0)}}
	if pid, ok := benchServerTree(t, 50); ok {
		cases = append(cases, struct {
			name string
			s    *Sampler
		}{"host+server51", NewSampler(0, pid)})
	}
	for _, c := range cases {
		s := c.s
		r := testing.Benchmark(func(b *testing.B) { benchTick(b, s) })
		pct := r.Extra["%core@1s"]
		wallPct := float64(r.NsPerOp()) / float64(DefaultInterval) * 100
		t.Logf("%-14s %8d ns/op wall, %8.0f CPU-ns/op, %d allocs/op => %.4f %% of one core at 1 s (%.4f %% by wall time)",
			c.name, r.NsPerOp(), r.Extra["cpu-ns/op"], r.AllocsPerOp(), pct, wallPct)
		if pct > 10 {
			t.Errorf("%s: one tick costs %.2f %% of a core at 1 s", c.name, pct)
		}
	}
}
