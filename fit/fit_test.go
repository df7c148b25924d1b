package fit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/cost"
	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/store"
)

const costs = `configs:
  - name: vm
    host_cores: 16
    vm_cores: 2
    memory_gb: 1
    hardware:
      - {item: vCPU, per: vm_core, price: 450}
      - {item: memory, per: memory_gb, price: 40}
    licences:
      - {name: DB, per: vm_core, pack: 2, pack_price: 1000, minimum: 2}
`

func base(t *testing.T) cost.Config {
	t.Helper()
	f, err := cost.Parse("costs.yaml", []byte(costs))
	if err != nil {
		t.Fatal(err)
	}
	return *f.Find("vm")
}

// fake measures by a formula: NOPM per repeat and the New-Order p90.
type fake struct {
	nopm func(c Candidate) []float64
	p90  func(c Candidate) float64
	// half, when set, is each repeat's NOPM half-width (batch means).
	half     func(c Candidate) []float64
	measured []Candidate
}

func (f *fake) Measure(_ context.Context, c Candidate) (Measured, error) {
	f.measured = append(f.measured, c)
	var steps []store.Step
	for i, n := range f.nopm(c) {
		for u, scale := range map[int]float64{4: 1, 2: 0.6} {
			p90 := 5.0
			if f.p90 != nil {
				p90 = f.p90(c)
			}
			half := 0.0
			if f.half != nil {
				half = f.half(c)[i] * scale
			}
			steps = append(steps, store.Step{Repeat: i + 1, Index: map[int]int{2: 0, 4: 1}[u], Users: u, NOPM: n * scale, TPM: 2.2 * n * scale,
				NOPMCIHalf: half, Confidence: 0.95, Txn: []store.TxnSummary{{Type: "new_order", Txn: figures.Txn{Count: 100, P90Ms: p90}}}})
		}
	}
	return MeasuredOf(fmt.Sprintf("run-%d", len(f.measured)), steps), nil
}

const M = 1 << 20

func TestPrice(t *testing.T) {
	ps := Price(base(t), 1, Enumerate([]float64{2, 0.5, 1}, []int64{512 * M, 256 * M}, nil, nil))
	var got []string
	for _, p := range ps {
		got = append(got, fmt.Sprintf("%s=%s", p.Candidate, p.Cost.Total.Cents()))
	}
	// 0.5 cpu: 225 + memory + DB at the 2-core minimum (1 pack, 1,000); 2 cpus: 900 + memory + 1,000.
	want := []string{"cpus 0.5, memory 256M=1,235.00", "cpus 0.5, memory 512M=1,245.00", "cpus 1, memory 256M=1,460.00",
		"cpus 1, memory 512M=1,470.00", "cpus 2, memory 256M=1,910.00", "cpus 2, memory 512M=1,920.00"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("priced\n %s\nwant\n %s", strings.Join(got, "\n "), strings.Join(want, "\n "))
	}
	// 3 cpus need 2 DB packs.
	if p := Price(base(t), 1, []Candidate{{Cpus: 3}}); p[0].Cost.Licences[0].Packs != 2 || p[0].Cost.Total.Cents() != "3,390.00" {
		t.Errorf("3 cpus: %d packs, total %s; want 2 packs, 3,390.00 (1,350 + 40 + 2,000)", p[0].Cost.Licences[0].Packs, p[0].Cost.Total.Cents())
	}
}

