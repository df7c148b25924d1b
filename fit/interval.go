package fit

import (
	"fmt"
	"strconv"

	"github.com/rightsize/rightsize/analysis"
	"github.com/rightsize/rightsize/steady"
	"github.com/rightsize/rightsize/store"
)

// MeasuredOf is a stored run's measurement: its steps aggregated across
// repeats and each repeat's NOPM interval per step (the batch-means
// interval the run stored with the step; half-width 0 when the step was
// too short for one, or stored before intervals were).
func MeasuredOf(runID string, steps []store.Step) Measured {
	m := Measured{RunID: runID, Steps: analysis.Aggregate(steps), Repeats: map[int][]steady.Interval{}, Raw: steps}
	complete := map[int]bool{}
	for _, s := range steps {
		complete[s.Index] = complete[s.Index] || !s.Partial
	}
	for _, s := range steps {
		if s.Partial && complete[s.Index] { // as Aggregate: partial steps only when nothing else
			continue
		}
		conf := s.Confidence
		if conf == 0 {
			conf = 0.95
		}
		m.Repeats[s.Index] = append(m.Repeats[s.Index], steady.Interval{Mean: s.NOPM, Half: s.NOPMCIHalf, Confidence: conf, N: 1})
	}
	return m
}

// judged is the NOPM interval the criteria judge at step a, and how it
// was obtained. By default (range) the repeat whose interval reaches
// lowest decides: every repeat's interval must lie above the target.
// With Mean, the t interval of the mean across the repeats decides (the
// batch-means interval with one repeat). Without a stored interval the
// figure alone decides (half-width 0).
func judged(ms Measured, a *analysis.StepAggregate, cr Criteria) (steady.Interval, string) {
	reps := ms.Repeats[a.Index]
	if cr.Mean && a.Repeats >= 2 {
		iv := a.NOPMCI
		if iv.N < 2 { // stored without it: the mean alone
			iv = steady.Interval{Mean: a.NOPM.Mean, Confidence: 0.95, N: a.Repeats, BatchSize: 1}
		}
		return iv, fmt.Sprintf("mean of %d repeats%s", a.Repeats, ciWhat(iv, "t interval across repeats"))
	}
	if len(reps) == 0 {
		iv := steady.Interval{Mean: a.NOPM.Min, Confidence: 0.95, N: 1}
		if a.Repeats < 2 {
			return iv, "one repeat"
		}
		return iv, fmt.Sprintf("lowest of %d repeats", a.Repeats)
	}
	low := reps[0]
	for _, r := range reps[1:] {
		if r.Low() < low.Low() || r.Low() == low.Low() && r.Mean < low.Mean {
			low = r
		}
	}
	how := "one repeat"
	if len(reps) > 1 {
		how = fmt.Sprintf("lowest of %d repeats", len(reps))
	}
	return low, how + ciWhat(low, "batch means")
}

// ciWhat names an interval's level and method ("" without a half-width).
func ciWhat(iv steady.Interval, method string) string {
	if iv.Half <= 0 {
		return ""
	}
	return ", " + strconv.FormatFloat(iv.Confidence*100, 'g', -1, 64) + " % interval, " + method
}

// withHalf is "5,120 ± 90", or "5,120" without a half-width.
func withHalf(iv steady.Interval) string {
	if iv.Half <= 0 {
		return fmtInt(iv.Mean)
	}
	return fmtInt(iv.Mean) + " ± " + fmtInt(iv.Half)
}

// Against the target: its interval wholly above, wholly below, or
// holding the target (not distinguishable from it at this precision).
const (
	above = iota
	below
	straddles
)

func againstTarget(iv steady.Interval, target float64) int {
	switch {
	case iv.Low() >= target:
		return above
	case iv.High() < target:
		return below
	default:
		return straddles
	}
}

// Pair is two measured candidates (indexes into Result.Trials) whose
// judged NOPM intervals overlap: neither can be called better.
type Pair struct {
	A int `json:"a"`
	B int `json:"b"`
}

// indistinct returns the measured candidates whose judged interval
// overlaps the answer's (Best, else Closest): they cannot be told apart
// from it at this precision (steady.Compare).
func (r *Result) indistinct() []Pair {
	ref := r.Best
	if ref < 0 {
		ref = r.Closest
	}
	if ref < 0 {
		return nil
	}
	var out []Pair
	for i, t := range r.Trials {
		if i == ref || !t.measured() || t.Interval.Half <= 0 && r.Trials[ref].Interval.Half <= 0 {
			continue
		}
		if steady.Compare(r.Trials[ref].Interval, t.Interval) == steady.Indistinguishable {
			out = append(out, Pair{A: ref, B: i})
		}
	}
	return out
}

// PairText says of a pair that it cannot be told apart, with both
// intervals: "cpus 1 (NOPM 4,990 ± 60) and cpus 2 (NOPM 5,050 ± 70):
// not distinguishable at this precision".
func (r *Result) PairText(p Pair) string {
	a, b := r.Trials[p.A], r.Trials[p.B]
	return fmt.Sprintf("%s (NOPM %s) and %s (NOPM %s): %s", a.Candidate, withHalf(a.Interval), b.Candidate, withHalf(b.Interval), steady.Indistinguishable)
}
