package fit

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/capacity"
)

// oracle predicts NOPM by a formula, ±band, once something was measured.
type oracle struct {
	nopm   func(c Candidate) float64
	band   float64
	learnt int
}

func (o *oracle) Learn(Candidate, Measured) error { o.learnt++; return nil }

func (o *oracle) Predict(c Candidate) (*capacity.Prediction, string) {
	if o.learnt == 0 {
		return nil, "nothing measured yet"
	}
	n := o.nopm(c)
	return &capacity.Prediction{NOPM: n, NOPMLow: n - o.band, NOPMHigh: n + o.band, Limit: capacity.LimitCPU}, ""
}

// TestSearchPredicted: the model learns first from the candidate with the
// most resources; a candidate predicted far below the target is never
// measured; --measure-all measures it; a cheaper one within reach is
// measured, and one that misses dominates those with fewer resources.
func TestSearchPredicted(t *testing.T) {
	cands := Price(base(t), 1, Enumerate([]float64{0.5, 1, 2, 4}, nil, nil, nil))
	measure := func(c Candidate) []float64 { return []float64{1000 * c.Cpus} }
	for _, tc := range []struct {
		name       string
		predicted  func(c Candidate) float64
		measureAll bool
		order      string // cpus measured, in order
		verdicts   string
	}{
		{"a clear miss is not measured", func(c Candidate) float64 { return 1000 * c.Cpus }, false,
			"4 2", "predicted to miss,predicted to miss,meets,meets"},
		{"--measure-all measures it", func(c Candidate) float64 { return 1000 * c.Cpus }, true,
			"0.5 1 2", "misses,misses,meets,not needed"},
		{"within reach: measured, cheapest first", func(c Candidate) float64 {
			return map[float64]float64{0.5: 500, 1: 1750, 2: 2000, 4: 4000}[c.Cpus]
		}, false, "4 1 2", "dominated,misses,meets,meets"},
		{"a prediction too high is corrected by measurement", func(c Candidate) float64 { return 5000 }, false,
			"4 0.5 1 2", "misses,misses,meets,meets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{nopm: func(c Candidate) []float64 { return measure(c) }}
			o := Options{Predictor: &oracle{nopm: tc.predicted, band: 100}, MeasureAll: tc.measureAll}
			res, err := SearchWith(context.Background(), cands, f, Criteria{TargetNOPM: 1800, Drift: quiet}, o)
			if err != nil {
				t.Fatal(err)
			}
			var order, verdicts []string
			for _, c := range f.measured {
				order = append(order, fmt.Sprint(c.Cpus))
			}
			for _, tr := range res.Trials {
				verdicts = append(verdicts, tr.Verdict)
			}
			if strings.Join(order, " ") != tc.order || strings.Join(verdicts, ",") != tc.verdicts {
				t.Errorf("measured %v, verdicts %v; want %s and %s", order, verdicts, tc.order, tc.verdicts)
			}
			if res.Best != 2 {
				t.Errorf("best %d, want cpus 2", res.Best)
			}
			ans := res.Answer("USD", nil)
			if by := strings.Contains(ans, "ruled out by prediction"); by != strings.Contains(tc.verdicts, PredictedMiss) {
				t.Errorf("answer %q: says ruled out by prediction = %v", ans, by)
			}
		})
	}
}

// TestPredictedMissReason names the prediction, its limit and the gap.
func TestPredictedMissReason(t *testing.T) {
	got := predictedMissReason(capacity.Prediction{NOPM: 4100, NOPMLow: 3900, NOPMHigh: 4300, Limit: capacity.LimitReads}, 5000)
	want := "not measured: predicted NOPM 4,100 (3,900 to 4,300; limit: I/O reads), below the target 5,000 by 18.0 %"
	if got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
}