func TestSearch(t *testing.T) {
	perCPU := func(c Candidate) []float64 { return []float64{1000 * c.Cpus} }
	// eight repeats, the slowest 950 per cpu: mean 1,000 ± 22 for 1 cpu
	spread := func(c Candidate) []float64 {
		return []float64{950 * c.Cpus, 1050 * c.Cpus, 1000, 1000, 1000, 1000, 1000, 1000}
	}
	for _, c := range []struct {
		name       string
		cpus       []float64
		mem        []int64
		io         []string
		nopm       func(Candidate) []float64
		p90        func(Candidate) float64
		cr         Criteria
		wantBest   string // "" for no fit
		wantTried  []string
		wantVerdct map[string]string
	}{
		{name: "low target: the cheapest meets, nothing else measured", cpus: []float64{0.5, 1}, nopm: perCPU,
			cr: Criteria{TargetNOPM: 400}, wantBest: "cpus 0.5", wantTried: []string{"cpus 0.5"},
			wantVerdct: map[string]string{"cpus 1": NotNeeded}},
		{name: "high target: only the larger meets", cpus: []float64{0.5, 1}, nopm: perCPU,
			cr: Criteria{TargetNOPM: 800}, wantBest: "cpus 1", wantTried: []string{"cpus 0.5", "cpus 1"}},
		{name: "more memory is tried, a cheaper miss with less does not dominate it", cpus: []float64{0.5, 2}, mem: []int64{256 * M, 512 * M},
			nopm: perCPU, cr: Criteria{TargetNOPM: 1500}, wantBest: "cpus 2, memory 256M",
			wantTried:  []string{"cpus 0.5, memory 256M", "cpus 0.5, memory 512M", "cpus 2, memory 256M"},
			wantVerdct: map[string]string{"cpus 2, memory 512M": NotNeeded}},
		{name: "an I/O limit is skipped when the same size without one missed", cpus: []float64{0.5, 2}, io: []string{"none", "riops=200"},
			nopm: perCPU, cr: Criteria{TargetNOPM: 1500}, wantBest: "cpus 2, io none",
			wantTried:  []string{"cpus 0.5, io none", "cpus 2, io none"},
			wantVerdct: map[string]string{"cpus 0.5, io riops=200": Dominated, "cpus 2, io riops=200": NotNeeded}},
		{name: "the slowest repeat decides by default", cpus: []float64{1, 2}, nopm: func(c Candidate) []float64 { return []float64{900 * c.Cpus, 1300 * c.Cpus} },
			cr: Criteria{TargetNOPM: 1000}, wantBest: "cpus 2", wantTried: []string{"cpus 1", "cpus 2"}},
		{name: "mean confidence: the t interval across repeats lies above the target", cpus: []float64{1, 2},
			nopm: spread, cr: Criteria{TargetNOPM: 970, Mean: true}, wantBest: "cpus 1", wantTried: []string{"cpus 1"}},
		{name: "the same repeats with the slowest judged miss", cpus: []float64{1, 2},
			nopm: spread, cr: Criteria{TargetNOPM: 970}, wantBest: "cpus 2", wantTried: []string{"cpus 1", "cpus 2"}},
		{name: "p90 over the limit misses", cpus: []float64{1, 2}, nopm: perCPU, p90: func(c Candidate) float64 { return 40 / c.Cpus },
			cr: Criteria{TargetNOPM: 100, MaxP90Ms: 25}, wantBest: "cpus 2", wantTried: []string{"cpus 1", "cpus 2"}},
		{name: "judged at a users step", cpus: []float64{1, 2}, nopm: perCPU,
			cr: Criteria{TargetNOPM: 700, AtUsers: 2}, wantBest: "cpus 2", wantTried: []string{"cpus 1", "cpus 2"}}, // 600 at 2 users for 1 cpu
		{name: "no fit", cpus: []float64{0.5, 1}, nopm: perCPU, cr: Criteria{TargetNOPM: 2000}, wantTried: []string{"cpus 0.5", "cpus 1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &fake{nopm: c.nopm, p90: c.p90}
			c.cr.Drift = quiet
			res, err := Search(context.Background(), Price(base(t), 1, Enumerate(c.cpus, c.mem, c.io, nil)), m, c.cr)
			var tried []string
			for _, x := range m.measured {
				tried = append(tried, x.String())
			}
			if strings.Join(tried, "; ") != strings.Join(c.wantTried, "; ") {
				t.Errorf("measured %q, want %q", tried, c.wantTried)
			}
			if c.wantBest == "" {
				if !errors.Is(err, ErrNoFit) || res.Best != -1 || res.Closest < 0 {
					t.Fatalf("err %v, best %d, closest %d; want ErrNoFit and the closest", err, res.Best, res.Closest)
				}
				if got := res.Trials[res.Closest].Candidate.String(); got != "cpus 1" || fmt.Sprintf("%.0f", res.Shortfall()) != "50" {
					t.Errorf("closest %s, shortfall %.1f %%; want cpus 1, 50 %%", got, res.Shortfall())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Trials[res.Best].Candidate.String(); got != c.wantBest {
				t.Errorf("best %s, want %s", got, c.wantBest)
			}
			if len(res.Trials) != len(Enumerate(c.cpus, c.mem, c.io, nil)) {
				t.Errorf("%d trials, want one per candidate", len(res.Trials))
			}
			for _, tr := range res.Trials {
				if v, ok := c.wantVerdct[tr.Candidate.String()]; ok && tr.Verdict != v {
					t.Errorf("%s: %s (%s), want %s", tr.Candidate, tr.Verdict, tr.Reason, v)
				}
				if tr.Reason == "" {
					t.Errorf("%s: no reason", tr.Candidate)
				}
			}
		})
	}
}

func TestDominates(t *testing.T) {
	for _, c := range []struct {
		a, b Candidate
		want bool
	}{
		{Candidate{Cpus: 2}, Candidate{Cpus: 1}, true},
		{Candidate{Cpus: 1}, Candidate{Cpus: 2}, false},
		{Candidate{Cpus: 2, Memory: 512 * M}, Candidate{Cpus: 1, Memory: 256 * M}, true},
		{Candidate{Cpus: 2, Memory: 256 * M}, Candidate{Cpus: 1, Memory: 512 * M}, false},
		{Candidate{Cpus: 1, Version: "17"}, Candidate{Cpus: 1, Version: "15"}, false},
		{Candidate{Cpus: 1, IO: "none"}, Candidate{Cpus: 1, IO: "riops=200"}, true},
		{Candidate{Cpus: 1, IO: "riops=200"}, Candidate{Cpus: 1, IO: "none"}, false},
		{Candidate{Cpus: 1, IO: "riops=2000,wiops=500"}, Candidate{Cpus: 1, IO: "riops=200:wiops=100"}, true},
		{Candidate{Cpus: 1, IO: "riops=2000"}, Candidate{Cpus: 1, IO: "riops=200,wiops=100"}, true}, // a leaves writes free
		{Candidate{Cpus: 1, IO: "riops=200,wiops=100"}, Candidate{Cpus: 1, IO: "riops=2000"}, false},
		{Candidate{Cpus: 1, IO: "rbps=1G"}, Candidate{Cpus: 1, IO: "rbps=512M"}, true},
	} {
		if got := Dominates(c.a, c.b); got != c.want {
			t.Errorf("Dominates(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestTarget(t *testing.T) {
	steps := analysis.Aggregate([]store.Step{{Index: 0, Users: 1, NOPM: 500, Repeat: 1}, {Index: 1, Users: 4, NOPM: 1200, Repeat: 1}, {Index: 2, Users: 8, NOPM: 1100, Repeat: 1}})
	if n, err := TargetFrom(steps, 0); err != nil || Target(n, 20) != 1440 {
		t.Errorf("peak 1,200 + 20 %% = %v (%v), want 1,440", Target(n, 20), err)
	}
	if n, err := TargetFrom(steps, 1); err != nil || n != 500 {
		t.Errorf("at 1 user: %v %v, want 500", n, err)
	}
	if _, err := TargetFrom(steps, 3); err == nil {
		t.Error("a users count the run does not have is accepted")
	}
}

func TestText(t *testing.T) {
	b := base(t)
	bigCfg := b.Scaled(decimal.NewFromInt(8), nil)
	big := bigCfg.Price(1)
	big.Name = "big"
	m := &fake{nopm: func(c Candidate) []float64 { return []float64{1000 * c.Cpus} }}
	res, err := Search(context.Background(), Price(b, 1, Enumerate([]float64{0.5, 1, 2}, nil, nil, nil)), m, Criteria{TargetNOPM: 900, Drift: quiet})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := res.WriteText(&out, "USD", &big); err != nil {
		t.Fatal(err)
	}
	// big: 8 × 450 + 40 + 4 packs × 1,000 = 7,640; cpus 1: 450 + 40 + 1,000 = 1,490.
	for _, want := range []string{
		"cpus 1 meets NOPM 900 for USD 1,490.00, USD 6,150.00 (80.5 %) less than big (2 of 3 candidates measured)",
		"1. cpus 0.5  USD 1,265.00  misses", "NOPM 500 at 4 users (one repeat" + quietSaid + ") < target 900", "run run-1",
		"3. cpus 2    USD 1,940.00  not needed",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
	res, _ = Search(context.Background(), Price(b, 1, Enumerate([]float64{0.5, 1}, nil, nil, nil)), &fake{nopm: m.nopm}, Criteria{TargetNOPM: 4000, Drift: quiet})
	if got, want := res.Answer("USD", nil), "no configuration meets NOPM 4,000: the closest, cpus 1 (USD 1,490.00), reached 1,000, 75.0 % short"; got != want {
		t.Errorf("Answer = %q, want %q", got, want)
	}
}

// A candidate meets the target only when its judged interval lies wholly
// above it; a target inside the interval is a miss that says so; the
// answer names the candidates it cannot be told apart from.
func TestVerdictWithIntervals(t *testing.T) {
	one := func(nopm, half float64) (func(Candidate) []float64, func(Candidate) []float64) {
		return func(Candidate) []float64 { return []float64{nopm} }, func(Candidate) []float64 { return []float64{half} }
	}
	for _, c := range []struct {
		name        string
		nopm, half  func(Candidate) []float64
		cr          Criteria
		cpus        []float64
		wantVerdict string // of the first candidate
		wantReason  string
		wantAnswer  string // a part of the answer
		wantPairs   int
	}{
		{name: "interval wholly above the target meets", cr: Criteria{TargetNOPM: 970}, wantVerdict: Meets,
			wantReason: "NOPM 1,000 ± 20 at 4 users (one repeat, 95 % interval, batch means" + quietSaid + ") ≥ target 970"},
		{name: "a target inside the interval misses: not distinguishable from it", cr: Criteria{TargetNOPM: 990}, wantVerdict: Misses,
			wantReason: "NOPM 1,000 ± 20 at 4 users (one repeat, 95 % interval, batch means" + quietSaid + ") holds the target 990: not distinguishable at this precision from it"},
		{name: "interval wholly below misses", cr: Criteria{TargetNOPM: 1030}, wantVerdict: Misses, wantReason: "NOPM 1,000 ± 20 at 4 users (one repeat, 95 % interval, batch means" + quietSaid + ") < target 1,030"},
		{name: "range: the repeat whose interval reaches lowest decides", cr: Criteria{TargetNOPM: 965}, wantVerdict: Misses,
			nopm:       func(Candidate) []float64 { return []float64{1000, 1010} },
			half:       func(Candidate) []float64 { return []float64{10, 50} },
			wantReason: "NOPM 1,010 ± 50 at 4 users (lowest of 2 repeats, 95 % interval, batch means" + quietSaid + ") holds the target 965"},
		{name: "mean: repeats that disagree leave the target inside the t interval", cr: Criteria{TargetNOPM: 1000, Mean: true}, wantVerdict: Misses,
			nopm:       func(c Candidate) []float64 { return []float64{900 * c.Cpus, 1300 * c.Cpus} },
			half:       func(Candidate) []float64 { return []float64{10, 10} },
			wantReason: "(mean of 2 repeats, 95 % interval, t interval across repeats) holds the target 1,000"},
		{name: "overlapping intervals: the answer says the pair cannot be told apart", cr: Criteria{TargetNOPM: 1000}, cpus: []float64{0.5, 1},
			nopm: func(c Candidate) []float64 { return []float64{map[float64]float64{0.5: 990, 1: 1030}[c.Cpus]} },
			half: func(c Candidate) []float64 { return []float64{map[float64]float64{0.5: 30, 1: 25}[c.Cpus]} }, wantVerdict: Misses,
			wantAnswer: "cpus 1 meets NOPM 1,000 for USD 1,490.00 (2 of 2 candidates measured); not distinguishable at this precision from cpus 0.5 (NOPM 990 ± 30, misses)",
			wantPairs:  1},
		{name: "separate intervals: no pair", cr: Criteria{TargetNOPM: 1000}, cpus: []float64{0.5, 1},
			nopm: func(c Candidate) []float64 { return []float64{1200 * c.Cpus} }, half: func(Candidate) []float64 { return []float64{30} }, wantVerdict: Misses,
			wantAnswer: "cpus 1 meets NOPM 1,000 for USD 1,490.00 (2 of 2 candidates measured)"},
		{name: "no fit: the closest and the candidates it ties with", cr: Criteria{TargetNOPM: 2000}, cpus: []float64{0.5, 1},
			nopm: func(c Candidate) []float64 { return []float64{map[float64]float64{0.5: 990, 1: 1030}[c.Cpus]} },
			half: func(c Candidate) []float64 { return []float64{30} }, wantVerdict: Misses,
			wantAnswer: "the closest, cpus 1 (USD 1,490.00), reached 1,030 ± 30, 48.5 % short; not distinguishable at this precision from cpus 0.5 (NOPM 990 ± 30, misses)",
			wantPairs:  1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.nopm == nil {
				c.nopm, c.half = one(1000, 20)
			}
			if c.cpus == nil {
				c.cpus = []float64{1}
			}
			c.cr.Drift = quiet
			res, _ := Search(context.Background(), Price(base(t), 1, Enumerate(c.cpus, nil, nil, nil)), &fake{nopm: c.nopm, half: c.half}, c.cr)
			tr := res.Trials[0]
			if tr.Verdict != c.wantVerdict || !strings.Contains(tr.Reason, c.wantReason) {
				t.Errorf("%s: %s (%s); want %s (%s)", tr.Candidate, tr.Verdict, tr.Reason, c.wantVerdict, c.wantReason)
			}
			if got := res.Answer("USD", nil); !strings.Contains(got, c.wantAnswer) {
				t.Errorf("answer %q, want it to contain %q", got, c.wantAnswer)
			}
			if len(res.Indistinct) != c.wantPairs {
				t.Errorf("%d pairs not distinguishable, want %d: %v", len(res.Indistinct), c.wantPairs, res.Indistinct)
			}
		})
	}
}
