package main

import (
	"math"
	"testing"

	"github.com/rightsize/rightsize/probe/storage"
)

func p99s(v ...float64) []figures {
	fs := make([]figures, len(v))
	for i, x := range v {
		fs[i] = figures{p99Ms: x}
	}
	return fs
}

func TestPairTails(t *testing.T) {
	for _, tc := range []struct {
		name         string
		a, b         []figures
		onlyA, onlyB int
		rounds       int
	}{
		{"none", p99s(0.8, 0.9, 0.85), p99s(0.7, 0.75, 0.8), 0, 0, 3},
		// Round 2 is a tail for both (one host episode over both runs):
		// it counts for neither.
		{"both in one round", p99s(0.8, 2.0, 0.8, 0.8), p99s(0.7, 2.1, 2.2, 0.7), 0, 1, 4},
		{"lopsided", p99s(0.8, 0.8, 1.9, 0.8), p99s(2.0, 2.1, 0.7, 0.7), 1, 2, 4},
		// Only the rounds both ran are compared.
		{"unequal lengths", p99s(0.8, 0.8, 2.0), p99s(0.7, 0.7), 0, 0, 2},
		{"empty", nil, p99s(0.7), 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := pairTails(tc.a, tc.b)
			if got.onlyA != tc.onlyA || got.onlyB != tc.onlyB || got.rounds != tc.rounds {
				t.Fatalf("pairTails = %+v, want onlyA %d onlyB %d rounds %d", got, tc.onlyA, tc.onlyB, tc.rounds)
			}
		})
	}
}

func TestSignP(t *testing.T) {
	for _, tc := range []struct {
		onlyA, onlyB int
		want         float64
	}{
		{0, 0, 1},
		{1, 1, 1},
		{0, 5, 2.0 / 32},         // 2 * (1/2)^5
		{1, 4, 2 * 6.0 / 32},     // 2 * (C(5,4)+C(5,5)) / 2^5
		{7, 3, 2 * 176.0 / 1024}, // 2 * (C(10,7)+C(10,8)+C(10,9)+C(10,10)) / 2^10
	} {
		got := tailPairs{onlyA: tc.onlyA, onlyB: tc.onlyB}.signP()
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("signP(%d, %d) = %v, want %v", tc.onlyA, tc.onlyB, got, tc.want)
		}
	}
}

func TestTailRounds(t *testing.T) {
	if got := tailRounds(p99s(0.7, 1.5, 1.39, 2.2)); got != 2 {
		t.Errorf("tailRounds = %d, want 2 (over twice the lowest 0.7 ms)", got)
	}
	if got := tailRounds(nil); got != 0 {
		t.Errorf("tailRounds(nil) = %d", got)
	}
}

// slow returns a round with the given p99 whose latency distribution has
// slowPct % of the I/Os at 2 to 4 ms and the rest at 0.5 to 0.75 ms.
func slow(p99Ms, slowPct float64) figures {
	f := figures{p99Ms: p99Ms}
	for _, e := range storage.LatencyEdgesMs {
		b := storage.LatencyBucket{FromMs: e}
		switch e {
		case 0.5:
			b.Pct = 100 - slowPct
		case 2:
			b.Pct = slowPct
		}
		f.buckets = append(f.buckets, b)
	}
	return f
}

