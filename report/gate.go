package report

import (
	"math"
	"slices"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/steady"
)

// The figures a comparison judges.
const (
	FigureTPM  = "TPM"
	FigureNOPM = "NOPM"
	FigureP90  = "New-Order p90 ms"
	// FigureP99 is judged, never gated: its verdict is in --json.
	FigureP99 = "New-Order p99 ms"
)

// NotGated is a threshold that gates nothing.
const NotGated = -1.0

// Thresholds are the regression gate's limits as fractions (0.025 for
// 2.5 %); NotGated (any negative value) leaves the figures ungated.
type Thresholds struct {
	// MaxRegression is the largest slowdown of TPM and NOPM allowed.
	MaxRegression float64
	// MaxLatencyRegression is the largest rise of New-Order p90 allowed.
	MaxLatencyRegression float64
}

// Gated reports whether any figure is gated.
func (t Thresholds) Gated() bool { return t.MaxRegression >= 0 || t.MaxLatencyRegression >= 0 }

// RunRef names a compared run.
type RunRef struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Verdicts are B against A per users step and over all common steps, with
// the regression gate's result when thresholds were given: what
// compare --json prints.
type Verdicts struct {
	A RunRef `json:"a"`
	B RunRef `json:"b"`
	// Confidence is the level of the intervals (0.95).
	Confidence float64 `json:"confidence"`
	// Steps has one entry per users count either run measured, ascending.
	Steps []StepVerdict `json:"steps"`
	// Overall is the mean over the steps both runs measured.
	Overall OverallVerdict `json:"overall"`
	// DriftA and DriftB are the drift between runs that widened each run's
	// single-run intervals (a zero figure: the default, not measured).
	DriftA Drifts `json:"drift_a"`
	DriftB Drifts `json:"drift_b"`
	// Gate is the regression gate's result; nil without thresholds.
	Gate *GateResult `json:"gate,omitempty"`
	// Figure names a pgbench workload's figure of merit ("TPM of every
	// script", "TPM of SCRIPT"); "" for TPC-C (NOPM, New-Order p90).
	Figure string `json:"figure,omitempty"`
}

// StepVerdict is one users count of Verdicts.
type StepVerdict struct {
	Users int `json:"users"`
	// RepeatsA and RepeatsB are the repeats each run measured (0: none).
	RepeatsA int `json:"repeats_a"`
	RepeatsB int `json:"repeats_b"`
	// Seconds is the measured time of both runs at this step.
	Seconds float64 `json:"measured_seconds"`
	// Figures are TPM, NOPM and (when both runs have it) New-Order p90
	// and p99 (judged, never gated); empty when only one run measured the
	// step.
	Figures []FigureVerdict `json:"figures"`
	// Verdict is Worse when TPM or NOPM is worse, else Better when one is
	// better, else NotDistinguishable; "only in A" or "only in B" for a
	// step one run lacks.
	Verdict string `json:"verdict"`
}

// OverallVerdict is the comparison over the steps both runs measured:
// each figure's mean over those steps, the half-width combined as
// independent (√(Σ half²)/n).
type OverallVerdict struct {
	// Users are the common users counts.
	Users []int `json:"users"`
	// SameSteps tells both runs measured the same users counts.
	SameSteps bool            `json:"same_steps"`
	Figures   []FigureVerdict `json:"figures"`
	// Verdict combines TPM and NOPM as a step's Verdict does.
	Verdict string `json:"verdict"`
}

// Verdicts judges the comparison; th gates the figures (NotGated: none).
// A single run's intervals are widened by the drift between runs of its
// configuration (c.DriftA, c.DriftB; the default when not measured).
func (c *Comparison) Verdicts(th Thresholds) *Verdicts {
	conf := verdictConfidence(c)
	v := &Verdicts{A: RunRef{c.IDA, c.LabelA}, B: RunRef{c.IDB, c.LabelB}, Confidence: conf, DriftA: c.DriftA.resolved(), DriftB: c.DriftB.resolved()}
	var all [4][]Estimate // TPM A, TPM B, NOPM A, NOPM B of the common steps, before widening
	for _, r := range c.Rows {
		sv, raw := c.stepVerdict(r, th, conf)
		v.Steps = append(v.Steps, sv)
		if raw == nil {
			continue
		}
		for i := range all {
			all[i] = append(all[i], raw[i])
		}
	}
	v.Overall = OverallVerdict{Users: c.Common, SameSteps: c.SameSteps, Verdict: NotDistinguishable}
	if n := len(c.Common); n > 0 {
		v.Overall.Figures = []FigureVerdict{c.overallFigure(FigureTPM, all[0], all[1], conf, th.MaxRegression),
			c.overallFigure(FigureNOPM, all[2], all[3], conf, th.MaxRegression)}
		v.Overall.Verdict = combined(v.Overall.Figures)
	}
	c.nameFigures(v)
	if th.Gated() {
		v.Gate = gateOf(v, th)
	}
	return v
}

// overallFigure judges a figure's mean over the common steps: the steps'
// own half-widths combined as independent, then widened once by the drift
// between runs when any step was a single run — drift moves a run's steps
// together, so averaging steps does not shrink it.
func (c *Comparison) overallFigure(name string, a, b []Estimate, conf, threshold float64) FigureVerdict {
	repeated := false
	side := func(es []Estimate, d Drifts) Estimate {
		m := meanOf(es)
		single := false
		for _, e := range es {
			single = single || e.Interval != FromRepeats
			repeated = repeated || e.Interval == FromRepeats
		}
		if single {
			m = widen(m, d.of(name), conf, true)
		}
		return m
	}
	ea, eb := side(a, c.DriftA), side(b, c.DriftB)
	return judge(figure{name: name, higher: true, steps: len(a), repeated: repeated}, ea, eb, threshold)
}

