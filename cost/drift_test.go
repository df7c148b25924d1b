package cost

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/drift"
	"github.com/rightsize/rightsize/internal/storetest"
	"github.com/rightsize/rightsize/store"
)

// Single runs' average TPM intervals are widened by the default 10 % CV:
// 11,500 ± √(100² + (1.959964 × 1,150)²) = ± 2,256 against 10,000 ± 1,963
// overlap, so 15 % more is not "beats"; twice as much still beats. Two
// repeats of each step keep their t interval.
func TestHeadlineDrift(t *testing.T) {
	perf := func(tpm float64, repeats int) *Perf {
		var steps []store.Step
		for r := 1; r <= repeats; r++ {
			steps = append(steps, store.Step{Repeat: r, Index: 0, Users: 1, TPM: tpm + float64(r), NOPM: tpm / 2, TPMCIHalf: 100, NOPMCIHalf: 50, Confidence: 0.95})
		}
		p := &Perf{Headline: analysis.RunFigures(analysis.Aggregate(steps))}
		p.AvgTPMCI, p.AvgNOPMCI = averageIntervals(steps)
		p.AvgTPMCI, p.AvgNOPMCI, p.Drift = widenAverages(steps, p.AvgTPMCI, p.AvgNOPMCI, drift.Figures{})
		return p
	}
	pct := 10.0
	for _, c := range []struct {
		name      string
		run, base *Perf
		want      string
	}{
		{"15 % more, single runs", perf(11500, 1), perf(10000, 1), "new against old: not distinguishable at this precision (average TPM over all steps 11,501 ± 2,256 against 10,001 ± 1,963, 1.15×; 1.15× NOPM), for 10.0 % less (a single run's interval widened by the drift between runs: 10 % CV assumed (not measured); rightsize calibrate, --repeat or rightsize ab measure it)"},
		{"twice, single runs", perf(20000, 1), perf(10000, 1), "new beats old: 2.00×"},
		{"repeated: not widened", perf(11500, 2), perf(10000, 2), "new beats old: 1.15× its average TPM over all steps (1.15× NOPM), for 10.0 % less"},
	} {
		cr := ConfigResult{Breakdown: Breakdown{Name: "new"}, Run: c.run, SavingsPct: &pct}
		cr.compare(c.base)
		if got := cr.Headline("old"); !strings.HasPrefix(got, c.want) || c.name == "repeated: not widened" && got != c.want {
			t.Errorf("%s: Headline =\n %q\nwant\n %q", c.name, got, c.want)
		}
	}
}

// With 3 stored runs of one configuration (TPM 100, 110, 90: CV 0.1 over
// 3 runs, t(0.975, 2) = 4.302653) the store's A/A history replaces the
// default: 100 ± √(1² + (4.302653 × 0.1 × 100)²) = ± 43.038.
func TestMeasuredDriftFromStore(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	var last store.Run
	for i, tpm := range []float64{100, 110, 90} {
		r := &store.Run{Source: store.SourceRightsize, Target: "embedded", Users: []int{1}, Repeats: 1,
			Env: map[string]string{"host.name": "db1"}, StartedAt: time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC)}
		if err := st.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := st.AddStep(ctx, &store.Step{RunID: r.ID, Repeat: 1, Users: 1, TPM: tpm, NOPM: tpm / 2}); err != nil {
			t.Fatal(err)
		}
		if err := st.FinishRun(ctx, r.ID, store.StatusComplete, time.Now()); err != nil {
			t.Fatal(err)
		}
		last = *r
	}
	d, err := measuredDrift(ctx, st, last)
	if err != nil {
		t.Fatal(err)
	}
	steps := []store.Step{{Repeat: 1, Users: 1, TPM: 100, NOPM: 50, TPMCIHalf: 1, NOPMCIHalf: 0.5, Confidence: 0.95}}
	tpm, _ := averageIntervals(steps)
	tpm, _, used := widenAverages(steps, tpm, tpm, d)
	if used == nil || !used.Measured() || used.Runs != 3 || math.Abs(tpm.Half-43.038) > 1e-3 {
		t.Errorf("widened %+v by %+v, want 100 ± 43.038 by a drift measured over 3 runs", tpm, used)
	}
}
