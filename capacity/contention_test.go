package capacity

import (
	"math"
	"testing"
)

// contentionGrowth: the procedures mode's power law in the server's cores,
// against issue 48's measured CPU per transaction (medians of 3 rounds,
// bench/PREDICT.md): w8, which α was fitted on, within 2 %; the contended
// shapes held out of the fit (w2, u16) grow at least as much; statements
// mode, pgbench workloads and unknown cores not at all.
func TestContentionGrowth(t *testing.T) {
	proc := func(cpus, host float64) Config { return Config{CPUs: cpus, HostCPUs: host, Mode: "procedures"} }
	for _, tc := range []struct {
		name      string
		base, cfg Config
		want      float64 // 0: at least floor
		floor     float64
	}{
		{"w8 2 → 1 (measured ×1.098)", proc(2, 2), proc(1, 2), 1.098, 0},
		{"w8 2 → 0.5 (measured ×1.174)", proc(2, 2), proc(0.5, 2), 1.174, 0},
		{"no quota is the host's cores", proc(0, 2), proc(1, 2), 1.098, 0},
		{"more cores take less", proc(1, 2), proc(2, 2), 1 / 1.098, 0},
		{"w2 2 → 0.25 grew ×1.489", proc(2, 2), proc(0.25, 2), 0, 1.489},
		{"u16 2 → 0.5 grew ×1.373", proc(2, 2), proc(0.5, 2), 0, 1.373},
		{"statements", Config{CPUs: 1, Mode: "statements"}, Config{CPUs: 0.25, Mode: "statements"}, 1, 0},
		{"a pgbench workload", Config{CPUs: 2}, Config{CPUs: 0.5}, 1, 0},
		{"cores unknown", proc(0, 0), proc(1, 0), 1, 0},
	} {
		got := contentionGrowth(tc.base, tc.cfg)
		switch {
		case tc.want > 0 && math.Abs(got/tc.want-1) > 0.02:
			t.Errorf("%s: ×%.3f, want ×%.3f within 2 %%", tc.name, got, tc.want)
		case tc.want == 0 && got > tc.floor:
			t.Errorf("%s: ×%.3f, more than the ×%.3f measured on a contended shape", tc.name, got, tc.floor)
		}
	}
}
