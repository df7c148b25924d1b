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
	// FromWindows is the interval of the mean of the measured windows'
	// percentiles of a single repeat (batch means, one window a batch).
	FromWindows = "windows' percentiles"
	// FromDriftOnly is the interval of a single run's figure without an
	// interval of its own (a step too short for batch means): the drift
	// between runs alone.
	FromDriftOnly = "drift between runs only"
	// NoInterval: the figure has no interval (a latency of one repeat with
	// fewer than two measured windows, a store without them).
	NoInterval = "none"
)

// NoIntervalNote is said of a figure without an interval: it is never
// decided, so it never fails a gate.
const NoIntervalNote = "no interval: not decided (a percentile needs 2 or more measured windows or repeats)"

// DriftNotMeasuredNote is said of a verdict left undecided by the default
// drift between runs.
const DriftNotMeasuredNote = "drift between runs not measured here: use rightsize ab (interleaved), --repeat or rightsize calibrate"

// Estimate is one run's value of a figure with its confidence interval.
type Estimate struct {
	// Value is the figure (the mean across repeats).
	Value float64 `json:"value"`
	// Half is the interval's half-width (Value ± Half); 0 when it has none.
	Half float64 `json:"half"`
	// Interval says where the interval comes from (FromRepeats ...).
	Interval string `json:"interval"`
	// Within is, for a single run's interval widened by the drift between
	// runs, the half-width from inside the run before widening (Half² =
	// Within² + between²).
	Within float64 `json:"within_half,omitempty"`
	// Drift is the drift between runs that widened Half; nil when not
	// widened (an interval across repeats already holds it, or none).
	Drift *steady.Drift `json:"drift,omitempty"`
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
	// more than the threshold, with the intervals (a single run's widened
	// by the drift between runs) separated; never without intervals.
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
	if a.Interval == NoInterval || b.Interval == NoInterval {
		v.Note = NoIntervalNote
		return v
	}
	if b.Value != 0 {
		v.RatioHalf = v.Ratio * math.Hypot(a.Half/a.Value, b.Half/b.Value)
	}
	v.Verdict = separated(steady.Compare(b.interval(), a.interval()), higher)
	if v.Verdict == NotDistinguishable && slower != 0 {
		v.Note = undecidedNote(a, b, f)
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

// undecidedNote says what would decide a difference the intervals leave
// open: measuring the drift between runs when it was assumed, interleaving
// or repeating when the measured drift is what keeps them apart, else a
// finer precision within the runs.
func undecidedNote(a, b Estimate, f figure) string {
	for _, e := range []Estimate{a, b} {
		if e.Drift != nil && !e.Drift.Measured() {
			return DriftNotMeasuredNote
		}
	}
	for _, e := range []Estimate{a, b} {
		if e.Drift != nil && e.Half*e.Half > 2*e.Within*e.Within {
			return fmt.Sprintf("the drift between runs (%s) is wider than the runs' own intervals: rightsize ab (interleaved) or --repeat would decide it", e.Drift)
		}
	}
	return decidingPrecision(a, b, f)
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
