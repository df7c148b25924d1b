package interleave

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/rightsize/rightsize/report"
	"github.com/rightsize/rightsize/steady"
)

// judgeOverall tests each figure's mean over the common steps. The gate
// decides on these alone, one decision per gated figure (NOPM, the TPC-C
// figure of merit, with --max-regression; New-Order p90 with
// --max-latency-regression) on the one-sided p of "B is not worse by more
// than the threshold", Holm over the gated figures: identical A and B fail
// it with probability at most Alpha, less the more rounds show them
// within the threshold. TPM and the steps are shown, not gated. The
// verdict (worse, better, not distinguishable) is the test against no
// difference, Holm over the gated figures too.
func (v *Verdict) judgeOverall(rounds []map[string]roundFigures, th report.Thresholds) {
	v.Overall = Step{}
	limits := [3]float64{report.NotGated, th.MaxRegression, th.MaxLatencyRegression}
	var gated []int
	for i := range v.names {
		f, ok := v.figure(rounds, i, 0)
		if !ok {
			continue
		}
		f.PAdjusted = f.P
		if f.P < Alpha {
			f.Verdict = f.direction()
		}
		if limits[i] >= 0 {
			f.gate(limits[i])
			gated = append(gated, len(v.Overall.Figures))
		}
		v.Overall.Figures = append(v.Overall.Figures, f)
	}
	worse, beyond := make([]float64, len(gated)), make([]float64, len(gated))
	for k, j := range gated {
		worse[k], beyond[k] = v.Overall.Figures[j].PWorse, *v.Overall.Figures[j].PBeyond
	}
	worse, beyond = steady.Holm(worse), steady.Holm(beyond)
	for k, j := range gated {
		f := &v.Overall.Figures[j]
		f.PAdjusted, f.PBeyondAdjusted, f.Verdict = worse[k], &beyond[k], report.NotDistinguishable
		switch {
		case worse[k] < Alpha:
			f.Verdict = report.Worse
		case (1-f.PWorse)*float64(len(gated)) < Alpha:
			f.Verdict = report.Better
		}
		f.Regression = beyond[k] < Alpha && f.SlowerPct > *f.MaxRegressionPct
	}
	v.family = max(len(gated), 1)
	v.DetectablePct = v.detectable(v.Rounds)
}

// gate sets f's threshold (a fraction of A) and its one-sided p of "B is
// not worse by more than it".
func (f *Figure) gate(limit float64) {
	pct := limit * 100
	f.MaxRegressionPct = &pct
	var p float64
	if f.HigherIsBetter { // worse: B/A below 1 − limit
		p = f.log.PLessThan(math.Log(1 - limit))
	} else { // worse: B/A above 1 + limit
		p = 1 - f.log.PLessThan(math.Log(1+limit))
	}
	f.PBeyond = &p
}

// detectable is the smallest NOPM regression over all steps, %, that n
// rounds at the scatter of the measured ones detect with Power, the gate
// deciding at Alpha over its gated figures whether NOPM is worse by more
// than its threshold (0: not known).
func (v *Verdict) detectable(n int) float64 {
	for _, f := range v.Overall.Figures {
		if f.Figure != v.names[1] {
			continue
		}
		d := steady.MinDetectable(f.ScatterPct/100, n, Alpha/float64(v.family), Power, 1)
		if math.IsNaN(d) {
			return 0
		}
		if f.MaxRegressionPct != nil { // the regression must show beyond the threshold
			d -= math.Log(1 - *f.MaxRegressionPct/100)
		}
		return (1 - math.Exp(-d)) * 100
	}
	return 0
}

// close sets the gate's outcome and closing line.
func (v *Verdict) close(th report.Thresholds) {
	v.Gated, v.Passed, v.Failures = th.Gated(), true, []string{}
	for _, f := range v.Overall.Figures {
		if f.Regression {
			v.Passed = false
			v.Failures = append(v.Failures, v.line("all steps", f))
		}
	}
	runs := fmt.Sprintf("B (%s B) against A (%s A) over %d interleaved rounds", v.Label, v.Label, v.Rounds)
	switch {
	case !v.Gated:
		v.Line = runs + ": not gated (give --max-regression to gate)"
	case !v.Passed:
		v.Line = fmt.Sprintf("gate FAILED: %s regressed on %d figure(s) beyond the threshold (paired rounds, one-sided %g %%)", runs, len(v.Failures), Alpha*100)
	default:
		v.Line = fmt.Sprintf("gate passed: %s, no gated figure worse beyond its threshold at one-sided %g %%", runs, Alpha*100)
	}
}

