package main

import (
	"io"

	"github.com/rightsize/rightsize/capacity"
	"github.com/rightsize/rightsize/fit"
	"github.com/rightsize/rightsize/report"
)

// printPredictions prints a fit's round of predictions, once something
// was predicted.
func printPredictions(w io.Writer, r fit.Round, currency string) {
	for _, t := range r.Trials {
		if t.Prediction != nil {
			r.WriteText(w, currency) //nolint:errcheck // progress output
			return
		}
	}
}

// reportPrediction is a trial's prediction as the report shows it.
func reportPrediction(t fit.Trial) *report.Prediction {
	if t.Prediction == nil {
		return nil
	}
	p := reportPredictionOf(*t.Prediction)
	p.ErrorPct, p.Measured = t.PredictionError()
	return p
}

// reportPredictionOf is a capacity prediction as the report shows it.
func reportPredictionOf(p capacity.Prediction) *report.Prediction {
	return &report.Prediction{NOPM: p.NOPM, NOPMLow: p.NOPMLow, NOPMHigh: p.NOPMHigh, Limit: p.Limit}
}