func TestCompareSlow(t *testing.T) {
	for _, tc := range []struct {
		name          string
		a, b          []figures
		ok            bool
		edgeMs        float64
		medA, medB    float64
		ratio, lo, hi float64 // lo, hi: bounds the interval must lie within
	}{
		{"equal", []figures{slow(0.6, 0.5), slow(0.7, 1.2), slow(2.1, 1.5)}, []figures{slow(0.65, 0.5), slow(0.6, 1.2), slow(1.9, 1.5)},
			true, 1, 1.2, 1.2, 1, 1, 1},
		// Twice the share in every round, up to 10 %: the interval excludes 1.
		{"twice", []figures{slow(0.6, 0.4), slow(0.6, 0.5), slow(0.6, 0.6), slow(0.6, 0.7)},
			[]figures{slow(0.7, 0.8), slow(1.4, 1.1), slow(0.7, 1.2), slow(1.5, 1.3)}, true, 1, 0.55, 1.15, 2.05, 1.6, 2.6},
		// Lowest p99 1.45 ms: twice is 2.9, the edge below it 2 ms.
		{"edge", []figures{slow(1.45, 1), slow(1.5, 1)}, []figures{slow(1.6, 1), slow(1.5, 1)}, true, 2, 1, 1, 1, 1, 1},
		// No slow I/O at all in either engine compares as equal.
		{"none slow", []figures{slow(0.6, 0), slow(0.6, 0)}, []figures{slow(0.6, 0), slow(0.6, 0)}, true, 1, 0, 0, 1, 1, 1},
		{"one round", []figures{slow(0.6, 1)}, []figures{slow(0.6, 1)}, false, 0, 0, 0, 0, 0, 0},
		{"no distribution", p99s(0.6, 0.7, 0.8), p99s(0.6, 0.7, 0.8), false, 0, 0, 0, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := compareSlow(tc.a, tc.b)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tc.ok, c)
			}
			if !ok {
				return
			}
			if c.edgeMs != tc.edgeMs || math.Abs(c.medA-tc.medA) > 1e-9 || math.Abs(c.medB-tc.medB) > 1e-9 {
				t.Errorf("edge %v medians %v %v, want %v %v %v", c.edgeMs, c.medA, c.medB, tc.edgeMs, tc.medA, tc.medB)
			}
			if math.Abs(c.ratio-tc.ratio) > 0.05*tc.ratio || c.lo < tc.lo-1e-9 || c.hi > tc.hi+1e-9 || c.lo > c.ratio || c.hi < c.ratio {
				t.Errorf("ratio %v (%v-%v), want about %v within %v-%v", c.ratio, c.lo, c.hi, tc.ratio, tc.lo, tc.hi)
			}
		})
	}
}

func TestParseEngines(t *testing.T) {
	// builtin, not fio: fio need not be installed where the tests run.
	specs, err := parseEngines("builtin, builtin,builtin:libaio,builtin")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, engine, io string }{
		{"builtin", "builtin", ""}, {"builtin#2", "builtin", ""}, {"builtin:libaio", "builtin", "libaio"}, {"builtin#3", "builtin", ""},
	}
	if len(specs) != len(want) {
		t.Fatalf("%d engines, want %d: %+v", len(specs), len(want), specs)
	}
	for i, w := range want {
		if s := specs[i]; s.name != w.name || s.opt.Engine != w.engine || s.opt.BuiltinIO != w.io {
			t.Errorf("engine %d = %q (%q, %q), want %q (%q, %q)", i, s.name, s.opt.Engine, s.opt.BuiltinIO, w.name, w.engine, w.io)
		}
	}
	if _, err := parseEngines("builtin,bogus"); err == nil {
		t.Error("parseEngines accepted an unknown engine")
	}
}

func TestRoundOrder(t *testing.T) {
	// Two engines alternate: first in one round, second in the next.
	if got := roundOrder(2, 0, 0); got[0] != 0 || got[1] != 1 {
		t.Errorf("roundOrder(2, 0, 0) = %v", got)
	}
	if got := roundOrder(2, 1, 0); got[0] != 1 || got[1] != 0 {
		t.Errorf("roundOrder(2, 1, 0) = %v", got)
	}
	// Over n consecutive rounds each of n engines runs once in every
	// position, and every round runs each engine exactly once.
	for _, n := range []int{2, 3, 4} {
		pos := make([][]int, n)
		for i := range pos {
			pos[i] = make([]int, n)
		}
		for round := range n {
			order := roundOrder(n, round, 1)
			seen := make([]bool, n)
			for p, e := range order {
				if seen[e] {
					t.Fatalf("n=%d round %d: engine %d twice in %v", n, round, e, order)
				}
				seen[e] = true
				pos[e][p]++
			}
		}
		for e := range n {
			for p := range n {
				if pos[e][p] != 1 {
					t.Errorf("n=%d: engine %d ran %d times in position %d over %d rounds", n, e, pos[e][p], p, n)
				}
			}
		}
	}
}

// rounds returns n rounds of the same IOPS and p99.
func rounds(n int, iops, p99 float64) []figures {
	fs := make([]figures, n)
	for i := range fs {
		fs[i] = figures{iops: iops, p99Ms: p99}
	}
	return fs
}

