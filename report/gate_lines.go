package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// GateResult is the regression gate over a comparison's verdicts.
type GateResult struct {
	// MaxRegressionPct and MaxLatencyRegressionPct are the thresholds, %;
	// absent when not gated.
	MaxRegressionPct        *float64 `json:"max_regression_pct,omitempty"`
	MaxLatencyRegressionPct *float64 `json:"max_latency_regression_pct,omitempty"`
	// Passed is false when any figure regressed beyond its threshold.
	Passed bool `json:"passed"`
	// Failures has one line per failing figure.
	Failures []string `json:"failures"`
	// Passes has one line per gated figure where B is worse than A but the
	// gate passes (within the threshold, or not distinguishable).
	Passes []string `json:"passes"`
	// Verdict is the closing line.
	Verdict string `json:"verdict"`
}

// gateOf collects the gated figures' outcomes into the gate's lines.
func gateOf(v *Verdicts, th Thresholds) *GateResult {
	g := &GateResult{Passed: true, Failures: []string{}, Passes: []string{}}
	if th.MaxRegression >= 0 {
		g.MaxRegressionPct = ptr(th.MaxRegression * 100)
	}
	if th.MaxLatencyRegression >= 0 {
		g.MaxLatencyRegressionPct = ptr(th.MaxLatencyRegression * 100)
	}
	add := func(scope string, fs []FigureVerdict) {
		for _, f := range fs {
			switch {
			case f.MaxRegressionPct == nil:
			case f.Regression:
				g.Passed = false
				g.Failures = append(g.Failures, FigureLine(scope, f))
			case f.SlowerPct > 0 || f.Note == NoIntervalNote:
				g.Passes = append(g.Passes, FigureLine(scope, f))
			}
		}
	}
	for _, s := range v.Steps {
		add(strconv.Itoa(s.Users)+" users", s.Figures)
	}
	add(overallScope(v.Overall), v.Overall.Figures)
	g.Verdict = closingLine(v, g)
	return g
}

func ptr(x float64) *float64 { return &x }

// overallScope names the steps the overall figures average.
func overallScope(o OverallVerdict) string {
	if o.SameSteps {
		return "all steps"
	}
	return "the common steps (users " + fmtUsersList(o.Users) + ")"
}

// closingLine is the gate's verdict in one line.
func closingLine(v *Verdicts, g *GateResult) string {
	runs := fmt.Sprintf("B (%s) against A (%s)", v.B.Label, v.A.Label)
	var limits []string
	throughput, latency := v.figureNames()
	if g.MaxRegressionPct != nil {
		limits = append(limits, fmtThreshold(*g.MaxRegressionPct)+" "+throughput)
	}
	if g.MaxLatencyRegressionPct != nil {
		limits = append(limits, fmtThreshold(*g.MaxLatencyRegressionPct)+" "+latency)
	}
	if !g.Passed {
		return fmt.Sprintf("gate FAILED: %s regressed on %d figure(s) by more than %s; %s", runs, len(g.Failures), strings.Join(limits, ", "), driftLine(v))
	}
	return fmt.Sprintf("gate passed: %s, no figure worse by more than %s with the intervals separated; %s", runs, strings.Join(limits, ", "), driftLine(v))
}

func fmtThreshold(pct float64) string { return strconv.FormatFloat(pct, 'g', -1, 64) + " %" }

// FigureLine states one figure of B against A for the gate: values,
// ratio, and why it fails or passes.
func FigureLine(scope string, f FigureVerdict) string {
	val := func(e Estimate) string {
		s := fmtFigure(f, e.Value)
		if e.Half > 0 {
			s += " ± " + fmtFigure(f, e.Half)
		}
		if !f.HigherIsBetter {
			s += " ms"
		}
		return s
	}
	ratio := strconv.FormatFloat(f.Ratio, 'f', 3, 64) + "x"
	if f.RatioHalf > 0 {
		ratio += " ± " + strconv.FormatFloat(f.RatioHalf, 'f', 3, 64)
	}
	head := fmt.Sprintf("%s %s: B %s vs A %s (%s)", scope, f.Figure, val(f.B), val(f.A), ratio)
	return head + ": " + figureWhy(f)
}

// figureWhy is why a figure fails or passes the gate.
func figureWhy(f FigureVerdict) string {
	worse, better := "slower", "faster"
	if !f.HigherIsBetter {
		worse, better = "higher", "lower"
	}
	d := fmtPct(abs(f.SlowerPct))
	limit := ""
	if f.MaxRegressionPct != nil {
		limit = fmtThreshold(*f.MaxRegressionPct)
	}
	var why string
	switch {
	case f.Regression:
		why = fmt.Sprintf("REGRESSION, B is %s %s, more than the %s allowed, the intervals separated", d, worse, limit)
	case f.Verdict == Better:
		why = fmt.Sprintf("better, B is %s %s", d, better)
	case f.Note == NoIntervalNote:
		why = fmt.Sprintf("not decided (B %s %s)", d, worse)
		if f.SlowerPct < 0 {
			why = fmt.Sprintf("not decided (B %s %s)", d, better)
		}
	case f.SlowerPct > 0 && limit != "" && f.Verdict == Worse:
		why = fmt.Sprintf("passes, B is %s %s, within the %s allowed", d, worse, limit)
	case f.Verdict == Worse:
		why = fmt.Sprintf("worse, B is %s %s", d, worse)
	case f.SlowerPct > 0 && limit != "" && f.SlowerPct > *f.MaxRegressionPct:
		why = fmt.Sprintf("%s, not a failure (B %s %s, more than the %s allowed, but the intervals overlap)", NotDistinguishable, d, worse, limit)
	case f.SlowerPct > 0:
		why = fmt.Sprintf("%s (B %s %s)", NotDistinguishable, d, worse)
	default:
		why = fmt.Sprintf("%s (B %s %s)", NotDistinguishable, fmtPct(abs(f.SlowerPct)), better)
	}
	if f.Note != "" {
		why += "; " + f.Note
	}
	return why
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// fmtFigure formats a value of the figure: whole numbers for throughput,
// milliseconds (without the unit) for latency.
func fmtFigure(f FigureVerdict, x float64) string {
	if f.HigherIsBetter {
		return fmtInt(x)
	}
	return fmtMs(x)
}

// WriteLines writes the gate's lines: one per failing figure, one per
// gated figure that passes although B is worse. The closing line is
// Verdict.
func (g *GateResult) WriteLines(w io.Writer) {
	fmt.Fprintln(w)
	for _, l := range g.Failures {
		fmt.Fprintln(w, "  FAIL "+l)
	}
	for _, l := range g.Passes {
		fmt.Fprintln(w, "  pass "+l)
	}
}
