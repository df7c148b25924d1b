package interleave

import (
	"io"

	"github.com/rightsize/rightsize/report"
)

// Report is the verdict in compare's shape (report.Verdicts), for its
// JUnit XML: the means over the rounds as A's and B's values, the paired
// ratio's interval as the ratio's.
func (v *Verdict) Report() *report.Verdicts {
	rv := &report.Verdicts{A: report.RunRef{Label: v.Label + " A"}, B: report.RunRef{Label: v.Label + " B"}, Confidence: v.Confidence}
	for _, s := range v.Steps {
		rv.Steps = append(rv.Steps, report.StepVerdict{Users: s.Users, RepeatsA: v.Rounds, RepeatsB: v.Rounds,
			Figures: reportFigures(s.Figures), Verdict: combined(s.Figures)})
	}
	rv.Overall = report.OverallVerdict{Users: v.Users, SameSteps: true, Figures: reportFigures(v.Overall.Figures), Verdict: combined(v.Overall.Figures)}
	if v.Gated {
		g := &report.GateResult{Passed: v.Passed, Failures: v.Failures, Passes: []string{}, Verdict: v.Line}
		rv.Gate = g
	}
	return rv
}

// WriteJUnit writes the verdict as compare's JUnit XML.
func (v *Verdict) WriteJUnit(w io.Writer) error { return v.Report().WriteJUnit(w) }

func reportFigures(fs []Figure) []report.FigureVerdict {
	out := make([]report.FigureVerdict, 0, len(fs))
	for _, f := range fs {
		est := func(x []float64) report.Estimate {
			var s float64
			for _, v := range x {
				s += v
			}
			return report.Estimate{Value: s / float64(len(x)), Interval: "paired rounds"}
		}
		out = append(out, report.FigureVerdict{Figure: f.Figure, HigherIsBetter: f.HigherIsBetter, A: est(f.A), B: est(f.B),
			Ratio: f.Ratio, RatioHalf: (f.High - f.Low) / 2, SlowerPct: f.SlowerPct, Verdict: f.Verdict,
			MaxRegressionPct: f.MaxRegressionPct, Regression: f.Regression})
	}
	return out
}

// combined is a step's verdict from its throughput figures, as compare's.
func combined(fs []Figure) string {
	out := report.NotDistinguishable
	for _, f := range fs {
		switch {
		case !f.HigherIsBetter:
		case f.Verdict == report.Worse:
			return report.Worse
		case f.Verdict == report.Better:
			out = report.Better
		}
	}
	return out
}