func TestAAMisses(t *testing.T) {
	same := rounds(15, 1000, 0.8)
	// In every round one run's p99 is 0.8 ms and the other's 1.6: after a
	// random swap the second label's median is 1.6 when it drew 1.6 in at
	// least 8 of 15 rounds (a miss, p99 2x) and 0.8 otherwise (a lower
	// p99, no miss), so half the swaps miss: P(Binomial(15, 1/2) >= 8).
	fast, slow := rounds(15, 1000, 0.8), rounds(15, 1000, 1.6)
	// IOPS 1000 against 1040 is within 5 % either way.
	near := rounds(15, 1040, 0.8)
	for _, tc := range []struct {
		name    string
		a, b    [][]figures
		perJob  []float64
		anyJob  float64
		withinP float64
	}{
		{"identical runs never miss", [][]figures{same, same}, [][]figures{same, same}, []float64{0, 0}, 0, 0},
		{"within 5 %", [][]figures{same}, [][]figures{near}, []float64{0}, 0, 0},
		{"p99 doubles in one run of every round", [][]figures{fast}, [][]figures{slow}, []float64{0.5}, 0.5, 0.03},
		// Two such jobs miss independently: at least one in 1-(1/2)^2.
		{"two jobs", [][]figures{fast, same}, [][]figures{slow, same}, []float64{0.5, 0}, 0.5, 0.03},
		{"two noisy jobs", [][]figures{fast, slow}, [][]figures{slow, fast}, []float64{0.5, 0.5}, 0.75, 0.03},
	} {
		// Every round's two runs are the same or differ the same way, so
		// both readings give the same answer.
		for _, r := range readings {
			t.Run(tc.name+"/"+r.name, func(t *testing.T) {
				perJob, anyJob := aaMisses(tc.a, tc.b, r, 4000, 7)
				for ji, want := range tc.perJob {
					if math.Abs(perJob[ji]-want) > tc.withinP {
						t.Errorf("job %d misses in %.3f of the swaps, want %.3f ± %.2f", ji, perJob[ji], want, tc.withinP)
					}
				}
				if math.Abs(anyJob-tc.anyJob) > tc.withinP {
					t.Errorf("at least one job misses in %.3f of the swaps, want %.3f ± %.2f", anyJob, tc.anyJob, tc.withinP)
				}
			})
		}
	}
}

// iopsRounds is one engine's rounds with the given IOPS and a p99 of 1 ms.
func iopsRounds(iops ...float64) []figures {
	fs := make([]figures, len(iops))
	for i, v := range iops {
		fs[i] = figures{iops: v, p99Ms: 1}
	}
	return fs
}

func TestReadings(t *testing.T) {
	for _, tc := range []struct {
		name             string
		a, b             []figures
		medians, paired  float64 // IOPS difference, either way
		missMed, missPai bool
	}{
		{"same rounds", iopsRounds(100, 200, 300), iopsRounds(100, 200, 300), 0, 0, false, false},
		// The device is slow in rounds 1-2, speeds up between the two
		// runs of round 3 and stays fast; b ran 2 % faster than a in every
		// round but the third. a's median is a slow round (60), b's a fast
		// one (102): the ratio of medians is the device's change of speed,
		// the paired median the engines' difference.
		{"the device speeds up within a round", iopsRounds(60, 60, 60, 100, 100), iopsRounds(61.2, 61.2, 102, 102, 102), 0.7, 0.02, true, false},
		{"b 10 % slower", iopsRounds(100, 100, 100), iopsRounds(90, 90, 90), 0.1, 0.1, true, true},
		{"b 4 % faster", iopsRounds(100, 100, 100), iopsRounds(104, 104, 104), 0.04, 0.04, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for ri, want := range []struct {
				diff float64
				miss bool
			}{{tc.medians, tc.missMed}, {tc.paired, tc.missPai}} {
				g := readings[ri].gap(tc.a, tc.b)
				if !g.ok || math.Abs(g.diffIOPS-want.diff) > 1e-9 || g.misses() != want.miss {
					t.Errorf("%s: IOPS difference %.3f (ok %v), misses %v; want %.3f, misses %v",
						readings[ri].name, g.diffIOPS, g.ok, g.misses(), want.diff, want.miss)
				}
			}
		})
	}
	if g := readings[1].gap(nil, nil); g.ok || g.misses() {
		t.Errorf("no rounds: %+v, want not ok and no miss", g)
	}
}

func TestAAControl(t *testing.T) {
	specs, err := parseEngines("builtin,builtin:libaio,builtin")
	if err != nil {
		t.Fatal(err)
	}
	if got := aaControl(specs); got != 2 {
		t.Errorf("aaControl = %d, want 2 (builtin#2; builtin:libaio is another engine)", got)
	}
	if got := aaControl(specs[:2]); got != -1 {
		t.Errorf("aaControl without a repeat = %d, want -1", got)
	}
}