// stepVerdict judges one users count: TPM, NOPM and New-Order p90 when
// both runs measured it, a single run's intervals widened by its drift.
// raw are TPM A, TPM B, NOPM A and NOPM B before widening, for the mean
// over the steps; nil when a run lacks the step.
func (c *Comparison) stepVerdict(r ComparisonRow, th Thresholds, conf float64) (StepVerdict, []Estimate) {
	sv := StepVerdict{Users: r.Users}
	if r.A != nil {
		sv.RepeatsA, sv.Seconds = r.A.Repeats, r.A.MeasuredSeconds
	}
	if r.B != nil {
		sv.RepeatsB, sv.Seconds = r.B.Repeats, sv.Seconds+r.B.MeasuredSeconds
	}
	switch {
	case r.B == nil:
		sv.Verdict = "only in A"
		return sv, nil
	case r.A == nil:
		sv.Verdict = "only in B"
		return sv, nil
	}
	raw := []Estimate{tpmEstimate(r.A), tpmEstimate(r.B), nopmEstimate(r.A), nopmEstimate(r.B)}
	rep := raw[0].Interval == FromRepeats || raw[1].Interval == FromRepeats
	judged := func(name string, a, b Estimate, higher bool, threshold float64) FigureVerdict {
		a, b = widen(a, c.DriftA.of(name), conf, higher), widen(b, c.DriftB.of(name), conf, higher)
		return judge(figure{name: name, higher: higher, steps: 1, repeated: rep || !higher}, a, b, threshold)
	}
	sv.Figures = []FigureVerdict{judged(FigureTPM, raw[0], raw[1], true, th.MaxRegression),
		judged(FigureNOPM, raw[2], raw[3], true, th.MaxRegression)}
	if pa, pb, ok := p90Estimates(r); ok {
		sv.Figures = append(sv.Figures, judged(FigureP90, pa, pb, false, th.MaxLatencyRegression))
	}
	if r.P99A != nil && r.P99B != nil {
		sv.Figures = append(sv.Figures, judged(FigureP99, *r.P99A, *r.P99B, false, NotGated))
	}
	sv.Verdict = combined(sv.Figures)
	return sv, raw
}

// tpmEstimate is a step's TPM with the interval across repeats, or with
// one repeat its own batch-means interval.
func tpmEstimate(a *analysis.StepAggregate) Estimate {
	return throughputEstimate(a.TPM.Mean, a.TPMCI.N, a.TPMCI.Half, a.BatchTPMCI.Half)
}

// nopmEstimate is nopm's tpmEstimate.
func nopmEstimate(a *analysis.StepAggregate) Estimate {
	return throughputEstimate(a.NOPM.Mean, a.NOPMCI.N, a.NOPMCI.Half, a.BatchNOPMCI.Half)
}

func throughputEstimate(mean float64, repeats int, repeatsHalf, batchHalf float64) Estimate {
	switch {
	case repeats >= 2:
		return Estimate{Value: mean, Half: repeatsHalf, Interval: FromRepeats}
	case batchHalf > 0:
		return Estimate{Value: mean, Half: batchHalf, Interval: FromBatchMeans}
	default:
		return Estimate{Value: mean, Interval: NoInterval}
	}
}

// p90Estimates are both steps' New-Order p90: the mean of the repeats'
// p90 with its interval when repeated; with one repeat the mean of its
// measured windows' p90 with that mean's interval (WindowPercentile), or
// the step's p90 without an interval (never decided). ok is false when a
// run has no New-Order latency.
func p90Estimates(r ComparisonRow) (ea, eb Estimate, ok bool) {
	one := func(s *analysis.StepAggregate, w *steady.Interval) (Estimate, bool) {
		switch {
		case s.NewOrderP90CI.N >= 2:
			return Estimate{Value: s.NewOrderP90CI.Mean, Half: s.NewOrderP90CI.Half, Interval: FromRepeats}, true
		case w != nil:
			return Estimate{Value: w.Mean, Half: w.Half, Interval: FromWindows}, true
		}
		t := meritOf(s)
		if t == nil || t.Count == 0 {
			return Estimate{}, false
		}
		return Estimate{Value: t.P90Ms, Interval: NoInterval}, true
	}
	ea, okA := one(r.A, r.P90A)
	eb, okB := one(r.B, r.P90B)
	return ea, eb, okA && okB
}

// meanOf is the mean of the steps' estimates, the half-width combined as
// independent: √(Σ half²)/n; no interval when a step has none.
func meanOf(es []Estimate) Estimate {
	out := Estimate{Interval: FromSteps}
	var ss float64
	known := len(es) > 0
	for _, e := range es {
		out.Value += e.Value
		ss += e.Half * e.Half
		known = known && e.Half > 0
	}
	n := float64(len(es))
	if n == 0 {
		return Estimate{Interval: NoInterval}
	}
	out.Value /= n
	if !known {
		out.Interval = NoInterval
		return out
	}
	out.Half = math.Sqrt(ss) / n
	return out
}

// combined is a step's verdict from its throughput figures: Worse when
// any is worse, else Better when any is better.
func combined(fs []FigureVerdict) string {
	var vs []string
	for _, f := range fs {
		if f.HigherIsBetter {
			vs = append(vs, f.Verdict)
		}
	}
	switch {
	case slices.Contains(vs, Worse):
		return Worse
	case slices.Contains(vs, Better):
		return Better
	default:
		return NotDistinguishable
	}
}
