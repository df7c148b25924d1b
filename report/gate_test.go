package report

import (
	"bytes"
	"context"
	"encoding/xml"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/figures"
	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// gateStep is one stored step: TPM with its batch-means half-width (0:
// none) and New-Order p90; NOPM is 45 % of TPM, its half-width likewise.
type gateStep struct {
	tpm, half, p90 float64
}

// gateRun stores a run whose steps (users → one gateStep per repeat)
// carry known intervals, and returns it loaded as the reports load it.
func gateRun(t *testing.T, st *store.Store, label string, steps map[int][]gateStep) RunData {
	t.Helper()
	ctx := context.Background()
	var users []int
	reps := 0
	for u := 1; u <= 64; u++ {
		if s, ok := steps[u]; ok {
			users, reps = append(users, u), max(reps, len(s))
		}
	}
	r := &store.Run{Label: label, Users: users, Repeats: reps, StartedAt: time.Date(2026, 1, 1, 0, 0, len(label), 0, time.UTC)}
	if err := st.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	for rep := 1; rep <= reps; rep++ {
		for idx, u := range users {
			g := steps[u][rep-1]
			start := time.Date(2026, 1, 1, rep, idx, 0, 0, time.UTC)
			s := &store.Step{RunID: r.ID, Repeat: rep, Index: idx, Users: u, TPM: g.tpm, NOPM: g.tpm * 0.45, TPMPerUser: g.tpm / float64(u),
				Start: start, MeasureStart: start, MeasureEnd: start.Add(30 * time.Second),
				TPMCIHalf: g.half, NOPMCIHalf: g.half * 0.45, Confidence: 0.95,
				Txn: []store.TxnSummary{{Type: "new_order", Txn: figures.Txn{Count: 100, P90Ms: g.p90}}}}
			if err := st.AddStep(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	return finishAndLoad(t, st, r.ID)
}

func one(tpm, half, p90 float64) []gateStep { return []gateStep{{tpm, half, p90}} }

func TestGateVerdicts(t *testing.T) {
	st := storetest.Open(t)
	th := Thresholds{MaxRegression: 0.025, MaxLatencyRegression: 0.10}
	repeats := func(p90 float64, tpm ...float64) []gateStep {
		var out []gateStep
		for i, v := range tpm {
			out = append(out, gateStep{v, 0, p90 + float64(i%3-1)*0.1})
		}
		return out
	}
	// quiet is a drift between runs measured negligible: the cases below
	// it check the verdicts on the runs' own intervals
	quiet := Drifts{TPM: steady.Drift{CV: 1e-6, Runs: 100, DF: 99}, NOPM: steady.Drift{CV: 1e-6, Runs: 100, DF: 99}, P90: steady.Drift{CV: 1e-6, Runs: 100, DF: 99}}
	for _, c := range []struct {
		name       string
		drift      Drifts
		a, b       map[int][]gateStep
		th         Thresholds
		wantTPM    string // users 1's TPM verdict
		wantP90    string // users 1's p90 verdict ("" not checked)
		wantPassed bool
		wantSaid   []string // in the gate's lines
	}{
		{"clearly slower", quiet, map[int][]gateStep{1: one(1000, 10, 10)}, map[int][]gateStep{1: one(800, 10, 10)}, th,
			Worse, "", false, []string{"FAIL", "1 users TPM: B 800 ± 10 vs A 1,000 ± 10 (0.800x ± 0.013): REGRESSION, B is 20.0 % slower, more than the 2.5 % allowed, the intervals separated", "gate FAILED"}},
		{"clearly faster", quiet, map[int][]gateStep{1: one(1000, 10, 10)}, map[int][]gateStep{1: one(1200, 10, 10)}, th,
			Better, "", true, []string{"gate passed"}},
		{"overlapping, beyond the threshold", quiet, map[int][]gateStep{1: one(1000, 30, 10)}, map[int][]gateStep{1: one(970, 30, 10)}, th,
			NotDistinguishable, "", true, []string{"not a failure (B 3.0 % slower, more than the 2.5 % allowed, but the intervals overlap)",
				"a precision of ±1.5 % (--precision 1.5%) would decide a 3.0 % difference", "gate passed"}},
		{"slower within the threshold", quiet, map[int][]gateStep{1: one(1000, 5, 10)}, map[int][]gateStep{1: one(985, 5, 10)}, th,
			Worse, "", true, []string{"passes, B is 1.5 % slower, within the 2.5 % allowed", "gate passed"}},
		{"no interval, beyond the threshold", quiet, map[int][]gateStep{1: one(1000, 0, 10)}, map[int][]gateStep{1: one(900, 0, 10)}, th,
			Worse, "", false, []string{"REGRESSION, B is 10.0 % slower, more than the 2.5 % allowed, the intervals separated"}},
		{"no interval, within the threshold", quiet, map[int][]gateStep{1: one(1000, 0, 10)}, map[int][]gateStep{1: one(990, 0, 10)}, th,
			Worse, "", true, []string{"passes, B is 1.0 % slower, within the 2.5 % allowed"}},
		{"repeats, clearly slower", quiet, map[int][]gateStep{1: repeats(10, 1000, 1010, 990)}, map[int][]gateStep{1: repeats(10, 800, 810, 790)}, th,
			Worse, NotDistinguishable, false, []string{"the intervals separated"}},
		{"repeats, overlapping", quiet, map[int][]gateStep{1: repeats(10, 1000, 1100, 900)}, map[int][]gateStep{1: repeats(10, 950, 1050, 850)}, th,
			NotDistinguishable, NotDistinguishable, true, []string{"(more --repeat) would decide a 5.0 % difference"}},
		{"latency higher across repeats", quiet, map[int][]gateStep{1: repeats(10, 1000, 1010, 990)}, map[int][]gateStep{1: repeats(15, 1000, 1010, 990)}, th,
			NotDistinguishable, Worse, false, []string{"1 users New-Order p90 ms: B 15.0 ± 0.248 ms vs A 10.0 ± 0.248 ms", "REGRESSION, B is 50.0 % higher, more than the 10 % allowed, the intervals separated"}},
		{"latency higher, one repeat", quiet, map[int][]gateStep{1: one(1000, 10, 10)}, map[int][]gateStep{1: one(1000, 10, 12)}, th,
			NotDistinguishable, NotDistinguishable, true, []string{"pass 1 users New-Order p90 ms: B 12.0 ms vs A 10.0 ms (1.200x): not decided (B 20.0 % higher); " + NoIntervalNote}},
		{"B measured nothing", quiet, map[int][]gateStep{1: one(1000, 10, 10)}, map[int][]gateStep{1: one(0, 0, 10)}, th,
			Worse, "", false, []string{"REGRESSION, B is 100.0 % slower"}},
		{"latency not gated", quiet, map[int][]gateStep{1: one(1000, 10, 10)}, map[int][]gateStep{1: one(1000, 10, 12)}, Thresholds{0.025, NotGated},
			NotDistinguishable, NotDistinguishable, true, []string{"no figure worse by more than 2.5 % TPM/NOPM"}},
		// the drift between runs not measured: the default 10 % CV widens
		// single runs' intervals (±19.6 % at 95 %)
		{"15 % apart, drift not measured", Drifts{}, map[int][]gateStep{1: one(1000, 10, 10)}, map[int][]gateStep{1: one(850, 10, 10)}, th,
			NotDistinguishable, "", true, []string{"1 users TPM: B 850 ± 167 vs A 1,000 ± 196 (0.850x ± 0.236): not distinguishable at this precision, not a failure (B 15.0 % slower, more than the 2.5 % allowed, but the intervals overlap); " + DriftNotMeasuredNote,
				"gate passed", "TPM 10 % CV assumed (not measured)", "measure it with rightsize calibrate"}},
		{"half the throughput, drift not measured", Drifts{}, map[int][]gateStep{1: one(1000, 10, 10)}, map[int][]gateStep{1: one(500, 10, 10)}, th,
			Worse, "", false, []string{"REGRESSION, B is 50.0 % slower, more than the 2.5 % allowed, the intervals separated", "gate FAILED", "10 % CV assumed (not measured)"}},
		// 3 % measured over 6 runs: t(5) = 2.5706, A 1,000 ± √(10² + 77.1²) = ± 77.8
		// and B 850 ± √(10² + 65.6²) = ± 66.3 separate
		{"15 % apart, drift measured", Drifts{TPM: steady.Drift{CV: 0.03, Runs: 6, DF: 5}, NOPM: steady.Drift{CV: 0.03, Runs: 6, DF: 5}}, map[int][]gateStep{1: one(1000, 10, 10)}, map[int][]gateStep{1: one(850, 10, 10)}, th,
			Worse, "", false, []string{"1 users TPM: B 850 ± 66 vs A 1,000 ± 78", "REGRESSION", "TPM 3.0 % CV measured over 6 runs"}},
		// 5 % measured over 6 runs: A ± √(10² + (2.5706 × 50)²) = ± 128.9 and B
		// 900 ± 116.1 overlap, the drift wider than the runs' own ± 10
		{"10 % apart, wide drift measured", Drifts{TPM: steady.Drift{CV: 0.05, Runs: 6, DF: 5}, NOPM: steady.Drift{CV: 0.05, Runs: 6, DF: 5}}, map[int][]gateStep{1: one(1000, 10, 10)}, map[int][]gateStep{1: one(900, 10, 10)}, th,
			NotDistinguishable, "", true, []string{"1 users TPM: B 900 ± 116 vs A 1,000 ± 129", "the drift between runs (5.0 % CV measured over 6 runs) is wider than the runs' own intervals: rightsize ab (interleaved) or --repeat would decide it", "gate passed"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmp := Compare(gateRun(t, st, "A "+c.name, c.a), gateRun(t, st, "B "+c.name, c.b))
			cmp.DriftA, cmp.DriftB = c.drift, c.drift
			v := cmp.Verdicts(c.th)
			s := v.Steps[0]
			if s.Figures[0].Figure != FigureTPM || s.Figures[0].Verdict != c.wantTPM {
				t.Errorf("TPM verdict %q, want %q (%+v)", s.Figures[0].Verdict, c.wantTPM, s.Figures[0])
			}
			if c.wantP90 != "" && (len(s.Figures) < 3 || s.Figures[2].Verdict != c.wantP90) {
				t.Errorf("p90 figure %+v, want verdict %q", s.Figures, c.wantP90)
			}
			if v.Gate.Passed != c.wantPassed {
				t.Errorf("gate passed %v, want %v: %+v", v.Gate.Passed, c.wantPassed, v.Gate)
			}
			var out bytes.Buffer
			v.Gate.WriteLines(&out)
			out.WriteString(v.Gate.Verdict)
			for _, w := range c.wantSaid {
				if !strings.Contains(out.String(), w) {
					t.Errorf("gate does not say %q:\n%s", w, out.String())
				}
			}
			checkJUnit(t, v)
		})
	}
}

// The whole: the mean over the common steps, half-widths combined as
// independent; a step only one run measured is left out (and skipped in
// the JUnit file).
func TestGateOverall(t *testing.T) {
	st := storetest.Open(t)
	a := gateRun(t, st, "A", map[int][]gateStep{1: one(1000, 30, 10), 2: one(2000, 40, 10), 4: one(3000, 50, 10)})
	b := gateRun(t, st, "B", map[int][]gateStep{1: one(960, 30, 10), 2: one(1920, 40, 10)})
	cmp := Compare(a, b)
	// the drift between runs measured negligible: the steps' own intervals decide
	quiet := Drifts{TPM: steady.Drift{CV: 1e-6, Runs: 100, DF: 99}, NOPM: steady.Drift{CV: 1e-6, Runs: 100, DF: 99}}
	cmp.DriftA, cmp.DriftB = quiet, quiet
	v := cmp.Verdicts(Thresholds{0.025, NotGated})
	o := v.Overall.Figures[0]
	if o.A.Value != 1500 || o.B.Value != 1440 || math.Abs(o.A.Within-50.0/2) > 1e-9 || math.Abs(o.A.Half-50.0/2) > 1e-3 || o.A.Interval != FromSteps {
		t.Errorf("overall TPM %+v, want A 1500 ± 25 and B 1440 ± 25 over users 1 and 2", o)
	}
	// the steps overlap (±30 around a 40 difference, ±40 around 80 ...),
	// the mean over both separates: 1440+25 < 1500-25 — 4 % slower
	if v.Steps[0].Verdict != NotDistinguishable || o.Verdict != Worse || !o.Regression || v.Gate.Passed {
		t.Errorf("steps %q, overall %q (regression %v), gate passed %v; want overlap per step, worse overall, gate failed",
			v.Steps[0].Verdict, o.Verdict, o.Regression, v.Gate.Passed)
	}
	// with the default drift the mean over the steps is widened once, at
	// its own value, not shrunk by averaging: √(25² + (1.959964 × 0.1 × 1,500)²) = 295.056
	d := Compare(a, b).Verdicts(Thresholds{0.025, NotGated}).Overall.Figures[0]
	if math.Abs(d.A.Half-295.0556) > 1e-3 || d.Verdict != NotDistinguishable {
		t.Errorf("overall TPM with the default drift %+v, want A 1500 ± 295.056, not distinguishable", d)
	}
	if v.Steps[2].Verdict != "only in A" || len(v.Steps[2].Figures) != 0 {
		t.Errorf("step of A only: %+v", v.Steps[2])
	}
	if want := "the common steps (users 1,2) TPM"; !strings.Contains(strings.Join(v.Gate.Failures, "\n"), want) {
		t.Errorf("failures %q do not name %q", v.Gate.Failures, want)
	}
	checkJUnit(t, v)
}

// checkJUnit decodes the verdicts' JUnit file strictly and checks its
// counts against the gate.
func checkJUnit(t *testing.T, v *Verdicts) {
	t.Helper()
	var buf bytes.Buffer
	if err := v.WriteJUnit(&buf); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	d := xml.NewDecoder(&buf)
	d.Strict = true
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("JUnit XML: %v\n%s", err, buf.String())
	}
	s := doc.Suites[0]
	failed := 0
	for _, c := range s.Cases {
		if c.Failure != nil {
			failed++
		}
	}
	if len(s.Cases) != len(v.Steps)+1 || s.Tests != len(s.Cases) || failed != s.Failures || doc.Failures != failed ||
		(failed == 0) != v.Gate.Passed {
		t.Errorf("JUnit: %d cases (%d tests, %d failures, %d failed) for %d steps, gate passed %v:\n%s",
			len(s.Cases), s.Tests, s.Failures, failed, len(v.Steps), v.Gate.Passed, buf.String())
	}
}