// line states one figure.
func (v *Verdict) line(scope string, f Figure) string {
	why, p := f.Verdict, f.PAdjusted
	if f.Regression {
		why = fmt.Sprintf("REGRESSION, B is %.1f %% worse, more than the %g %% allowed", f.SlowerPct, *f.MaxRegressionPct)
		p = *f.PBeyondAdjusted
	}
	return fmt.Sprintf("%s %s: B/A %.3fx (%g %% interval %.3f-%.3f, p %.3g): %s",
		scope, f.Figure, f.Ratio, v.Confidence*100, f.Low, f.High, p, why)
}

// Write prints the comparison: one row per step and figure, the means
// over all steps, what the rounds could detect and the gate's lines (the
// closing line only when it passed: a failed one is the caller's error).
func (v *Verdict) Write(w io.Writer) {
	fmt.Fprintf(w, "\nB against A over %d interleaved rounds (ABBA order), the ratio B/A of each round paired:\n", v.Rounds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "users\tfigure\tA\tB\tB/A\t%g %% interval\tscatter\tp\tverdict\n", v.Confidence*100)
	row := func(scope string, f Figure) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.3fx\t%.3f-%.3f\t%.1f %%\t%.3g\t%s\n", scope, f.Figure, mean(f.A, f.HigherIsBetter),
			mean(f.B, f.HigherIsBetter), f.Ratio, f.Low, f.High, f.ScatterPct, f.PAdjusted, f.gateVerdict())
	}
	for _, s := range v.Steps {
		for _, f := range s.Figures {
			row(fmt.Sprint(s.Users), f)
		}
	}
	for _, f := range v.Overall.Figures {
		row("all", f)
	}
	tw.Flush()
	fmt.Fprintf(w, "p: the paired t test's, two-sided and Holm-adjusted over the steps; a gated figure's one-sided (B worse), Holm over the gated figures\n")
	fmt.Fprintf(w, "a gated figure fails when B is worse by more than its threshold at one-sided %g %% (Holm over the gated figures)\n", Alpha*100)
	fmt.Fprintln(w, v.DetectableLine())
	for _, l := range v.Failures {
		fmt.Fprintln(w, "  FAIL "+l)
	}
	if v.Passed { // a failed gate's line is the command's error
		fmt.Fprintln(w, v.Line)
	}
}

// DetectableLine says the smallest regression the rounds could detect.
func (v *Verdict) DetectableLine() string {
	if v.DetectablePct <= 0 {
		return "the rounds did not scatter: the smallest regression they could detect cannot be told"
	}
	s := fmt.Sprintf("this comparison could detect a change of %.0f %% or more in %s over all steps (%g %% power at the rounds' scatter of %.1f %%, one-sided %g %%)",
		math.Ceil(v.DetectablePct), v.names[1], Power*100, v.scatter(), Alpha*100)
	if more := 2 * v.Rounds; v.Rounds < 10 {
		s += fmt.Sprintf("; %d rounds would detect %.0f %%", more, math.Ceil(v.detectable(more)))
	}
	return s
}

func (v *Verdict) scatter() float64 {
	for _, f := range v.Overall.Figures {
		if f.Figure == v.names[1] {
			return f.ScatterPct
		}
	}
	return 0
}

// gateVerdict is f's verdict, and for a gated figure whether the rounds
// showed it beyond its threshold (p: PBeyondAdjusted).
func (f Figure) gateVerdict() string {
	if f.MaxRegressionPct == nil || f.PBeyondAdjusted == nil || f.Verdict != report.Worse {
		return f.Verdict
	}
	if f.Regression {
		return fmt.Sprintf("%s by more than the %g %% allowed (p %.3g)", f.Verdict, *f.MaxRegressionPct, *f.PBeyondAdjusted)
	}
	return fmt.Sprintf("%s, not shown beyond the %g %% allowed (p %.3g)", f.Verdict, *f.MaxRegressionPct, *f.PBeyondAdjusted)
}

// mean formats the mean of x: whole numbers for throughput, ms for latency.
func mean(x []float64, throughput bool) string {
	var s float64
	for _, v := range x {
		s += v
	}
	s /= float64(len(x))
	if throughput {
		return fmt.Sprintf("%.0f", s)
	}
	return strings.TrimSpace(fmt.Sprintf("%.2f ms", s))
}
