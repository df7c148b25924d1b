package cost

import (
	"fmt"
	"testing"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

func TestAverageIntervals(t *testing.T) {
	step := func(repeat, index int, tpm, half float64, partial bool) store.Step {
		return store.Step{Repeat: repeat, Index: index, Users: index + 1, TPM: tpm, NOPM: tpm / 2, TPMCIHalf: half, NOPMCIHalf: half / 2,
			Confidence: 0.95, Partial: partial}
	}
	for _, c := range []struct {
		name  string
		steps []store.Step
		want  string // TPM mean ± half
	}{
		{"one repeat: the steps' batch-means halves combine", []store.Step{step(1, 0, 1000, 30, false), step(1, 1, 2000, 40, false)}, "1500 ± 25.0"},
		{"a step without an interval: unknown", []store.Step{step(1, 0, 1000, 30, false), step(1, 1, 2000, 0, false)}, "1500 ± 0.0"},
		{"repeats: the t interval across them", []store.Step{step(1, 0, 1000, 5, false), step(2, 0, 1100, 5, false)}, "1050 ± 635.3"},
		{"a partial step is left out beside a complete one", []store.Step{step(1, 0, 1000, 30, false), step(2, 0, 9000, 1, true)}, "1000 ± 30.0"},
		{"no steps", nil, "0 ± 0.0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tpm, _ := averageIntervals(c.steps)
			if got := fmt.Sprintf("%.0f ± %.1f", tpm.Mean, tpm.Half); got != c.want {
				t.Errorf("average TPM %s, want %s", got, c.want)
			}
		})
	}
}

// The headline calls a configuration better only when the intervals of
// the average TPM separate.
func TestHeadlineIntervals(t *testing.T) {
	perf := func(avg, half float64) *Perf {
		return &Perf{Headline: analysis.Headline{AvgTPM: avg, AvgNOPM: avg / 2}, AvgTPMCI: steady.Interval{Mean: avg, Half: half, Confidence: 0.95}}
	}
	pct := 39.2
	for _, c := range []struct {
		name      string
		run, base *Perf
		want      string
	}{
		{"separate: beats", perf(12300, 200), perf(10000, 250), "new beats old: 1.23× its average TPM over all steps (1.23× NOPM), for 39.2 % less"},
		{"overlapping: not distinguishable", perf(10200, 300), perf(10000, 250),
			"new against old: not distinguishable at this precision (average TPM over all steps 10,200 ± 300 against 10,000 ± 250, 1.02×; 1.02× NOPM), for 39.2 % less"},
		{"unknown intervals: the ratio alone", perf(10200, 0), perf(10000, 250), "new beats old: 1.02× its average TPM over all steps (1.02× NOPM), for 39.2 % less"},
		{"overlapping and lower: not distinguishable", perf(9900, 300), perf(10000, 250),
			"new against old: not distinguishable at this precision (average TPM over all steps 9,900 ± 300 against 10,000 ± 250, 0.99×; 0.99× NOPM), for 39.2 % less"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cr := ConfigResult{Breakdown: Breakdown{Name: "new"}, Run: c.run, SavingsPct: &pct}
			cr.compare(c.base)
			if got := cr.Headline("old"); got != c.want {
				t.Errorf("Headline =\n %q\nwant\n %q", got, c.want)
			}
		})
	}
}
