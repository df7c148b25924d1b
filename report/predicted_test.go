package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/fit"
	"github.com/rightsize/rightsize/scenario"
)

// TestPredictionsShown: a sweep's and a fit's sections show predicted
// beside measured (NOPM, band, limit, error) when the model predicted,
// named by a workload's figure when the predictions are of one, and no
// predictions table when it did not.
func TestPredictionsShown(t *testing.T) {
	workloadFit := &Fit{ID: "f2", Status: "complete", Currency: "USD", TargetNOPM: 5000, Best: 0, Predicted: true, Trials: []fit.Trial{
		{Priced: priced(0.5, 0), Verdict: "meets", NOPM: 2100, Prediction: &capacity.Prediction{Figure: "TPM of every script", NOPM: 2000, NOPMLow: 1800, NOPMHigh: 2200, Limit: "CPU"}},
	}}
	sweep := testSweep()
	for i := range sweep.Points {
		if sweep.Points[i].Measured() && i > 0 {
			sweep.Points[i].Predicted = &scenario.SweepPrediction{Prediction: capacity.Prediction{NOPM: 4100, NOPMLow: 3690, NOPMHigh: 4510, Limit: "I/O reads"}, ErrorPct: -12.5}
			break
		}
	}
	fit := &Fit{ID: "f1", Status: "complete", Currency: "USD", TargetNOPM: 5000, Best: 1, Predicted: true, Trials: []fit.Trial{
		{Priced: priced(0.5, 0), Verdict: "predicted to miss", Reason: "not measured: predicted NOPM 2,000", Prediction: &capacity.Prediction{NOPM: 2000, NOPMLow: 1800, NOPMHigh: 2200, Limit: "CPU"}},
		{Priced: priced(2, 0), Verdict: "meets", NOPM: 8000, Prediction: &capacity.Prediction{NOPM: 7600, NOPMLow: 6840, NOPMHigh: 8360, Limit: "concurrency"}}, // error -5 %
	}}
	for _, tc := range []struct {
		name string
		o    Options
		want []string
	}{
		{"sweep", Options{Sweep: sweep}, []string{"NOPM predicted", "3,690 to 4,510", "I/O reads", "-12.5 %"}},
		{"fit", Options{Fit: fit}, []string{"NOPM predicted", "1,800 to 2,200", "not measured", "-5.0 %", "every other predicted"}},
		{"sweep without predictions", Options{Sweep: testSweep()}, nil},
		{"a workload's fit", Options{Fit: workloadFit}, []string{"TPM of every script measured", "TPM of every script predicted", "1,800 to 2,200"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			tc.o.Version, tc.o.Generated = "test", time.Date(2025, 3, 5, 9, 0, 0, 0, time.UTC)
			if err := HTML(&buf, nil, tc.o); err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			if tc.want == nil && strings.Contains(page, "NOPM predicted") {
				t.Error("a predictions table without predictions")
			}
		})
	}
}
