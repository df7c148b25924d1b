package capacity

import (
	"math"
	"strings"
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
		got := contentionGrowth(Demands{Config: tc.base}, tc.cfg)
		switch {
		case tc.want > 0 && math.Abs(got/tc.want-1) > 0.02:
			t.Errorf("%s: ×%.3f, want ×%.3f within 2 %%", tc.name, got, tc.want)
		case tc.want == 0 && got > tc.floor:
			t.Errorf("%s: ×%.3f, more than the ×%.3f measured on a contended shape", tc.name, got, tc.floor)
		}
	}
}

// contentionGrowth with the host's own measured ratios: their median
// stands for the whole-core part (either way round), the power law for
// the part below a core in procedures mode only; one ratio, or a base
// below a core, keeps the power law.
func TestContentionGrowthLearned(t *testing.T) {
	proc := func(cpus float64) Config { return Config{CPUs: cpus, HostCPUs: 2, Mode: "procedures"} }
	stmt := func(cpus float64) Config { return Config{CPUs: cpus, HostCPUs: 2, Mode: "statements"} }
	two := []CoreRatio{{From: 2, To: 1, Ratio: 0.95}, {From: 2, To: 1, Ratio: 1.03}, {From: 1, To: 0.5, Ratio: 1.4}}
	three := append([]CoreRatio{{From: 2, To: 1, Ratio: 0.80}}, two...)
	below := math.Pow(2, procContentionExponent) // one core to 0.5
	for _, tc := range []struct {
		name      string
		base, cfg Config
		rs        []CoreRatio
		want      float64
	}{
		{"two ratios: their median", proc(2), proc(1), two, 0.99},
		{"three: the middle one", proc(2), proc(1), three, 0.95},
		{"the other way round", proc(1), proc(2), two, 1 / 0.99},
		{"below a core: learned to one, the power law below", proc(2), proc(0.5), two, 0.99 * below},
		{"no quota is the host's cores", proc(0), proc(1), two, 0.99},
		{"statements: learned, nothing below a core", stmt(2), stmt(0.5), two, 0.99},
		{"one ratio is too few", proc(2), proc(1), two[:1], math.Pow(2, procContentionExponent)},
		{"none of this change", Config{CPUs: 4, HostCPUs: 4, Mode: "procedures"}, Config{CPUs: 2, HostCPUs: 4, Mode: "procedures"}, two, math.Pow(2, procContentionExponent)},
		{"a base below a core keeps the power law", proc(0.5), proc(0.25), []CoreRatio{{From: 0.5, To: 0.25, Ratio: 2}, {From: 0.5, To: 0.25, Ratio: 2}}, below},
		{"the same whole cores", proc(1), proc(0.5), two, below},
	} {
		got := contentionGrowth(Demands{Config: tc.base, CoreGrowth: tc.rs}, tc.cfg)
		if math.Abs(got/tc.want-1) > 1e-9 {
			t.Errorf("%s: ×%.4f, want ×%.4f", tc.name, got, tc.want)
		}
	}
}

// A CPU-bound base on two cores in procedures mode, predicted at one: with
// the host's ratios (×0.90, ×0.94: the median ×0.92) the CPU per
// transaction at one core is 0.92 of the base's, so the throughput at one
// core is 1/0.92 of the contention term's ÷2^0.125 (within 1 %), and the
// prediction says where that came from; with one ratio it does not.
func TestPredictLearnedGrowth(t *testing.T) {
	b := base(110000)
	b.Config = Config{CPUs: 2, HostCPUs: 2, Mode: "procedures"}
	one := Config{CPUs: 1, HostCPUs: 2, Mode: "procedures"}
	plain, err := New(b, ReadCurve{})
	if err != nil {
		t.Fatal(err)
	}
	b.CoreGrowth = []CoreRatio{{From: 2, To: 1, Ratio: 0.90, Source: "sweep a"}, {From: 2, To: 1, Ratio: 0.94, Source: "sweep b"}}
	learnt, err := New(b, ReadCurve{})
	if err != nil {
		t.Fatal(err)
	}
	p, q := plain.Predict(one), learnt.Predict(one)
	want := p.TPM * math.Pow(2, procContentionExponent) / 0.92
	if !near(q.TPM, want, 0.01) {
		t.Errorf("one core learned: TPM %.0f, want %.0f (the term's %.0f × 2^0.125 / 0.92)", q.TPM, want, p.TPM)
	}
	if !hasNote(q.Notes, "CPU per transaction from 2 to 1 cores ×0.92: the median of 2 ratios this host measured") || hasNote(p.Notes, "CPU per transaction from") {
		t.Errorf("notes: learned %q, plain %q", q.Notes, p.Notes)
	}
	b.CoreGrowth = b.CoreGrowth[:1]
	single, err := New(b, ReadCurve{})
	if err != nil {
		t.Fatal(err)
	}
	if r := single.Predict(one); !near(r.TPM, p.TPM, 1e-9) || hasNote(r.Notes, "CPU per transaction from") {
		t.Errorf("one ratio: TPM %.0f %q, want the term's %.0f and no note", r.TPM, r.Notes, p.TPM)
	}
}

func hasNote(notes []string, part string) bool {
	for _, n := range notes {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}
