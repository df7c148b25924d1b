package report

import (
	"fmt"
	"math"

	"github.com/rightsize/rightsize/steady"
)

// The verdicts of a figure, a step and a whole comparison: B against A.
const (
	// Better: B's interval lies wholly on the better side of A's.
	Better = "better"
	// Worse: B's interval lies wholly on the worse side of A's.
	Worse = "worse"
	// NotDistinguishable: the intervals overlap.
	NotDistinguishable = "not distinguishable at this precision"
)

// Where an Estimate's interval comes from.
const (
	// FromRepeats is the t interval of the mean across the step's repeats.
	FromRepeats = "across repeats"
	// FromBatchMeans is the batch-means interval of a single repeat.
	FromBatchMeans = "batch means"
	// FromSteps is the interval of a mean over several steps, combined as
	// independent.
	FromSteps = "combined over the steps"
	// NoInterval: the figure has no interval (a step too short for batch
	// means, one repeat of a latency, a store without intervals).
	NoInterval = "none"
)

// NoIntervalNote is said of a figure decided without intervals.
const NoIntervalNote = "no interval: decided on the threshold alone"

// Estimate is one run's value of a figure with its confidence interval.
type Estimate struct {
	// Value is the figure (the mean across repeats).
	Value float64 `json:"value"`
	// Half is the interval's half-width (Value ± Half); 0 when it has none.
	Half float64 `json:"half"`
	// Interval says where the interval comes from (FromRepeats ...).
	Interval string `json:"interval"`
}

func (e Estimate) interval() steady.Interval { return steady.Interval{Mean: e.Value, Half: e.Half} }

// FigureVerdict is one figure (TPM, NOPM, New-Order p90) of B against A.
type FigureVerdict struct {
	// Figure names it: "TPM", "NOPM", "New-Order p90 ms".
	Figure string `json:"figure"`
	// HigherIsBetter is true for throughput, false for latency.
	HigherIsBetter bool `json:"higher_is_better"`
	// A and B are the runs' values with their intervals.
	A Estimate `json:"a"`
	B Estimate `json:"b"`
	// Ratio is B/A and RatioHalf the half-width of its interval (first
	// order: the relative half-widths of A and B added in quadrature); 0
	// when either run has no interval.
	Ratio     float64 `json:"ratio"`
	RatioHalf float64 `json:"ratio_half"`
	// SlowerPct is how much worse B is, % of A: 1 − B/A for throughput,
	// B/A − 1 for latency; negative when B is better.
	SlowerPct float64 `json:"slower_pct"`
	// Verdict is Better, Worse or NotDistinguishable.
	Verdict string `json:"verdict"`
	// Note says how the verdict was reached when not by separated
	// intervals (NoIntervalNote), or what precision would decide it.
	Note string `json:"note,omitempty"`
	// MaxRegressionPct is the gate's threshold for this figure, %; absent
	// when the figure is not gated.
	MaxRegressionPct *float64 `json:"max_regression_pct,omitempty"`
	// Regression is true when the gate fails on this figure: B worse by
	// more than the threshold, with the intervals separated (or, without
	// intervals, by the threshold alone).
	Regression bool `json:"regression"`
}

// figure is what judge needs to know of a figure besides its values.
type figure struct {
	name   string
	higher bool // higher is better (throughput)
	// steps is how many steps' means the values average (1 for a step);
	// repeated tells the intervals are across repeats. Both shape the
	// precision that would decide a difference.
	steps    int
	repeated bool
}

// judge compares b against a. threshold is the largest slowdown allowed,
// a fraction; negative when the figure is not gated.
func judge(f figure, a, b Estimate, threshold float64) FigureVerdict {
	higher := f.higher
	v := FigureVerdict{Figure: f.name, HigherIsBetter: higher, A: a, B: b, Verdict: NotDistinguishable}
	if threshold >= 0 {
		pct := threshold * 100
		v.MaxRegressionPct = &pct
	}
	if a.Value == 0 {
		v.Note = "A measured 0: no ratio"
		return v
	}
	v.Ratio = b.Value / a.Value
	slower := v.Ratio - 1
	if higher {
		slower = 1 - v.Ratio
	}
	v.SlowerPct = slower * 100
	th := max(threshold, 0)
	if a.Half <= 0 || b.Half <= 0 {
		v.Note = NoIntervalNote
		switch {
		case slower > th:
			v.Verdict = Worse
		case -slower > th:
			v.Verdict = Better
		}
	} else {
		if b.Value != 0 {
			v.RatioHalf = v.Ratio * math.Hypot(a.Half/a.Value, b.Half/b.Value)
		}
		v.Verdict = separated(steady.Compare(b.interval(), a.interval()), higher)
		if v.Verdict == NotDistinguishable && slower != 0 {
			v.Note = decidingPrecision(a, b, f)
		}
	}
	v.Regression = threshold >= 0 && v.Verdict == Worse && slower > threshold
	return v
}

// separated turns steady.Compare(B, A) into B's verdict.
func separated(c steady.Verdict, higher bool) string {
	switch {
	case c == steady.Indistinguishable:
		return NotDistinguishable
	case (c == steady.FirstBetter) == higher:
		return Better // B's interval above A's for throughput, below for latency
	default:
		return Worse
	}
}

// decidingPrecision says what precision of both runs would separate the
// intervals of a difference this large: relative half-widths below
// |A−B|/(A+B) on the figure, which for a mean over n steps of equal
// precision is √n times that on each step.
func decidingPrecision(a, b Estimate, f figure) string {
	diff := math.Abs(b.Value/a.Value-1) * 100
	need := math.Abs(a.Value-b.Value) / (a.Value + b.Value) * 100 * math.Sqrt(float64(max(f.steps, 1)))
	need = math.Floor(need*10) / 10
	if need < 0.1 {
		return fmt.Sprintf("a %.2f %% difference is below what any practical precision decides", diff)
	}
	each := ""
	if f.steps > 1 {
		each = " on each step"
	}
	if f.repeated {
		return fmt.Sprintf("intervals across repeats of ±%.1f %%%s (more --repeat) would decide a %.1f %% difference", need, each, diff)
	}
	return fmt.Sprintf("a precision of ±%.1f %%%s (--precision %.1f%%) would decide a %.1f %% difference", need, each, need, diff)
}
