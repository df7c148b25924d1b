package cost

import (
	"strings"
	"testing"

	"github.com/rightsize/rightsize/analysis"
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
		p := &Perf{Figures: analysis.RunFigures(analysis.Aggregate(steps))}
		p.AvgTPMCI, p.AvgNOPMCI = averageIntervals(steps)
		p.AvgTPMCI, p.AvgNOPMCI, p.Drift = widenAverages(steps, p.AvgTPMCI, p.AvgNOPMCI)
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
