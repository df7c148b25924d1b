package capacity

import (
	"math"
	"strings"
	"testing"
)

// contentionGrowth without the host's ratios: the procedures mode's power
// law below one core, against issue 48's measured CPU per transaction
// (medians of 3 rounds, bench/PREDICT.md): w8, which α was fitted on, from
// one core to 0.5 (×1.174/×1.098) within 2 %; whole cores change nothing
// (hosts measured ×0.82-1.13); the contended shapes held out of the fit
// (w2, u16) grow at least as much; statements mode, pgbench workloads and
// unknown cores not at all.
func TestContentionGrowth(t *testing.T) {
	proc := func(cpus, host float64) Config { return Config{CPUs: cpus, HostCPUs: host, Mode: "procedures"} }
	for _, tc := range []struct {
		name      string
		base, cfg Config
		want      float64 // 0: at least floor
		floor     float64
	}{
		{"whole cores: 2 → 1", proc(2, 2), proc(1, 2), 1, 0},
		{"w8 below a core: 1 → 0.5 (measured ×1.174/×1.098)", proc(1, 2), proc(0.5, 2), 1.174 / 1.098, 0},
		{"2 → 0.5: the part below one core", proc(2, 2), proc(0.5, 2), 1.174 / 1.098, 0},
		{"no quota is the host's cores", proc(0, 2), proc(0.5, 2), 1.174 / 1.098, 0},
		{"more whole cores: 1 → 2", proc(1, 2), proc(2, 2), 1, 0},
		{"from below a core to whole cores", proc(0.5, 2), proc(2, 2), 1.098 / 1.174, 0},
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
		{"one ratio is too few: whole cores change nothing", proc(2), proc(1), two[:1], 1},
		{"none of this change", Config{CPUs: 4, HostCPUs: 4, Mode: "procedures"}, Config{CPUs: 2, HostCPUs: 4, Mode: "procedures"}, two, 1},
		{"none of this change, below a core", Config{CPUs: 4, HostCPUs: 4, Mode: "procedures"}, Config{CPUs: 0.5, HostCPUs: 4, Mode: "procedures"}, two, below},
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
// core is 1/0.92 of the prediction without them (within 1 %), and the
// prediction says where that came from; with one ratio the base's CPU per
// transaction is taken as it is, and the prediction says that instead.
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
	want := p.TPM / 0.92
	if !near(q.TPM, want, 0.01) {
		t.Errorf("one core learned: TPM %.0f, want %.0f (%.0f without the ratios / 0.92)", q.TPM, want, p.TPM)
	}
	if !hasNote(p.Notes, "the server's CPU per transaction on 1 core taken as on 2: this host measured that change 0 time(s)") {
		t.Errorf("notes without the ratios %q: want the base's CPU per transaction said to be taken as it is", p.Notes)
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
